"""The ``hexrail`` command line: solve, validate, demo, and the 18xx.games interop commands.

Errors in the input are printed as one line naming the field at fault, never as a traceback;
the exit status is 2 for bad input and 1 for a plan that breaks the rules.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path
from typing import Any

from hexrail.errors import HexrailError


def _format(args: argparse.Namespace) -> str:
    if getattr(args, "format", None):
        return args.format
    return "table" if sys.stdout.isatty() else "json"


def _print_plan(plan: Any, fmt: str) -> None:
    if fmt == "json":
        print(plan.dumps())
    else:
        print(plan.table())


def cmd_demo(args: argparse.Namespace) -> int:
    from hexrail import example_path, load_position, solve

    path = example_path(args.example)
    pos = load_position(path)
    first = time.perf_counter()
    plan = solve(pos, time_limit=args.time_limit)
    first = time.perf_counter() - first
    # solve again: the first call also loads (or, on a fresh install, compiles) the engine
    plan = solve(pos, time_limit=args.time_limit)
    fmt = args.format or "table"
    if fmt == "json":
        print(plan.dumps())
        return 0
    name = pos.meta.get("name") or path.name
    print(f"{name}\n{len(pos.hexes)} hexes, company {pos.company}, trains "
          f"{', '.join(t.name for t in pos.trains)}\n")
    print(plan.table())
    print(f"\nsolved in {plan.timings.get('total', 0) * 1000:.1f} ms "
          f"({sum(plan.stats['candidates'].values())} candidate routes); the first solve in this "
          f"process took {first:.2f} s, loading the compiled engine (compiling it on a fresh install)")
    return 0


def cmd_solve(args: argparse.Namespace) -> int:
    if args.source == "18xx":
        from hexrail.io.g18xx import solve_stream

        return solve_stream(args.position, sys.stdout, time_limit=args.time_limit,
                            objective=args.objective)
    from hexrail import solve

    plan = solve(args.position, time_limit=args.time_limit, objective=args.objective)
    _print_plan(plan, _format(args))
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from hexrail.io.native import read_json
    from hexrail.plan import plan_from_json
    from hexrail.validate import check_plan

    plan = plan_from_json(read_json(Path(args.plan), "plan"))
    report = check_plan(args.position, plan, objective=args.objective)
    if _format(args) == "json":
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(report.table())
    return 0 if report.legal else 1


def cmd_score(args: argparse.Namespace) -> int:
    from hexrail.io.g18xx import score_stream

    return score_stream(args.positions, sys.stdout, fmt=_format(args))


def cmd_corpus(args: argparse.Namespace) -> int:
    from hexrail.corpus import run_corpus

    return run_corpus(args.files, sys.stdout, time_limit=args.time_limit, workers=args.workers,
                      progress=not args.no_progress, json_out=args.json)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hexrail", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("demo", help="solve a bundled example position and print the plan")
    p.add_argument("example", nargs="?", default="demo", help="example name (default: demo)")
    p.add_argument("--format", choices=("table", "json"))
    p.add_argument("--time-limit", type=float, default=None, help="seconds")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("solve", help="the best plan for a position")
    p.add_argument("position", help="position file (native JSON, or 18xx.games JSON lines with --from 18xx)")
    p.add_argument("--from", dest="source", choices=("native", "18xx"), default="native",
                   help="input format (18xx: schema 18xx-route-position/1, one per line)")
    p.add_argument("--format", choices=("table", "json"),
                   help="output format (default: table on a terminal, else json)")
    p.add_argument("--time-limit", type=float, default=None, help="seconds per position")
    p.add_argument("--objective", choices=("income", "revenue"), default="income",
                   help="maximise revenue + subsidy (income, default) or revenue alone")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("validate", help="check a plan's routes and print their revenue")
    p.add_argument("position")
    p.add_argument("plan")
    p.add_argument("--format", choices=("table", "json"))
    p.add_argument("--objective", choices=("income", "revenue"), default="income")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("score", help="re-score the routes stored in 18xx.games positions")
    p.add_argument("--from", dest="source", choices=("18xx",), default="18xx")
    p.add_argument("positions")
    p.add_argument("--format", choices=("table", "json"))
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("corpus", help="summary per title over 18xx.games position files")
    p.add_argument("files", nargs="+")
    p.add_argument("--time-limit", type=float, default=None, help="seconds per position")
    p.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    p.add_argument("--json", help="also write every per-position result to this JSON-lines file")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_corpus)
    # Commands that live in their own modules: each exposes add_arguments(parser) and
    # run(args) -> int, and imports its heavier dependencies only inside run().
    for name, module, text in (
        ("render", "hexrail.render.cli", "draw a position (and a plan) as SVG or PNG"),
        ("serve", "hexrail.server.cli", "run the HTTP service"),
        ("bench", "hexrail.bench.cli", "compare route algorithms on positions"),
    ):
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as err:
            if err.name is None or not err.name.startswith(module.rsplit(".", 1)[0]):
                raise
            continue  # not part of this installation
        p = sub.add_parser(name, help=text)
        mod.add_arguments(p)
        p.set_defaults(func=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except HexrailError as err:
        print(f"hexrail: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
