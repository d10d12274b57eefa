"""The 1862 rules profile (docs/rules.md (1862)), rule by rule, through the solver.

Every board here is a column of hexes A1, A3, ... (flat layout: A1 and A7 are three hexes
apart); the company X has its token and home in A1 unless stated. Each case states the optimum
worked out by hand; `solved` also checks that the independent validator prices the plan alike
and that the brute-force oracle finds the same optimum. Scoring of real 18xx.games routes and
optima on the 1862 corpus are in test_corpus.py; the validator's own cases in
test_validate_1862.py.
"""

from __future__ import annotations

import pytest
from conftest import line_hexes, solve_checked

from hexrail import solve
from hexrail.errors import HexrailError
from hexrail.io.native import load_position
from hexrail.rules import ruled
from hexrail.rules.g1862 import parse_name
from hexrail.oracle import reference_solve


def city(v: int) -> str:
    return f"city=revenue:{v}"


def town(v: int) -> str:
    return f"town=revenue:{v}"


def offboard(v: int, group: str = "") -> str:
    return f"offboard=revenue:{v}" + (f",groups:{group}" if group else "")


def board(cells: list[str], trains: list[str], *, colors: dict | None = None,
          state: dict | None = None, tokens: dict | None = None) -> dict:
    hexes = line_hexes(cells, tokens)
    for hex_id, color in (colors or {}).items():
        hexes[hex_id]["color"] = color
    return {"layout": "flat", "rules": {"profile": "1862"}, "company": "X",
            "companies": [{"id": "X", "home": "A1"}, {"id": "Y"}], "trains": trains,
            "hexes": hexes, "state": state or {}}


def solved(doc: dict, total: int, revenue: int | None = None):
    """Solve (checked against the validator and the oracle: `conftest.solve_checked`) and
    assert the optimum worked out by hand."""
    plan = solve_checked(doc)
    assert plan.total == total, plan.table()
    if revenue is not None:
        assert plan.revenue == revenue, plan.table()
    return plan


# -- trains --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, expected", [
    ("2/3E", ("express", 2, 3)), ("4E***", ("express", 4, 4)), ("2L*", ("local", 2, 2)),
    ("4/5L", ("local", 4, 5)), ("9F", ("freight", 9, 9)), ("1F*", ("freight", 1, 1)),
    ("D", None), ("3+1", None),
])
def test_variant_names(name, expected):
    assert parse_name(name) == expected


def test_freight_trains_from_18xx_games_count_hexes():
    # the export gives a freight train as a plain stop count; its name says it is a hex limit
    doc = board([city(20), city(30)], [{"id": "H-2", "name": "9F", "spec": "9"}])
    pos, _ = ruled(load_position(doc))
    assert pos.trains[0].spec.hexes == 9


def test_an_unknown_train_is_refused_with_its_name():
    doc = board([city(20), city(30)], [{"id": "T", "name": "Diesel", "spec": "D"}])
    with pytest.raises(HexrailError, match="Diesel"):
        solve(doc)


# -- express ------------------------------------------------------------------------------------

def test_express_passes_towns_without_pay():
    plan = solved(board([city(20), town(10), city(30)], ["2E"]), 50)
    assert plan.routes[0].to_json()["unpaid"] == ["A3-0"]


def test_x_y_express_pays_its_best_x():
    solved(board([city(20), city(30), city(40)], ["2/3E"]), 70)


# -- local ---------------------------------------------------------------------------------------

def test_local_pays_towns_without_counting_them_and_earns_a_subsidy_per_hex():
    # 2L: A1 and A7 count, both towns pay; four hexes × 10 subsidy
    plan = solved(board([city(20), town(10), town(10), city(30)], ["2L"]), 110, revenue=70)
    assert plan.subsidy == 40


def test_local_may_not_visit_offboards():
    solved(board([city(20), city(30), offboard(100)], ["3L"]), 70, revenue=50)


def test_a_second_local_is_subsidised_for_new_hexes_only():
    # tokens in A1 and A5: A1-A3 pays 50, A3-A5 pays 40; hexes A1, A3, A5 once each
    plan = solved(board([city(20), city(30), city(40)], ["2L", "2L"],
                        tokens={"A1": ["X"], "A5": ["X"]}), 120, revenue=90)
    assert plan.subsidy == 30


# -- stops pay once ----------------------------------------------------------------------------------

def test_every_location_pays_once_across_trains():
    # two 3E trains on one line: A1-A5 pays 90 once; the second train adds nothing
    solved(board([city(20), city(30), city(40)], ["3E", "3E"]), 90)


def test_x_y_trains_choose_their_paid_stops_jointly():
    # 2/3E over A1-A5 and 2E over A3-A5 (sharing A3): all three cities pay once
    solved(board([city(20), city(50), city(40)], ["2/3E", "2E"]), 110)


# -- freight ---------------------------------------------------------------------------------------

def test_freight_pays_its_ends_and_the_hexes_between_them():
    # 3F A1-A7: ends 20 + 30, two hexes between × 20
    plan = solved(board([city(20), town(10), town(10), city(30)], ["3F"]), 90)
    assert [s.to_json() for s in plan.sets] == [{"trains": ["3F-0"], "ends": ["A1-0", "A7-0"], "bonus": 40}]
    assert plan.to_json()["sets"][0]["bonus"] == 40


def test_freight_counts_hexside_crossings():
    # 2F cannot reach A7 (three crossings) and may not end at a town
    solved(board([city(20), town(10), town(10), city(30)], ["2F"]), 0)


def test_a_port_end_pays_30_per_hex_measured_from_the_hex_before_it():
    # A1 to the port A5, measured from A3 (no hex between) plus one: 1 × 30
    solved(board([city(20), city(30), offboard(40)], ["3F"], colors={"A5": "blue"}), 90)


def test_temporary_freight_trains_must_join_one_set():
    # 1F and 2F (temporary): apart they would be two sets, so they join at A3; the set's
    # ends are A1 and A5 (one hex between: 20)
    plan = solved(board([city(20), city(30), city(40)], ["1F", "2F"],
                        tokens={"A1": ["X"], "A5": ["X"]}), 80)
    assert len(plan.sets) == 1


# -- route ends ------------------------------------------------------------------------------------

def test_no_route_ends_at_a_town():
    solved(board([city(20), town(50)], ["2E"]), 0)


def test_no_route_runs_red_offboard_to_red_offboard():
    doc = board([offboard(50), city(20), offboard(60)], ["3E"], colors={"A1": "red", "A5": "red"},
                tokens={"A3": ["X"]})
    doc["companies"][0]["home"] = "A3"
    solved(doc, 80)


def test_no_route_runs_port_to_port():
    doc = board([offboard(50), city(20), offboard(60)], ["3E"], colors={"A1": "blue", "A5": "blue"},
                tokens={"A3": ["X"]})
    doc["companies"][0]["home"] = "A3"
    solved(doc, 80)


def test_london_needs_a_london_link():
    cells = [city(20), city(30), offboard(100, "London")]
    solved(board(cells, ["3E"], colors={"A5": "red"}), 150)
    solved(board(cells, ["3E"], colors={"A5": "red"}, state={"london_link": False}), 50)


# -- plan rules -------------------------------------------------------------------------------------

def test_only_permitted_variants_run():
    plan = solved(board([city(20), city(30), town(10), city(40)], ["2E", "3F"],
                        state={"permits": ["express"]}), 50)
    assert [r.train for r in plan.routes] == ["2E-0"]


def test_one_route_must_include_the_home_token():
    # tokens in A1 (home) and A7; the big stops are around A7 only
    cells = [city(10), town(10), city(30), city(90), city(80)]
    plan = solved(board(cells, ["2E"], tokens={"A1": ["X"], "A7": ["X"]}), 40)
    assert "A1-0" in plan.routes[0].stops


def test_the_routes_must_meet():
    # 2E A7-A9 (170) cannot run beside 2E A1-A3 (home): they share no stop. Best: A1-A3 and
    # A3-A7 through the town, meeting at A3, which pays once: 10 + 30 + 90
    cells = [city(10), city(30), town(10), city(90), city(80)]
    solved(board(cells, ["2E", "2E"], tokens={"A1": ["X"], "A7": ["X"]}), 130)


def test_the_bundled_example():
    from hexrail.examples import example_path

    doc = str(example_path("1862"))
    plan = solve(doc)
    assert plan.optimal and (plan.revenue, plan.subsidy) == (570, 50)
    assert [s.to_json() for s in plan.sets] == [{"trains": ["5F-0"], "ends": ["B1-0", "C10-0"], "bonus": 120}]
    assert reference_solve(doc).value == 620
