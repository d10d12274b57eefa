"""Compare route algorithms on positions: ``hexrail bench``.

`bench` runs every algorithm (see `hexrail.bench.algorithms` for the specs: built-ins, Python
callables and external commands) on every position of the given files, checks every plan with
the validator, and returns a report document: per algorithm solved, proven optimal, gap to the
best known value, warm time percentiles, cold start and memory peak (`hexrail.bench.report`),
and optionally plots (`hexrail.bench.plots`). Units run in this process, on a local process pool
(``workers``) or on a Dask distributed scheduler (``cluster``), see `hexrail.bench.runner`.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # at run time `__getattr__` loads these: ``hexrail --help`` needs none of them
    from hexrail.bench.algorithms import BUILTINS, load_algorithm, parse_spec
    from hexrail.bench.runner import Case, Unit, read_cases, run_unit

_SOURCES = {"BUILTINS": "algorithms", "load_algorithm": "algorithms", "parse_spec": "algorithms",
            "Case": "runner", "Unit": "runner", "read_cases": "runner", "run_unit": "runner"}


def __getattr__(name: str) -> Any:
    if name not in _SOURCES:
        raise AttributeError(f"module 'hexrail.bench' has no attribute {name!r}")
    return getattr(importlib.import_module(f"hexrail.bench.{_SOURCES[name]}"), name)


def bench(files: list[str | Path], algorithms: list[str], *, time_limit: float | None = None,
          workers: int = 1, cluster: str | None = None, memory: str = "rss", progress: bool = False,
          plots: str | Path | None = None) -> dict:
    """Run every algorithm on every position of `files`; the JSON report document.

    Examples
    --------
    >>> from hexrail.examples import example_path
    >>> doc = bench([example_path("demo")], ["exact", "greedy"])
    >>> doc["summary"]["exact"]["optimal"], doc["summary"]["greedy"]["solved"]
    (1, 1)
    """
    from hexrail.bench.algorithms import load_algorithm, normalise_spec, parse_spec
    from hexrail.bench.report import summarise, to_document
    from hexrail.bench.runner import describe_case, read_cases, run_dask, run_local, units_for

    specs = [normalise_spec(a) for a in algorithms]
    for spec in specs:
        if parse_spec(spec)[0] == "callable":
            load_algorithm(spec)  # fail early, here, on a plugin that cannot load
    cases = read_cases(files)
    units = units_for(cases, specs, time_limit, memory)
    if cluster:
        results = run_dask(units, cluster, progress=progress)
    else:
        results = run_local(units, workers=workers, progress=progress)
    summary = summarise(results, specs)
    facts = [describe_case(c) for c in cases]
    for r in results:
        if "hexes" in r:
            facts[r["case"]].update(hexes=r["hexes"], trains=r["trains"])
    settings = {"files": [str(f) for f in files], "algorithms": specs, "time_limit": time_limit,
                "workers": workers, "cluster": cluster, "memory": memory}
    if plots:
        from hexrail.bench.plots import write_plots

        write_plots(results, specs, plots)
    return to_document(summary, results, facts, settings)


__all__ = ["BUILTINS", "Case", "Unit", "bench", "load_algorithm", "parse_spec", "read_cases", "run_unit"]
