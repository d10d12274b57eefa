"""1860 benchmarks on real 18xx.games positions (../shared/corpus/1860.jsonl, read at run time).

Run with ``python -m pytest benchmarks/test_bench_1860.py --benchmark-only``. Skips when the
corpus is absent. The JIT is warmed up outside the timed region; each benchmark asserts the
optimum and records candidate counts and stage timings. Positions: an early three-train round,
the single 9+5 with the most candidates, and the two-train rounds the 18xx.games auto-router
found hardest (its own time is recorded beside ours).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import hexrail

CORPUS = Path(os.environ.get("HEXRAIL_CORPUS") or Path(__file__).resolve().parents[2] / "shared" / "corpus")
FILE = CORPUS / "1860.jsonl"

# (fixture, action index) → our optimum, revenue + subsidy
CASES = {
    ("1860_game_end_bank.json", 101): 250,  # IOW: 2+1, 2+1, 3+2
    ("1860_game_end_bank.json", 568): 450,  # NGStL: 7+4, 9+5
    ("1860_game_end_stock_market.json", 546): 540,  # C&N: 5+3, 7+4
    ("1860_game_end_stock_market.json", 611): 660,  # IWNJ: 8+4, 6+3 (auto-router: 39 s)
    ("1860_game_end_stock_market.json", 644): 380,  # NGStL: 9+5, 30k candidates
}


def _positions() -> dict:
    if not FILE.exists():
        return {}
    out = {}
    for line in FILE.read_text(encoding="utf-8").splitlines():
        data = json.loads(line)
        key = (data["fixture"], data["action_index"])
        if key in CASES:
            out[key] = data
    return out


POSITIONS = _positions()
pytestmark = pytest.mark.skipif(not POSITIONS, reason=f"1860 corpus not found at {FILE}")


@pytest.fixture(scope="module", autouse=True)
def warm():
    hexrail.solve(hexrail.example_path("demo"))


@pytest.mark.parametrize("key", list(CASES), ids=[f"{f.removesuffix('.json')}-{a}" for f, a in CASES])
def test_corpus_position(benchmark, key):
    from hexrail.io.g18xx import position_from_18xx

    data = POSITIONS[key]
    pos = position_from_18xx(data)
    hexrail.solve(pos)  # compile and cache the track graph outside the timed region
    plan = benchmark.pedantic(hexrail.solve, args=(pos,), rounds=3, iterations=1)
    benchmark.extra_info.update({
        "total": plan.total, "optimal": plan.optimal, "candidates": plan.stats["candidates"],
        "timings": plan.timings, "auto_router_s": data["auto_router"]["time_s"],
    })
    assert plan.optimal
    expected = CASES[key]
    if expected is not None:
        assert plan.total == expected
