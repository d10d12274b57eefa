"""The 1831 rules profile (docs/rules.md (1831)), rule by rule on hand-made boards.

Each board pins one rule to revenue numbers; every plan must be proven optimal, legal to the
independent validator (which recomputes its revenue) and equal to the brute-force oracle's
optimum. Random boards run under 1831 compare the solver with the oracle.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from conftest import line_hexes, random_boards, solve_checked
from hypothesis import HealthCheck, given, note
from hypothesis import strategies as st
from strategies import positions, rotate_position

import hexrail
from hexrail.errors import HexrailError
from hexrail.io.native import load_position, position_to_json
from hexrail.rules import ruled
from hexrail.rules.g1831 import Game1831, token_values
from hexrail.search.routes import enumerate_routes, with_cyclic_runs
from hexrail.solve import prepare
from hexrail.validate import check_plan

X = "BO"  # the operating company
Y = "PRR"


def st_(company: str = X) -> dict:
    return {"company": company, "flag": "station"}


def yd(company: str = X) -> dict:
    return {"company": company, "flag": "yard"}


def city(revenue: int, slots: int = 1, sites: str = "") -> str:
    return f"city=revenue:{revenue},slots:{slots}" + (f",sites:{sites}" if sites else "")


def position(hexes: dict, trains: list, *, phase: str = "2", state: dict | None = None) -> dict:
    """A native 1831 position on a flat map; BO operates."""
    return {
        "format": "hexrail-position/1", "layout": "flat",
        "phase": {"name": phase, "colors": ["yellow"]}, "rules": {"profile": "1831"},
        "company": X, "companies": [{"id": X}, {"id": Y}],
        "trains": list(trains), "hexes": hexes, "state": state or {},
    }


def line(cells: list[str], tokens: dict, trains: list, **kw) -> dict:
    """Hexes A1, A3, ... joined north-south (`conftest.line_hexes`)."""
    return position(line_hexes(cells, tokens), trains, **kw)


@pytest.fixture(scope="module", autouse=True)
def warm():
    hexrail.solve(hexrail.example_path("demo"))


# -- the rule book's worked example and the train types ------------------------------------------

# A small city (10) with a BO rail yard, plain track, a large city (20) with a BO station.
EXAMPLE = (["city=revenue:10,slots:1", "", city(20, 2)], {"A1": [yd()], "A5": [st_(), None]})


def test_rule_book_example_mixed_2_train_pays_60():
    """5.6.3: $10 city + $20 yard, $20 city + $10 station while only 2-trains are bought."""
    plan = solve_checked(line(*EXAMPLE, ["2-MX"]))
    assert plan.revenue == 60
    assert plan.routes[0].stops == ("A1-0", "A5-0")


@pytest.mark.parametrize("train", ["2-S", "2-YD"])
def test_single_type_trains_need_two_tokens_of_their_type(train):
    assert solve_checked(line(*EXAMPLE, [train])).revenue == 0


@pytest.mark.parametrize(("phase", "revenue"), [("2", 60), ("5", 80), ("7", 80), ("9", 110)])
def test_token_values_rise_after_the_first_5_and_9_trains(phase, revenue):
    assert solve_checked(line(*EXAMPLE, ["2-MX"], phase=phase)).revenue == revenue


def test_token_values_from_state_override_the_phase():
    doc = line(*EXAMPLE, ["2-MX"], state={"token_values": {"station": 1, "yard": 2}})
    assert solve_checked(doc).revenue == 10 + 2 + 20 + 1


def test_station_train_runs_station_to_station_past_a_yard():
    """An S train passes a city with an own rail yard without pay or count."""
    cells = [city(10), city(30), city(20)]
    tokens = {"A1": [st_()], "A3": [yd()], "A5": [st_()]}
    plan = solve_checked(line(cells, tokens, ["2-S"]))
    assert plan.revenue == (10 + 10) + (20 + 10)
    assert plan.routes[0].paid == ("A1-0", "A5-0")
    # the yard train has one yard only: no route
    assert solve_checked(line(cells, tokens, ["2-YD"])).revenue == 0


def test_mixed_train_needs_one_of_each():
    cells = [city(10), city(20), city(30)]
    stations = {"A1": [st_()], "A3": [st_()], "A5": [st_()]}
    assert solve_checked(line(cells, stations, ["3-MX"])).revenue == 0
    assert solve_checked(line(cells, stations, ["3-S"])).revenue == 20 + 30 + 40


def test_every_token_reached_counts_toward_n():
    """A 2-S train cannot pass an own station to reach a farther one (it would count 3)."""
    cells = [city(10), city(10), city(50)]
    tokens = {"A1": [st_()], "A3": [st_()], "A5": [st_()]}
    plan = solve_checked(line(cells, tokens, ["2-S"]))
    assert plan.revenue == (10 + 10) + (50 + 10)
    assert plan.routes[0].stops == ("A3-0", "A5-0")


def test_vacancies_pass_free_and_full_cities_block():
    cells = [city(10), city(40), city(20)]
    free = line(cells, {"A1": [st_()], "A3": [None], "A5": [st_()]}, ["2-S"])
    assert solve_checked(free).revenue == 20 + 30
    full = line(cells, {"A1": [st_()], "A3": [st_(Y)], "A5": [st_()]}, ["2-S"])
    assert solve_checked(full).revenue == 0


def test_mixed_caps_per_type():
    cells = [city(10), city(10), city(10), city(10)]
    tokens = {"A1": [yd()], "A3": [st_()], "A5": [st_()], "A7": [st_()]}
    assert solve_checked(line(cells, tokens, ["4-MX"])).revenue == 30 + 3 * 20
    assert solve_checked(line(cells, tokens, ["4-MX(2S,2YD)"])).revenue == 30 + 2 * 20


def test_station_and_yard_in_one_city_pay_city_value_twice():
    """Decision: a mixed train using both own tokens of a city counts 2 and pays the city
    twice; a station train uses the station alone."""
    cells = [city(20, 2), city(30)]
    tokens = {"A1": [st_(), yd()], "A3": [st_()]}
    assert solve_checked(line(cells, tokens, ["3-MX"])).revenue == (20 + 10) + (20 + 20) + (30 + 10)
    assert solve_checked(line(cells, tokens, ["2-MX"])).revenue == 0  # 3 tokens, N = 2
    assert solve_checked(line(cells, tokens, ["2-S"])).revenue == (20 + 10) + (30 + 10)


def test_unflagged_tokens_take_their_site_type():
    cells = [city(10, 2, "station|yard"), city(20, 1, "yard")]
    tokens = {"A1": [None, X], "A3": [X]}
    assert solve_checked(line(cells, tokens, ["2-YD"])).revenue == (10 + 20) + (20 + 20)


# -- track rights ------------------------------------------------------------------------------


def test_track_rights_count_as_own_tokens():
    cells = [city(10), city(40), city(20)]
    tokens = {"A1": [st_()], "A3": [st_(Y)], "A5": [st_()]}
    rights = {"track_rights": [{"stop": "A3-0", "type": "station"}]}
    doc = line(cells, tokens, ["2-S"], state=rights)
    assert solve_checked(doc).revenue == (40 + 10) + (20 + 10)
    doc = line(cells, tokens, ["3-S"], state={"track_rights": ["A3-0"]})
    assert solve_checked(doc).revenue == 20 + 50 + 30


def test_track_right_of_a_missing_type_is_refused():
    cells = [city(10), city(40)]
    doc = line(cells, {"A1": [st_()], "A3": [st_(Y)]}, ["2-S"],
               state={"track_rights": [{"stop": "A3-0", "type": "yard"}]})
    with pytest.raises(HexrailError, match="no other company's yard"):
        hexrail.solve(doc)


# -- the same city hex once; other hexes again over other track ----------------------------------


def loop_board(city_in_a3: bool) -> dict:
    """Stations in A1 and B2; the only track from A1 to B2 runs into hex A3, out to B4, round
    by A5 and back into A3 over other track, then on to B2. A3 holds a vacant city on the first
    pass, or is plain track."""
    first = "city=revenue:40,slots:1;path=a:3,b:_0;path=a:_0,b:5" if city_in_a3 else "path=a:3,b:5"
    return {
        "A1": {"tile": "city=revenue:10,slots:1;path=a:0,b:_0", "tokens": [st_()]},
        "A3": {"tile": first + ";path=a:0,b:4"},
        "B4": {"tile": "path=a:2,b:1"},
        "A5": {"tile": "path=a:4,b:3"},
        "B2": {"tile": "city=revenue:20,slots:1;path=a:1,b:_0", "tokens": [st_()]},
    }


def test_plain_hex_may_be_used_twice_over_other_track():
    plan = solve_checked(position(loop_board(city_in_a3=False), ["2-S"]))
    assert plan.revenue == (10 + 10) + (20 + 10)
    assert plan.routes[0].hexes.count("A3") == 2


def test_city_hex_may_not_be_used_twice_unless_revisit():
    hexes = loop_board(city_in_a3=True)
    assert solve_checked(position(hexes, ["2-S"])).revenue == 0
    flagged = solve_checked(position(hexes, ["2-S"], state={"revisit": ["A3"]}))
    assert flagged.revenue == (10 + 10) + (20 + 10)
    hexes["A3"]["icons"] = ["revisit"]
    assert solve_checked(position(hexes, ["2-S"])).revenue == 50


def test_validator_names_the_city_hex_used_twice():
    doc = position(loop_board(city_in_a3=True), ["2-S"])
    plan = hexrail.solve(position(loop_board(city_in_a3=True), ["2-S"], state={"revisit": ["A3"]}))
    report = check_plan(doc, plan)
    assert not report.legal
    assert "A3" in str(report)


# -- several trains ----------------------------------------------------------------------------


def test_trains_share_tokens_not_track():
    # Station A3 in the middle: one train runs A1-A3, the other A3-A5; they share the token.
    cells = [city(10), city(20), city(30)]
    tokens = {"A1": [st_()], "A3": [st_()], "A5": [st_()]}
    plan = solve_checked(line(cells, tokens, ["2-S", "2-S"]))
    assert plan.revenue == (20 + 30) + (30 + 40)
    assert len(plan.routes) == 2


# -- commuter runs -------------------------------------------------------------------------------

BW = {"commuter_runs": [{"name": "Baltimore-Washington", "cycle": ["A1", "A3"], "start": "any"}]}


def double_track(*revenues: int, lanes: int = 2) -> dict:
    """Cities A1, A3, ... (one BO station each) joined north-south by `lanes` parallel tracks."""
    hexes = {}
    for k, revenue in enumerate(revenues):
        sides = [s for s, ok in ((3, k > 0), (0, k < len(revenues) - 1)) if ok]
        code = ";".join([city(revenue)] + [f"path=a:{s},b:_0,lanes:{lanes}" for s in sides])
        hexes[f"A{2 * k + 1}"] = {"tile": code, "tokens": [st_()]}
    return hexes


def test_commuter_run_over_double_track_beats_every_plain_route():
    """Baltimore ↔ Washington on two tracks: B W B pays three visits; a plain route two."""
    doc = position(double_track(30, 20), ["5-S"], phase="5", state=BW)
    plan = solve_checked(doc)
    assert plan.revenue == (30 + 20) + (20 + 20) + (30 + 20)
    assert plan.routes[0].stops == ("A1-0", "A3-0", "A1-0")
    # on single track the run has one leg only: a plain route
    single = position(double_track(30, 20, lanes=1), ["5-S"], phase="5", state=BW)
    assert solve_checked(single).revenue == 90


def test_commuter_run_up_to_n_visits():
    doc = position(double_track(30, 20, lanes=3), ["5-S"], phase="5", state=BW)
    assert solve_checked(doc).revenue == 50 + 40 + 50 + 40  # three legs, four visits
    doc = position(double_track(30, 20, lanes=6), ["5-S"], phase="5", state=BW)
    assert solve_checked(doc).revenue == 50 + 40 + 50 + 40 + 50  # N = 5 visits


@pytest.mark.parametrize("train", ["4-S", "5-MX", "5-YD"])
def test_only_station_trains_of_five_or_more_commute(train):
    hexes = double_track(30, 20)
    for h in hexes.values():
        h["tokens"] = [st_()] if train != "5-YD" else [yd()]
    doc = position(hexes, [train], phase="5", state=BW)
    plain = {"4-S": 90, "5-MX": 0, "5-YD": 50 + 40 + 20}
    assert solve_checked(doc).revenue == plain[train]


def test_commuter_run_needs_stations_in_every_city():
    hexes = double_track(30, 20)
    hexes["A3"]["tokens"] = [yd()]
    doc = position(hexes, ["5-S", "2-YD"], phase="5", state=BW)
    assert solve_checked(doc).revenue == 0


def test_commuter_track_is_not_available_to_other_trains():
    """Two station trains on double track: the 5-S commutes on one track at most if the 2-S
    takes the other; the solver weighs the two."""
    doc = position(double_track(30, 20), ["5-S", "2-S"], phase="5", state=BW)
    plan = solve_checked(doc)
    assert plan.revenue == 90 + 90  # two plain routes beat a run of 140 alone
    doc = position(double_track(30, 20, lanes=3), ["5-S", "2-S"], phase="5", state=BW)
    assert solve_checked(doc).revenue == 140 + 90


def test_commuter_visit_uses_one_station_where_the_company_has_two():
    # Baltimore A1 holds two BO stations: a plain route pays both (2 × 50 + 40 = 140), each
    # commuter visit one (B W B W: 50 + 40 + 50 + 40 = 180, not 280)
    hexes = double_track(30, 20, lanes=3)
    hexes["A1"]["tile"] = hexes["A1"]["tile"].replace("slots:1", "slots:2")
    hexes["A1"]["tokens"] = [st_(), st_()]
    plan = solve_checked(position(hexes, ["5-S"], phase="5", state=BW))
    assert plan.revenue == 180 and len(plan.routes[0].stops) == 4
    plain = solve_checked(position(hexes, ["4-S"], phase="5", state=BW))
    assert plain.revenue == 140


def test_commuter_runs_make_three_visits_or_more():
    # two visits would be an ordinary route: the runs added to the candidates all have three
    doc = position(double_track(30, 20, lanes=3), ["5-S"], phase="5", state=BW)
    prep = prepare(doc)
    td, graph = prep.trains[0], prep.graph_of(0)
    assert {r.min_visits for r in td.cyclic_runs} == {3}
    routes = enumerate_routes(graph, td)
    full = with_cyclic_runs(graph, td, routes)
    lengths = sorted(int(full.node_ptr[i + 1] - full.node_ptr[i])
                     for i in range(len(routes.node_ptr) - 1, len(full.node_ptr) - 1))
    assert lengths and lengths[0] == 3 and lengths[-1] == 4


NEW_YORK = {"commuter_runs": [{"name": "New York", "cycle": ["A1", "A3", "A5", "A7", "A5", "A3"],
                               "start": "first"}]}


def test_new_york_commuter_run_starts_in_white_plains():
    """White Plains A1 – NYC A3 – Long Island West A5 – Long Island East A7 on double track: a
    6-S runs WP NYC LIW LIE LIW NYC (the second pass on the other tracks)."""
    doc = position(double_track(10, 50, 20, 20), ["6-S"], phase="5", state=NEW_YORK)
    plan = solve_checked(doc)
    assert plan.routes[0].stops == ("A1-0", "A3-0", "A5-0", "A7-0", "A5-0", "A3-0")
    assert plan.revenue == 30 + 70 + 40 + 40 + 40 + 70
    # without White Plains' second track the run ends after its first pass
    hexes = double_track(10, 50, 20, 20)
    hexes["A1"]["tile"] = city(10) + ";path=a:0,b:_0,lanes:2"
    assert solve_checked(position(hexes, ["6-S"], phase="5", state=NEW_YORK)).revenue == 290


def test_validator_checks_commuter_runs():
    doc = position(double_track(30, 20), ["5-S"], phase="5", state=BW)
    plan = hexrail.solve(doc)
    assert check_plan(doc, plan).legal
    again = check_plan(doc, json.loads(json.dumps(plan.to_json())))  # a plan document
    assert again.legal and again.revenue == plan.revenue == 140
    no_runs = position(double_track(30, 20), ["5-S"], phase="5")
    report = check_plan(no_runs, plan)
    assert not report.legal


def test_commuter_run_enumeration_stops_at_its_cap():
    doc = position(double_track(30, 20, lanes=3), ["5-S"], phase="5", state=BW)
    prep = prepare(doc)
    td, graph = prep.trains[0], prep.graph_of(0)
    routes = enumerate_routes(graph, td)
    assert with_cyclic_runs(graph, replace(td, cyclic_runs=()), routes) is routes
    full = with_cyclic_runs(graph, td, routes)
    capped = with_cyclic_runs(graph, td, routes, max_routes=1)
    assert full.complete and len(full) > len(routes)
    assert not capped.complete and len(capped) < len(full)


@pytest.mark.parametrize("steps", [1, 2, 3])
def test_turned_boards_keep_the_optimum(steps):
    for doc in (line(*EXAMPLE, ["2-MX"]), position(loop_board(city_in_a3=False), ["2-S"]),
                line([city(20, 2), city(30)], {"A1": [st_(), yd()], "A3": [st_()]}, ["3-MX"])):
        assert solve_checked(rotate_position(doc, steps)).revenue == solve_checked(doc).revenue


# -- trains and rows ---------------------------------------------------------------------------


def test_train_specs():
    profile = Game1831()
    assert profile.parse_train("2-S", "t").extra["tokens"] == ("station",)
    assert profile.parse_train("3-YD", "t").extra["tokens"] == ("yard",)
    spec = profile.parse_train("5-MX(3S,2YD)", "t")
    assert spec.extra["caps"]["station"] == 3 and spec.rows[0].visit == 5
    for bad in ("2", "3E", "2-S(1S,1YD)", "2-X"):
        with pytest.raises(HexrailError):
            profile.parse_train(bad, "t")


def test_position_round_trips_with_train_types():
    doc = line(*EXAMPLE, ["2-MX", "3-S"])
    pos = load_position(doc)
    again = load_position(position_to_json(pos))
    assert again.trains == pos.trains
    assert hexrail.solve(again).revenue == hexrail.solve(doc).revenue == 60


def test_token_values_by_phase():
    pos, _ = ruled(load_position(line(*EXAMPLE, ["2-MX"], phase="9")))
    assert token_values(pos) == {"station": 30, "yard": 50}


def test_bundled_example_solves():
    plan = hexrail.solve(hexrail.example_path("1831"))
    assert plan.optimal
    report = check_plan(hexrail.example_path("1831"), plan)
    assert report.legal and report.revenue == plan.revenue
    # the track right on Washington's PRR rail yard is used (by the 3-YD)
    assert plan.revenue == 360 and plan.unused == () == report.unused
    assert "B6-0" in plan.route("3-YD-0").stops


# -- random boards -------------------------------------------------------------------------------

TRAINS_1831 = ["2-S", "3-S", "2-YD", "3-YD", "2-MX", "3-MX", "4-MX(2S,2YD)"]


@st.composite
def boards_1831(draw) -> dict:
    """A random small board (`strategies.positions`) run under 1831: the operating company's
    tokens typed at random (and more of them: vacant slots filled now and then), 1831 trains,
    now and then a track right on a foreign token."""
    doc = draw(positions(max_hexes=8, max_big_hexes=6, single_double=True))
    doc["rules"] = {"profile": "1831"}
    doc["trains"] = draw(st.lists(st.sampled_from(TRAINS_1831), min_size=1, max_size=2))
    foreign = []
    for hex_id, spec in sorted(doc["hexes"].items()):
        tokens = spec.get("tokens") or {}
        for node in spec.get("nodes", ()):
            if node["kind"] != "city":
                continue
            slots = list(tokens.get(str(node["index"]), ()))
            if len(slots) < node.get("slots", 1) and draw(st.booleans()):
                slots.append(doc["company"])  # more own tokens: more routes to compare
            for k, tok in enumerate(slots):
                if not isinstance(tok, str):
                    continue  # a neutral token stays one
                flag = draw(st.sampled_from(["station", "yard"]))
                slots[k] = {"company": tok, "flag": flag}
                if tok != doc["company"]:
                    foreign.append({"stop": f"{hex_id}-{node['index']}", "type": flag})
            if slots:
                tokens[str(node["index"])] = slots
        if tokens:
            spec["tokens"] = tokens
    state = {}
    if foreign and draw(st.integers(0, 2)) == 0:  # rights the plan must use, one or two
        state["track_rights"] = draw(st.lists(st.sampled_from(foreign), min_size=1, max_size=2))
    cities = sorted(h for h, spec in doc["hexes"].items()
                    if any(n["kind"] == "city" for n in spec.get("nodes", ())))
    single = [h for h in cities
              if sum(n["kind"] == "city" for n in doc["hexes"][h].get("nodes", ())) == 1]
    if single and len(cities) >= 3 and draw(st.integers(0, 2)) == 0:
        hub = draw(st.sampled_from(single))  # a Delaware: its city twice, round two others
        south = draw(st.lists(st.sampled_from([h for h in cities if h != hub]), min_size=2,
                              max_size=2, unique=True))
        state["delaware"] = {"hex": hub, "south": south}
    if single and len(cities) >= 2 and draw(st.integers(0, 3)) == 0:
        main = draw(st.sampled_from(single))  # another city hex extends it
        red = draw(st.sampled_from([h for h in cities if h != main]))
        state["city_extensions"] = {red: main}
    if len(cities) >= 2 and draw(st.booleans()):
        cycle = draw(st.lists(st.sampled_from(cities), min_size=2, max_size=3, unique=True))
        state["commuter_runs"] = [{"cycle": cycle, "start": draw(st.sampled_from(["first", "any"]))}]
        doc["trains"] = ["5-S"] + doc["trains"][:1]
    if state:
        doc["state"] = state
    return doc


@random_boards(120, HealthCheck.function_scoped_fixture)
@given(doc=boards_1831())
def test_solver_equals_oracle_on_random_boards(doc):
    note(json.dumps(doc))
    solve_checked(doc, max_routes=20_000)


@st.composite
def commuter_boards(draw) -> dict:
    """A line of 2-4 cities joined by 1-3 parallel tracks per hex side, now and then a plain
    hex between them, tokens drawn (own station or yard, foreign, none), station trains of 5
    and 6 beside others, and a cyclic pattern over the cities (repeats allowed)."""
    n = draw(st.integers(2, 4))
    cells = []
    for k in range(n):
        cells.append(draw(st.sampled_from([10, 20, 30, 40])))
        if k < n - 1 and draw(st.integers(0, 3)) == 0:
            cells.append(None)  # plain track
    widths = [draw(st.integers(1, 3)) for _ in range(len(cells) - 1)]
    for k, revenue in enumerate(cells):
        if revenue is None:
            widths[k] = widths[k - 1]  # a plain hex carries its tracks straight through
    hexes, names = {}, []
    for k, revenue in enumerate(cells):
        ends = [(s, widths[k - 1 if s == 3 else k]) for s, ok in ((3, k > 0), (0, k < len(cells) - 1))
                if ok]
        hex_id = f"A{2 * k + 1}"
        if revenue is None:
            w = ends[0][1]
            hexes[hex_id] = {"tile": ";".join(f"path=a:3,b:0,a_lane:{w}.{i},b_lane:{w}.{i}"
                                               for i in range(w))}
            continue
        code = ";".join([city(revenue, 2)] + [f"path=a:{s},b:_0,lanes:{w}" for s, w in ends])
        tokens = draw(st.lists(st.sampled_from(["station", "station", "yard", "foreign", "none"]),
                               min_size=1, max_size=2))
        slots = [{"company": Y if t == "foreign" else X, "flag": "station" if t == "foreign" else t}
                 for t in tokens if t != "none"]
        hexes[hex_id] = {"tile": code, **({"tokens": slots} if slots else {})}
        names.append(hex_id)
    cycle = draw(st.lists(st.sampled_from(names), min_size=2, max_size=4))
    if any(a == b for a, b in zip(cycle, cycle[1:] + cycle[:1])):
        cycle = names[:2]
    state = {"commuter_runs": [{"cycle": cycle, "start": draw(st.sampled_from(["first", "any"]))}]}
    trains = draw(st.lists(st.sampled_from(["5-S", "6-S", "2-S", "3-MX"]), min_size=1, max_size=2))
    return position(hexes, trains, phase=draw(st.sampled_from(["2", "5", "9"])), state=state)


@random_boards(120, HealthCheck.function_scoped_fixture)
@given(doc=commuter_boards())
def test_commuter_runs_solver_equals_oracle_on_random_boards(doc):
    note(json.dumps(doc))
    solve_checked(doc, max_routes=20_000)


# -- single track joins double track (5.6.2.4) ---------------------------------------------------

def double_track_board(profile: str = "1831") -> dict:
    """BO stations in A1 (10) and A5 (20); between them A3 carries double track (two lanes, side
    3 to side 0), while A1 and A5 reach it by single track."""
    hexes = line_hexes(["city=revenue:10", "", "city=revenue:20"], {"A1": [st_()], "A5": [st_()]})
    hexes["A3"] = {"tile": "path=a:3,b:0,lanes:2"}
    doc = position(hexes, ["2-S", "2-S"])
    doc["rules"] = {"profile": profile}
    return doc


def test_single_track_joins_both_tracks_of_a_double_track():
    plan = solve_checked(double_track_board())
    assert plan.revenue == (10 + 10) + (20 + 10)
    # one train only: the single track on each side is one piece of track
    assert [len(r.stops) for r in plan.routes].count(2) == 1
    # either lane of A3 is a legal way through, and the validator pays it
    for lane in (0, 1):
        report = check_plan(double_track_board(), {"routes": [
            {"train": "2-S-0", "paths": ["A1:0", f"A3:{lane}", "A5:0"]}]})
        assert report.legal and report.revenue == 50, report


def test_lanes_meet_lane_to_lane_elsewhere():
    doc = double_track_board("generic")
    doc["trains"] = ["2"]
    assert hexrail.solve(doc).revenue == 0


# -- track rights must be used (5.6.5) -----------------------------------------------------------

def rights_line(trains: list, rights: list, south: str = "city=revenue:10") -> dict:
    """BO stations in A1 (40) and A3 (40); PRR's station in A5 (10) and in A7 (30), either of
    which BO may have bought a track right to."""
    cells = ["city=revenue:40", "city=revenue:40", south, "city=revenue:30"]
    tokens = {"A1": [st_()], "A3": [st_()], "A5": [st_(Y)], "A7": [st_(Y)]}
    return line(cells, tokens, trains, state={"track_rights": rights})


def test_a_track_right_must_be_used_even_when_it_costs_revenue():
    # without the right: A1 A3 pays 50 + 50; the right in A5 must be used: A3 A5, 50 + 20
    assert solve_checked(rights_line(["2-S"], [])).revenue == 100
    plan = solve_checked(rights_line(["2-S"], ["A5-0"]))
    assert plan.revenue == 50 + 20 and plan.unused == ()
    assert plan.routes[0].stops == ("A3-0", "A5-0")
    # a longer train takes everything
    assert solve_checked(rights_line(["3-S"], ["A5-0"])).revenue == 50 + 50 + 20
    # two trains: one runs the best route, the other uses the right (they may share tokens)
    assert solve_checked(rights_line(["2-S", "2-S"], ["A5-0"])).revenue == 100 + 70


def test_when_no_plan_uses_every_right_the_most_are_used_and_the_rest_named():
    # both rights on one route: A5 A7 pays only 20 + 40, but uses both
    plan = solve_checked(rights_line(["2-S"], ["A5-0", "A7-0"]))
    assert plan.revenue == 20 + 40 and plan.unused == ()
    # a right to PRR's rail yard in A7 no station train can use: the 2-S uses the one in A5
    doc = rights_line(["2-S"], ["A5-0", {"stop": "A7-0", "type": "yard"}])
    doc["hexes"]["A7"]["tokens"] = [yd(Y)]
    plan = solve_checked(doc)
    assert plan.revenue == 50 + 20 and plan.unused == ("track right A7-0 (yard)",)
    # a rail-yard train cannot use a station right at all: it runs its best plan and says so
    doc = rights_line(["2-YD"], ["A5-0"])
    doc["hexes"]["A1"]["tokens"] = [yd()]
    doc["hexes"]["A3"]["tokens"] = [yd()]
    plan = solve_checked(doc)
    assert plan.revenue == 60 + 60 and plan.unused == ("track right A5-0 (station)",)
    assert plan.to_json()["unused"] == ["track right A5-0 (station)"]
    assert "unused" in plan.table() and "A5-0" in plan.table()


def test_the_validator_names_the_rights_a_plan_leaves_unused():
    doc = rights_line(["2-S"], ["A5-0"])
    report = check_plan(doc, {"routes": [{"train": "2-S-0", "stops": ["A1-0", "A3-0"]}]})
    assert report.legal and report.unused == ("track right A5-0 (station)",)
    assert report.to_json()["unused"] == ["track right A5-0 (station)"]
    assert check_plan(doc, hexrail.solve(doc)).unused == ()


def test_a_commuter_run_may_use_the_track_right():
    # Baltimore A1 (BO) and Washington A3 (PRR's station, a right bought) on three tracks
    hexes = double_track(30, 20, lanes=3)
    hexes["A3"]["tokens"] = [st_(Y)]
    state = {**BW, "track_rights": ["A3-0"]}
    plan = solve_checked(position(hexes, ["5-S"], phase="5", state=state))
    assert plan.revenue == 50 + 40 + 50 + 40 and plan.unused == ()


# -- Delaware: the large city twice (5.6.2) --------------------------------------------------------

def delaware_board(south_token: bool = True) -> dict:
    """BO stations in A1 (10), Delaware A5 (30), and the two cities south of it, A7 and B6
    (20 each); A5, A7 and B6 form a triangle of track, A1 runs south into A5 through A3."""
    hexes = {
        "A1": {"tile": city(10) + ";path=a:0,b:_0", "tokens": [st_()]},
        "A3": {"tile": "path=a:3,b:0"},
        "A5": {"tile": city(30) + ";path=a:3,b:_0;path=a:0,b:_0;path=a:5,b:_0",
               "tokens": [st_()]},
        "A7": {"tile": city(20) + ";path=a:3,b:_0;path=a:4,b:_0", "tokens": [st_()]},
        "B6": {"tile": city(20) + ";path=a:2,b:_0;path=a:1,b:_0",
               "tokens": [st_()] if south_token else [None]},
    }
    return position(hexes, ["5-S"], state={"delaware": {"hex": "A5", "south": ["A7", "B6"]}})


def test_delaware_is_run_to_twice_around_the_cities_south_of_it():
    # A1 A5 A7 B6 A5: five tokens, Delaware paid twice (20 + 40 + 30 + 30 + 40)
    plan = solve_checked(delaware_board())
    assert plan.revenue == 160
    assert plan.routes[0].stops.count("A5-0") == 2
    # a 4-S: A5 A7 B6 A5 (140) beats A1 A5 A7 B6 (120)
    four = solve_checked({**delaware_board(), "trains": ["4-S"]})
    assert four.revenue == 140
    # without the Delaware rule the city is once per route
    doc = delaware_board()
    doc["state"] = {}
    assert solve_checked(doc).revenue == 120


def test_delaware_needs_both_south_cities_run_to_between_the_visits():
    # B6 holds no BO token: the train passes it but does not run to it, so no second visit
    doc = delaware_board(south_token=False)
    plan = solve_checked(doc)
    assert plan.revenue == 20 + 40 + 30
    report = check_plan(doc, {"routes": [{"train": "5-S-0",
                                          "stops": ["A1-0", "A5-0", "A7-0", "B6-0", "A5-0"]}]})
    assert not report.legal and "without running to B6" in str(report)
    # the legal double visit, given by its stops, is paid twice by the validator
    ok = check_plan(delaware_board(), {"routes": [{"train": "5-S-0",
                                                    "stops": ["A1-0", "A5-0", "A7-0", "B6-0", "A5-0"]}]})
    assert ok.legal and ok.revenue == 160


@pytest.mark.parametrize("delaware, field", [
    ({"hex": "Z9", "south": ["A7", "B6"]}, "state.delaware.hex"),
    ({"hex": "A3", "south": ["A7", "B6"]}, "state.delaware.hex"),
    ({"hex": "A5", "south": ["A7"]}, "state.delaware.south"),
    ({"hex": "A5", "south": ["A7", "A3"]}, "state.delaware.south"),
    ("A5", "state.delaware"),
])
def test_bad_delaware_input_names_the_field(delaware, field):
    doc = delaware_board()
    doc["state"] = {"delaware": delaware}
    with pytest.raises(HexrailError) as err:
        hexrail.solve(doc)
    assert field in str(err.value)


@st.composite
def delaware_boards(draw) -> dict:
    """The Delaware triangle (`delaware_board`) with its values, tokens, tracks and trains drawn:
    a tail of 0-2 cities north of Delaware, each of the triangle's sides present or not and on
    one or two tracks (single track joining double), tokens own (station or yard), foreign or
    none, and the south cities named right or wrong."""
    tokens = st.sampled_from(["station", "station", "yard", "foreign", "none"])

    def slots(kind: str) -> list:
        if kind == "none":
            return [None]
        return [{"company": Y if kind == "foreign" else X,
                 "flag": "station" if kind == "foreign" else kind}]

    sides = {"A5": [3, 0, 5], "A7": [3, 4], "B6": [2, 1]}  # the triangle's track per city
    for (a, sa), (b, sb) in ((("A5", 0), ("A7", 3)), (("A5", 5), ("B6", 2)),
                             (("A7", 4), ("B6", 1))):
        if draw(st.integers(0, 5)) == 0:  # this side missing
            sides[a].remove(sa)
            sides[b].remove(sb)
    hexes = {}
    for hex_id, ss in sides.items():
        parts = [city(draw(st.sampled_from([10, 20, 30, 40])), 2)]
        for s in ss:
            lanes = draw(st.sampled_from([1, 1, 2]))
            parts.append(f"path=a:{s},b:_0" + (f",lanes:{lanes}" if lanes > 1 else ""))
        hexes[hex_id] = {"tile": ";".join(parts), "tokens": slots(draw(tokens)) + slots(draw(tokens))}
    tail = draw(st.integers(0, 2))
    if tail:
        hexes["A3"] = {"tile": city(draw(st.sampled_from([10, 20])), 1) + ";path=a:0,b:_0"
                       + (";path=a:3,b:_0" if tail == 2 else ""), "tokens": slots(draw(tokens))}
        if tail == 2:
            hexes["A1"] = {"tile": city(10, 1) + ";path=a:0,b:_0", "tokens": slots(draw(tokens))}
    south = draw(st.sampled_from([["A7", "B6"], ["B6", "A7"], ["A7", "A3"] if tail else ["A7", "B6"]]))
    trains = draw(st.lists(st.sampled_from(["3-S", "4-S", "5-S", "4-MX", "3-YD", "6-MX(3S,3YD)"]),
                           min_size=1, max_size=2))
    return position(hexes, trains, phase=draw(st.sampled_from(["2", "5"])),
                    state={"delaware": {"hex": "A5", "south": south}})


@random_boards(300, HealthCheck.function_scoped_fixture)
@given(doc=delaware_boards())
def test_delaware_solver_equals_oracle_on_random_boards(doc):
    note(json.dumps(doc))
    solve_checked(doc, max_routes=20_000)


# -- city extensions: the red NYC, Cleveland and Buffalo hexes (2.3) ---------------------------------

def extension_board(main_tokens: list | None = None, ext_tokens: list | None = None,
                    extended: bool = True) -> dict:
    """A1 (10, BO station) – A3 (20) – A5 (30, BO station) north to south; the red hex B4
    (a city worth nothing, two sites) joins A3 from the south-east and extends it."""
    hexes = line_hexes(["city=revenue:10", "city=revenue:20,slots:1", "city=revenue:30"],
                       {"A1": [st_()], "A3": main_tokens or [None], "A5": [st_()]})
    hexes["A3"]["tile"] += ";path=a:5,b:_0"
    hexes["B4"] = {"tile": "city=revenue:0,slots:2;path=a:2,b:_0", "color": "red",
                   "tokens": ext_tokens if ext_tokens is not None else [st_(), None]}
    state = {"city_extensions": {"B4": "A3"}} if extended else {}
    return position(hexes, ["3-S"], state=state)


def test_an_extensions_tokens_are_its_citys():
    # BO's station in B4 is a station in A3: A1 A3 A5 runs to three (20 + 30 + 40)
    assert solve_checked(extension_board()).revenue == 90
    # as a hex of its own, B4 is a dead end worth its token only: A1 A5 past A3, 20 + 40
    assert solve_checked(extension_board(extended=False)).revenue == 60


def test_a_city_and_its_extension_are_visited_once():
    doc = extension_board()
    report = check_plan(doc, {"routes": [{"train": "3-S-0", "stops": ["A1-0", "A3-0", "B4-0"]}]})
    assert not report.legal and "city A3" in str(report)


def test_a_city_with_a_free_site_in_its_extension_is_not_full():
    # PRR fills A3's one site; B4 still has room (no BO token there): A3 lets BO's trains by
    doc = extension_board(main_tokens=[st_(Y)], ext_tokens=[None, None])
    assert solve_checked(doc).revenue == 20 + 40
    doc = extension_board(main_tokens=[st_(Y)], ext_tokens=[st_(Y), st_(Y)])
    assert solve_checked(doc).revenue == 0  # the whole city is full
    alone = extension_board(main_tokens=[st_(Y)], ext_tokens=[None, None], extended=False)
    assert solve_checked(alone).revenue == 0


@pytest.mark.parametrize("extensions, field", [
    ({"Z9": "A3"}, "state.city_extensions.Z9"),
    ({"B4": "Z9"}, "state.city_extensions.B4"),
    ({"B4": "B4"}, "state.city_extensions.B4"),
    ({"B4": "A3-7"}, "state.city_extensions.B4"),
    (["B4"], "state.city_extensions"),
])
def test_bad_city_extensions_name_the_field(extensions, field):
    doc = extension_board()
    doc["state"] = {"city_extensions": extensions}
    with pytest.raises(HexrailError) as err:
        hexrail.solve(doc)
    assert field in str(err.value)
