"""The solver's contract: golden numbers, time limits with honest bounds, objectives, output."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import hexrail
from hexrail.plan import plan_from_json

sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))
from boards import dense_board  # noqa: E402


def test_demo_golden():
    plan = hexrail.solve(hexrail.example_path("demo"))
    assert plan.optimal and plan.revenue == 480 and plan.upper_bound == 480
    assert sorted(r.revenue for r in plan.routes) == [80, 150, 250]
    assert len(plan.routes) == 3


def test_plan_json_round_trip():
    plan = hexrail.solve(hexrail.example_path("demo"))
    doc = json.loads(plan.dumps())
    assert doc["optimal"] is True and doc["revenue"] == 480
    again = plan_from_json(doc)
    assert [r.paths for r in again.routes] == [r.paths for r in plan.routes]
    assert [r.stops for r in again.routes] == [r.stops for r in plan.routes]


def test_time_limit_returns_honest_bound():
    doc = dense_board(70, seed=2, link_p=0.85)
    exact = hexrail.solve(doc)
    assert exact.optimal
    cut = hexrail.solve(doc, time_limit=0.0)
    assert not cut.optimal
    assert cut.revenue <= exact.revenue <= cut.upper_bound


def test_deterministic():
    doc = dense_board(40, seed=5, link_p=0.8)
    a, b = hexrail.solve(doc), hexrail.solve(doc)
    assert a.to_json()["routes"] == b.to_json()["routes"]


HALTS = {
    "layout": "flat", "company": "A", "companies": [{"id": "A"}],
    "trains": [{"spec": {"rows": [{"nodes": ["city", "offboard", "town", "halt"], "pay": 2, "visit": 2}]}}],
    "hexes": {
        "A1": {"tile": "city=revenue:20;path=a:0,b:_0", "tokens": ["A"]},
        "A3": {"tile": "halt=symbol:H;path=a:3,b:_0;path=a:0,b:_0"},
        "A5": {"tile": "city=revenue:30;path=a:3,b:_0"},
    },
}


def test_optional_stop_passed_without_counting():
    plan = hexrail.solve(HALTS)
    assert plan.revenue == 50
    assert plan.routes[0].stops == ("A1-0", "A3-0", "A5-0")
    assert "A3-0" not in plan.routes[0].paid


def test_objective_argument_checked():
    with pytest.raises(hexrail.HexrailError, match="objective"):
        hexrail.solve(HALTS, objective="fun")


def test_table_mentions_optimality():
    table = hexrail.solve(hexrail.example_path("demo")).table()
    assert "proven optimal" in table and "480" in table
