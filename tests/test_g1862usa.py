"""The 1862USA rules profile (docs/rules.md (1862USA)), rule by rule on hand-made boards.

Each board pins one rule to revenue numbers; every plan must be proven optimal, legal to the
independent validator (which recomputes its revenue, bonus routes included) and equal to the
brute-force oracle's optimum.
"""

from __future__ import annotations

import json

import pytest
from conftest import line_hexes, random_boards, solve_checked
from hypothesis import HealthCheck, given, note
from hypothesis import strategies as st
from strategies import positions

import hexrail
from hexrail.errors import HexrailError
from hexrail.io.native import load_position
from hexrail.rules import ruled
from hexrail.rules.g1862usa import Game1862USA, reaches
from hexrail.oracle import reference_routes, reference_solve
from hexrail.validate import check_plan

X = "X"  # the operating company (unless a test says otherwise)
EARLY = ["yellow", "green"]
LATE = ["yellow", "green", "brown"]


def city(revenue: int, *sides: int, slots: int = 1) -> str:
    code = f"city=revenue:{revenue},slots:{slots}"
    return ";".join([code] + [f"path=a:{s},b:_0" for s in sides]) if sides else code


def town(revenue: int, *sides: int) -> str:
    return ";".join([f"town=revenue:{revenue}"] + [f"path=a:{s},b:_0" for s in sides])


def track(*pairs: tuple[int, int]) -> str:
    return ";".join(f"path=a:{a},b:{b}" for a, b in pairs)


def position(hexes: dict, trains: list, *, company: str = X, companies: tuple = (X, "Y"),
             homes: dict | None = None, state: dict | None = None, colors: list = EARLY) -> dict:
    """A native 1862USA position on a flat map."""
    homes = homes or {X: "A1"}
    return {
        "format": "hexrail-position/1", "layout": "flat",
        "phase": {"name": "3", "colors": colors}, "rules": {"profile": "1862USA"},
        "company": company,
        "companies": [{"id": c, **({"home": homes[c]} if c in homes else {})} for c in companies],
        "trains": list(trains), "hexes": hexes, "state": state or {},
    }


def line(cells: list[str], trains: list, **kw) -> dict:
    """Hexes A1, A3, ... joined north-south (`conftest.line_hexes`), X's token in A1."""
    return position(line_hexes(cells, kw.pop("tokens", None)), trains, **kw)


@pytest.fixture(scope="module", autouse=True)
def warm():
    hexrail.solve(hexrail.example_path("demo"))


# -- trains ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("spec, pay, visit", [("2", 999, 2), ("8", 999, 8), ("10", 999, 10),
                                              ("5E", 5, 999), ("10E", 10, 999)])
def test_trains_are_n_and_express(spec, pay, visit):
    (row,) = Game1862USA().parse_train(spec, "t").rows
    assert (row.pay, row.visit) == (pay, visit)


@pytest.mark.parametrize("spec", ["D", "3+1", "2/3", "4H"])
def test_other_train_shapes_are_refused(spec):
    with pytest.raises(HexrailError, match="1862USA trains"):
        Game1862USA().parse_train(spec, "t")


# Home A1 (10, X's token), then towns and cities worth 10, 50, 20, 60, 10, 40.
E_LINE = [city(10), town(10), city(50), town(20), city(60), town(10), city(40)]


def test_n_train_counts_every_stop_it_passes():
    plan = solve_checked(line(E_LINE, ["4"]))
    assert plan.revenue == 10 + 10 + 50 + 20


def test_express_train_skips_small_stations_for_big_ones():
    plan = solve_checked(line(E_LINE, ["5E"]))
    assert plan.revenue == 60 + 50 + 40 + 20 + 10
    (route,) = plan.routes
    assert len(route.stops) == 7 and len(route.paid) == 5


def test_express_train_needs_the_token_on_its_route_counted_or_not():
    # the token city is worth least: the 2E passes it unpaid but cannot leave it out
    doc = line([city(5), city(50), "", city(40), city(60)], ["2E"])
    plan = solve_checked(doc)
    assert plan.revenue == 60 + 50
    assert "A1-0" in plan.routes[0].stops and "A1-0" not in plan.routes[0].paid


def test_full_city_is_a_route_end_not_a_way_through():
    doc = line([city(20), city(30), city(40)], ["3"], tokens={"A1": [X], "A3": ["Y"]})
    assert solve_checked(doc).revenue == 50


def test_offboard_values_follow_the_phase():
    cells = [city(20), "", "offboard=revenue:yellow_30|brown_50"]
    assert solve_checked(line(cells, ["2"])).revenue == 50
    assert solve_checked(line(cells, ["2"], colors=LATE)).revenue == 70


# -- one tile once --------------------------------------------------------------------------------

def ring(center: str) -> dict:
    """A loop through C5: X's home C3 (20) runs south into C5, on to a town at C7 (10), a city
    at D6 (30), back into C5 from the south-east and out north-west to B4 (40)."""
    return {
        "C3": {"tile": city(20, 0), "tokens": [X]},
        "C5": {"tile": center},
        "C7": {"tile": town(10, 3, 4)},
        "D6": {"tile": city(30, 1, 2)},
        "B4": {"tile": city(40, 5)},
    }


def test_a_route_may_not_cross_a_tile_twice():
    crossing = track((0, 3), (2, 5))
    doc = position(ring(crossing), ["4"], homes={X: "C3"})
    assert solve_checked(doc).revenue == 20 + 10 + 30  # B4 would need C5 a second time
    generic = {**doc, "rules": {"profile": "generic"}}
    assert hexrail.solve(generic).revenue == 20 + 10 + 30 + 40


def test_a_two_station_tile_may_be_visited_once_per_station():
    new_york = "city=revenue:40;city=revenue:40;" + track((0, "_0"), (3, "_0"), (2, "_1"), (5, "_1"))
    doc = position(ring(new_york), ["6"], homes={X: "C3"})
    plan = solve_checked(doc)
    assert plan.revenue == 20 + 40 + 10 + 30 + 40 + 40
    assert plan.routes[0].hexes.count("C5") == 2


def test_routes_of_two_trains_share_no_track_but_may_meet_at_a_station():
    tokens = {"A1": [X], "A5": [X]}
    # two 2 trains meet at A3 over separate track; a 3 takes all the track from the other 2
    assert solve_checked(line([city(20), city(30), city(40)], ["2", "2"], tokens=tokens)).revenue \
        == 20 + 30 + 30 + 40
    assert solve_checked(line([city(20), city(30), city(40)], ["3", "2"], tokens=tokens)).revenue \
        == 20 + 30 + 30 + 40


# -- bonus routes ---------------------------------------------------------------------------------

def test_bonus_is_rate_times_distance_less_ten_per_crossing():
    # home A1, bonus station A7: d = 3, h = 3
    cells = [city(20), city(10), "", city(30)]
    state = {"bonus_stations": {X: ["A7"]}}
    early = solve_checked(line(cells, ["3"], state=state))
    assert early.revenue == 20 + 10 + 30 + (20 * 3 - 10 * 3)
    assert early.routes[0].bonuses == (("bonus A7", 30),)
    late = solve_checked(line(cells, ["3"], state=state, colors=LATE))
    assert late.revenue == 20 + 10 + 30 + (30 * 3 - 10 * 3)


def test_bonus_route_against_a_longer_plain_route():
    # home A5 (30) in the middle: north two cities of 40, south the bonus station A11 (10)
    cells = [city(40), city(40), city(30), "", "", city(10)]
    tokens = {"A5": [X]}
    state = {"bonus_stations": {X: ["A11"]}}
    doc = line(cells, ["3"], tokens=tokens, homes={X: "A5"}, state=state, colors=LATE)
    # A3, A5, A11 would earn 80 + (90 - 30) if a route through home mid-way earned the bonus;
    # it must start at home: A5, A11 earns 40 + 60 = 100, less than the plain 40 + 40 + 30
    plan = solve_checked(doc)
    assert plan.revenue == 110 and plan.routes[0].bonuses == ()
    # with a second train both start at home: the plain route north, the bonus route south
    two = solve_checked({**doc, "trains": ["3", "2"]})
    assert two.revenue == (30 + 40 + 40) + (30 + 10 + 60)
    # the validator refuses the bonus to the route through home
    checked = check_plan(doc, {"routes": [
        {"train": "3-0", "stops": ["A3-0", "A5-0", "A11-0"]}]})
    assert checked.revenue == 80 and not checked.routes[0].bonuses


def detour_board(bonus_station: str = "C7") -> dict:
    """Home C3 (20) to the bonus station C7 (20): directly through C5 (2 crossings), or round by
    D4 and D6, two towns of 10 (3 crossings)."""
    return {
        "C3": {"tile": city(20, 0, 5), "tokens": [X]},
        "C5": {"tile": track((3, 0))},
        "D4": {"tile": town(10, 2, 0)},
        "D6": {"tile": town(10, 3, 1)},
        "C7": {"tile": city(20, 3, 4, slots=2)},
    }


def test_a_detour_to_more_stations_may_lose_part_of_the_bonus():
    state = {"bonus_stations": {X: ["C7"]}}
    # brown: round by the towns 20+10+10+20 + (60-30) = 90; direct and on round the loop
    # to the towns 20+20+10+10 + (60-20) = 100
    plan = solve_checked(position(detour_board(), ["4"], homes={X: "C3"}, state=state,
                                  colors=LATE))
    assert plan.revenue == 100
    assert plan.routes[0].stops[:2] == ("C3-0", "C7-0")
    # a 2 train can only run direct
    plan = solve_checked(position(detour_board(), ["2"], homes={X: "C3"}, state=state,
                                  colors=LATE))
    assert plan.revenue == 80


def test_each_bonus_station_pays_once_per_round():
    state = {"bonus_stations": {X: ["C7"]}}
    # two 4 trains, both from home to C7 over separate track: one bonus (the larger, direct)
    plan = solve_checked(position(detour_board(), ["4", "4"], homes={X: "C3"}, state=state,
                                  colors=LATE))
    assert plan.revenue == (20 + 20) + (20 + 10 + 10 + 20) + 40
    assert sum(len(r.bonuses) for r in plan.routes) == 1


def test_two_bonus_stations_for_one_company():
    # bonus stations at both ends of the line
    cells = [city(10), "", city(20), "", city(10)]
    state = {"bonus_stations": {X: ["A5", "A9"]}}
    # home A1 at one end: one train earns both, A5 at 2 crossings (40 - 20), A9 at 4 (80 - 40)
    end = solve_checked(line(cells, ["3"], tokens={"A1": [X]}, homes={X: "A1"}, state=state))
    assert end.revenue == 40 + 20 + 40
    assert sorted(end.routes[0].bonuses) == [("bonus A5", 20), ("bonus A9", 40)]
    # home A5 in the middle, bonus stations A1 and A9: a route through home earns neither
    tokens = {"A5": [X]}
    state = {"bonus_stations": {X: ["A1", "A9"]}}
    doc = line(cells, ["3"], tokens=tokens, homes={X: "A5"}, state=state)
    plan = solve_checked(doc)  # A5 to one end, 30 + (40 - 20), beats the whole line's 40
    assert plan.revenue == 30 + 20
    assert len(plan.routes[0].bonuses) == 1
    two = solve_checked(line(cells, ["2", "2"], tokens=tokens, homes={X: "A5"}, state=state))
    assert two.revenue == 30 + 20 + 30 + 20
    assert [len(r.bonuses) for r in two.routes] == [1, 1]


def test_bonus_from_a_two_station_home():
    # X's token in the first station of C5 (New York); the bonus station D6 is one hex away
    new_york = "city=revenue:40;city=revenue:40;" + track((0, "_0"), (3, "_0"), (2, "_1"), (5, "_1"))
    hexes = ring(new_york)
    hexes["C3"] = {"tile": city(20, 0)}
    hexes["C5"] = {"tile": new_york, "tokens": {"0": [X]}}
    state = {"bonus_stations": {X: ["D6"]}}
    doc = position(hexes, ["3"], homes={X: "C5"}, state=state, colors=LATE)
    assert ruled(load_position(doc))[0].home_stops() == ("C5-0",)
    # C5-0, C7, D6: the run from the home station takes two crossings (30 × 1 - 20)
    plan = solve_checked(doc)
    assert plan.revenue == 40 + 10 + 30 + 10
    assert plan.routes[0].bonuses == (("bonus D6", 10),)
    # the whole ring passes the home station mid-way: no bonus, 180 beats 90
    ring6 = solve_checked({**doc, "trains": ["6"]})
    assert ring6.revenue == 20 + 40 + 10 + 30 + 40 + 40 and ring6.routes[0].bonuses == ()


# -- Salt Lake City -------------------------------------------------------------------------------

def salt_lake(blocked: bool, company: str = "CPR") -> dict:
    """CPR's home A1 and UP's home A9 on one line through Salt Lake City (A5, 40); with
    `blocked`, a city full of Y's token lies between UP and Salt Lake City."""
    cells = [city(20), "", city(40), city(30), city(20)]
    tokens = {"A1": ["CPR"], "A7": ["Y"] if blocked else [None], "A9": ["UP"]}
    doc = line(cells, ["2"], tokens=tokens, company=company, companies=("CPR", "UP", "Y"),
               homes={"CPR": "A1", "UP": "A9"})
    doc["hexes"]["A5"]["location"] = "Salt Lake City"
    return doc


def test_salt_lake_city_pays_20_more_when_cpr_and_up_both_reach_it():
    plan = solve_checked(salt_lake(blocked=False))
    assert plan.revenue == 20 + 40 + 20
    assert plan.stats["facts"]["salt_lake_city"]["applies"] is True


def test_salt_lake_city_pays_its_value_when_up_is_cut_off():
    plan = solve_checked(salt_lake(blocked=True))
    assert plan.revenue == 20 + 40
    fact = plan.stats["facts"]["salt_lake_city"]
    assert fact["applies"] is False and fact["reached_by"] == ["CPR"]


def test_salt_lake_city_bonus_is_only_for_cpr_and_up():
    doc = salt_lake(blocked=False, company="Y")
    doc["hexes"]["A7"] = {"tile": city(30, 3, 0, slots=2), "tokens": ["Y", None]}
    plan = solve_checked(doc)
    assert plan.stats["facts"]["salt_lake_city"]["applies"] is True
    assert plan.revenue == 40 + 30  # Salt Lake City at its printed value


def switch_board(direct: bool) -> dict:
    """CPR's home A1 runs south to Salt Lake City (A5, 40). UP's home B8 joins A7 from the
    south-east; A7's track goes on south to a town at A9, and, from the same side, north to Salt
    Lake City: UP gets there only by turning back at that switch (or, `direct`, over track from
    its side straight north)."""
    hexes = line_hexes([city(20), "", city(40), "", town(10)], {"A1": ["CPR"]})
    hexes["A7"] = {"tile": track((5, 3), (3, 0)) if direct else track((3, 0), (5, 0))}
    hexes["A9"] = {"tile": town(10, 3)}
    hexes["B8"] = {"tile": city(20, 2), "tokens": ["UP"]}
    hexes["A5"]["location"] = "Salt Lake City"
    return position(hexes, ["2"], company="CPR", companies=("CPR", "UP"),
                    homes={"CPR": "A1", "UP": "B8"})


def loop_board(legal: bool) -> dict:
    """CPR's home C1 runs south to Salt Lake City (C5, 40). UP's home D6 joins C7, whose track
    turns south to C9, round by B8 and back into C7 to run north to Salt Lake City: C7 twice on
    one route (with `legal`, C7 runs UP's track straight north instead)."""
    hexes = {
        "C1": {"tile": city(20, 0), "tokens": ["CPR"]},
        "C3": {"tile": track((3, 0))},
        "C5": {"tile": city(40, 3, 0), "location": "Salt Lake City"},
        "C7": {"tile": track((4, 3)) if legal else track((4, 0), (1, 3))},
        "C9": {"tile": track((3, 2))},
        "B8": {"tile": track((5, 4))},
        "D6": {"tile": city(20, 1), "tokens": ["UP"]},
    }
    return position(hexes, ["2"], company="CPR", companies=("CPR", "UP"),
                    homes={"CPR": "C1", "UP": "D6"})


@pytest.mark.parametrize("board", [switch_board, loop_board])
def test_salt_lake_city_needs_a_legal_route_not_just_track(board):
    # track joins UP to Salt Lake City, but only a route reversing at a switch or crossing a
    # tile twice gets there: no raise (60, not 80)
    plan = solve_checked(board(False))
    assert plan.revenue == 20 + 40
    assert plan.stats["facts"]["salt_lake_city"]["reached_by"] == ["CPR"]
    assert solve_checked(board(True)).revenue == 20 + 40 + 20


@pytest.mark.parametrize("second, applies", [(None, True), ("Y", False),
                                             ({"company": "Z", "flag": "flipped"}, False)])
def test_salt_lake_city_raise_flips_when_a_token_fills_a_city(second, applies):
    # Y holds one of two slots of A7 between UP and Salt Lake City; a second token (a live one
    # or a closed company's marker) fills it and cuts UP off
    doc = salt_lake(blocked=False)
    doc["companies"].append({"id": "Z"})
    doc["hexes"]["A7"] = {"tile": city(30, 3, 0, slots=2), "tokens": ["Y", second]}
    plan = solve_checked(doc)
    assert plan.stats["facts"]["salt_lake_city"]["applies"] is applies
    assert plan.revenue == 20 + 40 + (20 if applies else 0)


def test_reachability_stops_at_full_cities():
    pos = load_position(salt_lake(blocked=True))
    assert reaches(pos, "CPR", "A5") and not reaches(pos, "UP", "A5")
    assert reaches(pos, "UP", "A7")  # the full city itself is reached


# -- the example ---------------------------------------------------------------------------------

def test_the_example_position_solves():
    path = hexrail.example_path("1862usa")
    plan = hexrail.solve(path)
    assert plan.optimal and plan.revenue == 400
    report = check_plan(path, plan)
    assert report.legal and report.revenue == plan.revenue
    assert reference_solve(path).value == plan.total
    # NYC's 4 runs home (New York, first station) to Chicago: 4 × 20 less 4 crossings
    assert [b for r in plan.routes for b in r.bonuses] == [("bonus A3", 40)]


# -- random boards against the oracle ------------------------------------------------------------

AS_1862USA = {"2+1": "3", "3+1": "4", "2/3": "3", "4H": "4", "3E": "3E", "D": "2E"}


@st.composite
def boards_1862usa(draw) -> dict:
    """A random small board (`strategies.positions`, branches and lanes included) run under
    1862USA: its trains made N or NE, bonus stations drawn among the hexes with stops."""
    doc = draw(positions(max_hexes=9, max_big_hexes=6))
    doc["rules"] = {"profile": "1862USA"}
    doc["trains"] = [AS_1862USA.get(t, t) for t in doc["trains"]]
    stops = sorted(h for h, spec in doc["hexes"].items()
                   if any(n["kind"] in ("city", "town", "offboard") for n in spec.get("nodes", ())))
    home = doc["companies"][0].get("home")
    if stops and home:
        chosen = draw(st.lists(st.sampled_from(stops), max_size=2, unique=True))
        # some with the distance printed on the charter, some at the crow-fly default
        given = [draw(st.one_of(st.just(h), st.builds(lambda d, h=h: {"hex": h, "d": d},
                                                      st.integers(1, 5)))) for h in chosen]
        doc["state"] = {"bonus_stations": {doc["company"]: given}}
    return doc


@random_boards(120, HealthCheck.function_scoped_fixture)
@given(doc=boards_1862usa())
def test_solver_equals_oracle_on_random_boards(doc):
    note(json.dumps(doc))
    plan = solve_checked(doc, max_routes=20_000)
    report = check_plan(doc, plan)
    for r in plan.routes:  # what the plan says each route crosses, the validator finds too
        assert r.crossings == report.route(r.train).crossings


@random_boards(60)
@given(doc=boards_1862usa())
def test_could_run_a_train_there_is_what_the_oracle_finds(doc):
    # `reaches` (Salt Lake City's condition) against the oracle's routes of a 10E, which may
    # run any length: some route holds the company's token and a stop of the hex, so its part
    # from the token city to that stop is a legal route there
    note(json.dumps(doc))
    doc = {**doc, "trains": ["10E"], "state": {}}
    pos = load_position(doc)
    routes = reference_routes(doc, pos.trains[0].id, max_routes=20_000)
    tokened = {h.id for h in pos.hexes for n in h.tile.nodes if h.tokened_by(n.index, pos.company)}
    for h in pos.hexes:
        if h.id in tokened or not any(n.is_stop for n in h.tile.nodes):
            continue
        found = any(ref.rpartition("-")[0] == h.id for r in routes for ref in r.stops)
        assert reaches(pos, pos.company, h.id) == found, h.id


# -- closed companies' markers keep blocking --------------------------------------------------------


@pytest.mark.parametrize("profile, revenue", [("1862USA", 50), ("generic", 50)])
@pytest.mark.parametrize("marker", ["flipped", "closed company"])
def test_closed_companies_markers_block(profile, revenue, marker):
    # A3 (one slot) holds Z's marker: passing it to A5 (100) would pay 150, stopping short 50.
    # A flipped token and a token of a company marked closed are the same marker; only 1860
    # lets it by (tests/test_g1860.py).
    cells = ["city=revenue:20", "city=revenue:30", "city=revenue:100"]
    token = {"company": "Z", "flag": "flipped"} if marker == "flipped" else "Z"
    doc = line(cells, ["3"], tokens={"A1": [X], "A3": [token]}, companies=(X, "Y", "Z"))
    if marker == "closed company":
        doc["companies"][2]["closed"] = True
    doc["rules"] = {"profile": profile}
    assert solve_checked(doc).revenue == revenue
