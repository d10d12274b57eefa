"""Start-up and the other solvers' positions: ``hexrail --help`` as a whole process (it loads
no numba, numpy or renderer), ``hexrail solve`` as a whole process (the built kernels: no numba
either), the first solve ever where no module was built (numba compiles the kernels, into an
empty cache), and navig18xx's 1867 final round (../shared/bench, read at run time), each proven
at the optimum its README gives."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import hexrail

BENCH = Path(os.environ.get("HEXRAIL_BENCH") or Path(__file__).resolve().parents[2] / "shared" / "bench")
# navig18xx's example game, final round: the optimum per company (../shared/bench/README.md)
FINAL_ROUND = {"1867_bc_GW.json": 840, "1867_bc_CO.json": 900, "1867_bc_CNR.json": 1150}
# A process as an installed user starts it: pip writes every module's bytecode at install, so
# Python reads it rather than compiling the sources (about 0.1 s more per process). A shell
# that sets PYTHONDONTWRITEBYTECODE would time that compiling instead; the first untimed run
# writes the bytecode where the sources are.
USER_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def test_help_process(benchmark):
    cmd = [sys.executable, "-m", "hexrail", "--help"]
    subprocess.run(cmd, check=True, capture_output=True, env=USER_ENV)
    result = benchmark.pedantic(
        lambda: subprocess.run(cmd, check=True, capture_output=True, env=USER_ENV),
        rounds=5, iterations=1)
    assert b"usage: hexrail" in result.stdout


def test_solve_process(benchmark):
    """What a user waits for: ``hexrail solve demo.json``, start to answer."""
    from hexrail.compiled import status

    if status() != "aot":
        pytest.skip("no built kernels here: the process would load numba")
    cmd = [sys.executable, "-m", "hexrail", "solve", str(hexrail.example_path("demo"))]
    subprocess.run(cmd, check=True, capture_output=True, env=USER_ENV)
    result = benchmark.pedantic(
        lambda: subprocess.run(cmd, check=True, capture_output=True, env=USER_ENV),
        rounds=10, iterations=1)
    assert b'"revenue": 480' in result.stdout


@pytest.mark.parametrize("name", ["demo", "1862"])
def test_first_solve_compiling(benchmark, tmp_path, name):
    """Without the built module (an install with no C compiler) the first solve compiles the
    kernels it needs with numba, into an empty cache."""
    cmd = [sys.executable, "-m", "hexrail", "-q", "solve", str(hexrail.example_path(name))]
    count = iter(range(100))

    def run() -> subprocess.CompletedProcess:
        env = {**os.environ, "HEXRAIL_KERNELS": "jit", "NUMBA_CACHE_DIR": str(tmp_path / str(next(count)))}
        return subprocess.run(cmd, check=True, capture_output=True, env=env)

    result = benchmark.pedantic(run, rounds=1, iterations=1)
    assert b'"optimal": true' in result.stdout


@pytest.mark.parametrize("name", sorted(FINAL_ROUND))
def test_1867_final_round(benchmark, name):
    path = BENCH / name
    if not path.exists():
        pytest.skip(f"no {path}: the shared benchmark positions are not on this machine")
    pos = hexrail.load_position(path)
    hexrail.solve(pos)  # compile and load the kernels outside the timing
    plan = benchmark(hexrail.solve, pos)
    benchmark.extra_info["timings"] = plan.timings
    assert plan.optimal and plan.revenue == FINAL_ROUND[name]
