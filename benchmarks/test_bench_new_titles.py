"""1846, 1817, 18USA and 1822 benchmarks on real 18xx.games positions (../shared/corpus, read
at run time).

Run with ``python -m pytest benchmarks/test_bench_new_titles.py --benchmark-only -n 0``. Skips a
title whose corpus file is absent. Positions: per title the three on which the 18xx.games
auto-router spent longest (its time, 4 to 60 s, is recorded beside ours; at 60 s it stopped),
among those the default test run proves. Then 18USA's five heaviest, which the model of track
proves, and 1861's 8 trains, long the walks' slowest proofs elsewhere.
"""

from __future__ import annotations

import pytest
from corpus_cases import bench_case, case_ids, load_cases

import hexrail

# title -> (fixture, action index) -> our optimum, revenue + subsidy
CASES = {
    "1846": {("1846_game_end_reason_all_closed.json", 588): 760,  # 7/8, 7/8
             ("10264.json", 288): 750,  # 3/5, 4, 2, 5
             ("1846_game_end_reason_all_closed.json", 583): 740},
    "1817": {("15528.json", 1619): 830,  # 5, 6
             ("15528.json", 1545): 830,
             ("15528.json", 1670): 490},  # 8
    "18USA": {("109372.json", 1474): 540,  # 5 with a Pullman
              ("109372.json", 1460): 610,  # 6 with a Pullman
              ("109372.json", 1371): 520},
    "1822": {("33845.json", 1454): 980,  # 2P, E
             ("33845.json", 1398): 980,
             ("33845.json", 1468): 530,  # 7+ (Pullman attached)
             ("33845.json", 1463): 960},  # 2P, 7, 5: the longest to price its mail contract
}
# 18USA's five heaviest positions (one company's 5 or 6 and 8 train), which the walks prove in
# 5-58 s and the model of track in a few: proven, and under a time limit what the plan earns
# beside the best, and its bound
HEAVY = {("109372.json", 1385): 980, ("109372.json", 1441): 1000, ("109372.json", 1454): 980,
         ("109372.json", 1489): 1010, ("109372.json", 1493): 990}
# 1861's 8 trains, towns filling them: the walks' slowest proofs outside 18USA's late game
# (0.4 s, past `solve.RELAX_AFTER`, until the walk's cut left the towns' weight out of its sum)
SLOWEST_1861 = {("167259.json", 698): 540, ("167259.json", 720): 540}
PARAMS = [pytest.param(title, key, id=f"{title}-{case_ids({key: None})[0]}")
          for title, cases in CASES.items() for key in cases]


@pytest.mark.parametrize("title, key", PARAMS)
def test_corpus_position(benchmark, title, key):
    positions = load_cases(title, CASES[title])
    if key not in positions:
        pytest.skip(f"{title} corpus not found")
    bench_case(benchmark, positions[key], CASES[title][key])


@pytest.mark.parametrize("key", list(HEAVY), ids=case_ids(HEAVY))
def test_heavy_18usa_proven(benchmark, key):
    """One round each (the model runs in a process of its own: CP-SAT's portfolio of 8 workers,
    whose time varies from run to run)."""
    from hexrail.io.g18xx import position_from_18xx

    positions = load_cases("18USA", HEAVY)
    if key not in positions:
        pytest.skip("18USA corpus not found")
    data = positions[key]
    pos = position_from_18xx(data)
    hexrail.solve(pos, time_limit=0.1)  # kernels and the track graph ready
    plan = benchmark.pedantic(hexrail.solve, args=(pos,), rounds=1, iterations=1)
    benchmark.extra_info.update({
        "total": plan.total, "model": plan.stats.get("model"), "timings": plan.timings,
        "auto_router_s": data["auto_router"]["time_s"]})
    assert plan.optimal and plan.total == HEAVY[key]


@pytest.mark.parametrize("limit", [1.0, 10.0])
@pytest.mark.parametrize("key", list(HEAVY), ids=case_ids(HEAVY))
def test_heavy_18usa_within_a_time_limit(benchmark, key, limit):
    """The time is the limit's; what counts is the plan's total against the best and the
    players' (`extra_info`)."""
    from hexrail.io.g18xx import position_from_18xx

    positions = load_cases("18USA", HEAVY)
    if key not in positions:
        pytest.skip("18USA corpus not found")
    hexrail.solve(hexrail.example_path("demo"))
    data = positions[key]
    pos = position_from_18xx(data)
    plan = benchmark.pedantic(hexrail.solve, args=(pos, limit), rounds=1, iterations=1)
    benchmark.extra_info.update({
        "total": plan.total, "best": HEAVY[key], "upper_bound": plan.upper_bound,
        "players": data["submitted"]["revenue"], "timings": plan.timings})
    assert plan.total <= HEAVY[key] <= plan.upper_bound


@pytest.mark.parametrize("key", list(SLOWEST_1861), ids=case_ids(SLOWEST_1861))
def test_1861_8_trains(benchmark, key):
    positions = load_cases("1861", SLOWEST_1861)
    if key not in positions:
        pytest.skip("1861 corpus not found")
    bench_case(benchmark, positions[key], SLOWEST_1861[key])
