"""The ``hexrail`` command line: solve, validate, demo, and the 18xx.games interop commands.

Errors in the input are printed as one line naming the field at fault, never as a traceback;
the exit status is 2 for bad input (and for a missing optional dependency) and 1 for a plan that
breaks the rules. Results go to stdout; notes go to stderr through `logging` (``-v`` for more,
``-q`` for errors only). The solver and its numba kernels are imported inside the commands, so
``--help`` and ``--version`` answer at once.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import logging
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hexrail.compiled import first_run_notice
from hexrail.errors import HexrailError

log = logging.getLogger("hexrail")


def seconds(text: str) -> float:
    """An argparse type: a finite, non-negative number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: seconds must be a finite number, 0 or more")
    return value


def processes(text: str) -> int:
    """An argparse type: a number of worker processes, 1 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of processes") from None
    if not 1 <= value <= 256:
        raise argparse.ArgumentTypeError(f"{text!r}: processes must be 1 to 256")
    return value


def require(module: str, extra: str) -> None:
    """Fail with a one-line error naming the extra to install when `module` is not importable.

    Checked before a command does any work, so a missing dependency does not surface after a
    long run (``--plots`` draws at the end).
    """
    if importlib.util.find_spec(module) is None:
        raise HexrailError(f'{module} is not installed; it comes with the {extra!r} extra: '
                           f'pip install "hexrail[{extra}]"')


def _wants_png(args: argparse.Namespace) -> bool:
    return args.format == "png" or str(args.output or "").lower().endswith(".png")


# (command, when it applies, module, extra): the optional dependencies of pyproject.toml
EXTRAS: tuple[tuple[str, Callable[[argparse.Namespace], Any], str, str], ...] = (
    ("serve", lambda args: True, "fastapi", "serve"),
    ("serve", lambda args: True, "uvicorn", "serve"),
    ("serve", lambda args: True, "pebble", "serve"),
    ("web", lambda args: True, "fastapi", "serve"),
    ("web", lambda args: True, "uvicorn", "serve"),
    ("web", lambda args: True, "pebble", "serve"),
    ("bench", lambda args: args.plots, "matplotlib", "plots"),
    ("bench", lambda args: args.cluster, "distributed", "cluster"),
    ("render", _wants_png, "cairosvg", "render"),
)


def require_extras(args: argparse.Namespace) -> None:
    for command, applies, module, extra in EXTRAS:
        if args.command == command and applies(args):
            require(module, extra)


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
    first_run_notice()
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
        return _solve_18xx(args)
    if args.source == "18xx-game":
        return _solve_18xx_game(args)
    if args.workers > 1:
        raise HexrailError("--workers goes with --from 18xx (a file of many positions)")
    if args.engine or args.action is not None or args.all_runs:
        raise HexrailError("--engine, --action and --all go with --from 18xx-game")
    from hexrail.io.native import load_position
    from hexrail.solve import solve

    pos = load_position(args.position)
    first_run_notice()
    plan = solve(pos, time_limit=args.time_limit, objective=args.objective, choices=args.choices)
    fmt = _format(args)
    _print_plan(plan, fmt)
    # an 18xx.games export of a title without a profile of its own: say so where a person looks
    if pos.meta.get("rules_covered") is False:
        log.warning(pos.meta["rules_note"])
        if fmt == "table":
            print(f"rules: {pos.meta['rules_note']}")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from hexrail.io.native import read_json
    from hexrail.validate import check_plan

    # the document itself, not a parsed Plan: the validator compares the totals it claims
    report = check_plan(args.position, read_json(Path(args.plan), "plan"), objective=args.objective)
    if _format(args) == "json":
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(report.table())
    return 0 if report.legal else 1


# -- streams over 18xx.games positions: one output line per input line, in input order ----------


class _RulesNotes:
    """Warn once per title solved under the generic rules because it has no profile of its own."""

    def __init__(self, verb: str):
        self.verb = verb
        self.seen: set[str] = set()

    def __call__(self, record: dict) -> bool:
        """True when the record's title is not covered (and warn the first time)."""
        if record.get("rules_covered") is not False:
            return False
        title = str(record.get("title"))
        if title not in self.seen:
            self.seen.add(title)
            log.warning(f"{title} has no rules profile; its own rules may differ: {self.verb} under "
                        f"the generic rules (first at line {record['line']})")
        return True


def _cell(value: Any) -> str:
    return "" if value is None else str(value)


def _solve_18xx(args: argparse.Namespace) -> int:
    """``solve --from 18xx``: the JSON lines of `solve_record`, or a table row per position.

    Every result line has the same keys; the one-off warm-up (loading the compiled kernels, not
    counted in any line's ``seconds``) is logged to stderr with ``-v``.
    """
    from hexrail.io.g18xx.streams import solve_records
    from hexrail.plan import choices_text

    fmt = _format(args)
    notes = _RulesNotes("solved")
    status = 0
    fallback = False
    head = (f"{'line':>5}  {'title':<8} {'fixture':<28} {'action':>6}  {'company':<8} {'income':>9}  "
            f"{'proof':<10} {'vs best':>7}  {'seconds':>8}  rules")

    def row(record: dict) -> str:
        nonlocal fallback
        uncovered = notes(record)
        fallback |= uncovered
        income = str(record["revenue"]) + (f"+{record['subsidy']}" if record["subsidy"] else "")
        proof = "optimal" if record["optimal"] else f"<= {record['upper_bound']}"
        rules = "generic (fallback)" if uncovered else record["profile"]
        if record.get("choices"):
            rules += f"  choices: {choices_text(record['choices'])}"
        return (f"{record['line']:>5}  {_cell(record['title']):<8} {_cell(record['fixture']):<28} "
                f"{_cell(record['action_index']):>6}  {_cell(record['entity']):<8} {income:>9}  "
                f"{proof:<10} {_cell(record['vs_best_recorded']) or '-':>7}  "
                f"{record['seconds']:>8.3f}  {rules}")

    records = solve_records(args.position, time_limit=args.time_limit, objective=args.objective,
                            workers=args.workers, choices=args.choices)
    status = _print_records(records, fmt, head, row)
    if fmt == "table" and fallback:
        print("generic (fallback): the title has no rules profile of its own; solved under the "
              "generic rules, which may differ from its own")
    return status


def _solve_18xx_game(args: argparse.Namespace) -> int:
    """``solve --from 18xx-game``: replay the game with the engine, solve the company about to
    run (or each position asked for) and compare with what the players ran.

    JSON: the lines of ``solve --from 18xx``. Table: the plan, then the players' figures.
    """
    from hexrail.bridge import export
    from hexrail.io.g18xx import recorded_figures, solve_record, warm_up

    fmt = _format(args)
    warmed = False
    for k, data in enumerate(export(args.position, engine=args.engine, action=args.action,
                                    all_runs=args.all_runs)):
        if not warmed:
            warmed = True
            first_run_notice()
            log.info(f"warm-up: loaded the compiled solver in {warm_up():.2f} s")
        record = solve_record(data, time_limit=args.time_limit, objective=args.objective,
                              choices=args.choices)
        if "error" in record:
            raise HexrailError(record["error"], where=f"action {data.get('action_index')}")
        if fmt == "json":
            print(json.dumps(record), flush=True)
            continue
        if k:
            print()
        print(_game_position_table(data, record, recorded_figures(data)), flush=True)
    return 0


def _game_position_table(data: dict, record: dict, figures: dict) -> str:
    """One solved position of a game as a person reads it: where, the routes, and the players'."""
    from hexrail.plan import choices_text

    income = record["total"] if record["objective"] == "income" else record["revenue"]
    proof = "optimal" if record["optimal"] else f"best found, at most {record['upper_bound']}"
    lines = [f"{data.get('title')} {data.get('fixture')}, action {data.get('action_index')}: "
             f"{record['entity']} runs ({data.get('round')} {data.get('turn')}."
             f"{data.get('round_num')}, phase {(data.get('phase') or {}).get('name')})",
             f"{'train':<8} {'stops':<56} {'revenue':>7}", "-" * 73]
    for r in record["routes"]:
        stops = " ".join(r.get("stops") or ())
        lines.append(f"{r['train']:<8} {stops:<56} {r['revenue']:>7}")
    subsidy = f" + {record['subsidy']} subsidy" if record["subsidy"] else ""
    lines.append(f"hexrail: {record['revenue']}{subsidy} ({proof}, {record['seconds']:.3f} s)")
    if record.get("choices") is not None:
        lines.append(f"choices: {choices_text(record['choices'])}")
    sub = data.get("submitted") or {}
    if sub.get("routes"):
        ran = figures["submitted_revenue"]
        if ran is None:
            lines.append(f"players: the engine refuses their routes ({sub.get('error')})")
        else:
            ran += figures["submitted_subsidy"] or 0
            lines.append(f"players ran {ran}: hexrail {'+' if income >= ran else ''}{income - ran}")
    if record["rules_covered"] is False:
        lines.append(f"rules: {record['rules_note']}")
    return "\n".join(lines)


def cmd_score(args: argparse.Namespace) -> int:
    """``score``: 0 when we agree with 18xx.games on every position whose rules we cover, 1
    otherwise, 2 when a line could not be read."""
    from hexrail.io.g18xx import score_stream

    return score_stream(args.positions, sys.stdout, fmt=_format(args), seen=_RulesNotes("scored"))


def _print_records(records, fmt: str, head: str, row) -> int:
    """Each record as a JSON line, or as a table `row` under `head`; 2 when a line could not
    be read, else 0."""
    status = 0
    for k, record in enumerate(records):
        if fmt == "table" and k == 0:
            print(f"{head}\n{'-' * len(head)}")
        if "error" in record:
            status = 2
            line = f"{record['line']:>5}  error: {record['error']}"
        else:
            line = row(record)
        print(line if fmt == "table" else json.dumps(record), flush=True)
    return status


def cmd_corpus(args: argparse.Namespace) -> int:
    from hexrail.corpus import run_corpus

    return run_corpus(args.files, sys.stdout, time_limit=args.time_limit, workers=args.workers,
                      progress=not (args.no_progress or args.quiet), json_out=args.json)


class _Parser(argparse.ArgumentParser):
    """Usage errors in one line, as input errors are (the usage is one ``--help`` away)."""

    def error(self, message: str) -> Any:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class _Version(argparse.Action):
    """``--version``: the installed version, looked up only when asked (the lookup reads the
    package metadata, 30 ms that every other command would pay)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        import hexrail

        print(f"hexrail {hexrail.__version__}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="hexrail", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action=_Version)
    # -v/-q before or after the command: the command's copies must not reset the counts given
    # before it, hence SUPPRESS there
    for target, default in ((parser, 0), (common := _Parser(add_help=False),
                                          argparse.SUPPRESS)):
        target.add_argument("-v", "--verbose", action="count", default=default,
                            help="more notes on stderr (the solver's warm-up time)")
        target.add_argument("-q", "--quiet", action="count", default=default,
                            help="errors only on stderr: no warnings, no progress bar")
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name: str, **kwargs: Any) -> argparse.ArgumentParser:
        return sub.add_parser(name, parents=[common], **kwargs)

    p = add("demo", help="solve a bundled example position and print the plan")
    p.add_argument("example", nargs="?", default="demo", help="example name (default: demo)")
    p.add_argument("--format", choices=("table", "json"))
    p.add_argument("--time-limit", type=seconds, default=None, help="seconds")
    p.set_defaults(func=cmd_demo)

    p = add("solve", help="the best plan for a position")
    p.add_argument("position", help="position file (native JSON, or 18xx.games JSON lines with --from 18xx)")
    p.add_argument("--from", dest="source", choices=("native", "18xx", "18xx-game"), default="native",
                   help="input format (18xx: schema 18xx-route-position/1, one per line; "
                        "18xx-game: an 18xx.games game's data, replayed with the engine)")
    p.add_argument("--format", choices=("table", "json"),
                   help="output format (default: table on a terminal, else json)")
    p.add_argument("--time-limit", type=seconds, default=None, help="seconds per position")
    p.add_argument("--objective", choices=("income", "revenue"), default="income",
                   help="maximise revenue + subsidy (income, default) or revenue alone")
    p.add_argument("--workers", type=processes, default=1,
                   help="with --from 18xx: processes to solve in (default 1); lines stay in order")
    p.add_argument("--choices", action="store_true",
                   help="also weigh what the company may still decide before it runs (1846's "
                        "steamboat hex, 18USA's upgrades left unattached); the plan says which")
    from hexrail.bridge.cli import add_game_arguments

    add_game_arguments(p)  # for --from 18xx-game
    p.set_defaults(func=cmd_solve)

    p = add("validate", help="check a plan's routes and print their revenue")
    p.add_argument("position")
    p.add_argument("plan")
    p.add_argument("--format", choices=("table", "json"))
    p.add_argument("--objective", choices=("income", "revenue"), default="income")
    p.set_defaults(func=cmd_validate)

    p = add("score", help="re-score the routes stored in 18xx.games positions")
    p.add_argument("--from", dest="source", choices=("18xx",), default="18xx")
    p.add_argument("positions")
    p.add_argument("--format", choices=("table", "json"))
    p.set_defaults(func=cmd_score)

    p = add("corpus", help="summary per title over 18xx.games position files")
    p.add_argument("files", nargs="+")
    p.add_argument("--time-limit", type=seconds, default=None, help="seconds per position")
    p.add_argument("--workers", type=processes, default=1, help="processes (default 1)")
    p.add_argument("--json", help="also write every per-position result to this JSON-lines file")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_corpus)
    # Commands that live in their own modules: each exposes add_arguments(parser) and
    # run(args) -> int, and imports its heavier dependencies only inside run().
    for name, module, text in (
        ("render", "hexrail.render.cli", "draw a position (and a plan) as SVG or PNG"),
        ("serve", "hexrail.server.cli", "run the HTTP service"),
        ("web", "hexrail.server.browser", "run the HTTP service and open its route calculator page"),
        ("bench", "hexrail.bench.cli", "compare route algorithms on positions"),
        ("import", "hexrail.bridge.cli", "positions of an 18xx.games game, replayed with its engine"),
    ):
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as err:
            if err.name is None or not err.name.startswith(module.rsplit(".", 1)[0]):
                raise
            continue  # not part of this installation
        p = add(name, help=text)
        mod.add_arguments(p)
        for action in p._actions:  # one rule for every --time-limit, wherever it is declared
            if action.dest == "time_limit":
                action.type = seconds
        p.set_defaults(func=mod.run)
    return parser


class _Notes(logging.Formatter):
    """``hexrail: warning: ...`` for warnings and errors, ``hexrail: ...`` for the rest."""

    def format(self, record: logging.LogRecord) -> str:
        if record.levelno >= logging.WARNING:
            return f"hexrail: {record.levelname.lower()}: {record.getMessage()}"
        return f"hexrail: {record.getMessage()}"


def _setup_logging(verbose: int, quiet: int) -> None:
    """Notes go to stderr: warnings by default, info with -v, debug with -vv, errors with -q."""
    for handler in [h for h in log.handlers if isinstance(h.formatter, _Notes)]:
        log.removeHandler(handler)  # main() may run again in one process, on another stderr
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_Notes())
    log.addHandler(handler)
    log.propagate = False
    log.setLevel(min(max(logging.WARNING + 10 * (quiet - verbose), logging.DEBUG), logging.CRITICAL))


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    _setup_logging(args.verbose, args.quiet)
    try:
        require_extras(args)
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
