"""1862's plan-level rules in the validator and the brute-force oracle (docs/rules.md (1862)).

Every location pays once across the company's routes (x/y trains choose their paid stops with
the others), local trains earn £10 per hex no earlier local route covered, freight routes joined
end to end form sets paid for their two ends plus a distance bonus, and trains run only with a
permit. The boards are columns of hexes A1, A3, ... (side 0 of A1 faces A3, and so on), so the
crow-fly distance from A1 to A(2k+1) is k hexes and a set from A1 to A9 earns (4 - 1) × £20.
"""

from __future__ import annotations

import json
import math
import os
import random
from dataclasses import replace
from typing import ClassVar

import pytest
from conftest import corpus_params, line_hexes, random_boards
from hypothesis import HealthCheck, assume, given, note
from hypothesis import strategies as st

from hexrail import solve
from hexrail.combine import payonce
from hexrail.combine.payonce import combine_payonce, payonce_applies
from hexrail.io.g18xx import position_from_18xx
from hexrail.plan import RouteSet
from hexrail.rules import register
from hexrail.rules.g1862 import Game1862
from hexrail.oracle import reference_solve
from hexrail.solve import prepare
from hexrail.validate import build_sets, check_plan, set_ends

CITY = "city=revenue:{}"
TOWN = "town=revenue:{}"
LONDON = "offboard=revenue:{},groups:London"


def position(cells: list[str], trains: list[str], *, tokens: dict | None = None,
             state: dict | None = None, colors: dict | None = None, home: str = "A1") -> dict:
    """A native 1862 position on a column of hexes; `colors` gives tile colours (red offboards,
    blue ports)."""
    hexes = line_hexes(cells, tokens)
    for hex_id, color in (colors or {}).items():
        hexes[hex_id]["color"] = color
    return {"layout": "flat", "rules": {"profile": "1862"}, "company": "X",
            "companies": [{"id": "X", "home": home}, {"id": "Y"}],
            "trains": trains, "hexes": hexes, "state": state or {}}


def routes(*stops: tuple[str, list[str]], paid: dict | None = None) -> dict:
    """A plan of routes drawn by their stops (the validator finds the track); `paid` declares
    the paid stops of some trains."""
    paid = paid or {}
    return {"routes": [{"train": train, "stops": refs, **({"paid": paid[train]} if train in paid else {})}
                       for train, refs in stops]}


FIVE = [CITY.format(20), CITY.format(30), CITY.format(40), CITY.format(50), CITY.format(60)]


# -- express: every stop pays once ----------------------------------------------------------------


def test_a_stop_shared_by_two_express_routes_pays_once():
    doc = position(FIVE[:3], ["2E", "2E"], tokens={"A1": ["X"], "A3": ["X"]})
    report = check_plan(doc, routes(("2E-0", ["A1-0", "A3-0"]), ("2E-1", ["A3-0", "A5-0"])))
    assert report.legal, report.table()
    assert (report.revenue, report.subsidy) == (20 + 30 + 40, 0)
    paid = [s for r in report.routes for s in r.paid]
    assert sorted(paid) == ["A1-0", "A3-0", "A5-0"]
    # The same route twice (trains may share track) is paid once.
    twice = check_plan(doc, routes(("2E-0", ["A1-0", "A3-0"]), ("2E-1", ["A1-0", "A3-0"])))
    assert twice.legal and twice.revenue == 50
    assert reference_solve(doc).value == 90


def test_a_stop_two_routes_declare_is_paid_once_not_an_error():
    # 18xx.games lists A3 in both routes' stops and pays it to the earlier one. (Where stops
    # pay once the rules choose the paid stops; on a tie the earlier route is paid.)
    doc = position(FIVE[:3], ["2E", "2E"], tokens={"A1": ["X"], "A3": ["X"]})
    plan = routes(("2E-0", ["A1-0", "A3-0"]), ("2E-1", ["A3-0", "A5-0"]),
                  paid={"2E-0": ["A1-0", "A3-0"], "2E-1": ["A3-0", "A5-0"]})
    report = check_plan(doc, plan)
    assert report.legal, report.table()
    assert report.revenue == 90
    assert [r.revenue for r in report.routes] == [50, 40]


def test_an_x_y_express_chooses_its_paid_stops_with_the_other_routes():
    # Alone the 2/3E would take A3 + A5 (70); the 2E already takes them, so the 2/3E is paid
    # for A1 and the company earns every stop once: 20 + 30 + 40.
    doc = position(FIVE[:3], ["2E", "2/3E"], tokens={"A1": ["X"], "A5": ["X"]})
    report = check_plan(doc, routes(("2E-0", ["A3-0", "A5-0"]),
                                    ("2/3E-0", ["A1-0", "A3-0", "A5-0"])))
    assert report.legal, report.table()
    assert report.revenue == 90
    xy = report.route("2/3E-0")
    assert "A1-0" in xy.paid and len(xy.paid) <= 2
    # A stale list (the x/y's best alone) does not change what the rules pay.
    stale = routes(("2E-0", ["A3-0", "A5-0"]), ("2/3E-0", ["A1-0", "A3-0", "A5-0"]),
                   paid={"2E-0": ["A3-0", "A5-0"], "2/3E-0": ["A3-0", "A5-0"]})
    assert check_plan(doc, stale).revenue == 90
    # A list the train cannot be paid for is still an error.
    wrong = routes(("2E-0", ["A3-0", "A5-0"]), ("2/3E-0", ["A1-0", "A3-0", "A5-0"]),
                   paid={"2E-0": ["A3-0", "A5-0"], "2/3E-0": ["A1-0", "A3-0", "A5-0"]})
    assert "cannot be paid for exactly" in check_plan(doc, wrong).table()
    result = reference_solve(doc)
    assert (result.value, result.revenue) == (90, 90)


def test_an_offboard_area_pays_once_across_routes():
    # A1 and A5 are both London (one offboard area): two routes reaching it are paid once.
    cells = [LONDON.format(100), CITY.format(30), LONDON.format(100)]
    doc = position(cells, ["2E", "2E"], tokens={"A3": ["X"]}, colors={"A1": "red", "A5": "red"},
                   home="A3")
    report = check_plan(doc, routes(("2E-0", ["A1-0", "A3-0"]), ("2E-1", ["A3-0", "A5-0"])))
    assert report.legal, report.table()
    assert report.revenue == 100 + 30
    assert reference_solve(doc).value == 130


# -- locals: subsidy per hex ----------------------------------------------------------------------


LOCAL_LINE = [CITY.format(20), TOWN.format(10), CITY.format(40), CITY.format(50)]


def test_a_local_route_earns_a_subsidy_per_hex():
    doc = position(LOCAL_LINE, ["2L"], tokens={"A1": ["X"]})
    report = check_plan(doc, routes(("2L-0", ["A1-0", "A3-0", "A5-0"])))
    assert report.legal, report.table()
    # Towns pay without counting; three hexes passed.
    assert (report.revenue, report.subsidy) == (20 + 10 + 40, 30)


def test_a_second_local_is_subsidised_for_new_hexes_only():
    doc = position(LOCAL_LINE, ["2L", "2L"], tokens={"A1": ["X"], "A5": ["X"]})
    report = check_plan(doc, routes(("2L-0", ["A1-0", "A3-0", "A5-0"]), ("2L-1", ["A5-0", "A7-0"])))
    assert report.legal, report.table()
    assert [r.subsidy for r in report.routes] == [30, 10]  # A5 is covered already
    assert (report.revenue, report.subsidy) == (20 + 10 + 40 + 50, 40)  # A5 pays once
    # In the other order the second route is the one that loses A5's hex.
    swapped = check_plan(doc, routes(("2L-1", ["A5-0", "A7-0"]), ("2L-0", ["A1-0", "A3-0", "A5-0"])))
    assert [r.subsidy for r in swapped.routes] == [20, 20] and swapped.subsidy == 40
    result = reference_solve(doc)
    assert (result.value, result.revenue, result.subsidy) == (160, 120, 40)
    assert reference_solve(doc, objective="revenue").value == 120


# -- freight: sets ---------------------------------------------------------------------------------


def test_two_freight_routes_joined_end_to_end_pay_the_set_ends_and_the_bonus_once():
    doc = position(FIVE, ["3F", "3F"], tokens={"A1": ["X"], "A5": ["X"]})
    report = check_plan(doc, routes(("3F-0", ["A1-0", "A3-0", "A5-0"]),
                                    ("3F-1", ["A5-0", "A7-0", "A9-0"])))
    assert report.legal, report.table()
    # A1 (20) and A9 (60) pay; the middle stops pay nothing; 3 hexes between A1 and A9 × 20.
    assert report.revenue == 20 + 60 + 60
    first, second = report.routes
    assert first.paid == ("A1-0",) and first.bonuses == (("set", 60),) and first.revenue == 80
    assert second.paid == ("A9-0",) and second.revenue == 60
    assert report.sets == (RouteSet(("3F-0", "3F-1"), ("A1-0", "A9-0"), 60),)
    assert report.to_json()["sets"] == [{"trains": ["3F-0", "3F-1"], "ends": ["A1-0", "A9-0"],
                                         "bonus": 60}]
    # No other plan of two 3F trains does better.
    result = reference_solve(doc)
    assert (result.value, result.revenue) == (140, 140)
    assert len(result.sets) == 1


def test_a_lone_freight_route_pays_both_ends_and_its_bonus():
    doc = position(FIVE, ["6F"], tokens={"A1": ["X"]})
    report = check_plan(doc, routes(("6F-0", ["A1-0", "A3-0", "A5-0"])))
    assert report.legal, report.table()
    assert report.revenue == 20 + 40 + 20  # one hex (A3) between the ends
    assert report.routes[0].paid == ("A1-0", "A5-0")
    assert report.sets == (RouteSet(("6F-0",), ("A1-0", "A5-0"), 20),)
    assert "sets" not in check_plan(position(FIVE, ["2E"]), routes(("2E-0", ["A1-0", "A3-0"]))).to_json()


def test_a_set_end_pays_once_with_the_other_routes():
    doc = position(FIVE, ["6F", "2E"], tokens={"A1": ["X"]})
    report = check_plan(doc, routes(("6F-0", ["A1-0", "A3-0", "A5-0"]), ("2E-0", ["A1-0", "A3-0"])))
    assert report.legal, report.table()
    # The freight set pays A1 + A5 + 20; the express adds A3 only (A1 is paid already).
    assert report.revenue == 20 + 40 + 20 + 30


def test_temporary_freight_trains_in_two_sets_are_an_error():
    # The routes meet at A3 and A5, but not end to end: two sets of temporary (< 6) trains.
    doc = position(FIVE, ["3F", "3F"], tokens={"A1": ["X"], "A3": ["X"]})
    report = check_plan(doc, routes(("3F-0", ["A1-0", "A3-0", "A5-0"]),
                                    ("3F-1", ["A3-0", "A5-0", "A7-0"])))
    assert not report.legal
    assert any("non-permanent" in e and "end to end" in e for e in report.errors), report.table()
    assert len(report.sets) == 2


def test_a_temporary_set_next_to_another_set_needs_a_permanent_train():
    doc = position(FIVE, ["3F", "6F"], tokens={"A1": ["X"], "A5": ["X"]})
    # The 6F passes A3 and A5, where the 3F ends, but ends elsewhere: two sets, the 3F alone.
    apart = check_plan(doc, routes(("3F-0", ["A3-0", "A5-0"]),
                                   ("6F-0", ["A1-0", "A3-0", "A5-0", "A7-0"])))
    assert len(apart.sets) == 2
    assert any("must connect to a permanent" in e for e in apart.errors), apart.table()
    # Ending where the 3F ends joins them into one set, from A1 to A7.
    joined = check_plan(doc, routes(("3F-0", ["A1-0", "A3-0"]), ("6F-0", ["A3-0", "A5-0", "A7-0"])))
    assert joined.legal, joined.table()
    assert joined.sets == (RouteSet(("3F-0", "6F-0"), ("A1-0", "A7-0"), 40),)
    assert joined.revenue == 20 + 50 + 40


@register
class Recording1862(Game1862):
    """Test-only: 1862, noting what `set_bonus` is asked."""

    name = "1862-recording"
    asked: ClassVar[list] = []

    def set_bonus(self, pos, a, b):
        self.asked.append((a[0].id, a[1].index, a[2].id, b[0].id, b[1].index, b[2].id))
        return super().set_bonus(pos, a, b)


def test_the_set_bonus_hook_is_told_where_the_track_enters_each_end():
    # 18xx.games measures from the hex before an offboard end: the hook gets (hex, node, the
    # hex the set's track enters the end from).
    doc = position(FIVE, ["6F"], tokens={"A1": ["X"]})
    doc["rules"]["profile"] = "1862-recording"
    Recording1862.asked.clear()
    check_plan(doc, routes(("6F-0", ["A1-0", "A3-0", "A5-0"])))
    assert Recording1862.asked == [("A1", 0, "A3", "A5", 0, "A3")]


def test_a_set_bonus_has_no_direction():
    # The solver asks `set_bonus` once per two ends (`Profile.set_bonus`): swapping them,
    # ports and offboards measured from their entry hex included, must not change it.
    doc = position(FIVE + [LONDON.format(30)], ["6F"], tokens={"A1": ["X"]})
    pos = prepare(doc).position
    profile = Game1862(pos)
    ends = [(h, n, via) for h in pos.hexes for n in h.tile.nodes if n.is_stop
            for via in pos.hexes]
    assert len(ends) > 20
    for a in ends:
        for b in ends:
            assert profile.set_bonus(pos, a, b) == profile.set_bonus(pos, b, a), (a, b)


def test_two_freight_routes_on_the_same_track_are_a_loop_paid_at_its_first_stop():
    # 18xx.games: a set without an end that is one route's only ends at its first stop, twice.
    doc = position(FIVE, ["6F", "7F"], tokens={"A1": ["X"]})
    report = check_plan(doc, routes(("6F-0", ["A1-0", "A3-0", "A5-0"]),
                                    ("7F-0", ["A5-0", "A3-0", "A1-0"])))
    assert report.legal, report.table()
    assert report.sets == (RouteSet(("6F-0", "7F-0"), ("A1-0", "A1-0"), 0),)
    assert report.revenue == 20


# -- permits -------------------------------------------------------------------------------------------


def test_a_train_without_a_permit_may_not_run():
    doc = position(LOCAL_LINE, ["2L", "2E"], tokens={"A1": ["X"]}, state={"permits": ["express"]})
    report = check_plan(doc, routes(("2L-0", ["A1-0", "A3-0", "A5-0"])))
    assert not report.legal
    assert report.routes[0].errors == ("train 2L-0 (2L) may not run: the company has no local permit",)
    assert check_plan(doc, routes(("2E-0", ["A1-0", "A3-0", "A5-0"]))).legal
    # The oracle leaves the local idle: the express alone, paid for A1 and A5 (towns pay nothing).
    result = reference_solve(doc)
    assert result.value == 60 and [r.train for r in result.routes] == ["2E-0"]
    assert result.candidates["2L-0"] == 0


# -- how sets are built (18xx.games' build_freight_sets) ----------------------------------------------


def test_sets_grow_from_the_first_temporary_route_then_in_plan_order():
    ends = {"p": ("A", "B"), "t": ("C", "D"), "q": ("B", "E")}
    assert build_sets(ends, {"t"}) == [["t"], ["p", "q"]]
    assert build_sets(ends, set()) == [["p", "q"], ["t"]]


def test_at_a_branch_the_set_takes_the_temporary_branch_else_the_longest():
    # Three routes end at B: from p, the branch q (B-C) or r (B-D, D-E).
    ends = {"p": ("A", "B"), "q": ("B", "C"), "r": ("B", "D"), "s": ("D", "E")}
    assert build_sets(ends, set()) == [["p", "r", "s"], ["q"]]
    assert build_sets(ends, {"p", "q"}) == [["p", "q"], ["r", "s"]]  # q is temporary too
    assert build_sets(ends, {"q"}) == [["q", "r", "s"], ["p"]]  # from q: p or r-s, the longest
    assert build_sets({"p": ("A", "B"), "q": ("B", "C"), "r": ("B", "D")}, set()) == [["p", "q"], ["r"]]


@pytest.mark.parametrize("ends, expected", [
    ([("A", "B")], ["A", "B"]),
    ([("A", "B"), ("B", "C")], ["A", "C"]),
    ([("A", "B"), ("B", "A")], ["A", "A"]),  # a loop ends twice at its first stop
    ([("A", "B"), ("C", "B"), ("C", "D")], ["A", "D"]),
])
def test_set_ends(ends, expected):
    assert set_ends(ends) == expected


# -- the validator prices the oracle's best plans alike -----------------------------------------------


def random_board(seed: int) -> dict:
    """A small 1862 board: 4-6 hexes of a 3-column grid, each a city, town or offboard (red or
    blue, in one of three areas) with track to its neighbours (offboards to one), 1-3 trains."""
    rng = random.Random(seed)
    sides = {0: (0, 2), 1: (-1, 1), 2: (-1, -1), 3: (0, -2), 4: (1, -1), 5: (1, 1)}
    cells = rng.sample([(0, 1), (0, 3), (0, 5), (1, 2), (1, 4), (2, 1), (2, 3), (2, 5)], rng.randint(4, 6))
    kinds = {c: rng.choice(["city", "city", "city", "town", "offboard", "offboard"]) for c in cells}
    hexes = {}
    for (x, y), kind in kinds.items():
        ways = [s for s, (dx, dy) in sides.items() if (x + dx, y + dy) in kinds]
        ways = ways[:1] if kind == "offboard" else ways
        if not ways:
            continue
        value = rng.choice([10, 20, 30, 40, 60])
        node = {"city": f"city=revenue:{value}", "town": f"town=revenue:{value}",
                "offboard": f"offboard=revenue:{value},groups:{rng.choice('LMN')}"}[kind]
        hex_id = "ABC"[x] + str(y)
        hexes[hex_id] = {"tile": ";".join([node] + [f"path=a:{s},b:_0" for s in ways])}
        if kind == "offboard":
            hexes[hex_id]["color"] = rng.choice(["red", "blue"])
    cities = sorted(h for h, d in hexes.items() if d["tile"].startswith("city"))
    if not cities:  # no route can run; the home is still on the map
        cities = ["A9"]  # off the grid
        hexes["A9"] = {"tile": "city=revenue:10"}
    for hex_id in rng.sample(cities, min(len(cities), rng.randint(1, 2))):
        hexes[hex_id]["tokens"] = ["X"]
    home = rng.choice(sorted(h for h in hexes if "tokens" in hexes[h]))
    trains = rng.sample(["2E", "2/3E", "2L", "2/3L", "2F", "3F", "6F", "7F", "3E", "3L"], rng.randint(1, 2))
    if rng.random() < 0.4:  # a pair of identical trains: the solver searches one order only
        trains.append(trains[0])
    state = {"permits": rng.sample(["express", "local", "freight"], 2)} if rng.random() < 0.2 else {}
    return {"layout": "flat", "rules": {"profile": "1862"}, "company": "X",
            "companies": [{"id": "X", "home": home}, {"id": "Y"}], "trains": trains, "hexes": hexes,
            "state": state}


@pytest.mark.parametrize("seed", range(150))
def test_the_validator_prices_the_oracles_best_plan_at_its_value(seed):
    doc = random_board(seed)
    for objective in ("income", "revenue"):
        best = reference_solve(doc, objective=objective)
        if not best.routes:
            continue
        # The oracle lists its routes in an order and direction that earn its value.
        plan = {"routes": [{"train": r.train, "paths": list(r.paths)} for r in best.routes]}
        report = check_plan(doc, plan, objective=objective)
        assert report.legal, f"{report.table()}\n{json.dumps(doc)}"
        got = report.total if objective == "income" else report.revenue
        assert (got, report.revenue) == (best.value, best.revenue), json.dumps(doc)


# -- the solver against the oracle -------------------------------------------------------------------


@random_boards(200, HealthCheck.function_scoped_fixture)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_solver_reaches_the_oracles_optimum(seed, warm_solver):
    doc = random_board(seed)
    note(json.dumps(doc))
    for objective in ("income", "revenue"):
        best = reference_solve(doc, objective=objective)
        plan = solve(doc, objective=objective)
        assert plan.optimal
        got = plan.total if objective == "income" else plan.revenue
        assert (got, plan.revenue) == (best.value, best.revenue), json.dumps(doc)
        report = check_plan(doc, plan, objective=objective)
        assert report.legal, f"{report.table()}\n{json.dumps(doc)}"
        assert (report.revenue, report.subsidy) == (plan.revenue, plan.subsidy), json.dumps(doc)


# -- the pay-once search: its numba kernel against the Python search ---------------------------------


def twin_board(seed: int) -> dict:
    """`random_board` with up to four trains, often several freight trains (whose routes may
    meet three at a stop or close a loop) and identical ones."""
    doc = random_board(seed)
    rng = random.Random(seed ^ 0x5EED)
    trains = rng.sample(["2E", "2/3E", "2L", "2/3L", "2F", "3F", "6F", "7F", "3L"], rng.randint(1, 3))
    if rng.random() < 0.5:
        trains += rng.sample(["2F", "3F", "6F"], rng.randint(1, 2))
    if rng.random() < 0.4:
        trains.append(trains[0])
    return {**doc, "trains": trains[:4]}


def pays_once(doc) -> bool:
    """Does the position take the pay-once combiner?"""
    prep = prepare(doc)
    return prep.coupled and payonce_applies(prep)


# The oracle tries every plan: boards with more plans than this take it minutes.
ORACLE_PLANS = int(os.environ.get("HEXRAIL_ORACLE_PLANS", "2000"))


def oracle_optimum_validated(doc: dict) -> None:
    """For both objectives the solver's plan is optimal and the oracle's optimum, and the
    validator prices it as the solver does."""
    for objective in ("income", "revenue"):
        best = reference_solve(doc, objective=objective)
        plan = solve(doc, objective=objective)
        got = plan.total if objective == "income" else plan.revenue
        assert plan.optimal and (got, plan.revenue) == (best.value, best.revenue), json.dumps(doc)
        report = check_plan(doc, plan, objective=objective)
        assert report.legal, f"{report.table()}\n{json.dumps(doc)}"
        assert (report.revenue, report.subsidy) == (plan.revenue, plan.subsidy), json.dumps(doc)


@random_boards(150, HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_pay_once_kernel_reaches_the_oracles_optimum(seed, warm_solver):
    # Boards with up to four trains, often freight sets that meet three at a stop or close a
    # loop, and identical trains: the kernel's plan is the oracle's optimum, and the validator
    # prices it as the solver does.
    doc = twin_board(seed)
    note(json.dumps(doc))
    prep = prepare(doc)
    assume(prep.coupled and payonce_applies(prep))
    assume(math.prod(len(c) + 1 for c in prep.candidates) <= ORACLE_PLANS)
    oracle_optimum_validated(doc)


@pytest.mark.slow
@pytest.mark.parametrize("data", corpus_params("1862"))
def test_the_pay_once_kernel_plans_pass_the_validator_on_the_corpus(data, warm_solver):
    pos = position_from_18xx(data)
    if not pays_once(pos):
        return
    for objective in ("income", "revenue"):
        plan = solve(pos, objective=objective)
        report = check_plan(pos, plan, objective=objective)
        assert report.legal, report.table()
        assert (report.revenue, report.subsidy) == (plan.revenue, plan.subsidy)


def test_the_search_kernel_goes_on_where_it_paused(monkeypatch, warm_solver):
    # A deadline is watched between slices of the search; slicing changes nothing.
    doc = position(FIVE, ["3F", "3F", "2/3L"], tokens={"A1": ["X"], "A5": ["X"]})
    prep = prepare(doc)
    whole = combine_payonce(prep)
    monkeypatch.setattr(payonce, "_PAUSE_EVERY", 3)
    assert combine_payonce(prep) == whole
    assert whole.optimal and whole.value > 0


def test_the_work_budget_stops_inside_a_node_and_the_search_goes_on_there(monkeypatch, warm_solver):
    # One node may cost more than a whole time limit, so the kernel also stops inside a node
    # when its work budget runs out, and sets that node up again on the next call. With
    # budgets from one unit up, doubling each slice, nodes are cut short many times, and the
    # search still ends at the same optimum.
    doc = position(FIVE, ["3F", "3F", "2/3L"], tokens={"A1": ["X"], "A5": ["X"]})
    prep = prepare(doc)
    whole = combine_payonce(prep)
    slices = iter(range(10**6))
    monkeypatch.setattr(payonce._Search, "_budget", lambda self, rate, now: 1 << min(next(slices), 60))
    search, cut = payonce.KP.search, []

    def counted(board, levels, state, pause_every):
        status = search(board, levels, state, pause_every)
        cut.append(status == payonce.KP.PAUSED and state.ctl[payonce.KP.WORK] < 0)
        return status

    monkeypatch.setattr(payonce.KP, "search", counted)
    assert combine_payonce(prep) == whole
    assert sum(cut) >= 3 and whole.optimal


def test_a_search_past_its_deadline_returns_an_honest_bound(monkeypatch, warm_solver):
    doc = position(FIVE, ["3F", "3F", "2/3L"], tokens={"A1": ["X"], "A5": ["X"]})
    prep = prepare(doc)
    best = combine_payonce(prep)
    monkeypatch.setattr(payonce, "_PAUSE_EVERY", 1)  # look at the deadline after every node
    cut = combine_payonce(prep, deadline=0.0)
    assert not cut.optimal
    assert cut.value <= best.value <= cut.upper_bound


def test_stops_of_one_area_worth_different_amounts_are_priced_by_every_payer():
    # Which train is paid for London decides what it is worth: the kernel tries every payer.
    cells = [LONDON.format(100), CITY.format(30), LONDON.format(60)]
    doc = position(cells, ["2E", "2/3E"], tokens={"A3": ["X"]}, colors={"A1": "red", "A5": "red"},
                   home="A3")
    prep = prepare(doc)
    assert payonce_applies(prep)
    assert payonce._Search(prep, None).board is not None
    assert combine_payonce(prep).value == reference_solve(doc).value == 130


def test_a_set_with_one_end_only_is_never_priced(warm_solver):
    # Three freight routes meeting at A5, two of them ending at B4 and one running on to C5:
    # formed so, the set has one end only, which 18xx.games refuses. The solver used to price
    # it as a set from C5 to C5; now only arrangements the engine accepts are priced.
    doc = {"layout": "flat", "rules": {"profile": "1862"}, "company": "X",
           "companies": [{"id": "X", "home": "A5"}, {"id": "Y"}], "trains": ["2F", "3F", "2/3L", "6F"],
           "hexes": {"B4": {"tile": "city=revenue:40;path=a:1,b:_0;path=a:5,b:_0"},
                     "A5": {"tile": "city=revenue:60;path=a:4,b:_0", "tokens": ["X"]},
                     "C5": {"tile": "offboard=revenue:40,groups:L;path=a:2,b:_0", "color": "blue"}}}
    for objective in ("income", "revenue"):
        plan = solve(doc, objective=objective)
        report = check_plan(doc, plan, objective=objective)
        assert report.legal, report.table()
        assert (report.revenue, report.subsidy) == (plan.revenue, plan.subsidy)
        best = reference_solve(doc, objective=objective)
        assert ((plan.total if objective == "income" else plan.revenue), plan.revenue) == \
            (best.value, best.revenue)


# -- a connection run on coupled plans ----------------------------------------------------------


@register
class Connection1862(Game1862):
    """1862 with a connection run: when a route runs, one has both ends in the hexes of
    ``state["connection"]`` (as 1870 rules it), so the coupled combiners check the rule too;
    with ``state["own_track"]`` trains share no track (which takes the CP-SAT model); with
    ``state["regions"]`` (``[[hexes], k]``) at most k routes stop in those hexes."""

    name = "test-1862-connection"

    def plan_rules(self, pos):
        return replace(super().plan_rules(pos), connection=tuple(pos.state["connection"]),
                       share_track=not pos.state.get("own_track"),
                       regions=tuple((tuple(h), k) for h, k in pos.state.get("regions", ())))


@random_boards(120, HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much)
@given(seed=st.integers(0, 2**32 - 1))
def test_coupled_combiners_keep_the_connection_run(seed, warm_solver):
    doc = twin_board(seed)
    rng = random.Random(seed ^ 0xC0)
    hexes = sorted(doc["hexes"])
    own_track = rng.random() < 0.4
    if own_track:  # the CP-SAT model, with express trains only (sets and hex subsidies come
        # with shared track)
        doc["trains"] = [t for t in doc["trains"] if t.endswith("E")] or ["2E", "3E"]
    doc = {**doc, "rules": {"profile": Connection1862.name},
           "state": {**doc["state"], "connection": rng.sample(hexes, min(len(hexes), 2)),
                     "own_track": own_track,
                     "regions": [[rng.sample(hexes, min(len(hexes), 2)), 1]] if own_track else []}}
    note(json.dumps(doc))
    prep = prepare(doc)
    assume(math.prod(len(c) + 1 for c in prep.candidates) <= ORACLE_PLANS)
    oracle_optimum_validated(doc)


def test_identical_trains_on_own_track_may_leave_one_idle():
    """Two identical trains under the CP-SAT model, where only one route exists: the first runs
    it, the second stays idle (the symmetry rule once forced both idle, paying 0)."""
    doc = {"layout": "flat", "rules": {"profile": Connection1862.name}, "company": "X",
           "companies": [{"id": "X", "home": "C5"}, {"id": "Y"}], "trains": ["2E", "2E"],
           "hexes": {"C5": {"tile": "city=revenue:30;path=a:2,b:_0;path=a:3,b:_0", "tokens": ["X"]},
                     "C3": {"tile": "offboard=revenue:40,groups:L;path=a:0,b:_0", "color": "blue"},
                     "B4": {"tile": "offboard=revenue:20,groups:N;path=a:1,b:_0", "color": "red"}},
           "state": {"permits": ["express"], "connection": [], "own_track": True}}
    prep = prepare(doc)
    assert prep.coupled and not payonce_applies(prep)  # the CP-SAT model takes it
    plan = solve(doc)
    assert (plan.total, plan.optimal) == (70, True) == (reference_solve(doc).value, True)
