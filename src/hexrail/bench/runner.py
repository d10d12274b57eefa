"""Run algorithms on positions: one *unit* is one algorithm on one position, in a worker.

`run_unit` converts the position, calls the algorithm under a wall clock, measures memory, and
checks the plan with the validator (conversion and checking are outside the timed region). It
never raises: a failure is a record with ``status`` ``error``, ``too big`` or ``illegal``.

Units run in this process (`run_local` with ``workers <= 1``), on a local process pool
(``workers > 1``, spawned processes, the corpus command's progress bar), or on an existing Dask
distributed scheduler (`run_dask`). Each worker process remembers which algorithms it has
already called on which rules profile, so the first call of each algorithm on each profile in
a fresh worker is marked ``first`` and reported as a cold start: a profile may load kernels of
its own (1862's pay-once search), which no warm time should include.
"""

from __future__ import annotations

import os
import resource
import time
import tracemalloc
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hexrail.errors import HexrailError

if TYPE_CHECKING:
    from hexrail.corpus import Progress

MEMORY_MODES = ("rss", "tracemalloc")


@dataclass(frozen=True)
class Case:
    """One position to bench: where it came from, its format and its parsed document."""

    index: int
    source: str  # "file:line"
    kind: str  # "native" or "18xx"
    data: Any


@dataclass(frozen=True)
class Unit:
    """One algorithm (a spec string) on one case, with the run's settings."""

    case: Case
    algorithm: str
    time_limit: float | None = None
    memory: str = "rss"


def read_cases(files: Iterable[str | Path]) -> list[Case]:
    """Every position of the files: native position documents or 18xx.games JSON lines."""
    from hexrail.io.g18xx import SCHEMA, read_positions

    cases: list[Case] = []
    for name in files:
        for number, data in read_positions(name):
            if isinstance(data, HexrailError):
                raise HexrailError(str(data), where=f"{name}:{number}")
            kind = "18xx" if isinstance(data, dict) and data.get("schema") == SCHEMA else "native"
            cases.append(Case(len(cases), f"{name}:{number}", kind, data))
    if not cases:
        raise HexrailError("no positions found", where=", ".join(map(str, files)) or "files")
    return cases


def load_case(case: Case):
    """The case's `Position` (18xx.games exports are converted)."""
    if case.kind == "18xx":
        from hexrail.io.g18xx import position_from_18xx

        return position_from_18xx(case.data)
    from hexrail.io.native import load_position

    return load_position(case.data)


def describe_case(case: Case) -> dict:
    """Identity and size of a case, and what 18xx.games recorded for it (for the JSON report)."""
    out: dict[str, Any] = {"index": case.index, "source": case.source, "kind": case.kind}
    if case.kind == "18xx":
        from hexrail.io.g18xx import best_recorded, recorded_figures

        for key in ("title", "fixture", "action_index"):
            out[key] = case.data.get(key)
        figures = recorded_figures(case.data)
        out["best_recorded"] = best_recorded(figures)
        out["auto_router_time_s"] = figures.get("auto_router_time_s")
    return out


_CALLED: set[tuple[str, str]] = set()  # (algorithm, profile) this worker process has run


def run_unit(unit: Unit) -> dict:
    """Run one unit and check its plan: a flat result record (never raises)."""
    from hexrail.bench.algorithms import TooBig, as_plan, board_size, load_algorithm, parse_spec

    record: dict[str, Any] = {"case": unit.case.index, "source": unit.case.source,
                              "algorithm": unit.algorithm, "pid": os.getpid()}
    try:
        pos = load_case(unit.case)
    except Exception as err:  # noqa: BLE001 - an unreadable position is a result, not a crash
        return {**record, "status": "error", "error": f"cannot read position: {err}"}
    record["hexes"] = board_size(pos)
    record["trains"] = len(pos.trains)
    record["train_names"] = [t.name for t in pos.trains]
    first = (unit.algorithm, pos.rules.profile) not in _CALLED
    _CALLED.add((unit.algorithm, pos.rules.profile))
    record["first"] = first
    external = parse_spec(unit.algorithm)[0] == "cmd"
    trace = unit.memory == "tracemalloc" and not external
    try:
        solver = load_algorithm(unit.algorithm)
        if trace:
            tracemalloc.start()
        start = time.perf_counter()
        try:
            result = solver(pos, unit.time_limit)
        finally:
            record["seconds"] = time.perf_counter() - start
            if trace:
                record["memory_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
                tracemalloc.stop()
        plan = as_plan(result)
    except TooBig as err:
        return {**record, "status": "too big", "error": str(err)}
    except Exception as err:  # noqa: BLE001 - a plugin's failure is a result, not a crash
        return {**record, "status": "error", "error": f"{type(err).__name__}: {err}"}
    if not trace:
        who = resource.RUSAGE_CHILDREN if external else resource.RUSAGE_SELF
        record["memory_mb"] = resource.getrusage(who).ru_maxrss / 1024  # KiB on Linux
    record.update(claimed=plan.total, optimal=bool(plan.optimal), upper_bound=plan.upper_bound,
                  routes=[r.to_json() for r in plan.routes])
    try:
        from hexrail.validate import check_plan

        report = check_plan(pos, plan)
    except Exception as err:  # noqa: BLE001 - a validator failure must not lose the run
        return {**record, "status": "error", "error": f"validator failed: {type(err).__name__}: {err}"}
    record["value"] = report.total
    if not report.legal:
        problems = list(report.errors) + [e for r in report.routes for e in r.errors]
        return {**record, "status": "illegal", "error": "; ".join(problems[:3])}
    if report.total != plan.total:
        return {**record, "status": "illegal",
                "error": f"claims {plan.total}, the validator recomputes {report.total}"}
    record["status"] = "ok"
    return record


def _warm_imports() -> None:
    """Worker initializer: import the library (not the kernels), so imports are not timed."""
    import hexrail.bench.algorithms
    import hexrail.solve
    import hexrail.validate  # noqa: F401


def units_for(cases: list[Case], algorithms: list[str], time_limit: float | None,
              memory: str = "rss") -> list[Unit]:
    """Position-major order: every algorithm of a position before the next position."""
    return [Unit(c, a, time_limit, memory) for c in cases for a in algorithms]


def run_local(units: list[Unit], *, workers: int = 1, progress: bool = True) -> list[dict]:
    """Run the units here (``workers <= 1``) or on a spawned process pool; results in unit order."""
    from hexrail.corpus import Progress

    results: list[dict | None] = [None] * len(units)
    with Progress(len(units), label="bench", unit="run", enabled=progress) as bar:
        if workers <= 1:
            _warm_imports()
            for k, unit in enumerate(units):
                results[k] = run_unit(unit)
                bar.update()
        else:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor, as_completed

            ctx = multiprocessing.get_context("spawn")  # no inherited solver threads
            with ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                                     initializer=_warm_imports) as pool:
                futures = [pool.submit(run_unit, unit) for unit in units]
                _collect(futures, as_completed(futures), units, results, bar)
    return [r for r in results if r is not None]


def run_dask(units: list[Unit], address: str, *, progress: bool = True) -> list[dict]:
    """Run the units on the Dask distributed scheduler at `address`; results in unit order.

    Each unit is one task (``pure=False``: every run is measured). Workers need hexrail
    installed; plugin files must be readable at the same absolute path on every worker.
    """
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise HexrailError("the cluster engine is not installed: pip install 'hexrail[cluster]'",
                           where="--cluster") from None
    from hexrail.corpus import Progress

    results: list[dict | None] = [None] * len(units)
    try:
        client = Client(address, timeout="10s")
    except OSError as err:
        raise HexrailError(f"cannot reach the scheduler: {err}", where=address) from None
    with client, Progress(len(units), label="bench", unit="run", enabled=progress) as bar:
        futures = client.map(run_unit, units, pure=False)
        _collect(futures, as_completed(futures), units, results, bar)
    return [r for r in results if r is not None]


def _collect(futures: list, finished, units: list[Unit], results: list, bar: Progress) -> None:
    """Store each unit's result (or its worker's failure) as its future finishes."""
    def key(f):  # Dask futures are known by their task key, local ones by themselves
        return getattr(f, "key", None) or id(f)

    index = {key(f): k for k, f in enumerate(futures)}
    for future in finished:
        k = index[key(future)]
        results[k] = _result_or_failure(future, units[k])
        bar.update()


def _result_or_failure(future, unit: Unit) -> dict:
    try:
        return future.result()
    except Exception as err:  # noqa: BLE001 - a crashed worker: report it on its unit
        return {"case": unit.case.index, "source": unit.case.source, "algorithm": unit.algorithm,
                "status": "error", "error": f"worker failed: {type(err).__name__}: {err}"}

