"""The validator: the demo's solved plan passes, and each rule, broken on a tiny board, is named.

Boards are native position documents written inline. Most use one column of a flat map, where
side 0 of A1 faces side 3 of A3, A3 faces A5, and so on.
"""

from __future__ import annotations

import pytest

import hexrail
from hexrail.rules import PlanRules, Profile, register
from hexrail.validate import PlanReport, check_plan, validate


@register
class NoReentryProfile(Profile):
    """Test-only: no route may leave a hex and come back."""

    name = "test-no-reentry"

    def reentry_forbidden(self, pos, hex_):
        return True


@register
class HaltSubsidyProfile(Profile):
    """Test-only: each counted halt earns 10 subsidy."""

    name = "test-halt-subsidy"

    def stop_rule(self, pos, train, hex_, node):
        rule = super().stop_rule(pos, train, hex_, node)
        return rule._replace(subsidy=10) if node.kind == "halt" else rule


@register
class CoupledProfile(Profile):
    """Test-only: every plan-level rule switched on, one bypass per round."""

    name = "test-coupled"

    def plan_rules(self, pos):
        return PlanRules(share_track=True, stops_pay_once=True, home_route=True, intersect=True,
                         max_bypass=1)


def position(hexes: dict, trains=("4",), *, profile: str = "generic", home="A1") -> dict:
    return {
        "layout": "flat", "rules": {"profile": profile}, "company": "PRR",
        "companies": [{"id": "PRR", "home": home}, {"id": "NYC"}],
        "trains": list(trains), "hexes": hexes,
    }


def plan(*routes: tuple[str, list[str]]) -> dict:
    return {"routes": [{"train": train, "paths": paths} for train, paths in routes]}


def stops_plan(*routes: tuple[str, list[str]]) -> dict:
    return {"routes": [{"train": train, "stops": stops} for train, stops in routes]}


def errors_of(report: PlanReport, k: int = 0) -> str:
    assert not report.routes[k].legal
    return " | ".join(report.routes[k].errors)


# A1 city (PRR token) — A3 town — A5 city — A7 offboard.
LINE = {
    "A1": {"tile": "city=revenue:20;path=a:0,b:_0", "tokens": ["PRR"]},
    "A3": {"tile": "town=revenue:10;path=a:3,b:_0;path=a:_0,b:0"},
    "A5": {"tile": "city=revenue:30;path=a:3,b:_0;path=a:_0,b:0"},
    "A7": {"tile": "offboard=revenue:40;path=a:3,b:_0"},
}
LINE_TRACK = ["A1:0", "A3:0", "A3:1", "A5:0", "A5:1", "A7:0"]


def line(**changes: dict) -> dict:
    return {**LINE, **changes}


# Two cities joined by two lanes across one hex side: lane i of A1 meets lane 1-i of A3.
LANES = {
    "A1": {"tile": "city=revenue:20,slots:2;path=a:0,b:_0,a_lane:2.0;path=a:0,b:_0,a_lane:2.1",
           "tokens": ["PRR"]},
    "A3": {"tile": "city=revenue:30,slots:2;path=a:3,b:_0,a_lane:2.0;path=a:3,b:_0,a_lane:2.1"},
}


# -- plans that are legal ----------------------------------------------------------------------


def test_demo_solution_validates_with_the_same_revenue():
    pos = hexrail.example_path("demo")
    solved = hexrail.solve(pos)
    report = validate(pos, solved)
    assert report.legal, report.table()
    assert report.revenue == solved.revenue
    assert report.subsidy == solved.subsidy
    for mine, theirs in zip(report.routes, solved.routes):
        assert (mine.train, mine.revenue, mine.stops, mine.paid) == \
            (theirs.train, theirs.revenue, theirs.stops, theirs.paid)
        assert (mine.hexes, mine.crossings) == (theirs.hexes, theirs.crossings)
    assert report.table().splitlines()[-1] == f"total {solved.revenue}"


def test_line_route_is_legal_in_either_direction():
    for track in (LINE_TRACK, LINE_TRACK[::-1]):
        report = check_plan(position(LINE), plan(("4-0", track)))
        route = report.routes[0]
        assert report.legal, report.table()
        assert route.revenue == 100 and report.revenue == 100
        assert route.crossings == 3
        assert set(route.stops) == {"A1-0", "A3-0", "A5-0", "A7-0"}
    assert report.routes[0].stops == ("A7-0", "A5-0", "A3-0", "A1-0")
    assert report.to_json()["routes"][0]["legal"] is True


def test_plan_may_be_a_plan_object_and_position_a_position():
    pos = hexrail.load_position(position(LINE))
    plan_obj = hexrail.plan_from_json(plan(("4-0", LINE_TRACK)))
    assert check_plan(pos, plan_obj).revenue == 100


# -- rule 1: refs, trains, gauge -----------------------------------------------------------------


def test_unknown_train_is_a_route_error():
    report = check_plan(position(LINE), plan(("9-9", LINE_TRACK)))
    assert "unknown train 9-9" in errors_of(report)
    assert "4-0" in errors_of(report)  # the message lists the trains there are
    assert "illegal" in report.table()


@pytest.mark.parametrize("ref, message", [
    ("Z9:0", "track Z9:0: no hex Z9 on the map"),
    ("A1:7", "hex A1 has no track 7"),
    ("A1-0", "track ref 'A1-0' is not of the form HEX:k"),
])
def test_unknown_track_ref_is_a_route_error(ref, message):
    report = check_plan(position(LINE), plan(("4-0", [ref, *LINE_TRACK[1:]])))
    assert message in errors_of(report)


def test_unknown_stop_ref_is_a_route_error():
    report = check_plan(position(LINE), stops_plan(("4-0", ["A1-0", "A3-5"])))
    assert "stop A3-5: hex A3 has no node 5" in errors_of(report)


def test_train_runs_one_route():
    report = check_plan(position(LINE, trains=("2", "2")),
                        plan(("2-0", ["A1:0", "A3:0"]), ("2-0", ["A5:1", "A7:0"])))
    assert "train 2-0 runs more than one route" in errors_of(report, 1)


def test_gauge_must_match_and_dual_track_carries_both():
    narrow = line(A3={"tile": "town=revenue:10;path=a:3,b:_0,track:narrow;path=a:_0,b:0"})
    report = check_plan(position(narrow), plan(("4-0", LINE_TRACK)))
    assert "track A3:0 is narrow gauge, train 4-0 runs on broad track" in errors_of(report)
    dual = line(A3={"tile": "town=revenue:10;path=a:3,b:_0,track:dual;path=a:_0,b:0"})
    assert check_plan(position(dual), plan(("4-0", LINE_TRACK))).legal


# -- rule 2: track connects ----------------------------------------------------------------------


def test_broken_connection():
    report = check_plan(position(LINE), plan(("4-0", ["A1:0", "A5:0", "A5:1", "A7:0"])))
    assert "track A1:0 does not connect to A5:0" in errors_of(report)


def test_lanes_must_be_mirrored():
    report = check_plan(position(LANES, trains=("2",)), plan(("2-0", ["A1:0", "A3:0"])))
    message = errors_of(report)
    assert "track A1:0 does not connect to A3:0" in message
    assert "lane 0 of 2 at side 0 of A1 continues into lane 1 at side 3 of A3" in message
    assert check_plan(position(LANES, trains=("2",)), plan(("2-0", ["A1:0", "A3:1"]))).legal


def test_paths_of_one_hex_sharing_a_side_do_not_join():
    hexes = {
        "A1": LINE["A1"],
        "A3": {"tile": "path=a:3,b:0;path=a:0,b:5"},
        "B4": {"tile": "city=revenue:30;path=a:2,b:_0"},  # across side 5 of A3
    }
    report = check_plan(position(hexes), plan(("4-0", ["A1:0", "A3:0", "A3:1", "B4:0"])))
    message = errors_of(report)
    assert "track A3:0 does not connect to A3:1" in message
    assert "meet at side 0 of A3 are not joined" in message


def test_impassable_side_is_named():
    blocked = line(A3={**LINE["A3"], "borders": [3]})
    report = check_plan(position(blocked), plan(("4-0", LINE_TRACK)))
    assert "track A1:0 does not connect to A3:0: side 0 of A1 is impassable" in errors_of(report)


# -- rule 3: ends and number of stops -------------------------------------------------------------


def test_route_may_not_end_at_a_junction():
    hexes = line(A3={"tile": "junction;path=a:3,b:_0;path=a:_0,b:0"})
    report = check_plan(position(hexes), plan(("4-0", ["A1:0", "A3:0"])))
    message = errors_of(report)
    assert "route ends at A3-0, a junction, not at a stop" in message
    assert "visits 1 stop, a route needs at least 2" in message


def test_route_may_not_end_on_a_hex_side():
    report = check_plan(position(LINE), plan(("4-0", ["A1:0", "A3:0", "A3:1"])))
    assert "route ends at side 0 of A3 (track A3:1), not at a stop" in errors_of(report)


def test_junction_passed_is_fine():
    hexes = line(A3={"tile": "junction;path=a:3,b:_0;path=a:_0,b:0"})
    report = check_plan(position(hexes), plan(("4-0", LINE_TRACK)))
    assert report.legal and report.routes[0].stops == ("A1-0", "A5-0", "A7-0")


# -- rule 4: nothing twice ---------------------------------------------------------------------


def test_path_used_twice():
    report = check_plan(position(LINE), plan(("4-0", ["A1:0", "A3:0", "A3:0", "A1:0"])))
    message = errors_of(report)
    assert "uses track A3:0 2 times" in message
    assert "uses track A1:0 2 times" in message


def test_node_visited_twice():
    report = check_plan(position(LANES, trains=("4",)),
                        plan(("4-0", ["A1:0", "A3:1", "A3:0", "A1:1"])))
    assert "visits node A1-0 2 times" in errors_of(report)


def test_hexside_lane_crossed_twice():
    hexes = {
        "A1": {"tile": "city=revenue:20;city=revenue:20;path=a:0,b:_0;path=a:0,b:_1",
               "tokens": {"0": ["PRR"]}},
        "A3": {"tile": "junction;path=a:3,b:_0;path=a:_0,b:3"},
    }
    report = check_plan(position(hexes), plan(("4-0", ["A1:0", "A3:0", "A3:1", "A1:1"])))
    assert "crosses the A1/A3 hex side (side 0 of A1) 2 times" in errors_of(report)


# -- rule 5: passing through ----------------------------------------------------------------------


def test_city_full_of_other_tokens_blocks():
    blocked = line(A5={**LINE["A5"], "tokens": ["NYC"]})
    report = check_plan(position(blocked), plan(("4-0", LINE_TRACK)))
    assert "passes through A5-0, a city full of other companies' tokens" in errors_of(report)
    # ... but a route may end there
    assert check_plan(position(blocked), plan(("4-0", LINE_TRACK[:4]))).legal


def test_own_token_does_not_block():
    shared = line(A5={"tile": "city=revenue:30,slots:2;path=a:3,b:_0;path=a:_0,b:0",
                      "tokens": ["NYC", "PRR"]})
    assert check_plan(position(shared), plan(("4-0", LINE_TRACK))).legal


def test_offboard_is_never_passed():
    hexes = line(A5={"tile": "offboard=revenue:30;path=a:3,b:_0;path=a:_0,b:0"})
    report = check_plan(position(hexes), plan(("4-0", LINE_TRACK)))
    assert "passes through A5-0, an offboard; offboards are route ends" in errors_of(report)


def test_terminal_track_ends_the_route():
    hexes = line(A3={"tile": "town=revenue:10;path=a:3,b:_0,terminal:1;path=a:_0,b:0"})
    report = check_plan(position(hexes), plan(("4-0", LINE_TRACK)))
    assert "passes through A3-0 over terminal track A3:0" in errors_of(report)
    assert check_plan(position(hexes), plan(("4-0", LINE_TRACK[:2]))).legal


# -- rules 6-8: token, groups, re-entry -------------------------------------------------------------


def test_route_needs_a_token():
    report = check_plan(position(LINE), plan(("4-0", LINE_TRACK[2:])))
    assert "visits no city with a PRR token" in errors_of(report)


def test_trains_that_need_no_token():
    trains = [{"spec": {"rows": [{"pay": 4, "visit": 4}], "requires_token": False}, "id": "free"}]
    assert check_plan(position(LINE, trains=trains), plan(("free", LINE_TRACK[2:]))).legal


def test_one_stop_per_group():
    hexes = {
        "A1": {"tile": "offboard=revenue:40,groups:West;path=a:0,b:_0"},
        "A3": {"tile": "city=revenue:20;path=a:3,b:_0;path=a:_0,b:0", "tokens": ["PRR"]},
        "A5": {"tile": "offboard=revenue:50,groups:West;path=a:3,b:_0"},
    }
    report = check_plan(position(hexes), plan(("4-0", ["A1:0", "A3:0", "A3:1", "A5:0"])))
    assert "visits 2 stops of group West (A1-0, A5-0)" in errors_of(report)


# A1 holds two cities whose track leaves by two lanes of side 0; A3 a town on both lanes, so a
# route can leave A1 and come back into it.
TWO_LANE_LOOP = {
    "A1": {"tile": "city=revenue:20;city=revenue:20;path=a:0,b:_0,a_lane:2.0;path=a:0,b:_1,a_lane:2.1",
           "tokens": {"0": ["PRR"]}},
    "A3": {"tile": "town=revenue:10;path=a:3,b:_0,a_lane:2.0;path=a:3,b:_0,a_lane:2.1"},
}
LOOP_TRACK = ["A1:0", "A3:1", "A3:0", "A1:1"]


def test_hex_reentry_when_the_profile_forbids_it():
    generic = check_plan(position(TWO_LANE_LOOP), plan(("4-0", LOOP_TRACK)))
    assert generic.legal and generic.routes[0].hexes == ("A1", "A3", "A1")
    assert generic.revenue == 50
    report = check_plan(position(TWO_LANE_LOOP, profile="test-no-reentry"), plan(("4-0", LOOP_TRACK)))
    assert "leaves A1 and enters it again" in errors_of(report)


# -- rule 9: distance --------------------------------------------------------------------------


def test_too_many_stops():
    report = check_plan(position(LINE, trains=("3",)), plan(("3-0", LINE_TRACK)))
    assert "visits 4 stops that count, a 3 train may visit 3" in errors_of(report)


def test_hex_train_limit():
    report = check_plan(position(LINE, trains=("2H",)), plan(("2H-0", LINE_TRACK)))
    assert "crosses 3 hex sides, a 2H train may cross 2" in errors_of(report)
    within = check_plan(position(LINE, trains=("3H",)), plan(("3H-0", LINE_TRACK)))
    assert within.legal and within.revenue == 100  # hex trains pay every stop


def test_x_y_train_pays_its_best_x():
    report = check_plan(position(LINE, trains=("2/3",)), plan(("2/3-0", LINE_TRACK[:4])))
    route = report.routes[0]
    assert report.legal
    assert route.stops == ("A1-0", "A3-0", "A5-0")
    assert route.paid == ("A1-0", "A5-0") and route.revenue == 50
    assert "(A3-0)" in report.table()
    longer = check_plan(position(LINE, trains=("2/3",)), plan(("2/3-0", LINE_TRACK)))
    assert "visits 4 stops that count, a 2/3 train may visit 3" in errors_of(longer)


TOWNS = {
    "A1": LINE["A1"],
    "A3": LINE["A3"],
    "A5": {"tile": "town=revenue:10;path=a:3,b:_0;path=a:_0,b:0"},
    "A7": {"tile": "city=revenue:30;path=a:3,b:_0"},
}


def test_n_plus_m_train_counts_towns_separately():
    report = check_plan(position(TOWNS, trains=("2+2",)), plan(("2+2-0", LINE_TRACK)))
    assert report.legal and report.revenue == 70
    short = check_plan(position(TOWNS, trains=("2+1",)), plan(("2+1-0", LINE_TRACK)))
    assert ("visits 2 cities, 2 towns, more than a 2+1 train may visit "
            "(2 city/offboard + 1 halt/town)") in errors_of(short)


HALT = line(A3={"tile": "halt;path=a:3,b:_0;path=a:_0,b:0"})


def test_optional_halt_counted_when_worth_it():
    pos = position(HALT, trains=("4", "3"), profile="test-halt-subsidy")
    report = check_plan(pos, plan(("4-0", LINE_TRACK)))
    route = report.routes[0]
    assert route.paid == ("A1-0", "A3-0", "A5-0", "A7-0")
    assert (route.revenue, route.subsidy, report.subsidy) == (90, 10, 10)
    assert "+10 subsidy" in report.table()
    # not worth a visit when only revenue counts
    by_revenue = check_plan(pos, plan(("4-0", LINE_TRACK)), objective="revenue")
    assert "A3-0" not in by_revenue.routes[0].paid and by_revenue.subsidy == 0
    # a 3 train has no room for it: visited, legal, not counted
    three = check_plan(pos, plan(("3-0", LINE_TRACK))).routes[0]
    assert three.legal and "A3-0" in three.stops and "A3-0" not in three.paid
    assert (three.revenue, three.subsidy) == (90, 0)


def test_bad_objective_raises_a_clean_error():
    with pytest.raises(hexrail.HexrailError, match="objective"):
        check_plan(position(LINE), plan(("4-0", LINE_TRACK)), objective="fun")


# -- routes drawn by their stops --------------------------------------------------------------------


def test_stops_only_route_is_resolved_to_track():
    report = check_plan(position(LINE), stops_plan(("4-0", ["A1-0", "A3-0", "A5-0", "A7-0"])))
    assert report.legal and report.revenue == 100
    assert report.routes[0].paths == tuple(LINE_TRACK)


def test_stops_only_route_keeps_off_other_routes_track():
    pos = position(LANES, trains=("2", "2"))
    report = check_plan(pos, {"routes": [
        {"train": "2-0", "stops": ["A1-0", "A3-0"]},
        {"train": "2-1", "paths": ["A1:0", "A3:1"]},
    ]})
    assert report.legal, report.table()
    assert report.routes[0].paths == ("A1:1", "A3:0")


def test_stops_only_route_without_track_says_why():
    report = check_plan(position(LINE), stops_plan(("4-0", ["A1-0", "A7-0"])))
    assert "no track joins the stops A1-0 → A7-0 without passing another stop" in errors_of(report)
    blocked = line(A3={"tile": "city=revenue:10;path=a:3,b:_0;path=a:_0,b:0", "tokens": ["NYC"]})
    report = check_plan(position(blocked), stops_plan(("4-0", ["A1-0", "A3-0", "A5-0"])))
    message = errors_of(report)
    assert "no legal track joins the stops A1-0 → A3-0 → A5-0" in message
    assert "passes through A3-0, a city full of other companies' tokens" in message


# -- plan-level rules ----------------------------------------------------------------------------


def test_two_routes_may_not_share_track():
    report = check_plan(position(LINE, trains=("2", "3")),
                        plan(("2-0", ["A1:0", "A3:0"]), ("3-0", LINE_TRACK[:4])))
    assert all(r.legal for r in report.routes)
    assert not report.legal
    assert "trains 2-0 and 3-0 both use track A1:0" in report.errors
    assert "trains 2-0 and 3-0 both cross the A1/A3 hex side (side 0 of A1)" in report.errors
    assert report.table().endswith("illegal")


def test_shared_stop_pays_once_when_the_rules_say_so():
    pos = position(LINE, trains=("2", "1/3"), profile="test-coupled")
    report = check_plan(pos, plan(("2-0", ["A1:0", "A3:0"]), ("1/3-0", LINE_TRACK[:4])))
    assert report.legal, report.table()
    paid = [s for r in report.routes for s in r.paid]
    assert len(paid) == len(set(paid))
    assert report.revenue == 60  # A1 20 + A3 10 to the 2 train, A5 30 to the 1/3 train


def test_home_route_and_intersect():
    hexes = line(A5={**LINE["A5"], "tokens": ["PRR"]})
    pos = position(hexes, trains=("2", "2"), profile="test-coupled", home="A7")
    report = check_plan(pos, plan(("2-0", ["A1:0", "A3:0"]), ("2-1", ["A5:0", "A3:1"])))
    assert report.legal is False
    assert "no route includes the home of PRR (A7)" in report.errors
    apart = check_plan(position(hexes, trains=("2", "2"), profile="test-coupled", home="A1-0"),
                       plan(("2-0", ["A1:0", "A3:0"]), ("2-1", ["A5:1", "A7:0"])))
    assert any("share no stop" in e and "2-1" in e for e in apart.errors)


def test_one_bypass_per_round():
    blocked = line(A3={"tile": "city=revenue:10;path=a:3,b:_0;path=a:_0,b:0", "tokens": ["NYC"]})
    pos = position(blocked, trains=("3", "3"), profile="test-coupled")
    one = check_plan(pos, plan(("3-0", LINE_TRACK[:4])))
    assert one.legal, one.table()
    two = check_plan(pos, plan(("3-0", LINE_TRACK[:4]), ("3-1", LINE_TRACK[:4])))
    assert all(r.legal for r in two.routes)
    assert any("3-0 at A3-0, 3-1 at A3-0" in e and "allow 1 bypass" in e for e in two.errors)
