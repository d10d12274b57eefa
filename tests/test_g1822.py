"""1822: E trains (token cities paid double, sharing track with other trains), local trains, the
English Channel pair, the Merthyr Tydfil sides, the destination bonus and the mail contract, on
hand-made boards and random ones (against the oracle and the validator), and every shared
18xx.games position of the title.
"""

from __future__ import annotations

import json

import pytest
from conftest import corpus_params, line_hexes, random_boards, solve_checked
from hypothesis import given, note
from hypothesis import strategies as st
from strategies import positions
from test_bonus_titles import bonus_names

import hexrail
from hexrail.errors import HexrailError
from hexrail.validate import check_plan

X = "X"
CELLS = ["city=revenue:10", "city=revenue:50", "city=revenue:20"]  # A1, A3, A5


def doc(hexes: dict, trains: list, state: dict | None = None) -> dict:
    return {"layout": "flat", "rules": {"profile": "1822"}, "company": X,
            "companies": [{"id": X}], "trains": trains, "hexes": hexes, "state": state or {}}


def test_e_trains_pay_token_cities_double_and_end_at_them():
    hexes = line_hexes(CELLS, {"A1": [X], "A5": [X]})
    state = {"etrain_paying_nodes": ["A1-0", "A5-0"], "train_roles": {"E-0": "etrain"}}
    e = {"id": "E-0", "spec": {"rows": [{"nodes": ["city", "town", "offboard"], "pay": 99,
                                         "visit": 99}], "multiplier": 2}}
    # A1 and A5 doubled; A3 on the way pays nothing
    assert solve_checked(doc(hexes, [e], state)).revenue == 2 * (10 + 20)
    # with X in A1 only, no route has two token ends
    assert solve_checked(doc(line_hexes(CELLS), [e], {**state, "etrain_paying_nodes": ["A1-0"]})).revenue == 0


def test_an_e_train_shares_track_with_other_trains_but_not_with_another_e():
    hexes = line_hexes(CELLS, {"A1": [X], "A5": [X]})
    e = {"rows": [{"nodes": ["city", "town", "offboard"], "pay": 99, "visit": 99}], "multiplier": 2}
    state = {"etrain_paying_nodes": ["A1-0", "A5-0"],
             "train_roles": {"E-0": "etrain", "E-1": "etrain", "3-0": "normal"}}
    plan = solve_checked(doc(hexes, [{"id": "E-0", "spec": e}, {"id": "3-0", "spec": "3"}], state))
    assert plan.revenue == 60 + 80 and len(plan.routes) == 2
    plan = solve_checked(doc(hexes, [{"id": "E-0", "spec": e}, {"id": "E-1", "spec": e}], state))
    assert plan.revenue == 60 and len(plan.routes) == 1


def test_local_trains_run_one_city_and_one_town_or_the_city_alone():
    hexes = line_hexes(["city=revenue:30", "town=revenue:20", "city=revenue:50"])
    local = {"id": "L-0", "spec": {"rows": [{"nodes": ["city"], "pay": 1, "visit": 1},
                                            {"nodes": ["town"], "pay": 1, "visit": 1}]}}
    assert solve_checked(doc(hexes, [local], {"train_roles": {"L-0": "local"}})).revenue == 50
    alone = line_hexes(["city=revenue:30", "city=revenue:50"])
    plan = solve_checked(doc(alone, [local], {"train_roles": {"L-0": "local"}}))
    assert plan.revenue == 30 and plan.routes[0].stops == ("A1-0",)


def test_the_english_channel_goes_with_france_and_another_stop():
    # A3 is the Channel (a city worth 0), A5 France (an offboard of no distance)
    hexes = line_hexes(["city=revenue:30", "city=revenue:0", "offboard=revenue:60,visit_cost:0"])
    state = {"english_channel": {"hex": "A3", "france_hex": "A5"}}
    assert solve_checked(doc(hexes, ["2"], state)).revenue == 90
    # X in the Channel city: the Channel and France alone make no route
    own = line_hexes(["city=revenue:30", "city=revenue:0", "offboard=revenue:60,visit_cost:0"],
                     {"A3": [X]})
    plan = solve_checked(doc(own, ["2"], state))
    assert plan.revenue == 90 and len(plan.routes[0].stops) == 3


def test_an_e_train_may_end_in_france_with_a_token_in_the_channel_city():
    # X in A1 and in the Channel city A5; France A7. Without the exception no E route ends
    # in France; with it A1-A3-A5-A7 runs, the Channel city paid France's value (doubled)
    cells = ["city=revenue:10", "city=revenue:50", "city=revenue:0",
             "offboard=revenue:60,visit_cost:0"]
    hexes = line_hexes(cells, {"A1": [X], "A5": [X]})
    e = {"id": "E-0", "spec": {"rows": [{"nodes": ["city", "town", "offboard"], "pay": 99,
                                         "visit": 99}], "multiplier": 2}}
    state = {"english_channel": {"hex": "A5", "france_hex": "A7"}, "train_roles": {"E-0": "etrain"},
             "etrain_paying_nodes": ["A1-0", "A5-0"]}
    assert solve_checked(doc(hexes, [e], state)).revenue == 0
    tokened = {**state, "english_channel_tokened": True}
    plan = solve_checked(doc(hexes, [e], tokened))
    assert plan.revenue == 2 * (10 + 60) and plan.routes[0].stops == ("A1-0", "A3-0", "A5-0", "A7-0")
    # the Channel city's token pays no E train (not in the paying cities): the route still
    # needs two token cities, here A1 and A3
    other = {**tokened, "etrain_paying_nodes": ["A1-0"]}
    assert solve_checked(doc(hexes, [e], other)).revenue == 0
    plan = solve_checked(doc(hexes, [e], {**other, "etrain_paying_nodes": ["A1-0", "A3-0"]}))
    assert plan.revenue == 2 * (10 + 50)
    # France as a city gives the E train no end there: refused, naming the hex
    city = line_hexes(cells[:3] + ["city=revenue:60"], {"A1": [X], "A5": [X]})
    with pytest.raises(HexrailError, match="A7"):
        hexrail.solve(doc(city, [e], tokened))
    with pytest.raises(HexrailError, match="english_channel_tokened"):
        hexrail.solve(doc(hexes, [e], {**state, "english_channel_tokened": "yes"}))


def test_the_plan_uses_one_of_the_exclusive_sides():
    # X in A1 and A5; the plan may use A3's side 3 (to A1) or its side 0 (to A5), not both
    hexes = line_hexes(CELLS, {"A1": [X], "A5": [X]})
    exclusive = {"exclusive_edges": [{"hex": "A3", "edges": [3, 0]}]}
    assert solve_checked(doc(hexes, ["2", "2"])).revenue == 60 + 70
    assert solve_checked(doc(hexes, ["2", "2"], exclusive)).revenue == 70
    assert solve_checked(doc(hexes, ["3"], exclusive)).revenue == 70


def test_two_routes_may_use_one_exclusive_side():
    # A1-A3 is two-lane track: two 2-trains run it side by side, both on A3's side 3, which
    # the rule allows (one side used); one of them on A3-A5 would use side 0 too
    def city(revenue: int, lanes: list, tokens: list | None = None) -> dict:
        return {"nodes": [{"kind": "city", "revenue": revenue, "slots": 2, "index": 0}],
                "paths": [{"a": f"e{side}", "b": "n0", "lanes": [[2, lane], [1, 0]]}
                          for side, lane in lanes], **({"tokens": {"0": tokens}} if tokens else {})}
    hexes = {"A1": city(10, [(0, 0), (0, 1)], [X]), "A3": city(50, [(3, 1), (3, 0)]),
             "A5": {"tile": "city=revenue:20;path=a:3,b:_0"}}
    hexes["A3"]["paths"].append({"a": "n0", "b": "e0"})
    exclusive = {"exclusive_edges": [{"hex": "A3", "edges": [3, 0]}]}
    plan = solve_checked(doc(hexes, ["2", "2"], exclusive))
    assert plan.revenue == 2 * (10 + 50) and len(plan.routes) == 2


def test_the_destination_bonus_goes_to_one_route_and_the_mail_contract_is_a_subsidy():
    hexes = line_hexes(CELLS, {"A1": [X], "A5": [X]})
    dest = {"destination_bonus": {"home_node": "A1-0", "destination_node": "A3-0",
                                  "amount_by_train": {"2-0": 50, "2-1": 50}}}
    trains = [{"id": "2-0", "spec": "2"}, {"id": "2-1", "spec": "2"}]
    plan = solve_checked(doc(hexes, trains, dest))
    assert plan.revenue == 60 + 50 + 70 and bonus_names(plan) == {"destination": 50}
    # the mail contract, half the base values of the best route's ends as a subsidy: A3-A5
    # (70 + 35) beats the whole line (80 + 15)
    plan = solve_checked(doc(hexes, ["3"], {"mail_contracts": ["P6"]}))
    assert (plan.revenue, plan.subsidy) == (70, (50 + 20) // 2)


def test_two_mail_contracts_pay_the_two_best_routes_one_each():
    # two 2-trains on A1-A3-A5 (X in A1 and A5): A1-A3 and A3-A5, 60 + 70 of revenue whatever;
    # with one contract only the better route's ends are paid, with two both routes'
    hexes = line_hexes(CELLS, {"A1": [X], "A5": [X]})
    trains = [{"id": "2-0", "spec": "2"}, {"id": "2-1", "spec": "2"}]
    one = solve_checked(doc(hexes, trains, {"mail_contracts": ["P6"]}))
    assert (one.revenue, one.subsidy) == (130, (50 + 20) // 2)
    two = solve_checked(doc(hexes, trains, {"mail_contracts": ["P6", "P7"]}))
    assert (two.revenue, two.subsidy) == (130, (50 + 20) // 2 + (10 + 50) // 2)
    assert sorted(r.subsidy for r in two.routes) == [30, 35]
    # one train, two contracts: one route earns one contract's subsidy only
    lone = solve_checked(doc(hexes, ["3"], {"mail_contracts": ["P6", "P7"]}))
    assert (lone.revenue, lone.subsidy) == (70, (50 + 20) // 2)
    # a third train with no route of its own left: the two contracts still pay two routes
    three = solve_checked(doc(hexes, trains + [{"id": "2-2", "spec": "2"}],
                              {"mail_contracts": ["P6", "P7"]}))
    assert three.subsidy == 35 + 30


def test_a_lone_trains_bonus_may_go_to_a_route_worth_less_than_its_best():
    # X in A3 with one 2-train: A3-A5 (70) is its best route, but A3-A1 (60) earns the
    # destination bonus (50): only routes within that bonus of the best are kept, not the best
    hexes = line_hexes(CELLS, {"A3": [X]})
    dest = {"destination_bonus": {"home_node": "A3-0", "destination_node": "A1-0",
                                  "amount_by_train": {"2-0": 50}}}
    plan = solve_checked(doc(hexes, [{"id": "2-0", "spec": "2"}], dest))
    assert plan.revenue == 60 + 50 and plan.optimal and bonus_names(plan) == {"destination": 50}


def test_local_trains_visit_each_city_once_where_they_run_track():
    local = {"rows": [{"nodes": ["city"], "pay": 1, "visit": 1},
                      {"nodes": ["town"], "pay": 1, "visit": 1}]}
    trains = [{"id": "L-0", "spec": local}, {"id": "L-1", "spec": local}]
    roles = {"train_roles": {"L-0": "local", "L-1": "local"}}
    # X in A5 only, towns on either side: A5-A7 (90) and A5-A3 (70) would both run from A5;
    # the second local runs A5 alone instead (no track: the engine lets it)
    hexes = line_hexes(["city=revenue:30", "town=revenue:20", "city=revenue:50",
                        "town=revenue:40"], {"A5": [X]})
    plan = solve_checked(doc(hexes, trains, roles))
    assert plan.revenue == 90 + 50
    assert sorted(r.stops for r in plan.routes) == [("A5-0",), ("A5-0", "A7-0")]
    # X in A1 as well: each local from its own city, both to the town A3
    hexes = line_hexes(["city=revenue:30", "town=revenue:20", "city=revenue:50",
                        "town=revenue:40"], {"A1": [X], "A5": [X]})
    assert solve_checked(doc(hexes, trains, roles)).revenue == 90 + 50
    # a normal train may share a local's city: A3-A5 beside A5-A7
    plan = solve_checked(doc(hexes, [trains[0], {"id": "2-0", "spec": "2"}],
                             {"train_roles": {"L-0": "local", "2-0": "normal"}}))
    assert plan.revenue == 90 + 70


# -- random boards against the oracle ------------------------------------------------------------------


@st.composite
def boards_1822(draw) -> dict:
    """A random small board (`strategies.positions`) run under 1822: N trains, an E train paid
    for some token cities, local trains, the English Channel, a destination, a mail contract,
    exclusive sides."""
    doc = draw(positions(max_hexes=8, max_big_hexes=6))
    doc["rules"] = {"profile": "1822"}
    trains = [{"id": f"N{k}", "spec": s} for k, s in enumerate(
        draw(st.lists(st.sampled_from(["2", "3"]), min_size=0, max_size=2)))]
    roles = {t["id"]: "normal" for t in trains}
    if draw(st.booleans()):
        trains.append({"id": "E", "spec": {"rows": [{"nodes": ["city", "town", "offboard"],
                                                     "pay": 99, "visit": 99}], "multiplier": 2}})
        roles["E"] = "etrain"
    for k in range(draw(st.integers(0 if trains else 1, 2))):  # (two: one city each)
        trains.append({"id": f"L{k}", "spec": {"rows": [{"nodes": ["city"], "pay": 1, "visit": 1},
                                                        {"nodes": ["town"], "pay": 1, "visit": 1}]}})
        roles[f"L{k}"] = "local"
    doc["trains"] = trains
    hexes = sorted(doc["hexes"])
    cities = [f"{h}-{n['index']}" for h in hexes for n in doc["hexes"][h].get("nodes", ())
              if n["kind"] == "city"]
    # every hex exempt from "one stop per hex" (on the real map the hexes of several stops
    # are exempt or London's one group)
    state: dict = {"train_roles": roles, "english_channel": {"hex": "none", "france_hex": "none"},
                   "stop_hex_repeat_exempt_hexes": hexes,
                   "etrain_paying_nodes": draw(st.lists(st.sampled_from(cities), max_size=3,
                                                        unique=True)) if cities else []}
    if len(cities) >= 2 and draw(st.booleans()):
        home, dest = draw(st.lists(st.sampled_from(cities), min_size=2, max_size=2, unique=True))
        state["destination_bonus"] = {"home_node": home, "destination_node": dest,
                                      "amount_by_train": {t["id"]: draw(st.sampled_from([20, 40]))
                                                          for t in trains}}
    if len(hexes) >= 2 and draw(st.booleans()):
        # the Channel and France on two of the hexes: their stop tallies bound every walk; as
        # often as not a city and an offboard, as on the map
        def stops(h: str) -> list:
            return [n["kind"] for n in doc["hexes"][h].get("nodes", ()) if n["kind"] != "junction"]
        offboards = [h for h in hexes if stops(h) == ["offboard"]]
        towns = [h for h in hexes if "city" in stops(h)]
        if offboards and set(towns) - {offboards[0]} and draw(st.booleans()):
            france = draw(st.sampled_from(offboards))
            channel = draw(st.sampled_from([h for h in towns if h != france]))
        else:
            channel, france = draw(st.lists(st.sampled_from(hexes), min_size=2, max_size=2,
                                            unique=True))
        state["english_channel"] = {"hex": channel, "france_hex": france}
        if stops(france) == ["offboard"] and draw(st.booleans()):
            # the company's token in the Channel city: an E train may end in France
            state["english_channel_tokened"] = True
            state["etrain_paying_nodes"] += [f"{channel}-{n['index']}" for n in
                                             doc["hexes"][channel].get("nodes", ())
                                             if n["kind"] == "city" and draw(st.booleans())]
    state["mail_contracts"] = draw(st.sampled_from([[], [], ["P6"], ["P6", "P7"]]))
    if draw(st.booleans()):
        state["exclusive_edges"] = [{"hex": draw(st.sampled_from(hexes)),
                                     "edges": draw(st.lists(st.integers(0, 5), min_size=2,
                                                            max_size=3, unique=True))}]
    else:
        state["exclusive_edges"] = []
    doc["state"] = state
    return doc


@random_boards(100)
@given(doc=boards_1822())
def test_solver_equals_oracle_on_random_boards(doc):
    note(json.dumps(doc))
    solve_checked(doc, max_routes=20_000)


# -- the shared 18xx.games positions ---------------------------------------------------------------


def _income(record: dict) -> int:
    return record["revenue"] + (record.get("subsidy") or 0)


@pytest.mark.parametrize("data", corpus_params("1822"))
def test_corpus_position(data, warm_solver):
    """Every shared position: an income (revenue and mail subsidy) at least the players' and
    the auto-router's, proven; the players' routes scored as 18xx.games paid them, per route
    and in subsidy."""
    from hexrail.io.g18xx import plan_from_18xx_routes, position_from_18xx

    pos = position_from_18xx(data)
    assert (pos.rules.profile, pos.meta["rules_covered"]) == ("1822", True)
    plan = hexrail.solve(pos)
    sub, ar = data["submitted"], data.get("auto_router") or {}
    recorded = [_income(sub)] if "revenue" in sub and not sub.get("error") else []
    if "revenue_rescored" in ar and not ar.get("rescore_error"):
        recorded.append(ar["revenue_rescored"] + (ar.get("subsidy") or 0))
    assert plan.optimal and plan.total >= max(recorded, default=0), (plan.total, recorded)
    report = check_plan(pos, plan)
    assert report.legal and (report.revenue, report.subsidy) == (plan.revenue, plan.subsidy)
    if "revenue" in sub and not sub.get("error"):
        theirs = check_plan(pos, plan_from_18xx_routes(sub["routes"]))
        assert theirs.legal and (theirs.revenue, theirs.subsidy) == (sub["revenue"], sub.get("subsidy") or 0), \
            theirs.table()
        assert [r.revenue for r in theirs.routes] == [r["revenue"] for r in sub["routes"]]
