"""Scaling study: solve time against network size (hexes with track, 20 → 200) and against the
number of trains (1 → 6, a D train in every set), on synthetic dense boards (`boards.dense_board`).

Each point is the best of three warm solves, per board, over three seeds; the growth is fitted as a
log-log slope (time ∝ size^k) with numpy, and plotted (PNG and SVG) with the fit. The figures go to
pytest-benchmark's ``extra_info`` and, with the plots and a JSON file, to ``$HEXRAIL_SCALING_DIR``
(default ``.benchmarks/scaling`` at the repository root). The benchmark fixture times the largest
point, so ``pytest benchmarks/ --benchmark-only -n 0`` runs the study; it is not in the test suite.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import pytest
from boards import dense_board

import hexrail
from hexrail.bench.algorithms import board_size
from hexrail.io.native import load_position

SIZES = (20, 40, 60, 80, 100, 120, 160, 200)
SEEDS = (1, 3, 5)  # dense_board fails on some seeds past 100 hexes (region reaches the map edge)
TRAIN_LADDER = ("D", "6", "5", "4", "3", "2")  # k trains: the first k (a D train in every set)
SIZE_TRAINS = ("4", "6", "D")
TRAINS_BOARD = 120
REPEATS = 3  # warm solves per board, best kept; one only when a solve takes over a second
TIME_LIMIT = 30.0  # seconds per solve: a board past it is recorded as not proven, not fitted


def out_dir() -> Path:
    default = Path(__file__).parents[1] / ".benchmarks" / "scaling"
    path = Path(os.environ.get("HEXRAIL_SCALING_DIR", default))
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module", autouse=True)
def warm():
    hexrail.solve(hexrail.example_path("demo"))


def time_solve(pos) -> tuple[float, hexrail.Plan]:
    """Best of REPEATS warm solves (the first one also warms the track cache)."""
    best, plan = float("inf"), None
    for _ in range(REPEATS):
        start = time.perf_counter()
        plan = hexrail.solve(pos, TIME_LIMIT)
        best = min(best, time.perf_counter() - start)
        if best > 1.0:
            break
    return best, plan


def fit_slope(x: list[float], seconds: list[float]) -> tuple[float, float]:
    """``(slope, intercept)`` of log10(seconds) against log10(x): time ≈ 10^b · x^slope."""
    slope, intercept = np.polyfit(np.log10(np.asarray(x, float)), np.log10(np.asarray(seconds, float)), 1)
    return float(slope), float(intercept)


def study(points: list[tuple[int, dict]]) -> list[dict]:
    rows = []
    for x, board in points:
        pos = load_position(board)
        seconds, plan = time_solve(pos)
        rows.append({"x": x, "hexes": board_size(pos), "trains": len(pos.trains), "seconds": seconds,
                     "optimal": plan.optimal,
                     "revenue": plan.revenue, "candidates": sum(plan.stats["candidates"].values()),
                     "name": board["name"]})
    return rows


def plot(rows: list[dict], key: str, label: str, stem: str, fit: tuple[float, float]) -> None:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.2))
    xs = np.array([r[key] for r in rows], float)
    proven = [r for r in rows if r["optimal"]]
    cut = [r for r in rows if not r["optimal"]]
    ax.scatter([r[key] for r in proven], [r["seconds"] for r in proven], s=14, alpha=0.7,
               label="board, proven optimal")
    if cut:
        ax.scatter([r[key] for r in cut], [r["seconds"] for r in cut], marker="x", color="red",
                   label=f"not proven in {TIME_LIMIT:.0f}s (not fitted)")
    grid = np.linspace(xs.min(), xs.max(), 50)
    ax.plot(grid, 10 ** fit[1] * grid ** fit[0], "k--", label=f"fit: time ∝ {label}^{fit[0]:.2f}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(label)
    ax.set_ylabel("seconds (exact solve, warm)")
    ax.set_title(f"hexrail exact: time against {label}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(out_dir() / f"{stem}.{ext}", dpi=120)
    plt.close(fig)


def report(benchmark, rows: list[dict], key: str, label: str, stem: str) -> None:
    proven = [r for r in rows if r["optimal"]]
    fit = fit_slope([r[key] for r in proven], [r["seconds"] for r in proven])
    plot(rows, key, label, stem, fit)
    medians = {}
    for r in rows:
        medians.setdefault(r["x"], []).append(r["seconds"])
    summary = {"slope": fit[0], "intercept": fit[1], "points": rows,
               "not_proven": [r["name"] for r in rows if not r["optimal"]],
               "median_by_x": {str(x): float(np.median(v)) for x, v in sorted(medians.items())}}
    (out_dir() / f"{stem}.json").write_text(json.dumps(summary, indent=1))
    benchmark.extra_info.update({"slope": round(fit[0], 3), "not_proven": summary["not_proven"],
                                 "median_by_x": summary["median_by_x"]})


def test_time_against_board_size(benchmark):
    points = [(n, dense_board(n, seed=s, trains=SIZE_TRAINS)) for n in SIZES for s in SEEDS]
    rows = study(points)
    report(benchmark, rows, "hexes", "hexes with track", "scaling_board_size")
    k = max(i for i, r in enumerate(rows) if r["optimal"])  # the largest proven board
    plan = benchmark.pedantic(hexrail.solve, args=(load_position(points[k][1]),), rounds=3, iterations=1)
    assert plan.optimal and plan.revenue == rows[k]["revenue"]


def test_time_against_trains(benchmark):
    points = [(k, dense_board(TRAINS_BOARD, seed=s, trains=TRAIN_LADDER[:k]))
              for k in range(1, len(TRAIN_LADDER) + 1) for s in SEEDS]
    rows = study(points)
    report(benchmark, rows, "trains", "trains", "scaling_trains")
    k = max(i for i, r in enumerate(rows) if r["optimal"])
    plan = benchmark.pedantic(hexrail.solve, args=(load_position(points[k][1]),), rounds=3, iterations=1)
    assert plan.optimal and plan.revenue == rows[k]["revenue"]
