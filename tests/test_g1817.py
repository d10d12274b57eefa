"""1817: bridge markers paid per stop, mine and ranch markers paid along the track, one stop per
hex, junctions passed twice, modern trains, on hand-made boards and random ones (against the
oracle and the validator), and every shared 18xx.games position of the title.
"""

from __future__ import annotations

import json

import pytest
from conftest import corpus_params, line_hexes, random_boards, solve_checked
from hypothesis import given, note
from hypothesis import strategies as st
from strategies import positions
from test_bonus_titles import _check_position, bonus_names

X = "X"


def doc(hexes: dict, trains: list, state: dict | None = None, profile: str = "1817") -> dict:
    return {"layout": "flat", "rules": {"profile": profile}, "company": X,
            "companies": [{"id": X}], "trains": trains, "hexes": hexes, "state": state or {}}


# X's city C7 south of the junction C5; C3 north of it; B6 (a city) and B4 (plain track) on a
# loop that leaves C5 by one side and comes back by the next.
FIGURE_EIGHT = {
    "C5": {"tile": "junction;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_0;path=a:3,b:_0"},
    "C7": {"tile": "city=revenue:20;path=a:3,b:_0", "tokens": [X]},
    "C3": {"tile": "city=revenue:30;path=a:0,b:_0"},
    "B6": {"tile": "city=revenue:50;path=a:4,b:_0;path=a:_0,b:3"},
    "B4": {"tile": "path=a:0,b:5"},
}


def test_a_route_passes_a_junction_twice_by_other_track():
    # C7, the junction, B6, round the loop through B4, the junction again, C3: 20 + 50 + 30
    plan = solve_checked(doc(FIGURE_EIGHT, ["3"]))
    assert plan.revenue == 100 and plan.routes[0].stops == ("C7-0", "B6-0", "C3-0")
    assert solve_checked(doc(FIGURE_EIGHT, ["3"], profile="generic")).revenue == 70


def test_mines_pay_along_the_track_not_at_stops():
    # B4 holds plain track only: the route through it earns the mine, the short one does not
    state = {"mine_bonus": {"hexes": ["B4"], "per_hex_on_route": 10}}
    plan = solve_checked(doc(FIGURE_EIGHT, ["3"], state))
    assert plan.revenue == 110 and bonus_names(plan) == {"mine": 10}
    # a 2 train: C7 to B6 straight (70) or round by B4 (70 + 10)
    plan = solve_checked(doc(FIGURE_EIGHT, ["2"], state))
    assert plan.revenue == 80 and "B4" in plan.routes[0].hexes
    ranch = solve_checked(doc(FIGURE_EIGHT, ["2"], {"ranch_bonus": {"hexes": ["B4"]}}))
    assert ranch.revenue == 80 and bonus_names(ranch) == {"ranch": 10}


def test_bridges_pay_per_paid_stop_and_markers_come_from_assignments_too():
    cells = ["city=revenue:20", "city=revenue:30", "city=revenue:40"]
    state = {"bridge_bonus": {"hexes": ["A3", "A5"], "per_paid_stop": 10}}
    plan = solve_checked(doc(line_hexes(cells), ["3"], state))
    assert plan.revenue == 90 + 20 and bonus_names(plan) == {"bridge": 20}
    plan = solve_checked(doc(line_hexes(cells), ["3"], {"assignments": {"A5": ["bridge"]}}))
    assert plan.revenue == 90 + 10


def test_one_stop_per_hex():
    # A3 holds two cities joined inside the hex: a route through both names the hex twice,
    # which 18xx.games refuses, so A5 beyond them is out of reach
    hexes = line_hexes(["city=revenue:20", "", "city=revenue:10"])
    hexes["A3"] = {"tile": "city=revenue:40;city=revenue:40;path=a:3,b:_0;path=a:_0,b:_1;"
                           "path=a:_1,b:0"}
    assert solve_checked(doc(hexes, ["4"])).revenue == 20 + 40
    assert solve_checked(doc(hexes, ["4"], profile="generic")).revenue == 110


def test_modern_trains_pay_token_cities():
    cells = ["city=revenue:20", "city=revenue:30", "city=revenue:40"]
    hexes = line_hexes(cells, {"A1": [X], "A5": [X]})
    state = {"modern_trains": {"enabled": True, "per_token_city_by_distance": {"7": 10, "8": 20}}}
    assert solve_checked(doc(hexes, ["8"], state)).revenue == 90 + 2 * 20
    assert solve_checked(doc(hexes, ["7"], state)).revenue == 90 + 2 * 10
    assert solve_checked(doc(hexes, ["6"], state)).revenue == 90
    assert solve_checked(doc(hexes, ["8"], {"modern_trains": {"enabled": False}})).revenue == 90


# -- random boards against the oracle ------------------------------------------------------------------


@st.composite
def boards_1817(draw) -> dict:
    """A random small board (`strategies.positions`) run under 1817: N trains, bridge, mine and
    ranch markers on random hexes, some junctions, sometimes modern trains."""
    doc = draw(positions(max_hexes=9, max_big_hexes=6))
    doc["rules"] = {"profile": "1817"}
    doc["trains"] = draw(st.lists(st.sampled_from(["2", "3", "4", "6"]), min_size=1, max_size=3))
    hexes = sorted(doc["hexes"])
    state = {f"{m}_bonus": {"hexes": draw(st.lists(st.sampled_from(hexes), max_size=3, unique=True))}
             for m in ("bridge", "mine", "ranch")}
    if draw(st.booleans()):  # the Modern Trains option, here for short trains too
        state["modern_trains"] = {"enabled": True, "per_token_city_by_distance": {
            str(d): draw(st.sampled_from([0, 10, 20])) for d in (2, 3, 4, 6)}}
    doc["state"] = state
    return doc


@random_boards(100)
@given(doc=boards_1817())
def test_solver_equals_oracle_on_random_boards(doc):
    note(json.dumps(doc))
    solve_checked(doc, max_routes=20_000)


# -- the shared 18xx.games positions ---------------------------------------------------------------


@pytest.mark.parametrize("data", corpus_params("1817"))
def test_corpus_position(data, warm_solver):
    """Every shared position: at least what the players and the auto-router earned, proven,
    and the players' routes scored as 18xx.games paid them, per route."""
    _check_position(data, "1817")
