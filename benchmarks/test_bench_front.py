"""The front end, stage by stage, on real positions (../shared/corpus, read at run time): reading
an 18xx.games line, parsed and as text (cold, and with its hexes seen before), compiling the
track (the kernel and its slow Python twin), and a whole read + solve (parsed, and from the
text); then the batch API's throughput over the 1830/1889 positions in one and two processes.
The smallest and largest board of each title."""

from __future__ import annotations

import json
import time

import pytest
from corpus_cases import CORPUS

import hexrail
from hexrail.batch import solve_many
from hexrail.graph.track import compile_track, compile_track_twin
from hexrail.io.g18xx import position_from_18xx
from hexrail.io.g18xx import reader
from hexrail.io.native import load_position

TITLES = ["generic", "1817", "1822", "1846", "1856", "1860", "1861", "1862", "1867", "1870", "1882",
          "18SJ", "18USA"]


def _lines(title: str) -> list[str]:
    path = CORPUS / f"{title}.jsonl"
    if not path.exists():
        pytest.skip(f"no {path}: the shared corpus is not on this machine")
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _ends(title: str) -> dict[str, dict]:
    """The title's smallest and largest board (by paths)."""
    return {end: json.loads(line) for end, line in _end_lines(title).items()}


def _end_lines(title: str) -> dict[str, str]:
    """The lines of the title's smallest and largest board (by paths)."""
    lines = _lines(title)
    size = [sum(len(h.get("paths") or ()) for h in json.loads(line)["hexes"]) for line in lines]
    return {"small": lines[size.index(min(size))], "large": lines[size.index(max(size))]}


CASES = [(t, e) for t in TITLES for e in ("small", "large")]
IDS = [f"{t}-{e}" for t, e in CASES]


@pytest.fixture(scope="module", autouse=True)
def warm():
    hexrail.solve(hexrail.example_path("demo"))


@pytest.mark.parametrize("title, end", CASES, ids=IDS)
def test_read_cold(benchmark, title, end):
    data = _ends(title)[end]
    benchmark.pedantic(position_from_18xx, args=(data,), setup=reader._HEXES.clear, rounds=20)


@pytest.mark.parametrize("title, end", CASES, ids=IDS)
def test_read_seen(benchmark, title, end):
    data = _ends(title)[end]
    benchmark(position_from_18xx, data)


@pytest.mark.parametrize("title, end", CASES, ids=IDS)
def test_read_text_cold(benchmark, title, end):
    """The line's text, its hexes read apart (`load_position`), none read before."""
    line = _end_lines(title)[end]
    benchmark.pedantic(load_position, args=(line,), setup=reader._HEXES.clear, rounds=20)


@pytest.mark.parametrize("title, end", CASES, ids=IDS)
def test_read_text_seen(benchmark, title, end):
    """... its hexes read before (as a game's next position mostly has them)."""
    line = _end_lines(title)[end]
    benchmark(load_position, line)


@pytest.mark.parametrize("title, end", CASES, ids=IDS)
@pytest.mark.parametrize("twin", [False, True], ids=["kernel", "twin"])
def test_compile_track(benchmark, title, end, twin):
    pos = position_from_18xx(_ends(title)[end])
    build = compile_track_twin if twin else compile_track
    graph = benchmark(build, pos, "broad", 1)
    benchmark.extra_info.update(paths=graph.n_paths, chains=graph.n_chains)


@pytest.mark.parametrize("title, end", CASES, ids=IDS)
def test_read_and_solve(benchmark, title, end):
    data = _ends(title)[end]
    hexrail.solve(position_from_18xx(data))
    plan = benchmark.pedantic(lambda: hexrail.solve(position_from_18xx(data)), rounds=5,
                              iterations=1)
    benchmark.extra_info.update(total=plan.total, auto_router_s=data["auto_router"]["time_s"])
    assert plan.optimal


@pytest.mark.parametrize("title, end", CASES, ids=IDS)
def test_read_text_and_solve(benchmark, title, end):
    """The line's text read and solved: what a caller of `hexrail.solve` meets."""
    line = _end_lines(title)[end]
    hexrail.solve(line)
    plan = benchmark.pedantic(lambda: hexrail.solve(line), rounds=5, iterations=1)
    assert plan.optimal


@pytest.mark.parametrize("workers", [1, 2])
def test_solve_many_throughput(benchmark, workers):
    """Positions per second over the 1830/1889 lines, eight times over (worker start-up
    included: a worker's first chunk loads the kernels)."""
    lines = _lines("generic") * 8

    def run() -> float:
        start = time.perf_counter()
        plans = list(solve_many(lines, workers=workers))
        assert all(p.optimal for p in plans)
        return len(plans) / (time.perf_counter() - start)

    rate = benchmark.pedantic(run, rounds=2, iterations=1)
    benchmark.extra_info.update(positions=len(lines), per_second=round(rate))
