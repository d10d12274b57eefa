"""1862 benchmarks on real 18xx.games positions (../shared/corpus/1862.jsonl, read at run time).

Run with ``python -m pytest benchmarks/test_bench_1862.py --benchmark-only -n 0``. Skips when the
corpus is absent. The JIT is warmed up outside the timed region; each benchmark asserts the
proven optimum and records candidate counts and stage timings. Positions: the largest rounds of
the corpus (four and five trains of mixed variants, two or three 9F freight trains), which the
18xx.games auto-router ran for 10-18 s each (its time is recorded beside ours).
"""

from __future__ import annotations

import hexrail
import pytest
from corpus_cases import CORPUS, bench_case, case_ids, load_cases

# (fixture, action index) → our optimum, revenue + subsidy
CASES = {
    ("1862_game_end_bank.json", 630): 2110,  # E&H: 4/5E, 5L, 5E, 9F, 9F
    ("1862_game_end_bank.json", 675): 2210,  # E&H: 4/5E, 5L, 5E, 9F, 9F
    ("1862_game_end_bank.json", 685): 1840,  # EUR: 4/5L, 6E, 9F, 9F
    ("1862_game_end_stock_market.json", 479): 940,  # Y&N: 2/3L, 2/3L, 3F, 3L, 5F (temporary sets)
    ("1862_game_end_stock_market.json", 749): 1980,  # Y&N: 5L, 9F, 9F, 9F
}

POSITIONS = load_cases("1862", CASES)
pytestmark = pytest.mark.skipif(not POSITIONS, reason=f"1862 corpus not found in {CORPUS}")


@pytest.mark.parametrize("key", list(CASES), ids=case_ids(CASES))
def test_corpus_position(benchmark, key):
    bench_case(benchmark, POSITIONS[key], CASES[key])


def test_a_time_limit_cuts_twelve_freight_trains(benchmark):
    """Twelve 9F freight trains on a late position (211227, action 663) at a 1.5 s limit: the
    whole call, which once ran 65 s, is what the time limit allows."""
    from hexrail.io.g18xx import position_from_18xx

    data = next((d for d in load_cases("1862", {("1862_game_end_bank.json", 663): None}).values()), None)
    if data is None:
        pytest.skip("position 663 of 1862_game_end_bank.json not in the corpus")
    train = data["trains"][0]
    pos = position_from_18xx({**data, "trains": [{**train, "id": f"9F-{k}"} for k in range(12)]})
    hexrail.solve(hexrail.example_path("demo"))
    plan = benchmark.pedantic(hexrail.solve, args=(pos,), kwargs={"time_limit": 1.5}, rounds=2,
                              iterations=1)
    benchmark.extra_info.update({"revenue": plan.revenue, "upper_bound": plan.upper_bound})
    assert not plan.optimal and plan.upper_bound >= plan.revenue
