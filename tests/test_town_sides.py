"""Towns drawn at a hex side (docs/rules.md, generic): the track beside such a town is one
piece, so of the paths joining it from sides other than its own at most one is used, within a
route and across the plan. Hand-made boards, the 18xx.games reader's ``edge``, and random boards
against the oracle and the validator."""

from __future__ import annotations

import json

import pytest
from conftest import random_boards, solve_checked
from hypothesis import given, note
from strategies import positions

from hexrail.io.g18xx.reader import _loc
from hexrail.model.notation import parse_tile
from hexrail.validate import check_plan


def board(loc: str | None, trains: tuple = ("3", "2")) -> dict:
    """A town (10) in A3 joined to X's cities A1 (20, side 3), B4 (40, side 5) and A5 (30,
    side 0)."""
    town = ("town=revenue:10" + (f",loc:{loc}" if loc is not None else "")
            + ";path=a:3,b:_0;path=a:5,b:_0;path=a:0,b:_0")
    return {"format": "hexrail-position/1", "company": "X", "trains": list(trains),
            "hexes": {"A1": {"tile": "city=revenue:20;path=a:0,b:_0", "tokens": ["X"]},
                      "A3": {"tile": town},
                      "A5": {"tile": "city=revenue:30;path=a:3,b:_0", "tokens": ["X"]},
                      "B4": {"tile": "city=revenue:40;path=a:2,b:_0", "tokens": ["X"]}}}


@pytest.mark.parametrize("loc, revenue", [
    (None, 80 + 30),  # at the centre: A5 A3 B4 and A1 A3
    ("0", 40 + 50),  # own side 0: sides 3 and 5 share the stretch, A5 A3 and B4 A3
    ("3", 30 + 50),  # own side 3: A1 A3 and B4 A3
    ("5", 40 + 50),
    ("1", 50),  # no path from its own side: one path in all, B4 A3
    ("2.5", 50),  # a half side: the same
])
def test_paths_along_the_stretch_are_one_piece_of_track(loc, revenue):
    assert solve_checked(board(loc)).revenue == revenue


def test_the_validator_refuses_a_route_in_and_out_along_the_stretch():
    doc = board("0", trains=("3",))
    report = check_plan(doc, {"routes": [{"train": "3-0", "stops": ["A1-0", "A3-0", "B4-0"]}]})
    assert not report.legal and "beside A3-0" in str(report)
    two = board("0", trains=("2", "2"))
    report = check_plan(two, {"routes": [{"train": "2-0", "stops": ["A1-0", "A3-0"]},
                                         {"train": "2-1", "stops": ["B4-0", "A3-0"]}]})
    assert not report.legal and "both run along the track beside A3-0" in str(report)


def test_the_side_turns_with_the_tile():
    tile = parse_tile("town=revenue:10,loc:0;path=a:0,b:_0;path=a:2,b:_0;path=a:4,b:_0",
                      rotation=2)
    assert tile.town_side(tile.nodes[0]) == 2
    assert set(tile.stretches()) == {1, 2}  # the paths now from sides 4 and 0
    assert _loc((3.5 - 1) % 6) == "2.5" and _loc(4.0) == "4"


@random_boards(120)
@given(doc=positions(max_hexes=9, max_big_hexes=6, town_sides=True))
def test_solver_equals_oracle_with_towns_at_hex_sides(doc):
    note(json.dumps(doc))
    solve_checked(doc, max_routes=20_000)
