"""1856, 1870, 1882, 1867 and 1861: route bonuses from the position's state, the connection
run, 1867's pay rows with fillers, and every shared 18xx.games position of these titles.

Hand-made boards hold each rule against the oracle and the validator (`solve_checked`). The
corpus part reads ``../shared/corpus/<title>.jsonl`` (or ``$HEXRAIL_CORPUS``) at run time,
every position (skipped with the reason when the corpus is absent).
"""

from __future__ import annotations

import pytest
from conftest import corpus_params, line_hexes, solve_checked

import hexrail
from hexrail.errors import HexrailError
from hexrail.rules import get_profile
from hexrail.rules.base import SetsBonus, state_bonuses
from hexrail.rules.g1882 import EAST_WEST
from hexrail.validate import check_plan

X = "X"  # the operating company


def board(profile: str, cells: list[str], trains: list[str], state: dict,
          tokens: dict | None = None) -> dict:
    return {"layout": "flat", "rules": {"profile": profile}, "company": X,
            "companies": [{"id": X, "home": "A1"}], "trains": trains,
            "hexes": line_hexes(cells, tokens), "state": state}


def once(name: str, hexes: list[str], amount: int) -> dict:
    return {"id": name, "type": "stop_in_hexes", "count": "once", "hexes": hexes, "amount": amount}


def bonus_names(plan) -> dict[str, int]:
    out: dict[str, int] = {}
    for route in plan.routes:
        for name, amount in route.bonuses:
            out[name] = out.get(name, 0) + amount
    return out


# -- 1856 --------------------------------------------------------------------------------------------


def test_1856_port_bonus_is_weighed_against_a_better_plain_route():
    # X at A3: west to A1 (10, the port hex) or east to A5 (25). With the port marker the
    # route west earns 10 + 20 + 20; without it the route east pays more.
    cells = ["city=revenue:10", "city=revenue:20", "city=revenue:25"]
    tokens = {"A3": [X]}
    port = board("1856", cells, ["2"], {"route_bonuses": [once("port", ["A1"], 20)]}, tokens)
    plain = board("1856", cells, ["2"], {"route_bonuses": []}, tokens)
    assert solve_checked(port).revenue == 50 and bonus_names(solve_checked(port)) == {"port": 20}
    assert solve_checked(plain).revenue == 45


def test_1856_port_pays_once_and_rights_per_distinct_hex():
    # A3 holds two towns (a double-town port hex): the port pays once; the tunnel right pays
    # per distinct stop hex (A3 and A5), not per stop.
    hexes = line_hexes(["city=revenue:20", "", "city=revenue:30"])
    hexes["A3"] = {"tile": "town=revenue:10;town=revenue:10;path=a:3,b:_0;path=a:_0,b:_1;"
                           "path=a:_1,b:0"}
    doc = {"layout": "flat", "rules": {"profile": "1856"}, "company": X,
           "companies": [{"id": X, "home": "A1"}], "trains": ["4"], "hexes": hexes,
           "state": {"route_bonuses": [
               once("port", ["A3"], 20),
               {"id": "tunnel", "type": "stop_in_hexes", "count": "per_hex",
                "hexes": ["A3", "A5"], "amount": 10}]}}
    plan = solve_checked(doc)
    assert plan.revenue == 20 + 10 + 10 + 30 + 20 + 2 * 10
    assert bonus_names(plan) == {"port": 20, "tunnel": 20}


def test_1856_raw_state_keys_give_the_same_bonuses():
    cells = ["city=revenue:20", "city=revenue:10", "city=revenue:30"]
    raw = {"port_bonus_entitled": True, "port_hexes": ["A3"], "port_bonus": 20,
           "hex_bonuses": [{"kind": "tunnel", "hexes": ["A5"], "amount": 10}]}
    normalised = {"route_bonuses": [once("port", ["A3"], 20),
                                    {"id": "tunnel", "type": "stop_in_hexes", "count": "per_hex",
                                     "hexes": ["A5"], "amount": 10}]}
    assert solve_checked(board("1856", cells, ["3"], raw)).revenue == 60 + 30 \
        == solve_checked(board("1856", cells, ["3"], normalised)).revenue


# -- 1882 --------------------------------------------------------------------------------------------


EW_CELLS = ["offboard=revenue:20", "city=revenue:10", "city=revenue:40", "offboard=revenue:30"]


@pytest.mark.parametrize("train, revenue", [("3", 80), ("4", 200)])
def test_1882_east_west_needs_both_ends(train, revenue):
    # a 3-train reaches one offboard only (A3-A5-A7: 80); a 4-train runs A1 to A7: 100 + 100
    state = {"route_bonuses": [{"id": "east_west", "type": "stops_in_all_sets", "count": "once",
                                "sets": [["A1"], ["A7"]], "amount": 100}]}
    plan = solve_checked(board("1882", EW_CELLS, [train], state, {"A3": [X]}))
    assert plan.revenue == revenue


def test_1882_without_state_uses_the_constant_bonus():
    pos = hexrail.io.native.load_position(board("1882", EW_CELLS, ["4"], {}, {"A3": [X]}))
    profile = get_profile("1882")(pos)
    assert profile.bonuses(pos, pos.trains[0]) == (EAST_WEST,)
    assert EAST_WEST == SetsBonus("east_west", 100, (("I1", "B2"), ("B12",)))


# -- 1870 --------------------------------------------------------------------------------------------


DESTINATION = {"id": "destination", "type": "end_stop_in_hex_doubled", "hexes": ["A5"]}


def test_1870_destination_pays_an_end_stop_again_not_a_passed_one():
    # A1-A3-A5 ends in the destination: 90 + 40 = 130; the longer A1..A7 passes it: 100
    cells = ["city=revenue:20", "city=revenue:30", "city=revenue:40", "city=revenue:10"]
    plan = solve_checked(board("1870", cells, ["4"], {"route_bonuses": [DESTINATION]}))
    assert plan.revenue == 130 and bonus_names(plan) == {"destination": 40}
    assert solve_checked(board("1870", cells, ["4"], {"route_bonuses": []})).revenue == 100


def test_1870_cattle_and_port_add_once():
    cells = ["city=revenue:20", "city=revenue:30", "city=revenue:40"]
    state = {"route_bonuses": [once("cattle", ["A3"], 10), once("port_open", ["A3", "A5"], 20),
                               DESTINATION]}
    plan = solve_checked(board("1870", cells, ["3"], state))
    assert bonus_names(plan) == {"cattle": 10, "port_open": 20, "destination": 40}


CONNECTION_CELLS = ["city=revenue:20", "city=revenue:10", "city=revenue:10", "city=revenue:90"]


def connection_run(**extra) -> dict:
    return {"route_bonuses": [], "connection_run": True, "home_hex": "A1",
            "connection_run_destination": "A5", **extra}


@pytest.mark.parametrize("trains, revenue", [(["4"], 40), (["4", "2"], 40), (["3"], 40)])
def test_1870_connection_run_binds(trains, revenue):
    # Without the rule a 4-train runs A1..A7 (130); in a connection run some route must run
    # from A1 to A5: a 4-train's A1-A3-A5 (40) is then the best plan.
    plan = solve_checked(board("1870", CONNECTION_CELLS, trains, connection_run()))
    assert plan.revenue == revenue
    assert [r.stops[0][:2] + r.stops[-1][:2] for r in plan.routes] == ["A1A5"]
    free = solve_checked(board("1870", CONNECTION_CELLS, trains, {"route_bonuses": []}))
    assert free.revenue == (40 if trains == ["3"] else 130)


def test_1870_connection_run_refuses_a_plan_without_such_a_route():
    doc = board("1870", CONNECTION_CELLS, ["4"], connection_run())
    report = check_plan(doc, {"routes": [{"train": "4-0", "stops": ["A1-0", "A3-0", "A5-0", "A7-0"]}]})
    assert not report.legal and "connection run" in str(report)


def test_1870_connection_run_needs_its_hexes():
    with pytest.raises(HexrailError, match="state.home_hex"):
        hexrail.solve(board("1870", CONNECTION_CELLS, ["4"], connection_run(home_hex="Q99")))


@pytest.mark.parametrize("raw, where", [
    ("port", "state.route_bonuses"),
    (["port"], r"state.route_bonuses\[0\]"),
    ([{"id": "x", "type": "stop_in_hexes", "hexes": "A1", "amount": 1}], "hexes must be a list"),
    ([{"id": "x", "type": "stop_in_hexes", "hexes": ["A1"], "amount": "1"}], "amount must be"),
    ([{"id": "x", "type": "stops_in_all_sets", "sets": [], "amount": 1}], "sets must be"),
    ([{"id": "x", "type": "mystery"}], "unknown route bonus type 'mystery'"),
])
def test_bad_route_bonuses_name_the_field(raw, where):
    with pytest.raises(HexrailError, match=where):
        state_bonuses(raw)
    doc = board("1856", ["city=revenue:10", "city=revenue:20"], ["2"], {"route_bonuses": raw})
    with pytest.raises(HexrailError, match="state.route_bonuses"):
        hexrail.solve(doc)


# -- 1867 and 1861 -----------------------------------------------------------------------------------

E5 = {"id": "5+5E-0", "name": "5+5E", "spec": {
    "rows": [{"nodes": ["offboard"], "pay": 5, "visit": 5},
             {"nodes": ["city", "town"], "pay": 0, "visit": 99}], "multiplier": 2}}
N3 = {"id": "3-0", "name": "3", "spec": {"rows": [{"nodes": ["city", "offboard"], "pay": 3, "visit": 3},
                                                  {"nodes": ["town"], "pay": 0, "visit": 99}]}}


def test_1867_towns_fill_the_free_slots():
    # a 3 visits two cities (20, 10) and two towns (30, 10): the best town fills the third slot
    cells = ["city=revenue:20", "town=revenue:30", "city=revenue:10", "town=revenue:10"]
    plan = solve_checked(board("1867", cells, [N3], {}))
    assert plan.revenue == 60 and sorted(plan.routes[0].paid) == ["A1-0", "A3-0", "A5-0"]
    assert solve_checked(board("generic", cells, [N3], {})).revenue == 30  # towns pay 0


E_CELLS = ["offboard=revenue:60", "city=revenue:10", "city=revenue:10", "city=revenue:40",
           "city=revenue:40", "offboard=revenue:50"]


def test_1867_five_plus_five_e_pays_its_station():
    # offboards A1, A11 and three of the cities; one paid city must be X's (A3, worth 10)
    plan = solve_checked(board("1867", E_CELLS, [E5], {"hex_bonuses": []}, {"A3": [X]}))
    assert plan.revenue == 2 * (60 + 50 + 10 + 40 + 40)
    assert "A3-0" in plan.routes[0].paid


def test_1867_pair_bonus_steers_the_fillers_and_is_multiplied():
    # the pair bonus A5 + A11 (40 x 2) makes the 10 of A5 worth paying over a 40
    state = {"pair_bonus": {"hexes_a": ["A5"], "hexes_b": ["A11"], "amount": 40,
                            "times_train_multiplier": True}}
    plan = solve_checked(board("1867", E_CELLS, [E5], state, {"A3": [X]}))
    assert plan.revenue == 2 * (60 + 50 + 10 + 10 + 40) + 80
    assert "A5-0" in plan.routes[0].paid and bonus_names(plan) == {"pair": 80}


def test_1867_hex_bonus_per_distinct_paid_hex():
    state = {"hex_bonuses": [{"company": "MB", "hexes": ["A3", "A7"], "amount": 10}]}
    cells = ["city=revenue:20", "city=revenue:30", "city=revenue:10", "city=revenue:10"]
    plan = solve_checked(board("1867", cells, [N3], state))
    assert plan.revenue == 60 + 10 and bonus_names(plan) == {"MB": 10}


def test_1861_one_stop_per_hex():
    # A3 holds two cities joined inside the hex: a route may stop at one of them only
    hexes = line_hexes(["city=revenue:20", "", "city=revenue:10"])
    hexes["A3"] = {"tile": "city=revenue:30;city=revenue:30;path=a:3,b:_0;path=a:_0,b:_1;"
                           "path=a:_1,b:0"}
    doc = {"layout": "flat", "rules": {"profile": "1861"}, "company": X,
           "companies": [{"id": X, "home": "A1"}], "trains": ["4"], "hexes": hexes,
           "state": {}}
    assert solve_checked(doc).revenue == 50
    assert solve_checked({**doc, "rules": {"profile": "generic"}}).revenue == 90


# -- the shared 18xx.games positions -----------------------------------------------------------------

TITLES = ("1856", "1870", "1882", "1867", "1861")


def _recorded(data: dict) -> int:
    figures = [data["submitted"]["revenue"]] if "revenue" in data["submitted"] else []
    ar = data.get("auto_router") or {}
    if "revenue_rescored" in ar and not ar.get("rescore_error"):
        figures.append(ar["revenue_rescored"])
    return max(figures, default=0)


def _check_position(data: dict, title: str) -> hexrail.Plan:
    from hexrail.io.g18xx import plan_from_18xx_routes, position_from_18xx

    pos = position_from_18xx(data)
    assert (pos.rules.profile, pos.meta["rules_covered"]) == (title, True)
    plan = hexrail.solve(pos)
    assert plan.optimal and plan.revenue >= _recorded(data), (plan.revenue, _recorded(data))
    report = check_plan(pos, plan)
    assert report.legal and report.revenue == plan.revenue, report.table()
    sub = data["submitted"]
    if "revenue" in sub and not sub.get("error"):
        theirs = check_plan(pos, plan_from_18xx_routes(sub["routes"]))
        assert theirs.legal, [e for r in theirs.routes for e in r.errors]
        assert theirs.revenue == sub["revenue"], theirs.table()
        if all("revenue" in r for r in sub["routes"]):  # per route too
            assert [r.revenue for r in theirs.routes] == [r["revenue"] for r in sub["routes"]]
    ar = data.get("auto_router") or {}
    if "revenue_rescored" in ar and not ar.get("rescore_error"):
        theirs = check_plan(pos, plan_from_18xx_routes(ar["routes"]))
        assert theirs.legal and theirs.revenue == ar["revenue_rescored"], theirs.table()
    return plan


def _params() -> list:
    return [pytest.param(p.values[0], title, id=p.id, marks=p.marks)
            for title in TITLES for p in corpus_params(title)]


@pytest.mark.parametrize("data, title", _params())
def test_corpus_position(data, title, warm_solver):
    """Every shared position (about 20 s for the five titles)."""
    _check_position(data, title)
