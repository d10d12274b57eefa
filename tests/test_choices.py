"""The company's choices before it runs, weighed by the solver (``solve(choices=True)``, ``hexrail
solve --choices``, ``"choices": true`` over HTTP): 1846's steamboat hex and 18USA's upgrades left
unattached, on hand-made boards (each way against the oracle and the validator) and on every
shared 18xx.games position that leaves such a choice open.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import corpus_params, line_hexes, solve_checked
from hypothesis import given, note, settings
from hypothesis import strategies as st

import hexrail
from hexrail.errors import HexrailError
from hexrail.io.native import position_to_json
from hexrail.validate import check_plan

X = "X"


def steamboat(cells: list[str], icons: dict, at: str, may: list[str], trains: list) -> dict:
    """A 1846 board: X's home A3, its Steamboat Company on `at`, movable to the hexes `may`."""
    hexes = line_hexes(cells, {"A3": [X]})
    for hex_id, names in icons.items():
        hexes[hex_id]["icons"] = names
    per = 20 * icons[at].count("port")
    state = {
        "stop_bonuses": [{"source": "SC", "hexes": [at], "nodes": [f"{at}-0"], "amount_by_hex": {at: per}}],
        "assignment_bonuses": [{"company": "SC", "name": "Steamboat Company", "base_amount": 20,
                                "per_icon": "port", "assigned_hexes": [at], "entity_assigned": True,
                                "entity_may_assign_hex": {"hexes": may, "uses_left": 1}}]}
    return {"layout": "flat", "rules": {"profile": "1846"}, "company": X,
            "companies": [{"id": X, "home": "A3"}], "trains": trains, "hexes": hexes, "state": state}


# A1 a town-less west end (20), X's city A3 (10), A5 (60, one port), A7 an east offboard (30, two)
CELLS = ["offboard=revenue:20", "city=revenue:10", "city=revenue:60", "offboard=revenue:30,groups:E"]
PORTS = {"A5": ["port"], "A7": ["port", "port"]}


def test_the_steamboat_moves_where_it_earns_most():
    doc = steamboat(CELLS, PORTS, "A5", ["A5", "A7"], ["3"])
    # A3-A5-A7 either way (100): the steamboat at A5 adds 20, moved to A7's two ports 40
    assert hexrail.solve(doc).revenue == 120 and hexrail.solve(doc).choices is None
    plan = hexrail.solve(doc, choices=True)
    assert (plan.revenue, plan.optimal, plan.choices) == (140, True, {"Steamboat Company hex": "A7"})
    assert solve_checked(position_to_json(plan.position)).revenue == 140  # (the oracle agrees)
    # the validator runs the plan, object or document, on the position its choices set up
    for made in (plan, json.loads(plan.dumps())):
        report = check_plan(doc, made)
        assert report.legal and report.revenue == 140
    # a choice the company does not have is refused, naming the field
    with pytest.raises(HexrailError, match="plan.choices"):
        check_plan(doc, {**json.loads(plan.dumps()), "choices": {"Steamboat Company hex": "A3"}})


def test_a_choice_no_better_keeps_the_position_as_it_stands():
    # a 2-train runs A3-A5 only: the steamboat stays at A5 (moving it to A7 earns nothing)
    doc = steamboat(CELLS, PORTS, "A5", ["A5", "A7"], ["2"])
    plan = hexrail.solve(doc, choices=True)
    assert (plan.revenue, plan.choices) == (90, {})
    assert "choices: as the position stands" in plan.table()
    # no move left this round: nothing to weigh
    closed = steamboat(CELLS, PORTS, "A5", ["A5", "A7"], ["3"])
    closed["state"]["assignment_bonuses"][0]["entity_may_assign_hex"]["uses_left"] = 0
    assert hexrail.solve(closed, choices=True).revenue == 120


def usa(trains: list, upgrades: list, state: dict | None = None) -> dict:
    """An 18USA line: X's city A1 (20), A3 (10), A5 (30), A7 (40)."""
    hexes = line_hexes(["city=revenue:20", "city=revenue:10", "city=revenue:30", "city=revenue:40"])
    return {"layout": "flat", "rules": {"profile": "18USA"}, "company": X, "companies": [{"id": X}],
            "trains": trains, "hexes": hexes,
            "state": {"upgrades_not_attached": upgrades, **(state or {})}}


def test_upgrades_left_unattached_go_where_they_earn_most():
    trains = [{"id": "2-0", "spec": "2"}, {"id": "3-0", "spec": "3"}]
    extender = {"id": "+", "name": "Extender", "eligible_trains": ["2-0"]}
    doc = usa(trains, [extender])
    # the 3 runs A1-A3-A5 (60), the 2 nothing beside it; extended to 3 the 2-train still cannot
    # run beside it (one token), so the extender on the 2 changes nothing...
    assert hexrail.solve(doc, choices=True).total == 60
    # ...but eligible for the 3, it makes a 4: A1-A3-A5-A7 (100), named as 18xx.games names it
    doc = usa(trains, [{**extender, "eligible_trains": ["2-0", "3-0"]}])
    plan = hexrail.solve(doc, choices=True)
    assert (plan.total, plan.choices) == (100, {"Extender": "3-0"})
    assert plan.routes[0].train_name == "3+1" and check_plan(doc, plan).revenue == 100
    # the Pullman, +20 a paid stop, and the extender both on the 3: each way is weighed
    pullman = {"id": "P", "name": "Pullman", "eligible_trains": ["2-0", "3-0"]}
    doc = usa(trains, [{**extender, "eligible_trains": ["3-0"]}, pullman],
              {"pullman": {"trains": [], "per_paid_stop": 20}})
    plan = hexrail.solve(doc, choices=True)
    assert (plan.total, plan.choices) == (100 + 4 * 20, {"Extender": "3-0", "Pullman": "3-0"})
    assert solve_checked(position_to_json(plan.position)).total == 180
    assert check_plan(doc, json.loads(plan.dumps())).revenue == 180


def test_the_1822_pullman_car_goes_on_the_train_it_lifts_most():
    # X at A1; towns between cities: a 3 runs A1-A3-A5 (60), a Pullman-attached 3 passes the
    # towns without spending distance and reaches A9 (110); the 2 gains less (A1-A3-A5-A7: 70)
    hexes = line_hexes(["city=revenue:20", "town=revenue:10", "city=revenue:30", "town=revenue:10",
                        "city=revenue:40"])
    rows = {n: [{"nodes": ["city", "offboard"], "pay": 99, "visit": n},
                {"nodes": ["town"], "pay": 99, "visit": 99}] for n in (2, 3)}
    trains = [{"id": "2-0", "spec": "2"}, {"id": "3-0", "spec": "3"}]
    doc = {"layout": "flat", "rules": {"profile": "1822"}, "company": X, "companies": [{"id": X}],
           "trains": trains, "hexes": hexes,
           "state": {"pullman_car": "P+-0", "pullman_eligible": {"2-0": rows[2], "3-0": rows[3]}}}
    assert hexrail.solve(doc).total == 60
    plan = hexrail.solve(doc, choices=True)
    assert (plan.total, plan.choices) == (110, {"Pullman": "3-0"})
    assert plan.routes[0].train_name == "3+" and check_plan(doc, json.loads(plan.dumps())).revenue == 110
    assert solve_checked(position_to_json(plan.position)).total == 110


def test_a_switcher_is_weighed_and_a_way_not_built_is_refused_naming_it():
    trains = [{"id": "3-0", "spec": "3"}]
    switcher = {"id": "/", "name": "Switcher", "eligible_trains": ["3-0"]}
    # the switcher visits 4 stops and pays the best 3: A1-A3-A5-A7 paid 20 + 30 + 40
    plan = hexrail.solve(usa(trains, [switcher], {"switcher": {"trains": [], "extra_distance": 1}}),
                         choices=True)
    assert (plan.total, plan.choices, plan.routes[0].train_name) == (90, {"Switcher": "3-0"}, "3/1")
    with pytest.raises(HexrailError, match="choices: cannot weigh the choice Switcher 3-0: state.gnr"):
        hexrail.solve(usa(trains, [switcher], {"gnr": {"owned_by_entity": True}}), choices=True)


def test_choices_under_a_time_limit_say_whether_they_are_proven():
    doc = steamboat(CELLS, PORTS, "A5", ["A5", "A7"], ["3"])
    plan = hexrail.solve(doc, 5.0, choices=True)
    assert plan.optimal and plan.upper_bound == plan.total == 140


@pytest.mark.parametrize("workers", [1, 2])
def test_solve_many_weighs_choices_when_asked(workers):
    from hexrail.io.native import position_from_json

    doc = steamboat(CELLS, PORTS, "A5", ["A5", "A7"], ["3"])
    plans = list(hexrail.solve_many([doc, position_from_json(doc)], workers=workers, choices=True))
    assert [(p.total, p.choices) for p in plans] == [(140, {"Steamboat Company hex": "A7"})] * 2
    assert check_plan(plans[1].position, plans[1]).legal  # (the position it was made for)


def test_the_cli_weighs_choices_when_asked(tmp_path):
    path = tmp_path / "steamboat.json"
    path.write_text(json.dumps(steamboat(CELLS, PORTS, "A5", ["A5", "A7"], ["3"])))

    def solve(*flags: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "hexrail.cli", "solve", str(path), *flags],
                              capture_output=True, text=True, check=True)

    out = json.loads(solve("--choices").stdout)
    assert (out["total"], out["choices"]) == (140, {"Steamboat Company hex": "A7"})
    assert "choices" not in json.loads(solve().stdout)
    assert "choices: Steamboat Company hex A7" in solve("--choices", "--format", "table").stdout


# -- the shared 18xx.games positions that leave a choice open -------------------------------------


def _open(data: dict) -> bool:
    state = data.get("title_state") or {}
    return bool(state.get("upgrades_not_attached")) or any(
        (b.get("entity_may_assign_hex") or {}).get("uses_left")
        for b in state.get("assignment_bonuses") or ())


@pytest.mark.parametrize("data", [p for t in ("1846", "18USA") for p in corpus_params(t, _open)])
def test_corpus_position(data, warm_solver):
    """Weighing the choices never earns less than the position as it stands, is proven, and the
    validator pays the plan on the position its choices set up."""
    from hexrail.io.g18xx import position_from_18xx

    pos = position_from_18xx(data)
    stands = hexrail.solve(pos)
    plan = hexrail.solve(pos, choices=True)
    assert plan.optimal and plan.total >= stands.total
    assert plan.choices or plan.total == stands.total
    report = check_plan(pos, plan)
    assert report.legal and (report.revenue, report.subsidy) == (plan.revenue, plan.subsidy)


# -- the choices' state of the wrong kind ---------------------------------------------------------

JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "A7", "3-0", "+"]),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.sampled_from(["hexes", "id", "3-0", "x"]), inner, max_size=2),
                    max_leaves=6)


def _bad_docs() -> dict:
    sb = steamboat(CELLS, PORTS, "A5", ["A5", "A7"], ["3"])
    up = usa([{"id": "3-0", "spec": "3"}],
             [{"id": "+", "name": "Extender", "eligible_trains": ["3-0"]},
              {"id": "/", "name": "Switcher", "eligible_trains": ["3-0"]}],
             {"switcher": {"trains": [], "extra_distance": 1}})
    pm = {"layout": "flat", "rules": {"profile": "1822"}, "company": X, "companies": [{"id": X}],
          "trains": [{"id": "3-0", "spec": "3"}], "hexes": line_hexes(["city=revenue:20", "city=revenue:30"]),
          "state": {"pullman_eligible": {"3-0": [{"nodes": ["city"], "pay": 99, "visit": 3}]}}}
    return {"1846": sb, "18USA": up, "1822": pm}


PLACES = [("1846", ("assignment_bonuses",)), ("1846", ("assignment_bonuses", 0)),
          *(("1846", ("assignment_bonuses", 0, k)) for k in (
              "entity_may_assign_hex", "company", "name", "base_amount", "per_icon", "assigned_hexes",
              "entity_assigned")),
          *(("1846", ("assignment_bonuses", 0, "entity_may_assign_hex", k)) for k in ("hexes", "uses_left")),
          ("1846", ("stop_bonuses",)), ("18USA", ("upgrades_not_attached",)),
          ("18USA", ("upgrades_not_attached", 0)),
          *(("18USA", ("upgrades_not_attached", 1, k)) for k in ("id", "name", "eligible_trains")),
          ("18USA", ("switcher",)), ("18USA", ("switcher", "extra_distance")), ("18USA", ("pullman",)),
          ("18USA", ("train_upgrades",)), ("1822", ("pullman_eligible",)),
          ("1822", ("pullman_eligible", "3-0")), ("1822", ("pullman_attached_to",))]


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(place=st.sampled_from(PLACES), value=JSON)
def test_bad_choice_state_is_refused_naming_the_field(place, value):
    title, path = place
    doc = _bad_docs()[title]
    holder = doc["state"]
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = value
    note(json.dumps(doc["state"]))
    try:
        plan = hexrail.solve(doc, choices=True)
    except HexrailError as err:
        assert "\n" not in str(err) and str(err).startswith(("state.", "choices:", "train ")), err
        return
    assert plan.optimal and check_plan(doc, plan).revenue == plan.revenue
