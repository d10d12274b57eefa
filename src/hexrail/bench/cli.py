"""``hexrail bench``: run route algorithms on positions and compare them.

Imports of the solver, the cluster engine and matplotlib happen inside `run`, so the CLI starts
fast.
"""

from __future__ import annotations

import argparse
import json
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("positions", nargs="+",
                        help="position files: native position JSON or 18xx.games JSON lines")
    parser.add_argument("--algorithm", "-a", action="append", dest="algorithms", metavar="SPEC",
                        help="exact, cpsat, greedy, oracle, path.py:func, module:func or "
                             "'cmd:COMMAND' (repeatable; default: exact and greedy)")
    parser.add_argument("--time-limit", type=float, default=None, help="seconds per position")
    parser.add_argument("--workers", type=int, default=1, help="local processes (default 1: here)")
    parser.add_argument("--cluster", metavar="ADDRESS",
                        help="run on this Dask distributed scheduler (tcp://host:port; needs the "
                             "'cluster' extra)")
    parser.add_argument("--memory", choices=("rss", "tracemalloc"), default="rss",
                        help="memory peak: the worker's peak RSS (default) or tracemalloc per "
                             "call (slows the timed call)")
    parser.add_argument("--json", metavar="FILE", help="write the full report as JSON")
    parser.add_argument("--plots", metavar="DIR",
                        help="write PNG and SVG plots into DIR (needs the 'plots' extra)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    """Run the bench; 0, or 1 when a plan was illegal or two algorithms proved different optima."""
    from hexrail.bench import bench

    algorithms = args.algorithms or ["exact", "greedy"]
    doc = bench(args.positions, algorithms, time_limit=args.time_limit, workers=args.workers,
                cluster=args.cluster, memory=args.memory, plots=args.plots,
                progress=not (args.no_progress or getattr(args, "quiet", 0)))
    from hexrail.bench.report import format_table

    print(format_table(doc["summary"]))
    for c in doc["conflicts"]:
        print(f"conflict: {doc['positions'][c['case']]['source']}: proven optima differ: {c['values']}")
    illegal = [r for r in doc["runs"] if r.get("status") == "illegal"]
    for r in illegal[:20]:
        print(f"illegal: {r['algorithm']} on {r['source']}: {r['error']}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as stream:
            json.dump(doc, stream, indent=1)
    if args.plots:
        print(f"plots written to {args.plots}", file=sys.stderr)
    return 1 if doc["conflicts"] or illegal else 0
