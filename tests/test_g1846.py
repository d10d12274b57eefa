"""1846: N/M trains choosing their paid stops (for a bonus, for the token rule), the east-west
bonus on both paid ends, private company hex bonuses, the mail contract and its ties, on
hand-made boards and random ones (each against the oracle and the validator), and every shared
18xx.games position of the title.
"""

from __future__ import annotations

import json

import pytest
from conftest import corpus_params, line_hexes, random_boards, solve_checked
from hypothesis import given, note
from hypothesis import strategies as st
from strategies import positions
from test_bonus_titles import _check_position, bonus_names

from hexrail.errors import HexrailError
from hexrail.validate import check_plan

X = "X"
EAST_WEST = {"east": {"A7-0": 30}, "west": {"A1-0": 50}}


def board(cells: list[str], trains: list, state: dict | None = None, tokens: dict | None = None) -> dict:
    return {"layout": "flat", "rules": {"profile": "1846"}, "company": X,
            "companies": [{"id": X, "home": "A3"}], "trains": trains,
            "hexes": line_hexes(cells, tokens or {"A3": [X]}), "state": state or {}}


# West offboard A1 (20), X's city A3 (10), a rich city A5 (60), east offboard A7 (30).
LINE = ["offboard=revenue:20", "city=revenue:10", "city=revenue:60", "offboard=revenue:30,groups:E"]


def test_n_m_pays_its_best_n_including_a_token_city():
    # 2/3 from A3 to A7: paying A5 and A7 (90) leaves out every token; A3 with A5 pays 70
    doc = board(LINE[1:], ["2/3"], tokens={"A1": [X]})
    assert solve_checked(doc).revenue == 70
    assert solve_checked({**doc, "rules": {"profile": "generic"}}).revenue == 90


def test_n_m_leaves_out_the_richest_stop_for_the_east_west_bonus():
    # 3/4 over the whole line: A3 (the token) must be paid; A1 and A7 with their bonus
    # (20 + 10 + 30 + 50 + 30 = 140) beat A5 in their place (10 + 60 + 30 = 100)
    plan = solve_checked(board(LINE, ["3/4"], {"east_west_bonus": EAST_WEST}))
    assert plan.revenue == 140 and bonus_names(plan) == {"east-west": 80}
    assert plan.routes[0].paid == ("A1-0", "A3-0", "A7-0")


def test_east_west_from_the_board_icons_and_labels():
    # without the state, the amounts are the hexes' numeric icons, west on a W tile
    cells = ["offboard=revenue:20;label=W;icon=name:50", *LINE[1:3], LINE[3] + ";icon=name:30"]
    assert solve_checked(board(cells, ["4"])).revenue == 120 + 80
    assert solve_checked(board(cells, ["3/4"])).revenue == 140


def test_a_private_hex_bonus_is_paid_once_per_route_on_a_paid_stop():
    steamboat = {"source": "SC", "hexes": ["A5"], "nodes": ["A5-0"], "amount_by_hex": {"A5": 40}}
    plan = solve_checked(board(LINE, ["4"], {"stop_bonuses": [steamboat]}))
    assert plan.revenue == 120 + 40 and bonus_names(plan) == {"SC": 40}
    # a 2/4 must pay A3 (the token): A5 with its bonus (100) beats A7 (30) or A1 (20)
    plan = solve_checked(board(LINE, ["2/4"], {"stop_bonuses": [steamboat]}))
    assert plan.revenue == 10 + 60 + 40
    with pytest.raises(HexrailError, match=r"state.stop_bonuses\[0\]: one company's hexes"):
        bad = {**steamboat, "hexes": ["A5", "A3"], "amount_by_hex": {"A5": 40, "A3": 20}}
        solve_checked(board(LINE, ["4"], {"stop_bonuses": [bad]}))


def test_the_mail_contract_pays_the_route_visiting_most_stops():
    # two 2 trains and a 3 train from X's A5: the mail contract adds 10 per stop of the longest
    cells = ["city=revenue:30", "city=revenue:20", "city=revenue:10", "city=revenue:20",
             "city=revenue:30"]
    hexes = line_hexes(cells, {"A5": [X]})
    mail = {"mail_contract": {"owned_by_entity": True, "per_visited_stop": 10}}
    doc = {"layout": "flat", "rules": {"profile": "1846"}, "company": X,
           "companies": [{"id": X, "home": "A5"}], "trains": ["3", "2"], "hexes": hexes,
           "state": mail}
    plan = solve_checked(doc)
    assert plan.revenue == 60 + 30 + 30 and bonus_names(plan) == {"mail contract": 30}
    assert [r.train_name for r in plan.routes if r.bonuses] == ["3"]
    # two equal routes: the train id greatest in string order gets it
    doc["trains"] = [{"id": "3-9", "spec": "3"}, {"id": "3-10", "spec": "3"}]
    plan = solve_checked(doc)
    assert [r.train for r in plan.routes if r.bonuses] == ["3-9"]
    assert check_plan(doc, plan).route("3-9").bonuses == (("mail contract", 30),)


# -- random boards against the oracle ------------------------------------------------------------------


@st.composite
def boards_1846(draw) -> dict:
    """A random small board (`strategies.positions`) run under 1846: N and N/M trains, its
    offboards east (one group) or west with bonus amounts, private bonuses on some cities,
    sometimes the mail contract."""
    doc = draw(positions(max_hexes=9, max_big_hexes=6))
    doc["rules"] = {"profile": "1846"}
    doc["trains"] = draw(st.lists(st.sampled_from(["2", "4", "2/3", "3/5", "4/6"]), min_size=1,
                                  max_size=3))
    state: dict = {"east_west_bonus": {"east": {}, "west": {}}}
    for h, spec in sorted(doc["hexes"].items()):
        for node in spec.get("nodes", ()):
            ref = f"{h}-{node['index']}"
            if node["kind"] == "offboard" and draw(st.booleans()):
                side = draw(st.sampled_from(["east", "west"]))
                state["east_west_bonus"][side][ref] = draw(st.sampled_from([20, 30, 50]))
                if side == "east":
                    node["groups"] = ["E"]
            elif node["kind"] == "city" and draw(st.integers(0, 3)) == 0:
                state.setdefault("stop_bonuses", []).append(
                    {"source": f"P{len(state.get('stop_bonuses', []))}", "hexes": [h],
                     "amount_by_hex": {h: draw(st.sampled_from([20, 30, 40]))}})
    if draw(st.booleans()):
        state["mail_contract"] = {"owned_by_entity": True, "per_visited_stop": 10}
    doc["state"] = state
    return doc


@random_boards(100)
@given(doc=boards_1846())
def test_solver_equals_oracle_on_random_boards(doc):
    note(json.dumps(doc))
    solve_checked(doc, max_routes=20_000)


# -- the shared 18xx.games positions ---------------------------------------------------------------


@pytest.mark.parametrize("data", corpus_params("1846"))
def test_corpus_position(data, warm_solver):
    """Every shared position: at least what the players and the auto-router earned, proven,
    and the players' routes scored as 18xx.games paid them, per route."""
    _check_position(data, "1846")
