"""Engine benchmarks: the demo, and a synthetic late-game board (70 hexes, 8 tokens, 6 + 8 + D).

Run with ``python -m pytest benchmarks/ --benchmark-only -n 0``. The JIT is warmed up outside the
timed region; one benchmark measures a cold start in a fresh process (on-disk JIT cache
populated). Each benchmark asserts the revenue and records graph and candidate sizes.
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from boards import dense_board

import hexrail
from hexrail.solve import choose, prepare

LATE_GAME = dense_board(70, seed=2, link_p=0.85)
LATE_GAME_REVENUE = 1440


@pytest.fixture(scope="module", autouse=True)
def warm():
    hexrail.solve(hexrail.example_path("demo"))


def record(benchmark, plan):
    benchmark.extra_info.update({
        "revenue": plan.revenue, "optimal": plan.optimal,
        "candidates": plan.stats["candidates"], "vertices": plan.stats["vertices"],
        "combine_nodes": plan.stats["combine_nodes"], "timings": plan.timings,
    })


def test_demo_warm(benchmark):
    pos = hexrail.load_position(hexrail.example_path("demo"))
    plan = benchmark(hexrail.solve, pos)
    record(benchmark, plan)
    assert plan.revenue == 480 and plan.optimal


def test_late_game_warm(benchmark):
    pos = hexrail.load_position(LATE_GAME)
    hexrail.solve(pos)
    plan = benchmark(hexrail.solve, pos)
    record(benchmark, plan)
    assert plan.revenue == LATE_GAME_REVENUE and plan.optimal


def test_late_game_stages(benchmark):
    """Enumeration and combination timed apart (compile is cached per position)."""
    pos = hexrail.load_position(LATE_GAME)
    prep = benchmark(prepare, pos)
    t0 = time.perf_counter()
    sel = choose(prep)
    benchmark.extra_info["combine_s"] = time.perf_counter() - t0
    benchmark.extra_info["candidates"] = [len(c) for c in prep.candidates]
    assert sel.value == LATE_GAME_REVENUE and sel.optimal


def test_cold_start(benchmark):
    """`hexrail solve` of the demo in a fresh process (JIT cache on disk)."""
    cmd = [sys.executable, "-m", "hexrail.cli", "solve", str(hexrail.example_path("demo")),
           "--format", "json"]
    subprocess.run(cmd, check=True, capture_output=True)  # populate the cache
    result = benchmark.pedantic(lambda: subprocess.run(cmd, check=True, capture_output=True),
                                rounds=3, iterations=1)
    assert b'"revenue": 480' in result.stdout
