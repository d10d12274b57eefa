"""Shared by the per-title benchmarks: chosen real positions from ../shared/corpus, read at run
time (``$HEXRAIL_CORPUS`` overrides the folder), benchmarked warm with their optimum asserted."""

from __future__ import annotations

import json
import os
from pathlib import Path

import hexrail

CORPUS = Path(os.environ.get("HEXRAIL_CORPUS") or Path(__file__).resolve().parents[2] / "shared" / "corpus")


def load_cases(title: str, cases: dict) -> dict:
    """The positions of `cases` ((fixture, action index) → expected total) found in the title's
    corpus file; empty when the corpus is absent."""
    path = CORPUS / f"{title}.jsonl"
    if not path.exists():
        return {}
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        data = json.loads(line)
        key = (data["fixture"], data["action_index"])
        if key in cases:
            out[key] = data
    return out


def case_ids(cases: dict) -> list[str]:
    return [f"{f.removesuffix('.json')}-{a}" for f, a in cases]


def bench_case(benchmark, data: dict, expected: int | None) -> None:
    """Solve warm (kernels and the track graph ready), three rounds; the plan must be proven
    optimal at the expected total; candidate counts, stage timings and the auto-router's own
    time are recorded."""
    from hexrail.io.g18xx import position_from_18xx

    hexrail.solve(hexrail.example_path("demo"))
    pos = position_from_18xx(data)
    hexrail.solve(pos)  # compile and cache the track graph outside the timed region
    plan = benchmark.pedantic(hexrail.solve, args=(pos,), rounds=3, iterations=1)
    benchmark.extra_info.update({
        "total": plan.total, "optimal": plan.optimal, "candidates": plan.stats["candidates"],
        "combine_nodes": plan.stats["combine_nodes"], "timings": plan.timings,
        "auto_router_s": data["auto_router"]["time_s"],
    })
    assert plan.optimal
    if expected is not None:
        assert plan.total == expected
