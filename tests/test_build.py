"""Building a position in Python (`hexrail.position`): the obvious forms, and the reader's
errors."""

from __future__ import annotations

import pytest

import hexrail
from hexrail.model.position import Company

LINE = {"A1": "city=revenue:20;path=a:0,b:_0", "A3": "path=a:3,b:0",
        "A5": "city=revenue:30,slots:2;path=a:3,b:_0"}


def test_a_line_of_two_cities_solves():
    pos = hexrail.position(LINE, company="PRR", trains=["2"], tokens={"A1": "PRR"},
                           homes={"PRR": "A1"})
    assert hexrail.solve(pos).revenue == 50
    assert repr(pos) == "Position(generic: PRR, 3 hexes, trains 2)"


def test_hexes_tokens_and_homes_in_every_form():
    hexes = {**LINE, "A3": {"tile": "path=a:0,b:3"}, "C1": None}
    pos = hexrail.position(hexes, company="PRR", trains=["2", "3"],
                           tokens={"A1": ["PRR"], "A5": {"0": ["NYC", None]}},
                           homes={"PRR": ["A1"], "NYC": "A5-0"})
    assert {c.id for c in pos.companies} == {"PRR", "NYC"}
    assert pos.hex("C1").tile.paths == ()
    assert hexrail.solve(pos).revenue == 50  # NYC's token leaves A5 a slot


def test_a_company_takes_one_home_as_a_string():
    assert Company("PRR", home="A1").home == ("A1",)


@pytest.mark.parametrize("hexes, tokens, match", [
    ({"A1": "city=revenue:x"}, None, r"hex A1: .*revenue 'x'"),
    (LINE, {"Z9": "PRR"}, r"Z9"),
    (LINE, {"A1": ["PRR", "PRR"]}, r"A1"),
])
def test_bad_input_gets_the_readers_errors(hexes, tokens, match):
    with pytest.raises(hexrail.HexrailError, match=match):
        hexrail.position(hexes, company="PRR", trains=["2"], tokens=tokens)
