"""1860 benchmarks on real 18xx.games positions (../shared/corpus/1860.jsonl, read at run time).

Run with ``python -m pytest benchmarks/test_bench_1860.py --benchmark-only -n 0``. Skips when the
corpus is absent. The JIT is warmed up outside the timed region; each benchmark asserts the
optimum and records candidate counts and stage timings. Positions: an early three-train round,
the single 9+5 with the most candidates, and the two-train rounds the 18xx.games auto-router
found hardest (its own time is recorded beside ours).
"""

from __future__ import annotations

import pytest
from corpus_cases import CORPUS, bench_case, case_ids, load_cases

# (fixture, action index) → our optimum, revenue + subsidy
CASES = {
    ("1860_game_end_bank.json", 101): 250,  # IOW: 2+1, 2+1, 3+2
    ("1860_game_end_bank.json", 568): 450,  # NGStL: 7+4, 9+5
    ("1860_game_end_stock_market.json", 546): 540,  # C&N: 5+3, 7+4
    ("1860_game_end_stock_market.json", 611): 660,  # IWNJ: 8+4, 6+3 (auto-router: 39 s)
    ("1860_game_end_stock_market.json", 644): 380,  # NGStL: 9+5, 30k candidates
}

POSITIONS = load_cases("1860", CASES)
pytestmark = pytest.mark.skipif(not POSITIONS, reason=f"1860 corpus not found in {CORPUS}")


@pytest.mark.parametrize("key", list(CASES), ids=case_ids(CASES))
def test_corpus_position(benchmark, key):
    bench_case(benchmark, POSITIONS[key], CASES[key])
