"""A small test-only rules profile that uses every hook, to show the engine carries them exactly.

The profile ``hooktest`` (registered here, not shipped) pays towns double, gives +50 to a route
that stops in a hex with a ``mine`` icon, and switches the plan rules on from position options:
``share_track``, ``stops_pay_once``, ``home_route``, ``intersect``, ``max_bypass``.
"""

from __future__ import annotations

import pytest

import hexrail
from conftest import line_hexes
from hexrail.rules import Bonus, PlanRules, Profile, register
from hexrail.rules.base import PayRule, SetsBonus
from hexrail.validate import check_plan


@register
class HookTest(Profile):
    name = "hooktest"

    def stop_rule(self, pos, train, hex_, node):
        rule = super().stop_rule(pos, train, hex_, node)
        return rule._replace(value=2 * rule.value) if node.kind == "town" else rule

    def bonuses(self, pos, train):
        return (Bonus("mine", 50, (("mine", 1),)),)

    def plan_rules(self, pos):
        o = pos.rules.options
        return PlanRules(share_track=bool(o.get("share_track")),
                         stops_pay_once=bool(o.get("stops_pay_once")),
                         home_route=bool(o.get("home_route")), intersect=bool(o.get("intersect")),
                         max_bypass=int(o.get("max_bypass", 0)))


def line(cells: list[str], trains: list[str], options: dict | None = None, extra: dict | None = None,
         tokens: dict | None = None) -> dict:
    """A flat column of hexes A1, A3, ... joined north-south; `cells` are node codes or ''."""
    hexes = line_hexes(cells, tokens)
    hexes.update(extra or {})
    return {"layout": "flat", "company": "X",
            "companies": [{"id": "X", "home": "A1"}, {"id": "Y"}],
            "trains": trains, "rules": {"profile": "hooktest", "options": options or {}},
            "hexes": hexes}


CITY = "city=revenue:{}"


def solve(doc, **kw):
    plan = hexrail.solve(doc, **kw)
    report = hexrail.validate(doc, plan)
    assert report.legal, report.table()
    assert (report.revenue, report.subsidy) == (plan.revenue, plan.subsidy)
    assert plan.optimal
    return plan


def test_stop_value_hook_pays_towns_double():
    doc = line([CITY.format(20), "town=revenue:10", CITY.format(30)], ["3"])
    assert solve(doc).revenue == 20 + 2 * 10 + 30


def test_route_bonus_is_weighed_in_the_search():
    # A 2-train: the plain best is A3-A5 (30+40), but A1 is a mine hex: A1-A3 earns 20+30+50.
    doc = line([CITY.format(20), CITY.format(30), CITY.format(40)], ["2"],
               tokens={"A1": ["X"], "A3": ["X"]})
    doc["hexes"]["A1"]["icons"] = ["mine"]
    plan = solve(doc)
    assert plan.revenue == 100
    assert plan.routes[0].bonuses == (("mine", 50),)


def test_track_sharing_between_trains():
    cells = [CITY.format(20), CITY.format(30), CITY.format(40)]
    assert solve(line(cells, ["3", "3"])).revenue == 90
    assert solve(line(cells, ["3", "3"], {"share_track": True})).revenue == 180


def test_stops_pay_once_across_trains():
    cells = [CITY.format(20), CITY.format(30), CITY.format(40)]
    plan = solve(line(cells, ["3", "3"], {"share_track": True, "stops_pay_once": True}))
    assert plan.revenue == 90


def test_pay_once_lets_a_best_of_train_pay_other_stops():
    # 2/3 trains pay their best two of three; with stops paying once the second train is paid
    # for what the first one leaves: 40+30 and then 20 (+ nothing else on this line).
    cells = [CITY.format(20), CITY.format(30), CITY.format(40)]
    plan = solve(line(cells, ["2/3", "2/3"], {"share_track": True, "stops_pay_once": True}))
    assert plan.revenue == 90
    assert sorted(r.revenue for r in plan.routes) == [20, 70]


def test_home_route():
    # Home A1 is worth little; the token at A7 reaches richer cities.
    cells = [CITY.format(10), CITY.format(10), "", CITY.format(50), CITY.format(60)]
    tokens = {"A1": ["X"], "A7": ["X"]}
    assert solve(line(cells, ["2"], tokens=tokens)).revenue == 110
    plan = solve(line(cells, ["2"], {"home_route": True}, tokens=tokens))
    assert plan.revenue == 20


def test_intersect_needs_shared_stops():
    # Tokens at A1 (home) and A7 on a line of five cities; two 2-trains.
    cells = [CITY.format(10), CITY.format(20), CITY.format(30), CITY.format(40), CITY.format(50)]
    tokens = {"A1": ["X"], "A7": ["X"]}
    assert solve(line(cells, ["2", "2"], tokens=tokens)).revenue == 70 + 90  # A5-A7, A7-A9
    # sharing A7 already: the same answer
    assert solve(line(cells, ["2", "2"], {"intersect": True}, tokens=tokens)).revenue == 160
    # one route must hold home A1 and the other meet it: only A1-A3 can run
    plan = solve(line(cells, ["2", "2"], {"intersect": True, "home_route": True}, tokens=tokens))
    assert plan.revenue == 30 and len(plan.routes) == 1


def test_one_bypass_per_round():
    full = "city=revenue:30"
    cells = [CITY.format(20), full, CITY.format(60)]
    tokens = {"A1": ["X"], "A3": ["Y"]}
    assert solve(line(cells, ["3"], tokens=tokens)).revenue == 50
    assert solve(line(cells, ["3"], {"max_bypass": 1}, tokens=tokens)).revenue == 110


@pytest.mark.parametrize("objective", ["income", "revenue"])
def test_coupled_combiner_reports_optimal(objective):
    cells = [CITY.format(20), CITY.format(30), CITY.format(40)]
    plan = hexrail.solve(line(cells, ["2", "3"], {"home_route": True}), objective=objective)
    assert plan.optimal and plan.revenue == 90


@register
class EndClassTest(HookTest):
    """Offboards share an end class: no route may run from one offboard to another."""

    name = "hooktest-ends"

    def stop_rule(self, pos, train, hex_, node):
        return super().stop_rule(pos, train, hex_, node)._replace(end_class=int(node.kind == "offboard"))


def test_end_class_forbids_red_to_red():
    # offboard 50 – token city 10 – offboard 60: a 3-train would run red to red (120)
    cells = ["offboard=revenue:50", CITY.format(10), "offboard=revenue:60"]
    doc = line(cells, ["3"], tokens={"A3": ["X"]})
    assert solve(doc).revenue == 120
    doc["rules"]["profile"] = "hooktest-ends"
    plan = solve(doc)
    assert plan.revenue == 70  # the city and the better offboard
    from hexrail.oracle import reference_solve

    assert reference_solve(doc).value == 70
    red_to_red = {"routes": [{"train": "3-0", "stops": ["A1-0", "A3-0", "A5-0"]}]}
    report = hexrail.validate(doc, red_to_red)
    assert not report.legal and "A1-0 to A5-0" in report.routes[0].errors[0]


# -- bonuses on the paid stops, a paid station (`PayRule`) ----------------------------------------


@register
class PaidBonusTest(Profile):
    """+100 for a route with stops in A3 and in A5; with the option ``on_paid`` the stops must
    be paid, with ``station`` one paid stop must be the company's."""

    name = "paidbonustest"

    def bonuses(self, pos, train):
        return (SetsBonus("pair", 100, (("A3",), ("A5",))),)

    def pay_rule(self, pos, train):
        o = pos.rules.options
        return PayRule(bonuses_on_paid=bool(o.get("on_paid")), paid_station=bool(o.get("station")))


@pytest.mark.parametrize("train, options, revenue, paid", [
    ("3/4", {"on_paid": True, "station": True}, 180, ["A1-0", "A3-0", "A5-0"]),  # bonus steers
    ("2/4", {"on_paid": True, "station": True}, 110, ["A1-0", "A7-0"]),  # no room: A1 must pay
    ("2/4", {"on_paid": True}, 120, ["A3-0", "A5-0"]),  # the bonus beats A1 and A7
    ("2/4", {}, 210, ["A1-0", "A7-0"]),  # bonuses on the visited stops: both
])
def test_paid_stop_choice_weighs_bonuses_and_the_station(train, options, revenue, paid):
    from conftest import solve_checked

    doc = line(["city=revenue:60", "city=revenue:10", "city=revenue:10", "city=revenue:50"],
               [train], options) | {"rules": {"profile": PaidBonusTest.name, "options": options}}
    plan = solve_checked(doc)
    assert plan.revenue == revenue and sorted(plan.routes[0].paid) == paid


@register
class RegionTest(Profile):
    """Shared track; at most one route stops in A5 (a region, `PlanRules.regions`)."""

    name = "regiontest"

    def plan_rules(self, pos):
        return PlanRules(share_track=True, regions=((("A5",), 1),))


def test_at_most_k_routes_stop_in_a_region():
    from conftest import solve_checked

    # Two 2-trains from X's A3: both would run to A5 (20 + 50); one must turn to A1 (20 + 10)
    doc = line(["city=revenue:10", "city=revenue:20", "city=revenue:50"], ["2", "2"],
               tokens={"A3": ["X"]}) | {"rules": {"profile": RegionTest.name}}
    plan = solve_checked(doc)
    assert plan.revenue == 70 + 30
    report = check_plan(doc, {"routes": [{"train": "2-0", "stops": ["A3-0", "A5-0"]},
                                         {"train": "2-1", "stops": ["A3-0", "A5-0"]}]})
    assert not report.legal and "at most 1 may" in str(report)
