"""The solver against its slow twin: random boards, symmetric boards and hand-built cases.

`hexrail.oracle.reference_solve` enumerates every route and every plan by brute force
(see its module); here the fast solver must agree with it on random small boards, every plan it
returns must pass the independent validator with the same revenue, and turning or mirroring a
board must not change the optimum. Hand-built boards pin each rule to revenue numbers.

Random boards are drawn deterministically (``derandomize``); set ``HEXRAIL_ORACLE_RANDOM=1`` to
explore new ones and ``HEXRAIL_ORACLE_EXAMPLES=N`` to draw more. A failing board is printed as
native JSON, ready for ``hexrail solve``.
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from strategies import ExtrasProfile, mirror_position, positions, rotate_position

import hexrail
from hexrail.errors import HexrailError
from hexrail.oracle import reference_routes, reference_solve
from hexrail.model.trains import parse_spec
from hexrail.search import narrow, routes
from hexrail.search.routes import Partner, enumerate_routes
from hexrail.solve import prepare

EXAMPLES = int(os.environ.get("HEXRAIL_ORACLE_EXAMPLES", "300"))
ORACLE = settings(
    deadline=None, max_examples=EXAMPLES, database=None,
    derandomize=os.environ.get("HEXRAIL_ORACLE_RANDOM", "") != "1",
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# Boards may hold free stops (visit_cost 0), and plans of equal income must agree on revenue.
FREE_STOPS = True
CHECK_REVENUE_TIES = True
BOARDS = positions(free_stops=FREE_STOPS, shared_rows=True)
EXTRAS_BOARDS = positions(free_stops=FREE_STOPS, profile=ExtrasProfile.name, shared_rows=True)
# 1860 has no free stops (its maps give every stop a visit cost of 1), so its boards have none.
BOARDS_1860 = positions(free_stops=False, profile="1860")
MAX_ROUTES = 50_000


@pytest.fixture(scope="module", autouse=True)
def warm_up():
    """Compile (or load) the numba kernels once, outside the examples."""
    hexrail.solve(hexrail.example_path("demo"))


def _show(doc: dict) -> str:
    text = json.dumps(doc)
    note(text)
    return text


# -- random boards ----------------------------------------------------------------------------

def _compare(doc: dict, objective: str) -> None:
    text = _show(doc)
    expected = reference_solve(doc, objective=objective, max_routes=MAX_ROUTES)
    plan = hexrail.solve(doc, objective=objective)
    got = plan.total if objective == "income" else plan.revenue
    prep = prepare(doc, objective=objective)
    if not plan.optimal:
        # only where rows share a kind and the walk cannot place stops in them
        # (`hexrail.search.rows`): a plan paid as its stops are placed, below the walk's worth
        # of it, which bounds the best
        assert any(td.by_placing for td in prep.trains), text
        assert got <= expected.value <= plan.upper_bound, text
    else:
        assert got == expected.value, f"solver {got}, oracle {expected.value}: {text}"
        if CHECK_REVENUE_TIES or objective == "revenue":
            assert plan.revenue == expected.revenue, f"ties go to more revenue: {text}"
    # every legal route is a candidate, and nothing else is (the solver itself keeps only
    # those that can be in a plan as good as a greedy one: see test_narrowed_walks)
    counts = {td.train.id: len(c) for td, c in zip(prep.trains, prep.candidates)}
    assert counts == expected.candidates, text


@ORACLE
@given(doc=BOARDS, objective=st.sampled_from(["income", "revenue"]))
def test_solver_equals_oracle(doc, objective):
    _compare(doc, objective)


@ORACLE
@given(doc=st.one_of(BOARDS, EXTRAS_BOARDS, BOARDS_1860), objective=st.sampled_from(["income", "revenue"]),
       cut=st.integers(0, 60), data=st.data())
def test_narrowed_walks(doc, objective, cut, data):
    """The walk's narrowed forms keep exactly what they promise: `min_value` the routes worth
    that much, `best_only` every best route (and with a slack every route within it of the
    best), `forbid` the routes clear of the track given.
    Half the time the walks bound arm 2 by the best arms from the anchor from their first
    step (`routes.ARM_AFTER`: only long walks do so otherwise, which these boards are not)."""
    _show(doc)
    if data.draw(st.booleans(), label="arms bounded at once"):
        with _arms_at_once():
            _narrowed(doc, objective, cut, data)
    else:
        _narrowed(doc, objective, cut, data)


# 1861's N trains as rows: cities and offboards paid, towns riding free and filling the paid
# places the cities leave (optional stops, counted in the units left)
TOWNS_FILL = {"spec": {"rows": [{"nodes": ["city", "offboard", "town"], "pay": 3, "visit": 3},
                                {"nodes": ["town"], "pay": 0, "visit": 4}]}}


@st.composite
def _towns_worth_most(draw):
    """A random board whose towns are worth more than its cities, run by free-riding trains:
    the best routes count the towns they pass."""
    doc = draw(positions(free_stops=False))
    doc["trains"] = [TOWNS_FILL] * draw(st.integers(1, 2))
    for h in doc["hexes"].values():
        for node in h.get("nodes", ()):
            if node.get("kind") == "town":
                r = node.get("revenue", 0)
                node["revenue"] = {c: 5 * v for c, v in r.items()} if isinstance(r, dict) else 5 * r
    return doc


@ORACLE
@given(doc=_towns_worth_most(), objective=st.sampled_from(["income", "revenue"]),
       cut=st.integers(0, 60), data=st.data())
def test_narrowed_walks_where_optional_stops_pay_most(doc, objective, cut, data):
    """As `test_narrowed_walks`, where the stops a route may pass uncounted are the worthiest:
    the walk's cut weighs the optional stops a walk has visited among the best of the units
    left, not on top of them (`search._kernels`, ``T_MUST``), which holds only if counting
    them takes those units."""
    _show(doc)
    _narrowed(doc, objective, cut, data)


@contextmanager
def _arms_at_once():
    saved = routes.ARM_AFTER
    routes.ARM_AFTER = 0
    try:
        yield
    finally:
        routes.ARM_AFTER = saved


def _narrowed(doc, objective, cut, data):
    prep = prepare(doc, objective=objective)
    for t, (td, full) in enumerate(zip(prep.trains, prep.candidates)):
        graph = prep.graph_of(t)
        value = full.value(objective)
        if not len(full):
            assert not len(enumerate_routes(graph, td, objective=objective, best_only=True))
            continue
        least = int(value[0]) - cut
        some = enumerate_routes(graph, td, objective=objective, min_value=least)
        assert sorted(_keys(some, objective)) == sorted(k for k, v in zip(_keys(full, objective), value)
                                                        if v >= least)
        best = enumerate_routes(graph, td, objective=objective, best_only=True)
        top = {k for k, v in zip(_keys(full, objective), value) if v == value[0]}
        assert top <= set(_keys(best, objective)) and best.value(objective)[0] == value[0]
        near = enumerate_routes(graph, td, objective=objective, best_only=True, slack=cut)
        assert {k for k, v in zip(_keys(full, objective), value) if v >= least} <= set(
            _keys(near, objective)) <= set(_keys(full, objective))
        other = full.res[data.draw(st.integers(0, len(full) - 1))]
        clear = enumerate_routes(graph, td, objective=objective, forbid=other)
        assert sorted(_keys(clear, objective)) == sorted(
            k for k, r in zip(_keys(full, objective), full.res) if not (r & other).any())
        _beside_a_partner(prep, t, objective, least, cut, data)


def _beside_a_partner(prep, t, objective, least, cut, data):
    """A walk beside a lone partner's routes (`enumerate_routes(partners=...)`) keeps exactly
    the routes worth `least` that reach the plan floor beside a partner route sharing no track
    with them, or beside one off the partner's list (worth less than its least); where the
    walk has no cut, every route worth `least`. The partner's routes are another train's, or
    made up (track of a few chains each, many of them, worth what they are drawn)."""
    graph, td, full = prep.graph_of(t), prep.trains[t], prep.candidates[t]
    others = [o for o in range(len(prep.trains)) if prep.graph_of(o) is graph]
    theirs = prep.candidates[data.draw(st.sampled_from(others), label="partner")]
    if not len(theirs):
        return
    their_value = theirs.value(objective)
    if data.draw(st.booleans(), label="made-up partner routes") and graph.n_chains:
        n = data.draw(st.integers(1, 300), label="routes")
        rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
        picks = theirs.subset(np.zeros(n, np.int64))
        res = np.zeros_like(picks.res)
        for r in range(n):
            for c in rng.integers(0, graph.n_chains, rng.integers(1, 4)):
                res[r, :graph.chain_res.shape[1]] |= graph.chain_res[c]
        their_value = np.sort(rng.integers(0, int(full.value(objective)[0]) + 1, n))[::-1]
        theirs = replace(picks, res=res)
    their_least = int(their_value[data.draw(st.integers(0, len(theirs) - 1), label="its least")])
    keep = np.flatnonzero(their_value >= their_least)
    listed, listed_res = their_value[keep], theirs.res[keep]
    floor = int(full.value(objective)[0]) + int(listed[0]) - data.draw(st.integers(0, cut + 20))
    walked = enumerate_routes(graph, td, objective=objective, min_value=least,
                              partners=[Partner(theirs.subset(keep), listed, their_least)],
                              plan_floor=np.array([floor, 0], np.int64))
    # (a walk with no cut of its own, `TrainData.cut_top`, keeps every route worth `least`)
    cut_by_partner = len(td.cut_top) > 0 or td.reach_walk > 0
    wanted = [k for k, v, r in zip(_keys(full, objective), full.value(objective), full.res)
              if v >= least and (not cut_by_partner or max(their_least - 1, 0) >= floor - v or any(
                  w >= floor - v and not (r & q).any() for w, q in zip(listed, listed_res)))]
    assert sorted(_keys(walked, objective)) == sorted(wanted)


@ORACLE
@given(doc=positions(free_stops=FREE_STOPS, max_hexes=8, max_trains=2),
       objective=st.sampled_from(["income", "revenue"]), steps=st.integers(1, 200),
       cap=st.integers(1, 40))
def test_a_listing_walk_keeps_every_route_a_plan_needs(doc, objective, steps, cap):
    """A train of unlimited distance walked beside others lists, in its one walk, every route
    worth its least (`narrow.least_values(listing=True)`), its threshold rising with the plan
    floor at each pause: pausing every few steps, and giving up the listing past a few
    routes, it still keeps exactly those routes, and the solver the oracle's optimum."""
    doc = {**doc, "trains": ["D", *doc["trains"]]}
    _show(doc)
    saved = routes.STEPS, routes.ARM_AFTER, narrow.LIST_CAP
    routes.STEPS = routes.ARM_AFTER = steps
    narrow.LIST_CAP = cap
    try:
        prep = prepare(doc, objective=objective)
        first = {t: t for t in range(len(prep.trains))}
        walks = [prep.trains[t] for t in first]
        graph = prep.graph_of(0)
        floor, least, best, _, listed = narrow.least_values(
            graph, walks, list(first), first, set(), False, objective, None, None, listing=True)
        plain = narrow.least_values(graph, walks, list(first), first, set(), False, objective,
                                    None, None)
        _compare(doc, objective)
    finally:
        routes.STEPS, routes.ARM_AFTER, narrow.LIST_CAP = saved
    expected = reference_solve(doc, objective=objective, max_routes=MAX_ROUTES)
    # (each floor a plan's: no more than the best plan, no less than the greedy one)
    assert plain[0] <= floor <= expected.value
    for t, full in enumerate(prep.candidates):
        value = full.value(objective)
        assert len(best[t]) == len(full) == 0 or best[t].value(objective)[0] == value[0]
        if t in listed:
            assert sorted(_keys(listed[t], objective)) == sorted(
                k for k, v in zip(_keys(full, objective), value) if v >= least[t])


def _keys(cands, objective: str) -> list[tuple]:
    """Each candidate as (value, stops, chains): what identifies a route and its worth."""
    value = cands.value(objective)
    return [(int(value[i]), tuple(cands.route_nodes(i).tolist()), tuple(cands.route_chains(i).tolist()))
            for i in range(len(cands))]


@ORACLE
@given(doc=EXTRAS_BOARDS, objective=st.sampled_from(["income", "revenue"]))
def test_solver_equals_oracle_with_every_hook(doc, objective):
    """Subsidies, bonuses, no hex re-entry, a bypass and shared track (`ExtrasProfile`)."""
    _compare(doc, objective)


@settings(ORACLE, max_examples=max(1, EXAMPLES * 2 // 3))
@given(doc=BOARDS_1860, objective=st.sampled_from(["income", "revenue"]))
def test_solver_equals_oracle_on_1860_boards(doc, objective):
    """N+M trains with shared allowances, halts, home route, intersect, the round's bypass."""
    _compare(doc, objective)


@settings(ORACLE, max_examples=max(1, EXAMPLES * 2 // 3))
@given(doc=st.one_of(BOARDS, EXTRAS_BOARDS, BOARDS_1860), objective=st.sampled_from(["income", "revenue"]))
def test_every_plan_passes_the_validator(doc, objective):
    validate = pytest.importorskip("hexrail.validate")
    text = _show(doc)
    plan = hexrail.solve(doc, objective=objective)
    report = validate.check_plan(doc, plan, objective=objective)
    assert report.legal, f"{report}\n{text}"
    assert report.revenue == plan.revenue, text
    assert report.subsidy == plan.subsidy, text


@settings(ORACLE, max_examples=max(1, EXAMPLES * 2 // 3))
@given(doc=st.one_of(BOARDS, EXTRAS_BOARDS, BOARDS_1860), objective=st.sampled_from(["income", "revenue"]),
       steps=st.integers(1, 300))
def test_a_plan_cut_short_is_legal_and_its_bound_honest(doc, objective, steps):
    """A time limit that has run out lets each walk take `steps` steps: the plan from what they
    found (their best routes and the greedy plan's kept) passes the validator, and the best
    plan lies between it and its upper bound."""
    validate = pytest.importorskip("hexrail.validate")
    import hexrail.search.routes as routes

    text = _show(doc)
    expected = reference_solve(doc, objective=objective, max_routes=MAX_ROUTES)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(routes, "STEPS", steps)
        plan = hexrail.solve(doc, time_limit=0.0, objective=objective)
    report = validate.check_plan(doc, plan, objective=objective)
    assert report.legal, f"{report}\n{text}"
    assert (report.revenue, report.subsidy) == (plan.revenue, plan.subsidy), text
    got = plan.total if objective == "income" else plan.revenue
    assert got <= expected.value <= plan.upper_bound, text
    if plan.optimal:
        assert got == expected.value, text


@settings(ORACLE, max_examples=max(1, EXAMPLES * 2 // 3))
@given(doc=st.one_of(BOARDS, EXTRAS_BOARDS, BOARDS_1860), steps=st.integers(1, 5), mirror=st.booleans())
def test_turning_the_board_keeps_the_optimum(doc, steps, mirror):
    text = _show(doc)
    turned = rotate_position(doc, steps)
    if mirror:
        turned = mirror_position(turned)
    note(json.dumps(turned))
    plan = hexrail.solve(doc)
    plan_turned = hexrail.solve(turned)
    best = reference_solve(turned, max_routes=MAX_ROUTES).value
    if not (plan.optimal and plan_turned.optimal):  # rows sharing a kind: see `_compare`
        assert max(plan.total, plan_turned.total) <= best, text
        return
    assert plan_turned.total == plan.total, text
    # the oracle too, so that a disagreement here tells a solver bug from a helper bug
    assert best == plan.total, text


@settings(ORACLE, max_examples=50)
@given(doc=BOARDS)
def test_six_turns_and_two_mirrors_are_the_identity(doc):
    turned = doc
    for _ in range(6):
        turned = rotate_position(turned)
    assert turned == doc
    assert mirror_position(mirror_position(doc)) == doc


def test_region_limit_with_shared_track():
    """Three 4H trains under `ExtrasProfile` with shared track and a region limit (a random
    board): one route into the region (90) and two trains on the same route A7-0 A7-1 (50
    each). Identical trains once chose in one order only, each after the one before, which
    kept two of them off one route: 180, called optimal."""
    doc = json.loads((Path(__file__).parent / "boards" / "region_share_track.json").read_text())
    plan = hexrail.solve(doc)
    assert (plan.total, plan.optimal) == (190, True)
    assert reference_solve(doc).value == 190
    report = pytest.importorskip("hexrail.validate").check_plan(doc, plan)
    assert report.legal and report.revenue + report.subsidy == 190, report


# -- hand-built boards ------------------------------------------------------------------------

def board(hexes: dict, trains: list, *, layout: str = "flat", colors: tuple = ("yellow",),
          companies: tuple = ("OP", "XX")) -> dict:
    """A native position: `hexes` maps names to tile notation or to full hex documents."""
    return {
        "format": "hexrail-position/1",
        "layout": layout,
        "phase": {"name": str(len(colors)), "colors": list(colors)},
        "company": "OP",
        "companies": [{"id": c} for c in companies],
        "trains": list(trains),
        "hexes": {h: ({"tile": v} if isinstance(v, str) else v) for h, v in hexes.items()},
    }


def line(*hexes, trains: list, **kw) -> dict:
    """Hexes A1, A3, A5, ... top to bottom on a flat map (side 0 of each faces the next)."""
    return board({f"A{2 * i + 1}": h for i, h in enumerate(hexes)}, trains, **kw)


def city(revenue: int, *tokens, slots: int = 1, sides=(3, 0), terminal=()) -> dict:
    paths = ";".join(f"path=a:{s},b:_0" + (",terminal:1" if s in terminal else "") for s in sides)
    doc = {"tile": f"city=revenue:{revenue},slots:{slots};{paths}"}
    if tokens:
        doc["tokens"] = list(tokens)
    return doc


TOWN = "town=revenue:10;path=a:3,b:_0;path=a:_0,b:0"
OFFBOARD = "offboard=revenue:yellow_40|brown_60;path=a:3,b:_0"
# OP 20 — town 10 — city 30 — offboard 40 (60 in brown)
LINE = (city(20, "OP", sides=(0,)), TOWN, city(30), OFFBOARD)


def assert_revenue(doc: dict, revenue: int, routes: int | None = None) -> None:
    text = json.dumps(doc)
    plan = hexrail.solve(doc)
    assert plan.optimal, text
    assert (plan.revenue, plan.subsidy) == (revenue, 0), text
    assert reference_solve(doc).value == revenue, text
    if routes is not None:
        assert len(plan.routes) == routes, text
    validate = pytest.importorskip("hexrail.validate")
    report = validate.check_plan(doc, plan)
    assert report.legal and report.revenue == revenue, f"{report}\n{text}"


@pytest.mark.parametrize(("spec", "revenue"), [
    ("2", 30),  # OP + town: an N train counts every stop it passes
    ("3", 60),
    ("4", 100),
    ("2+1", 60),  # two cities and the town; the offboard would be a third big stop
    ("3+1", 100),
    ("2/3", 50),  # visit three, pay the best two: 20 and 30
    ("3E", 90),  # any number, the best three: 40, 30, 20
    ("D", 100),
    ("1H", 30),  # one hexside: OP and the town
    ("2H", 60),
    ("4H", 100),
])
def test_train_specs(spec, revenue):
    assert_revenue(line(*LINE, trains=[spec]), revenue)


# 1867's trains as rows: cities, offboards and towns in a row paying all it visits, towns there or
# in a row paying nothing. OP 10 - town 30 - city 40: both cities fill the paying row, so the
# town rides in the other and pays nothing (50), though the town and the city 40 would be worth
# more (70).
TOWNS_FREE = {"id": "2T", "spec": {"rows": [
    {"nodes": ["city", "offboard", "town"], "pay": 2, "visit": 2},
    {"nodes": ["town"], "pay": 0, "visit": 3}]}}
CITY_TOWN_CITY = (city(10, "OP", sides=(0,)), "town=revenue:30;path=a:3,b:_0;path=a:_0,b:0",
                  city(40, sides=(3,)))


def test_towns_riding_free_are_optional_in_the_paying_row():
    """A row paying nothing that no route can fill (`graph.trains._free_riders`): its towns are
    counted in the paying row only where room is left, and the plan is proven."""
    assert_revenue(line(*CITY_TOWN_CITY, trains=[TOWNS_FREE]), 50)
    # OP 20 - town 10 - city 30 - offboard 40: two of OP, the city and the offboard at most,
    # so OP and the city (50), the town riding free; OP and the town alone earn 30
    long_free = {"spec": {"rows": [TOWNS_FREE["spec"]["rows"][0],
                                   {"nodes": ["town"], "pay": 0, "visit": 99}]}}
    assert_revenue(line(*LINE, trains=[long_free]), 50)


def _city_town_city(rows: list[dict]) -> hexrail.Plan:
    """OP 10 - town 30 - city 40 with a train of `rows`: the town rides unpaid (50), as the
    oracle and the validator find."""
    doc = line(*CITY_TOWN_CITY, trains=[{"spec": {"rows": rows}}])
    plan = hexrail.solve(doc)
    assert plan.revenue == 50 and plan.routes[0].paid == ("A1-0", "A5-0")
    assert reference_solve(doc).value == 50
    report = pytest.importorskip("hexrail.validate").check_plan(doc, plan)
    assert report.legal and report.revenue == 50, report
    return plan


def test_paid_stops_follow_one_placing_in_the_rows():
    """Where the row paying nothing can be filled, the walk places each route's stops in the
    rows (`search._kernels.select_placed`): the town rides in the row paying nothing, the plan
    is paid 50 and proven, though the kinds of the rows alone would pay 70."""
    plan = _city_town_city([TOWNS_FREE["spec"]["rows"][0], {"nodes": ["town"], "pay": 0, "visit": 1}])
    assert (plan.optimal, plan.upper_bound) == (True, 50)


def test_rows_too_many_to_place_in_the_walk():
    """Rows whose loads are too many for the walk to weigh (`graph.trains.PLACE_STATES`): the
    walk pays by kinds of rows (70), the chosen route is placed afterwards (50,
    `hexrail.search.rows`), and the plan is not proven: the walk's 70 stays the bound."""
    plan = _city_town_city([TOWNS_FREE["spec"]["rows"][0], {"nodes": ["town"], "pay": 0, "visit": 1},
                            {"nodes": ["halt"], "pay": 1, "visit": 200}])
    assert (plan.optimal, plan.upper_bound) == (False, 70)


def test_rows_share_kinds():
    assert parse_spec(TOWNS_FREE["spec"]).rows_share_kinds
    for spec in ("2", "2+1", "2/3", "3E", "D"):
        assert not parse_spec(spec).rows_share_kinds


def test_offboard_pays_by_phase():
    assert_revenue(line(*LINE, trains=["4"], colors=("yellow", "green", "brown")), 120)


def test_rows_object_spec():
    spec = {"rows": [{"nodes": ["city", "offboard"], "pay": 2, "visit": 3},
                     {"nodes": ["town"], "pay": 1, "visit": 1}]}
    assert_revenue(line(*LINE, trains=[{"spec": spec}]), 80)  # all four visited, town + 40 + 30


def test_full_city_blocks():
    doc = line(city(20, "OP", sides=(0,)), city(30, "XX"), city(40, sides=(3,)), trains=["3"])
    assert_revenue(doc, 50)  # may end in the full city, not pass it


def test_neutral_token_does_not_block():
    doc = line(city(20, "OP", sides=(0,)), city(30, {"company": "XX", "flag": "neutral"}),
               city(40, sides=(3,)), trains=["3"])
    assert_revenue(doc, 90)


def test_own_token_lets_a_full_city_be_passed():
    doc = line(city(20, "OP", sides=(0,)), city(30, "XX", "OP", slots=2), city(40, sides=(3,)),
               trains=["3"])
    assert_revenue(doc, 90)


def test_terminal_offboard_ends_the_route():
    middle = "offboard=revenue:40;path=a:3,b:_0,terminal:1;path=a:_0,b:0,terminal:1"
    doc = line(city(20, "OP", sides=(0,)), middle, city(30, sides=(3,)), trains=["D"])
    assert_revenue(doc, 60)


def test_terminal_path_into_a_city_ends_the_route():
    doc = line(city(20, "OP", sides=(0,)), city(30, terminal=(3,)), city(40, sides=(3,)),
               trains=["3"])
    assert_revenue(doc, 50)
    doc = line(city(20, "OP", sides=(0,)), city(30), city(40, sides=(3,)), trains=["3"])
    assert_revenue(doc, 90)


def test_optional_halt_is_passed_without_counting():
    halt = "halt=revenue:10;path=a:3,b:_0;path=a:_0,b:0"
    doc = line(city(20, "OP", sides=(0,)), halt, city(30, sides=(3,)), trains=["2"])
    assert_revenue(doc, 50)
    doc["trains"] = ["3"]
    assert_revenue(doc, 60)


TWO_LANE_OP = {"tile": "city=revenue:20,slots:2;path=a:0,b:_0,a_lane:2.0;path=a:0,b:_0,a_lane:2.1",
               "tokens": ["OP"]}
TWO_LANE_CITY = "city=revenue:30;path=a:3,b:_0,a_lane:2.0;path=a:3,b:_0,a_lane:2.1"


def test_two_lanes_let_two_trains_run_side_by_side():
    assert_revenue(line(TWO_LANE_OP, TWO_LANE_CITY, trains=["2", "2"]), 100, routes=2)
    one_lane = line(city(20, "OP", slots=2, sides=(0,)), city(30, sides=(3,)), trains=["2", "2"])
    assert_revenue(one_lane, 50, routes=1)


def test_parallel_track_through_a_hex():
    middle = "path=a:3,b:0,lanes:2"
    assert_revenue(line(TWO_LANE_OP, middle, TWO_LANE_CITY, trains=["2", "2"]), 100, routes=2)


def test_branching_track_is_one_hexside():
    # A Y: two paths of the middle hex share its side 3; routes may use only one of them.
    hexes = {"B2": city(20, "OP", slots=2, sides=(0,)),
             "B4": "path=a:3,b:0;path=a:3,b:5",
             "B6": city(30, sides=(3,)),
             "C5": city(40, sides=(2,))}
    assert_revenue(board(hexes, ["2", "2"]), 60, routes=1)


def test_junction_joins_paths_and_routes_meet_there():
    # B4 holds a junction joining B2 (OP 20), B6 (30), A3 (OP 40) and C5 (50).
    hexes = {"B4": "junction;path=a:0,b:_0;path=a:2,b:_0;path=a:3,b:_0;path=a:5,b:_0",
             "B2": city(20, "OP", sides=(0,)), "B6": city(30, sides=(3,)),
             "A3": city(40, "OP", sides=(5,)), "C5": city(50, sides=(2,))}
    assert_revenue(board(hexes, ["4"]), 90)  # one pass through the junction: 40 + 50
    assert_revenue(board(hexes, ["2", "2"]), 140, routes=2)  # 20 + 30 and 40 + 50 cross there


def test_two_identical_trains():
    doc = line(city(30, sides=(0,)), city(20, "OP"), city(40, sides=(3,)), trains=["2", "2"])
    assert_revenue(doc, 110, routes=2)
    doc["trains"] = ["3"]
    assert_revenue(doc, 90, routes=1)


def test_idle_train():
    doc = line(city(20, "OP", sides=(0,)), city(30, sides=(3,)), trains=["2", "D"])
    assert_revenue(doc, 50, routes=1)


def test_no_legal_route():
    no_token = line(city(20, sides=(0,)), city(30, sides=(3,)), trains=["2"])
    assert_revenue(no_token, 0, routes=0)
    no_track = line(city(20, "OP", sides=()), city(30, sides=()), trains=["2", "3"])
    assert_revenue(no_track, 0, routes=0)


def test_free_stop_rides_free_and_pays():
    """A town with visit_cost 0 uses no distance, and a 2-train (which pays every stop it
    visits, as on 18xx.games) is paid for it too: 10 + 10 + 20. A halt worth nothing is passed."""
    free_town = "town=revenue:10,visit_cost:0;path=a:3,b:_0;path=a:_0,b:0"
    halt = "halt=revenue:0;path=a:3,b:_0;path=a:_0,b:0"
    with_halt = line(city(10, "OP", sides=(0,)), free_town, halt, "offboard=revenue:20;path=a:3,b:_0",
                     trains=["2"])
    assert_revenue(with_halt, 40)
    doc = line(city(10, "OP", sides=(0,)), free_town, "offboard=revenue:20;path=a:3,b:_0",
               trains=["2"])
    assert_revenue(doc, 40)
    # an x/y train is paid for its best x stops, free ones included: 2/2 takes 20 + 10
    best_of = line(city(10, "OP", sides=(0,)), free_town, "offboard=revenue:20;path=a:3,b:_0",
                   trains=["2/2"])
    assert_revenue(best_of, 30)


# Two plans total 170: 4H runs A5-0 A5-1 (70) and 3+1 runs A5-1 … A3-0 B4-0 with the mine bonus
# (100), or 4H counts the halt C1-1 (90 + 10 subsidy) and 3+1 runs C1-0 A3-0 B4-0 (70).
TIE_BOARD = board({
    "C1": {"tile": "city=revenue:30;halt=revenue:20;path=a:1,b:_0;path=a:0,b:_1;path=a:1,b:_1",
           "tokens": ["OP"]},
    "B2": "path=a:1,b:4",
    "A3": "city=revenue:10;path=a:5,b:_0;path=a:4,b:_0",
    "B4": {"tile": "town=revenue:10;path=a:4,b:1;path=a:2,b:_0", "icons": ["M"]},
    "C3": "path=a:3,b:1",
    "A5": {"tile": "city=revenue:10;city=revenue:60;path=a:4,b:_1;path=a:_0,b:_1",
           "tokens": {"1": ["OP"]}},
}, ["4H", "3+1"], companies=("OP",)) | {"rules": {"profile": ExtrasProfile.name}}


def test_oracle_breaks_ties_by_revenue():
    result = reference_solve(TIE_BOARD)
    assert (result.value, result.revenue, result.subsidy) == (170, 170, 0)


def test_equal_totals_prefer_more_revenue():
    plan = hexrail.solve(TIE_BOARD)
    assert (plan.total, plan.revenue, plan.subsidy) == (170, 170, 0)


# -- the oracle itself ------------------------------------------------------------------------

def test_oracle_on_the_demo():
    result = reference_solve(hexrail.example_path("demo"))
    assert (result.value, result.revenue, result.subsidy) == (480, 480, 0)
    assert result.candidates == {"4-0": 93, "2+2-0": 51, "D-0": 560}


def test_oracle_gives_up_on_big_boards():
    with pytest.raises(HexrailError, match="too big"):
        reference_solve(hexrail.example_path("demo"), max_routes=100)


def test_oracle_routes_are_unique_up_to_reversal():
    routes = reference_routes(hexrail.example_path("demo"), "D-0")
    assert len({frozenset(r.paths) for r in routes}) == len(routes) == 560
