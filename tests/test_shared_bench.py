"""The benchmark positions of other route solvers (``../shared/bench``, read at run time, skipped
with the reason when absent): navig18xx's 1867 final round, proven at the optima its README
gives, every plan legal and paid as the validator finds."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import hexrail
from hexrail.validate import check_plan

BENCH = Path(os.environ.get("HEXRAIL_BENCH") or Path(__file__).resolve().parents[2] / "shared" / "bench")
FINAL_ROUND = {"1867_bc_GW.json": 840, "1867_bc_CO.json": 900, "1867_bc_CNR.json": 1150}


@pytest.mark.parametrize("name", sorted(FINAL_ROUND))
def test_1867_final_round(name):
    path = BENCH / name
    if not path.exists():
        pytest.skip(f"benchmark position not found at {path} (set HEXRAIL_BENCH to its directory)")
    doc = json.loads(path.read_text())
    plan = hexrail.solve(doc)
    assert plan.optimal and plan.revenue == FINAL_ROUND[name]
    report = check_plan(doc, plan)
    assert report.legal and report.revenue == plan.revenue, str(report)
