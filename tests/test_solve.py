"""The solver's contract: golden numbers, time limits with honest bounds, objectives, output."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import hexrail
from hexrail.plan import plan_from_json

sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))
from boards import dense_board  # noqa: E402


def test_demo_golden():
    plan = hexrail.solve(hexrail.example_path("demo"))
    assert plan.optimal and plan.revenue == 480 and plan.upper_bound == 480
    assert sorted(r.revenue for r in plan.routes) == [80, 150, 250]
    assert len(plan.routes) == 3


def test_plan_json_round_trip():
    plan = hexrail.solve(hexrail.example_path("demo"))
    doc = json.loads(plan.dumps())
    assert doc["optimal"] is True and doc["revenue"] == 480
    again = plan_from_json(doc)
    assert [r.paths for r in again.routes] == [r.paths for r in plan.routes]
    assert [r.stops for r in again.routes] == [r.stops for r in plan.routes]


def test_time_limit_returns_honest_bound():
    doc = dense_board(70, seed=2, link_p=0.85)
    exact = hexrail.solve(doc)
    assert exact.optimal
    cut = hexrail.solve(doc, time_limit=0.0)
    assert not cut.optimal
    assert cut.revenue <= exact.revenue <= cut.upper_bound


def test_deterministic():
    doc = dense_board(40, seed=5, link_p=0.8)
    a, b = hexrail.solve(doc), hexrail.solve(doc)
    assert a.to_json()["routes"] == b.to_json()["routes"]


HALTS = {
    "layout": "flat", "company": "A", "companies": [{"id": "A"}],
    "trains": [{"spec": {"rows": [{"nodes": ["city", "offboard", "town", "halt"], "pay": 2, "visit": 2}]}}],
    "hexes": {
        "A1": {"tile": "city=revenue:20;path=a:0,b:_0", "tokens": ["A"]},
        "A3": {"tile": "halt=symbol:H;path=a:3,b:_0;path=a:0,b:_0"},
        "A5": {"tile": "city=revenue:30;path=a:3,b:_0"},
    },
}


def test_optional_stop_passed_without_counting():
    plan = hexrail.solve(HALTS)
    assert plan.revenue == 50
    assert plan.routes[0].stops == ("A1-0", "A3-0", "A5-0")
    assert "A3-0" not in plan.routes[0].paid


def test_objective_argument_checked():
    with pytest.raises(hexrail.HexrailError, match="objective"):
        hexrail.solve(HALTS, objective="fun")


def test_table_mentions_optimality():
    table = hexrail.solve(hexrail.example_path("demo")).table()
    assert "proven optimal" in table and "480" in table


def _line_doc(cells, tokens, extra_tokens=None):
    from conftest import line_hexes

    hexes = line_hexes(cells, tokens)
    for hex_id, extras in (extra_tokens or {}).items():
        hexes[hex_id]["extra_tokens"] = {"0": extras}
    return {"layout": "flat", "company": "X",
            "companies": [{"id": "X", "home": "A1"}, {"id": "Y"}, {"id": "Z"}],
            "trains": ["3"], "hexes": hexes}


@pytest.mark.parametrize("track", [False, True])
def test_arm_two_is_bounded_by_the_best_arm_of_the_units_left(monkeypatch, track):
    """Once an anchor's walk is long, arm 2 is bounded by the best arm leaving the anchor with
    the units arm 1 left (`search._kernels.arm_bounds`): on a line, each side's arms exactly,
    their stops and the track bonus of their hexes; and the route that needs arm 2 to be just
    that arm is found."""
    import strategies  # noqa: F401 - registers the test-extras profile (its T hexes: +20 each)
    from hexrail.search import routes
    from hexrail.search.routes import enumerate_routes
    from hexrail.solve import prepare

    # 30 30 30 | 40 (the anchor) | track | 60
    cells = ["city=revenue:30"] * 3 + ["city=revenue:40", "", "city=revenue:60"]
    doc = _line_doc(cells, {"A7": ["X"]})
    doc["trains"] = ["5"]
    bonus = 0
    if track:
        doc["rules"] = {"profile": "test-extras", "options": {}}
        doc["hexes"]["A9"]["icons"] = ["T"]
        bonus = 20
    prep = prepare(doc)
    td, graph = prep.trains[0], prep.graph_of(0)
    anchor = int(td.anchors[0])
    from hexrail.search.routes import _arm_best, _track_view

    # one unit: the 60 (and the track on its way); two: still it, or 30 + 30; three: 90
    assert _arm_best(td, _track_view(graph, td.junctions_twice), anchor).tolist() == [
        0, 60 + bonus, max(60 + bonus, 60), 90]
    best = 90 + 40 + 60 + bonus
    monkeypatch.setattr(routes, "ARM_AFTER", 0)  # (bounded from the first step)
    found = enumerate_routes(graph, td, min_value=best)
    assert [int(v) for v in found.value()] == [best]
    assert hexrail.solve(doc).total == best


def test_arm_one_keeps_its_track_bonus_where_arm_two_is_bounded(monkeypatch):
    """Where arm 2 is bounded by the best arm of the units left, arm 1's own track bonus
    counts in the bound before the spawn is cut: the route below is worth what is wanted only
    with the bonus of the track arm 1 runs in."""
    import strategies  # noqa: F401 - registers the test-extras profile (its T hexes: +20 each)
    from hexrail.search import routes
    from hexrail.search.routes import enumerate_routes
    from hexrail.solve import prepare

    # 30 30 30 | track (T) | 40 (the anchor) | 60: arm 1 (the worthier) runs the 30s and the T
    # hex; the best arm 2 of the unit left is the 60
    cells = ["city=revenue:30"] * 3 + ["", "city=revenue:40", "city=revenue:60"]
    doc = _line_doc(cells, {"A9": ["X"]})
    doc["trains"] = ["5"]
    doc["rules"] = {"profile": "test-extras", "options": {"track_only": True}}
    doc["hexes"]["A7"]["icons"] = ["T"]
    prep = prepare(doc)
    td, graph = prep.trains[0], prep.graph_of(0)
    best = 30 * 3 + 20 + 40 + 60
    monkeypatch.setattr(routes, "ARM_AFTER", 0)  # (bounded from the first step)
    found = enumerate_routes(graph, td, min_value=best)
    assert [int(v) for v in found.value()] == [best]
    assert int(found.bonus[0]) == 20
    assert hexrail.solve(doc).total == best


def test_a_lone_partners_search_serves_only_the_walk_it_was_made_for(monkeypatch):
    """A walk beside one partner train finds the partner's best route sharing no track with
    it frame by frame, each frame going on from the one before (`_lone_partner`). A frame's
    search serves the frames above it only while they hold the chains they held: after the
    walk turns at frame 2 (chain c, then x), a frame 3 running chain b again is searched again.
    Run as plain Python (no compile): the kernels' own functions."""
    import numpy as np
    from hexrail.search import _kernels as K

    for name in ("_searched", "_lowest_bit"):
        monkeypatch.setattr(K, name, getattr(K, name).py_func)
    lone = K._lone_partner.py_func
    a, b, c, x = range(4)
    past = ~np.uint64(0b111)  # (bits past the partner's three routes: never free)
    # the partner's routes worth 100, 90, 80: the first shares track with c, the second with x
    clash = np.array([[past], [past], [past | np.uint64(0b001)], [past | np.uint64(0b010)]],
                     np.uint64)
    partner = K.PartnerArrays(*(np.zeros(1, np.int64),) * 5, np.array([100, 90, 80], np.int64),
                              0, clash, np.zeros(6, np.int64), np.full(6, K.NO_KEY, np.int64))
    walk = np.array([-1, a, c, b, -1, -1], np.int64)
    assert lone(3, 0, walk, partner) == 1  # beside a, c, b: the second
    walk[2] = x
    assert lone(2, 0, walk, partner) == 0  # beside a, x: the first
    assert lone(3, 0, walk, partner) == 0  # beside a, x, b: still the first
    walk[2] = c
    assert lone(3, 95, walk, partner) == 1  # none worth 95 beside a, c, b: the first worth less
    assert lone(3, 0, walk, partner) == 1


def test_city_without_slots_blocks():
    """A city of no slots counts as full (1870's red areas): it ends routes, never lets one
    through, as in the 18xx.games engine."""
    from conftest import solve_checked

    cells = ["city=revenue:20", "city=revenue:50,slots:0", "city=revenue:40"]
    plan = solve_checked(_line_doc(cells, {"A1": ["X"]}))
    assert plan.revenue == 70  # A1-A3; A5 lies beyond the closed city


def test_extra_token_is_the_companys_station():
    """A token outside the slots (1870's destination token) lets its company through a full city
    and counts as its station there, without filling the city for anyone."""
    from conftest import solve_checked
    from hexrail.io.native import position_from_json, position_to_json

    cells = ["city=revenue:20", "city=revenue:50", "city=revenue:40"]
    through = _line_doc(cells, {"A1": [None], "A3": ["Y"]}, {"A3": ["X"]})
    assert solve_checked(through).revenue == 110
    assert position_to_json(position_from_json(through))["hexes"]["A3"]["extra_tokens"] == {"0": ["X"]}
    blocked = _line_doc(cells, {"A1": ["X"], "A3": ["Y"]}, {"A3": ["Z"]})
    assert solve_checked(blocked).revenue == 70  # Z's extra token leaves Y's city full: A1-A3


def test_merged_candidates_hold_each_route_once_best_first():
    """A list merged with itself is itself; two halves merged are the whole, best first."""
    import numpy as np

    from hexrail.solve import prepare

    cands = prepare(hexrail.example_path("demo")).candidates[0]
    same = cands.merged(cands)
    assert len(same) == len(cands) and (same.revenue == cands.revenue).all()
    assert all((same.route_nodes(i) == cands.route_nodes(i)).all()
               and (same.route_chains(i) == cands.route_chains(i)).all() for i in range(len(cands)))
    odd, even = cands.subset(np.arange(1, len(cands), 2)), cands.subset(np.arange(0, len(cands), 2))
    whole = odd.merged(even)
    assert len(whole) == len(cands) and (np.diff(whole.value()) <= 0).all()
    assert sorted((int(v), tuple(whole.route_nodes(i))) for i, v in enumerate(whole.value())) == \
        sorted((int(v), tuple(cands.route_nodes(i))) for i, v in enumerate(cands.value()))


@pytest.mark.parametrize("left, right", [((50, 30), (20, 10)), ((20, 10), (50, 30)),
                                         ((30, 20), (20, 30)), ((40, 10), (10, 40))])
@pytest.mark.parametrize("train", ["D", "5"])
def test_narrowed_walks_take_the_worthier_arm_first_and_write_routes_as_the_whole_walk(
        left, right, train):
    """A narrowed walk takes the worthier arm of a route through the anchor first (of equal
    arms, the one leaving by the lower chain), so that the other stops where it outgrows it;
    it writes each route as the whole walk does, stops and chains in the same order, whichever
    arm it walked first. Arms of equal worth on both sides, either side worth more."""
    from hexrail.search.routes import enumerate_routes
    from hexrail.solve import prepare

    cells = [f"city=revenue:{v}" for v in (*left[::-1], 40, *right)]
    doc = _line_doc(cells, {"A5": ["X"]})
    doc["trains"] = [train]
    prep = prepare(doc)
    td, whole, graph = prep.trains[0], prep.candidates[0], prep.graph_of(0)

    def keys(cands):
        return sorted((int(v), tuple(cands.route_nodes(i).tolist()), tuple(cands.route_chains(i).tolist()))
                      for i, v in enumerate(cands.value()))

    assert td.arm_extra >= 0 and len(whole) > 1
    assert keys(enumerate_routes(graph, td, min_value=0)) == keys(whole)
    best = max(int(v) for v in whole.value())
    assert keys(enumerate_routes(graph, td, min_value=best)) == [k for k in keys(whole) if k[0] == best]
    assert {k for k in keys(whole) if k[0] == best} <= set(keys(enumerate_routes(graph, td, best_only=True)))
    assert hexrail.solve(doc).revenue == best == 40 + sum(left) + sum(right)
