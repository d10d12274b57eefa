"""18SJ benchmarks on the largest corpus position: cold process, first solve, warm, by stage.

"Largest" is the 18SJ position the 18xx.games auto-router took longest on (a late-game E train
on a 62-track-hex board). The corpus is read from ``$HEXRAIL_CORPUS`` or ``../shared/corpus``;
without it every benchmark skips. Run with
``python -m pytest benchmarks/test_bench_18sj.py --benchmark-only -n 0``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import hexrail
from hexrail.solve import choose, forget_tracks, prepare

CORPUS = Path(os.environ.get("HEXRAIL_CORPUS") or Path(__file__).resolve().parents[2] / "shared" / "corpus")
FILE = CORPUS / "18SJ.jsonl"
LARGEST_REVENUE = 1070  # 18SJ_game_end_stock_market.json action 1095 (UGJ, one E train)

pytestmark = pytest.mark.skipif(not FILE.exists(), reason=f"18SJ corpus not found at {FILE}")


def largest() -> dict:
    rows = [json.loads(line) for line in FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
    return max(rows, key=lambda d: (d.get("auto_router") or {}).get("time_s", 0.0))


@pytest.fixture(scope="module")
def data() -> dict:
    return largest()


@pytest.fixture(scope="module")
def position(data):
    from hexrail.io.g18xx import position_from_18xx

    hexrail.solve(hexrail.example_path("demo"))  # kernels compiled or loaded outside the timing
    return position_from_18xx(data)


def record(benchmark, data, plan):
    benchmark.extra_info.update({
        "position": f"{data['fixture']} action {data['action_index']} ({data['entity']['id']})",
        "trains": [t["name"] for t in data["trains"]],
        "revenue": plan.revenue, "optimal": plan.optimal,
        "bonuses": [b for r in plan.routes for b in r.bonuses],
        "candidates": plan.stats["candidates"], "vertices": plan.stats["vertices"],
        "combine_nodes": plan.stats["combine_nodes"], "timings": plan.timings,
        "auto_router_s": data["auto_router"].get("time_s"),
    })


def test_18sj_largest_warm(benchmark, data, position):
    hexrail.solve(position)
    plan = benchmark(hexrail.solve, position)
    record(benchmark, data, plan)
    assert plan.optimal and plan.revenue == LARGEST_REVENUE


def test_18sj_largest_first_solve(benchmark, data, position):
    """Kernels loaded, but the position's track graph compiled afresh each round."""
    plan = benchmark.pedantic(hexrail.solve, args=(position,), setup=forget_tracks,
                              rounds=5, iterations=1)
    record(benchmark, data, plan)
    assert plan.optimal and plan.revenue == LARGEST_REVENUE


def test_18sj_largest_stages(benchmark, data, position):
    """Enumeration (prepare) timed; the combination timed once beside it."""
    prep = benchmark(prepare, position)
    t0 = time.perf_counter()
    sel = choose(prep)
    benchmark.extra_info["combine_s"] = time.perf_counter() - t0
    benchmark.extra_info["candidates"] = [len(c) for c in prep.candidates]
    assert sel.value == LARGEST_REVENUE and sel.optimal


def test_18sj_largest_cold_process(benchmark, data, tmp_path):
    """`hexrail solve` in a fresh process (numba's disk cache populated by a first run)."""
    path = tmp_path / "largest-18sj.json"
    path.write_text(json.dumps(data))
    cmd = [sys.executable, "-m", "hexrail.cli", "solve", str(path), "--format", "json"]
    subprocess.run(cmd, check=True, capture_output=True)
    result = benchmark.pedantic(lambda: subprocess.run(cmd, check=True, capture_output=True),
                                rounds=3, iterations=1)
    assert json.loads(result.stdout)["revenue"] == LARGEST_REVENUE


def test_18sj_whole_corpus_warm(benchmark, position):
    """All 120 positions, one after the other, warm."""
    from hexrail.io.g18xx import position_from_18xx

    rows = [json.loads(line) for line in FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
    positions = [position_from_18xx(d) for d in rows]

    def run():
        return [hexrail.solve(p) for p in positions]

    plans = benchmark.pedantic(run, rounds=2, iterations=1, warmup_rounds=1)
    benchmark.extra_info["positions"] = len(plans)
    assert all(p.optimal for p in plans)
