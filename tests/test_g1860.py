"""The 1860 rules profile (docs/rules.md (1860)), rule by rule, then on real 18xx.games positions.

Each hand-made board pins one rule to revenue numbers. Plans are re-scored by the independent
validator; where the brute-force oracle supports the rule it must agree. The oracle handles
disjoint routes only (no home route, no intersect), so it runs on ``1860-test``, this file's copy
of the profile whose plan rules come from the position's options, on boards where those two
rules do not bind (one train, every route through home).

Train rows that depend on the company's state (nationalized and leased trains lose the M town
allowance) come from the profile's ``train_spec`` hook, which the solver, the validator and the
oracle all apply.

The corpus part reads ``1860.jsonl`` from ``$HEXRAIL_CORPUS`` or ``<repo>/../shared/corpus`` at run
time and skips when it is absent.
"""

from __future__ import annotations

import json
import time
from dataclasses import replace

import pytest
from conftest import line_hexes, corpus_missing, corpus_params, corpus_positions, position_id

import hexrail
from hexrail.errors import HexrailError
from hexrail.io.native import load_position
from hexrail.model.frozen import FrozenMap
from hexrail.model.position import Position, Rules
from hexrail.rules import PlanRules, register, ruled
from hexrail.rules.g1860 import Game1860, train_size
from hexrail.rules.base import PASSABLE
from hexrail.validate import check_plan

X = "X"  # the operating company
Y = "Y"  # another company


@register
class Variant1860(Game1860):
    """1860 with its plan rules switched by position options (tests only)."""

    name = "1860-test"

    def plan_rules(self, pos):
        o = pos.rules.options
        return PlanRules(home_route=bool(o.get("home_route", True)),
                         intersect=bool(o.get("intersect", True)),
                         max_bypass=int(o.get("max_bypass", 1)))


# -- boards ------------------------------------------------------------------------------------

def city(revenue: int, slots: int = 1) -> str:
    return f"city=revenue:{revenue},slots:{slots}"


def town(revenue: int) -> str:
    return f"town=revenue:{revenue}"


HALT = "halt=symbol:£"


def line(cells: list[str], trains: list, *, tokens: dict | None = None, options: dict | None = None,
         state: dict | None = None, extra: dict | None = None, home: str = "A1") -> dict:
    """A native 1860 position: a column of hexes A1, A3, ... joined north-south.

    `cells` are node parts in tile notation (``""`` for plain track); `tokens` maps hex ids to
    slot lists (default: X in A1); `extra` adds or replaces hexes.
    """
    hexes = line_hexes(cells, tokens)
    hexes.update(extra or {})
    companies = {X, Y} | {t if isinstance(t, str) else t["company"]
                          for slots in (tokens or {}).values() for t in slots if t is not None}
    return {
        "format": "hexrail-position/1", "layout": "flat",
        "phase": {"name": "5", "colors": ["yellow", "green", "brown"]},
        "rules": {"profile": "1860", "options": options or {}}, "company": X,
        "companies": [{"id": c, **({"home": home} if c == X else {})} for c in sorted(companies)],
        "trains": list(trains), "hexes": hexes, "state": state or {},
    }


def variant(doc, **plan_rules):
    """`doc` (a native document or a Position) under the ``1860-test`` profile with some plan
    rules switched."""
    if isinstance(doc, Position):
        options = FrozenMap({**doc.rules.options, **plan_rules})
        return replace(doc, rules=Rules("1860-test", options))
    options = {**doc["rules"].get("options", {}), **plan_rules}
    return {**doc, "rules": {"profile": "1860-test", "options": options}}


def oracle(doc, objective: str = "income"):
    """The brute-force optimum of `doc` with home route and intersect off (they must not bind)."""
    reference = pytest.importorskip("hexrail.oracle")
    if doc_profile(doc) == "1860":
        doc = variant(doc, home_route=False, intersect=False)
    return reference.reference_solve(doc, objective=objective)


def doc_profile(doc) -> str:
    return doc.rules.profile if isinstance(doc, Position) else doc["rules"]["profile"]


def solve_checked(doc, objective: str = "income", *, against_oracle: bool = True) -> hexrail.Plan:
    """Solve; the plan must be optimal, legal to the validator, scored alike (income, and revenue
    and subsidy apart), and equal to the oracle's optimum when asked."""
    plan = hexrail.solve(doc, objective=objective)
    text = json.dumps(doc) if isinstance(doc, dict) else str(doc.meta.get("name"))
    assert plan.optimal, text
    report = check_plan(doc, plan, objective=objective)
    assert report.legal, f"{report}\n{text}"
    assert (report.revenue, report.subsidy) == (plan.revenue, plan.subsidy), f"{report}\n{text}"
    if against_oracle:
        expected = oracle(doc, objective)
        assert expected.value == (plan.total if objective == "income" else plan.revenue), text
        assert (expected.revenue, expected.subsidy) == (plan.revenue, plan.subsidy), text
    return plan


def adapted(doc: dict):
    """The position as read (the train_spec hook applies state-dependent rows when solving)."""
    return load_position(doc)


@pytest.fixture(scope="module", autouse=True)
def warm():
    hexrail.solve(hexrail.example_path("demo"))


# -- trains ------------------------------------------------------------------------------------

def test_profile_is_found_by_title():
    g18xx = pytest.importorskip("hexrail.io.g18xx")
    assert g18xx.rules_for_title("1860")[:2] == ("1860", True)


@pytest.mark.parametrize("spec", [
    "3+2",
    {"rows": [{"nodes": ["city", "offboard"], "pay": 3}, {"nodes": ["town", "halt"], "pay": 2}]},
    [{"nodes": ["city", "offboard"], "pay": 3, "visit": 3},  # the 18xx.games distance
     {"nodes": ["town", "halt"], "pay": 2, "visit": 99}],
])
def test_n_plus_m_trains_share_the_city_allowance(spec):
    rows = Game1860().parse_train(spec, "train").rows
    assert [(sorted(r.kinds), r.pay, r.visit) for r in rows] == [
        (["halt", "town"], 2, 2), (["city", "halt", "offboard", "town"], 3, 3)]
    assert train_size(Game1860().parse_train(spec, "t"), "t") == (3, 2)


@pytest.mark.parametrize("spec", ["D", "4E", "3/4", "4H"])
def test_other_train_types_are_refused(spec):
    with pytest.raises(HexrailError, match="N\\+M"):
        Game1860().parse_train(spec, "trains[0]")


# -- towns -------------------------------------------------------------------------------------

TOWNS = [city(20), town(10), town(20), town(10), city(30)]


@pytest.mark.parametrize("train, revenue", [("2+1", 20 + 30 + 20), ("3+1", 20 + 30 + 20 + 10),
                                            ("2+2", 20 + 30 + 20 + 10), ("2+3", 90), ("4+0", 80)])
def test_towns_share_the_unused_city_allowance_and_may_be_skipped(train, revenue):
    # Two cities and three towns: a 2+1 counts its best town and passes the other two; a 3+1
    # has one city unused, so it counts two towns.
    plan = solve_checked(line(TOWNS, [train]))
    assert plan.revenue == revenue
    assert len(plan.routes[0].stops) == 5  # the whole line, skipped towns included


@pytest.mark.parametrize("where", ["options", "state"])
def test_no_skip_towns_makes_every_town_count(where):
    # A 2+1 may not pass three towns it cannot count: the whole line is illegal. Best: A1 with
    # two towns (one city, so the town allowance is 1 + 1).
    flag = {"no_skip_towns": True}
    doc = line(TOWNS, ["2+1"], **{where: flag})
    plan = solve_checked(doc)
    assert plan.revenue == 20 + 10 + 20
    whole = {"routes": [{"train": "2+1-0", "stops": ["A1-0", "A3-0", "A5-0", "A7-0", "A9-0"]}]}
    report = check_plan(doc, whole)
    assert not report.legal and "town" in report.routes[0].errors[0]


def test_original_game_option_implies_no_skip_towns():
    assert solve_checked(line(TOWNS, ["2+1"], options={"original_game": True})).revenue == 50


# -- halts -------------------------------------------------------------------------------------

# Home A5 (20) between a town and a big city to the north and three halts then a city south.
HALTS = [city(40), town(10), city(20), HALT, HALT, HALT, city(30)]
HALT_TOKENS = {"A5": [X]}


def test_halts_pay_subsidy_and_the_objective_decides_how_many_count():
    doc = line(HALTS, ["2+3"], tokens=HALT_TOKENS, home="A5")
    # Revenue + subsidy: south from the town A3, counting it and two halts: 60 + 20 (A5 to A13
    # with three halts makes the same 80 with less revenue).
    plan = solve_checked(doc)
    assert (plan.revenue, plan.subsidy) == (60, 20)
    assert {plan.routes[0].stops[0], plan.routes[0].stops[-1]} == {"A3-0", "A13-0"}
    assert sum(s.startswith(("A7", "A9", "A11")) for s in plan.routes[0].paid) == 2
    # Revenue alone: north, 40 + 10 + 20 = 70, no subsidy.
    by_revenue = solve_checked(doc, "revenue")
    assert (by_revenue.revenue, by_revenue.subsidy) == (70, 0)


def test_halts_use_the_town_allowance():
    # A 2+1 south of home: one halt counted (10), the other two passed.
    plan = solve_checked(line(HALTS, ["2+1"], tokens=HALT_TOKENS, home="A5"))
    assert (plan.revenue, plan.subsidy) == (70, 0)  # north still wins: 70 > 50 + 10
    south = line(HALTS[2:], ["2+1"], tokens={"A1": [X]})
    plan = solve_checked(south)
    assert (plan.revenue, plan.subsidy) == (50, 10)


def test_halt_subsidy_comes_from_the_state():
    south = line(HALTS[2:], ["2+3"], state={"halt_subsidy": 15})
    assert solve_checked(south).subsidy == 45


def test_a_route_may_not_start_or_end_at_a_halt():
    # Home A1, a halt, then a town: the route must run on to the town.
    doc = line([city(20), HALT, town(10)], ["2+1"])
    plan = solve_checked(doc)
    assert plan.routes[0].stops == ("A1-0", "A3-0", "A5-0")
    assert (plan.revenue, plan.subsidy) == (30, 10)
    # Home and a halt only: nothing to run.
    plan = solve_checked(line([city(20), HALT], ["2+1"]))
    assert plan.routes == () and plan.total == 0
    report = check_plan(line([city(20), HALT], ["2+1"]),
                        {"routes": [{"train": "2+1-0", "stops": ["A1-0", "A3-0"]}]})
    assert not report.legal and "halt" in report.routes[0].errors[0]


def test_ignored_halts_earn_nothing_but_still_may_not_end_a_route():
    south = line(HALTS[2:], ["2+3"], state={"ignore_halts": True})
    plan = solve_checked(south)
    assert (plan.revenue, plan.subsidy) == (50, 0)
    assert not any(s.startswith(("A3", "A5", "A7")) for s in plan.routes[0].paid)
    assert solve_checked(line([city(20), HALT], ["2+1"], state={"ignore_halts": True})).total == 0


def test_equal_income_prefers_revenue_over_subsidy():
    # A 2+1 with one town/halt allowance left: the halt (subsidy 10) or the town (revenue 10).
    # Income is 60 either way; docs/rules.md (generic) breaks the tie by revenue. The halt comes first
    # on the route, and the kernel keeps route order among equal weights.
    doc = line([city(20), HALT, town(10), city(30)], ["2+1"])
    plan = hexrail.solve(doc)
    assert plan.total == 60
    assert (plan.revenue, plan.subsidy) == (60, 0)


# -- blocked cities ----------------------------------------------------------------------------

# Home A5 between two cities full of Y tokens, each with a city beyond.
BLOCKED = [city(60), city(30), city(20), city(30), city(40)]


def blocked(a3_token, **kw) -> dict:
    return line(BLOCKED, ["3+1", "3+1"], tokens={"A3": [a3_token], "A5": [X], "A7": [Y]},
                home="A5", **kw)


def test_one_bypass_per_round_goes_to_the_best_train():
    # Through A3 to A1: 20 + 30 + 60 = 110; through A7 to A9: 90; the other train stops at the
    # blocked city: 50. One bypass in the round: 110 + 50.
    doc = blocked(Y)
    plan = solve_checked(doc)  # every route runs through home: the oracle applies
    assert plan.revenue == 160
    assert sorted(r.revenue for r in plan.routes) == [50, 110]
    assert oracle(variant(doc, home_route=False, intersect=False, max_bypass=0)).value == 100
    assert oracle(variant(doc, home_route=False, intersect=False, max_bypass=2)).value == 200
    both = {"routes": [{"train": "3+1-0", "stops": ["A5-0", "A3-0", "A1-0"]},
                       {"train": "3+1-1", "stops": ["A5-0", "A7-0", "A9-0"]}]}
    report = check_plan(doc, both)
    assert not report.legal and "bypass" in " ".join(report.errors)


@pytest.mark.parametrize("flag", ["flipped", "neutral", "closed company"])
def test_flipped_and_neutral_tokens_never_block(flag):
    # A3's token no longer blocks, so both trains run through: only A7 spends the bypass. A
    # token of a company marked closed is a flipped one.
    if flag == "closed company":
        doc = blocked("Z")
        doc["companies"] = [c for c in doc["companies"] if c["id"] != "Z"] + [{"id": "Z", "closed": True}]
    else:
        doc = blocked({"company": Y, "flag": flag})
    plan = solve_checked(doc)
    assert plan.revenue == 110 + 90


def test_a_route_may_start_or_end_at_a_blocked_city_without_bypass():
    # Y fills A3 and A7; the two 2+1 trains run home-A3 and home-A7: no bypass needed.
    doc = line(BLOCKED, ["2+1", "2+1"], tokens={"A3": [Y], "A5": [X], "A7": [Y]}, home="A5")
    assert solve_checked(doc).revenue == 50 + 50


# -- hex re-entry ------------------------------------------------------------------------------

def reentry(options: dict | None = None) -> dict:
    """Home B2 runs south into B4 (track 3-0), loops B6 → A5 and comes back into B4 on its
    other track (1-4) to reach C3 (50)."""
    hexes = {
        "B2": {"tile": city(20) + ";path=a:0,b:_0", "tokens": [X]},
        "B4": {"tile": "path=a:3,b:0;path=a:1,b:4"},
        "B6": {"tile": "path=a:3,b:2"},
        "A5": {"tile": "path=a:5,b:4"},
        "C3": {"tile": city(50) + ";path=a:1,b:_0"},
    }
    return {
        "format": "hexrail-position/1", "layout": "flat", "company": X,
        "companies": [{"id": X, "home": "B2"}], "trains": ["2+1"],
        "rules": {"profile": "1860", "options": options or {}}, "hexes": hexes,
    }


def test_no_hex_reentry_unless_the_option_allows_it():
    assert solve_checked(reentry()).total == 0
    plan = solve_checked(reentry({"re_enter_hexes": True}))
    assert plan.revenue == 70
    assert plan.routes[0].hexes == ("B2", "B4", "B6", "A5", "B4", "C3")
    report = check_plan(reentry(), plan)
    assert not report.legal and "B4" in report.routes[0].errors[0]


# -- home route and intersect --------------------------------------------------------------------

def test_one_route_includes_the_home_token():
    # Home A1 (10) with a second token at A7 by rich cities: the 2+1 must run from home.
    cells = [city(10), city(10), "", city(50), city(60)]
    doc = line(cells, ["2+1"], tokens={"A1": [X], "A7": [X]})
    assert oracle(doc).value == 110
    plan = solve_checked(doc, against_oracle=False)
    assert plan.revenue == 20 and plan.routes[0].stops == ("A1-0", "A3-0")
    away = {"routes": [{"train": "2+1-0", "stops": ["A7-0", "A9-0"]}]}
    report = check_plan(doc, away)
    assert not report.legal and "home" in report.errors[0]


def test_routes_must_intersect():
    # Tokens at home A1 and at A9. Apart, A1-A3 (50) and A9-A11 (110) would run; they share no
    # stop, so with intersect only the home route runs... unless a route joins them: A5-A7-A9
    # (90, A7 is plain track) shares A9 with A9-A11 but neither includes home.
    cells = [city(20), city(30), city(40), "", city(50), city(60)]
    doc = line(cells, ["2+1", "2+1"], tokens={"A1": [X], "A9": [X]})
    assert oracle(doc).value == 110 + 90
    assert solve_checked(variant(doc, intersect=False), against_oracle=False).revenue == 50 + 110
    plan = solve_checked(doc, against_oracle=False)
    assert plan.revenue == 50 and len(plan.routes) == 1
    apart = {"routes": [{"train": "2+1-0", "stops": ["A1-0", "A3-0"]},
                        {"train": "2+1-1", "stops": ["A9-0", "A11-0"]}]}
    report = check_plan(doc, apart)
    assert not report.legal and "network" in report.errors[0]


# -- company state -------------------------------------------------------------------------------

NATIONAL = [city(20), town(10), town(10), city(30)]


def test_nationalized_trains_run_as_n_and_pass_towns_beyond_the_allowance():
    # A 2+1 as a 2: A1..A7 holds two cities and two towns; the cities use the whole allowance,
    # so both towns are passed without pay and the route stays legal: 50 (issue 15: the old
    # rule, every town passed counts, refused it and claimed 30 optimal).
    pos = adapted(line(NATIONAL, ["2+1"], state={"nationalization": True}))
    assert [(sorted(r.kinds), r.pay) for r in ruled(pos)[0].trains[0].spec.rows] == [
        (["city", "halt", "offboard", "town"], 2)]
    plan = solve_checked(pos)
    assert plan.revenue == 50 and plan.routes[0].paid == ("A1-0", "A7-0")
    assert solve_checked(adapted(line(NATIONAL, ["2+1"]))).revenue == 60  # not nationalized
    # with no_skip_towns every town passed must fit: only A1-A3 (one city, one town) does
    strict = line(NATIONAL, ["2+1"], state={"nationalization": True}, options={"no_skip_towns": True})
    assert solve_checked(strict).revenue == 30


def test_nationalization_from_the_state_alone():
    assert hexrail.solve(line(NATIONAL, ["2+1"], state={"nationalization": True})).revenue == 50


# Home A1; three towns and a halt, then four more cities: a 6+3 passes more towns than the unused
# city allowance when it runs the whole line.
NATIONAL_LONG = [city(20), town(10), town(20), HALT, town(30), city(30), city(40), city(50), city(60)]


@pytest.mark.parametrize("flags, revenue, subsidy", [
    # N+M: towns and the halt share 3 plus the one city place left: all four count
    ({}, 260, 10),
    # nationalized (a 6): the one free place goes to the best town, the others and the halt are
    # passed unpaid; A1..A15 (four cities, towns 30 + 20) pays less (190)
    ({"nationalization": True}, 230, 0),
    # the engine's own flag for it
    ({"use_all_towns": True, "nationalization": True}, 230, 0),
    # ... and with no_skip_towns every town must fit: A1..A13, three cities and three towns
    # (150) beats A1..A11 with the halt counted in the place the towns leave (110 + 10)
    ({"nationalization": True, "no_skip_towns": True}, 150, 0),
])
def test_nationalized_6_3_fills_with_towns_before_halts(flags, revenue, subsidy):
    doc = line(NATIONAL_LONG, ["6+3"], state=flags)
    plan = solve_checked(doc)
    assert (plan.revenue, plan.subsidy) == (revenue, subsidy)


def test_nationalized_halt_counts_only_where_towns_leave_room():
    # Home A1, two towns, a halt, two more cities: three free places under nationalization (a
    # 6), the two towns take two, the halt the third: 20 + 10 + 20 + 30 + 40 and £10.
    cells = [city(20), town(10), town(20), HALT, city(30), city(40)]
    doc = line(cells, ["6+3"], state={"nationalization": True})
    plan = solve_checked(doc)
    assert (plan.revenue, plan.subsidy) == (120, 10)
    # Towns are not the player's choice: the halt with a town left unpaid is refused, ...
    everything = ["A1-0", "A3-0", "A5-0", "A7-0", "A9-0", "A11-0"]
    halt_for_town = {"routes": [{"train": "6+3-0", "stops": everything,
                                 "paid": [s for s in everything if s != "A3-0"]}]}
    assert not check_plan(doc, halt_for_town).legal
    # ... and so is a halt counted where the towns passed fill the train.
    crowded = line(NATIONAL_LONG, ["6+3"], state={"nationalization": True})
    stops = [f"A{2 * k + 1}-0" for k in range(9)]
    halt_first = {"routes": [{"train": "6+3-0", "stops": stops,
                              "paid": ["A1-0", "A7-0", "A11-0", "A13-0", "A15-0", "A17-0"]}]}
    report = check_plan(crowded, halt_first)
    assert not report.legal, report.table()


# Home A1, a halt, a town, a city: the leased 3+2 counts every stop within 3.
LEASE = [city(20), HALT, town(10), city(30)]


@pytest.mark.parametrize("state", [{"insolvent": True},
                                   {"train_info": {"3+2-0": {"owner": "depot"}}}])
def test_a_leased_train_earns_40_plus_20_per_stop(state):
    pos = adapted(line(LEASE, ["3+2"], state=state))
    plan = solve_checked(pos)
    # two cities and one of the halt and the town: 3 stops, no subsidy
    assert (plan.revenue, plan.subsidy) == (40 + 3 * 20, 0)
    assert plan.routes[0].bonuses == (("leased train", 40),)
    # an own 3+2 counts everything: 20 + 10 + 30 and the halt's subsidy
    own = solve_checked(adapted(line(LEASE, ["3+2"])))
    assert (own.revenue, own.subsidy) == (60, 10)


def test_a_leased_train_ignores_halts_when_halts_are_ignored():
    pos = adapted(line([city(20), HALT, HALT, city(30)], ["3+2"],
                       state={"insolvent": True, "ignore_halts": True}))
    assert (solve_checked(pos).revenue, solve_checked(pos).subsidy) == (40 + 2 * 20, 0)


def test_original_insolvency_halves_revenue_and_keeps_subsidies():
    state = {"insolvent": True, "original_insolvency": True}
    plan = solve_checked(adapted(line(LEASE, ["3+2"], state=state)))
    assert (plan.revenue, plan.subsidy) == ((20 + 10 + 30) // 2, 10)


def test_original_insolvency_refuses_odd_values():
    doc = line([city(20), town(15), city(30)], ["3+2"],
               state={"insolvent": True, "original_insolvency": True})
    with pytest.raises(HexrailError, match="odd"):
        hexrail.solve(adapted(doc))


def test_simplified_insolvency_is_refused():
    doc = line(LEASE, ["3+2"], state={"insolvent": True, "simplified_insolvency": True})
    with pytest.raises(HexrailError, match="simplified"):
        hexrail.solve(adapted(doc))


def test_insolvency_from_the_state_alone():
    # Without it the leased 3+2 keeps its M allowance and counts all four stops.
    plan = hexrail.solve(line(LEASE, ["3+2"], state={"insolvent": True}))
    assert plan.revenue == 100


# -- 18xx.games positions ------------------------------------------------------------------------

def _g18xx():
    return pytest.importorskip("hexrail.io.g18xx")


def recorded(data: dict, objective: str = "income") -> int:
    """max(players' figure, auto-router's rescored figure), with subsidies for income."""
    sub, ar = data["submitted"], data.get("auto_router") or {}
    figures = []
    if "revenue" in sub:
        figures.append(sub["revenue"] + (sub.get("subsidy", 0) if objective == "income" else 0))
    if "revenue_rescored" in ar and not ar.get("rescore_error"):
        figures.append(ar["revenue_rescored"] + (ar.get("subsidy", 0) if objective == "income" else 0))
    return max(figures)


def corpus_position(data: dict):
    pos = _g18xx().position_from_18xx(data)
    assert pos.rules.profile == "1860" and pos.meta["rules_covered"]
    return pos


POSITIONS = corpus_params("1860")
_SOLVED: dict[tuple[str, str], tuple[hexrail.Plan, float]] = {}


def solved(data: dict, objective: str = "income") -> tuple[hexrail.Plan, float]:
    """The plan for a corpus position and the seconds it took (solved once per session)."""
    key = (position_id(data), objective)
    if key not in _SOLVED:
        pos = corpus_position(data)
        start = time.perf_counter()
        plan = hexrail.solve(pos, objective=objective)
        _SOLVED[key] = plan, time.perf_counter() - start
    return _SOLVED[key]


@pytest.mark.slow
@pytest.mark.parametrize("data", POSITIONS)
def test_corpus_optimum_at_least_recorded(data):
    pos = corpus_position(data)
    plan, _ = solved(data)
    assert plan.optimal
    assert plan.total >= recorded(data), (plan.total, recorded(data))
    report = check_plan(pos, plan)
    assert report.legal and report.total == plan.total, report.table()
    by_revenue, _ = solved(data, "revenue")
    assert by_revenue.optimal and by_revenue.revenue >= recorded(data, "revenue")
    report = check_plan(pos, by_revenue, objective="revenue")
    assert report.legal and report.revenue == by_revenue.revenue, report.table()


def price_engine_stops(pos, route: dict) -> tuple[int, int, bool]:
    """What our profile pays for the stops 18xx.games scored on `route` (revenue, subsidy), and
    whether those stops fit the train's rows (cities within N, towns and halts within the rest)."""
    profile = Game1860(pos)
    train = next(t for t in pos.trains if t.id == route["train"])
    revenue = sum(b.amount for b in profile.bonuses(pos, train))
    subsidy = 0
    kinds = {"city": 0, "town": 0}
    for ref in route["stops"]:
        hex_id, _, index = ref.rpartition("-")
        hex_ = pos.hex(hex_id)
        node = hex_.node(int(index))
        rule = profile.stop_rule(pos, train, hex_, node)
        revenue += rule.value
        subsidy += rule.subsidy
        kinds["city" if node.kind in ("city", "offboard") else "town"] += 1
    n = sum(r.pay for r in train.spec.rows if "city" in r.kinds)
    fits = kinds["city"] <= n and sum(kinds.values()) <= sum(r.pay for r in train.spec.rows)
    return revenue, subsidy, fits


@pytest.mark.parametrize("source", ["submitted", "auto_router"])
@pytest.mark.parametrize("data", POSITIONS)
def test_corpus_recorded_routes_score_as_recorded(data, source):
    """The players' and the auto-router's routes, checked and scored by us.

    18xx.games pays a route for the halts the player asked for (counted before towns); our
    validator counts the best pay. So: the routes are legal; the stops the engine scored, priced
    by our profile, give exactly the recorded revenue and subsidy of each route; and the
    validator's best pay is at least the recorded income (more where the player's choice of
    halts left income behind).
    """
    g18xx = _g18xx()
    rec = data.get(source) or {}
    if rec.get("error") or (source == "auto_router" and rec.get("rescore_error")):
        pytest.skip(f"18xx.games could not rebuild these routes: {rec.get('error', '')[:80]}")
    pos = corpus_position(data)
    report = check_plan(pos, g18xx.plan_from_18xx_routes(rec["routes"]))
    assert report.legal, [e for r in report.routes for e in r.errors] + list(report.errors)
    for route in rec["routes"]:
        revenue, subsidy, fits = price_engine_stops(pos, route)
        assert fits, route["stops"]
        assert (revenue, subsidy) == (route["revenue"], route.get("subsidy", 0)), route["stops"]
    revenue = rec["revenue"] if source == "submitted" else rec["revenue_rescored"]
    assert report.total >= revenue + rec.get("subsidy", 0), report.table()


def uses_bypass(pos, plan: hexrail.Plan) -> bool:
    """Does a route of the plan pass through a city full of other companies' tokens?"""
    profile = Game1860(pos)
    trains = {t.id: t for t in pos.trains}
    for route in plan.routes:
        for ref in route.stops[1:-1]:
            hex_id, _, index = ref.rpartition("-")
            node = pos.hex(hex_id).node(int(index))
            rule = profile.stop_rule(pos, trains[route.train], pos.hex(hex_id), node)
            if node.kind == "city" and rule.block != PASSABLE:
                return True
    return False


def corpus_summary() -> dict:
    """Our optimum (income) against the players' and the auto-router's figures, the positions
    where we beat both, how the validator scores the players' routes, and solve times."""
    counts = {"equal": 0, "higher": 0, "lower": 0, "not scored": 0}
    scoring = {"same": 0, "same income, more revenue": 0, "more income": 0, "less income": 0}
    beats, times = [], []
    g18xx = _g18xx()
    for data in corpus_positions("1860"):
        pos = corpus_position(data)
        plan, seconds = solved(data)
        times.append(seconds)
        best = recorded(data)
        counts["equal" if plan.total == best else "higher" if plan.total > best else "lower"] += 1
        if plan.total > best:
            beats.append({"position": position_id(data), "ours": [plan.revenue, plan.subsidy],
                          "players": [data["submitted"]["revenue"], data["submitted"].get("subsidy", 0)],
                          "auto_router": [data["auto_router"].get("revenue_rescored"),
                                          data["auto_router"].get("subsidy", 0)],
                          "bypass": uses_bypass(pos, plan)})
        sub = data["submitted"]
        report = check_plan(pos, g18xx.plan_from_18xx_routes(sub["routes"]))
        income = sub["revenue"] + sub.get("subsidy", 0)
        if (report.revenue, report.subsidy) == (sub["revenue"], sub.get("subsidy", 0)):
            scoring["same"] += 1
        elif report.total == income:
            scoring["same income, more revenue"] += 1
        else:
            scoring["more income" if report.total > income else "less income"] += 1
    times.sort()
    pick = (lambda q: round(times[min(len(times) - 1, int(q * len(times)))], 3)) if times else None
    return {"counts": counts, "beats": beats, "players_scored": scoring,
            "seconds": {"p50": pick(0.5), "p95": pick(0.95), "max": pick(1.0)} if times else {}}


@pytest.mark.slow
@pytest.mark.skipif(corpus_missing() is not None, reason=corpus_missing() or "")
def test_corpus_summary(record_property):
    summary = corpus_summary()
    record_property("1860", json.dumps(summary))
    print(json.dumps(summary))
    assert summary["counts"]["lower"] == 0
    assert summary["players_scored"]["less income"] == 0
    assert sum(summary["counts"].values()) == len(corpus_positions("1860"))
