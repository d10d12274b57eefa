"""1862 benchmarks on real 18xx.games positions (../shared/corpus/1862.jsonl, read at run time).

Run with ``python -m pytest benchmarks/test_bench_1862.py --benchmark-only``. Skips when the
corpus is absent. The JIT is warmed up outside the timed region; each benchmark asserts the
proven optimum and records candidate counts and stage timings. Positions: the largest rounds of
the corpus (four and five trains of mixed variants, two or three 9F freight trains), which the
18xx.games auto-router ran for 10-18 s each (its time is recorded beside ours).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import hexrail

CORPUS = Path(os.environ.get("HEXRAIL_CORPUS") or Path(__file__).resolve().parents[2] / "shared" / "corpus")
FILE = CORPUS / "1862.jsonl"

# (fixture, action index) → our optimum, revenue + subsidy
CASES = {
    ("1862_game_end_bank.json", 630): 2110,  # E&H: 4/5E, 5L, 5E, 9F, 9F
    ("1862_game_end_bank.json", 675): 2210,  # E&H: 4/5E, 5L, 5E, 9F, 9F
    ("1862_game_end_bank.json", 685): 1840,  # EUR: 4/5L, 6E, 9F, 9F
    ("1862_game_end_stock_market.json", 479): 940,  # Y&N: 2/3L, 2/3L, 3F, 3L, 5F (temporary sets)
    ("1862_game_end_stock_market.json", 749): None,  # Y&N: 5L, 9F, 9F, 9F
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
pytestmark = pytest.mark.skipif(not POSITIONS, reason=f"1862 corpus not found at {FILE}")


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
