"""Solve a corpus of 18xx.games positions and compare with what 18xx.games recorded, per title.

`run_corpus` solves every position of the given JSON-lines files (schema
``18xx-route-position/1``), on a process pool when asked, checks the players' routes with our
validator, and prints one summary row per title: positions, solved, proven optimal, how our
income compares with the players' and with the 18xx.games auto-router's, how often the players'
routes score the same under our rules, and time percentiles (ours and the auto-router's recorded
times). Positions where we are lower than a recorded figure, or disagree with 18xx.games on the
players' routes, are listed below the table for titles whose rules we cover. Progress goes to
stderr (`Progress`): a tqdm bar on a terminal, one summary line elsewhere.

>>> percentile([0.1, 0.2, 0.3, 0.4], 50)
0.2
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from tqdm import tqdm

from hexrail.compiled import first_run_notice
from hexrail.errors import HexrailError
from hexrail.io.limits import loads
from hexrail.io.native import split_json

Task = tuple[str, int, str]  # file, line number, line text


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (`q` in 0-100) of `values`; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def iter_tasks(files: Iterable[str | Path]) -> Iterator[Task]:
    """Every non-blank line of every file, with its file name and line number."""
    for name in files:
        try:
            with open(name, encoding="utf-8") as stream:
                for number, line in enumerate(stream, 1):
                    if line.strip():
                        yield str(name), number, line
        except OSError as err:
            raise HexrailError(f"cannot read file: {err.strerror}", where=str(name)) from None


def solve_task(task: Task, time_limit: float | None = None, objective: str = "income") -> dict:
    """Solve one corpus line and check its players' routes: one result record (never raises)."""
    from hexrail.io.g18xx import position_from_18xx, score_routes, solve_record

    name, number, text = task
    # (an 18xx.games position's hexes read apart: each looked up among those read before)
    data, apart = split_json(text, "hexes", f"{name} line {number}") or (None, None)
    if data is None:
        try:
            data = loads(text)
        except ValueError as err:  # malformed, or NaN / Infinity / 1e999, which JSON has not
            message = (f"malformed JSON at column {err.colno}: {err.msg}"
                       if isinstance(err, json.JSONDecodeError) else str(err))
            return {"file": name, "line": number, "title": None, "fixture": None,
                    "action_index": None, "error": message}
    record = solve_record(data, time_limit=time_limit, objective=objective, apart=apart)
    record = {"file": name, "line": number, **record}
    if "error" in record:
        return record
    try:
        pos = position_from_18xx(data, apart)
        for source in ("submitted", "auto_router"):
            scored = score_routes(pos, data, source, objective=objective)
            if scored is not None:
                record[f"{source}_scored"] = scored
    except ImportError as err:  # no validator in this build: the column stays empty
        record["score_error"] = f"validator unavailable: {err}"
    except Exception as err:  # a validator failure must not lose the solve result
        record["score_error"] = f"{type(err).__name__}: {err}"
    return record


def _solve_task_args(args: tuple[Task, float | None, str]) -> dict:
    return solve_task(*args)


def warm_up() -> None:
    """Load the compiled kernels once (the built module, or numba's disk cache), so no position
    pays for it."""
    from hexrail.io.g18xx import warm_up as load_kernels

    load_kernels()


class Progress:
    """Progress over `total` items on `stream` (stderr), for a context manager's span.

    On a terminal, a tqdm bar. Elsewhere (a log file, a pipe, a test's captured stderr) no bar and
    no carriage returns: one line at the end, ``corpus: 12/12 positions in 3.4s``. Nothing at all
    when ``enabled`` is false (the CLI's ``-q`` and ``--no-progress``).
    """

    def __init__(self, total: int, *, label: str = "corpus", unit: str = "position",
                 enabled: bool = True, stream: IO[str] | None = None):
        self.total = max(total, 0)
        self.label = label
        self.unit = unit
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self.start = time.perf_counter()
        self.terminal = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.bar = tqdm(total=self.total, desc=label, unit=unit, file=self.stream,
                        disable=not (enabled and self.terminal), dynamic_ncols=True)

    def update(self, n: int = 1) -> None:
        """`n` more items done."""
        self.done += n
        self.bar.update(n)

    def close(self) -> None:
        """Leave the finished bar on a terminal; elsewhere write the one summary line."""
        self.bar.close()
        if self.enabled and not self.terminal:
            self.stream.write(f"{self.label}: {self.done}/{self.total} {self.unit}s in "
                              f"{time.perf_counter() - self.start:.1f}s\n")
            self.stream.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def solve_all(tasks: list[Task], *, time_limit: float | None = None, workers: int = 1,
              progress: bool = True, objective: str = "income") -> list[dict]:
    """Solve every task (in a process pool when ``workers > 1``); results in task order."""
    results: list[dict | None] = [None] * len(tasks)
    if tasks:
        first_run_notice()
    with Progress(len(tasks), enabled=progress) as bar:
        if workers <= 1:
            warm_up()
            for k, task in enumerate(tasks):
                results[k] = solve_task(task, time_limit, objective)
                bar.update()
        else:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor, as_completed

            # spawn: workers must not inherit the solver's threads (CP-SAT) from this process
            ctx = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=warm_up) as pool:
                futures = {pool.submit(_solve_task_args, (task, time_limit, objective)): k
                           for k, task in enumerate(tasks)}
                for future in as_completed(futures):
                    k = futures[future]
                    try:
                        results[k] = future.result()
                    except Exception as err:  # a crashed worker: report it on its line
                        name, number, _ = tasks[k]
                        results[k] = {"file": name, "line": number, "title": None, "fixture": None,
                                      "action_index": None, "error": f"worker failed: {err}"}
                    bar.update()
    return [r for r in results if r is not None]


def _compare(ours: int, theirs: int | None) -> str | None:
    if theirs is None:
        return None
    return "equal" if ours == theirs else ("higher" if ours > theirs else "lower")


def _players_income(r: dict, objective: str) -> int | None:
    if r.get("submitted_revenue") is None:
        return None
    return r["submitted_revenue"] + ((r.get("submitted_subsidy") or 0) if objective == "income" else 0)


def _router_income(r: dict, objective: str) -> int | None:
    if r.get("auto_router_revenue_rescored") is None or r.get("auto_router_rescore_error"):
        return None
    return r["auto_router_revenue_rescored"] + (
        (r.get("auto_router_subsidy") or 0) if objective == "income" else 0)


def summarise(results: list[dict], objective: str = "income") -> dict[str, dict]:
    """Per title: counts, comparisons and time lists (see the module docstring)."""
    titles: dict[str, dict] = {}
    for r in results:
        title = str(r.get("title") or "?")
        s = titles.setdefault(title, {
            "positions": 0, "solved": 0, "optimal": 0, "rules_covered": None,
            "vs_players": defaultdict(int), "vs_router": defaultdict(int),
            "players_checked": 0, "players_same": 0, "times": [], "router_times": [],
            "errors": 0,
        })
        s["positions"] += 1
        if r.get("auto_router_time_s") is not None:
            s["router_times"].append(r["auto_router_time_s"])
        if "error" in r:
            s["errors"] += 1
            continue
        s["solved"] += 1
        s["optimal"] += bool(r["optimal"])
        s["rules_covered"] = r["rules_covered"] if s["rules_covered"] is None else (
            s["rules_covered"] and r["rules_covered"])
        s["times"].append(r["seconds"])
        ours = r["total"] if objective == "income" else r["revenue"]
        for key, theirs in (("vs_players", _players_income(r, objective)),
                            ("vs_router", _router_income(r, objective))):
            verdict = _compare(ours, theirs)
            if verdict:
                s[key][verdict] += 1
        scored = r.get("submitted_scored")
        if scored and scored.get("checkable") and scored["engine_legal"]:
            s["players_checked"] += 1
            s["players_same"] += bool(scored["agree"])
    return titles


def _fmt_time(value: float | None) -> str:
    if value is None:
        return "-"
    if value < 1:
        return f"{value * 1000:.0f}ms" if value >= 0.0095 else f"{value * 1000:.1f}ms"
    return f"{value:.1f}s"


def _times(values: list[float]) -> str:
    return "/".join(_fmt_time(percentile(values, q)) for q in (50, 90, 99)) + " " + _fmt_time(
        max(values) if values else None)


def format_summary(titles: dict[str, dict]) -> str:
    """The summary table, one row per title and a total row."""
    head = ("title", "positions", "solved", "optimal", "vs players =/>/<", "vs auto-router =/>/<",
            "players' routes same", "ours p50/p90/p99 max", "auto-router p50/p90/p99 max")
    rows = []
    everything: dict[str, Any] = {"positions": 0, "solved": 0, "optimal": 0, "times": [],
                                  "router_times": [], "players_checked": 0, "players_same": 0,
                                  "vs_players": defaultdict(int), "vs_router": defaultdict(int)}

    def row(name: str, s: dict) -> tuple[str, ...]:
        vp, vr = s["vs_players"], s["vs_router"]
        same = f"{s['players_same']}/{s['players_checked']}" if s["players_checked"] else "-"
        return (name, str(s["positions"]), str(s["solved"]), str(s["optimal"]),
                f"{vp['equal']}/{vp['higher']}/{vp['lower']}",
                f"{vr['equal']}/{vr['higher']}/{vr['lower']}", same,
                _times(s["times"]), _times(s["router_times"]))

    for title in sorted(titles):
        s = titles[title]
        name = title if s["rules_covered"] is not False else f"{title}*"
        rows.append(row(name, s))
        for key in ("positions", "solved", "optimal", "players_checked", "players_same"):
            everything[key] += s[key]
        everything["times"] += s["times"]
        everything["router_times"] += s["router_times"]
        for key in ("vs_players", "vs_router"):
            for verdict, n in s[key].items():
                everything[key][verdict] += n
    if len(titles) > 1:
        rows.append(row("all", everything))
    widths = [max(len(r[k]) for r in [head, *rows]) for k in range(len(head))]
    line = lambda cells: "  ".join(c.ljust(w) if k == 0 else c.rjust(w)  # noqa: E731
                                   for k, (c, w) in enumerate(zip(cells, widths)))
    out = [line(head), "-" * len(line(head))]
    out += [line(r) for r in rows]
    if any(s["rules_covered"] is False for s in titles.values()):
        out.append("* the title's own rules are not implemented: solved under the generic rules, "
                   "so differences are expected")
    out.append("=/>/<: our income equal to / higher than / lower than the recorded one "
               "(players: submitted revenue + subsidy; auto-router: revenue rescored + subsidy)")
    return "\n".join(out)


def _verdict(legal: bool, revenue: int | None, subsidy: int | None) -> str:
    if not legal:
        return "illegal"
    return f"legal {revenue}" + (f" + {subsidy} subsidy" if subsidy else "")


def discrepancies(results: list[dict], objective: str = "income") -> list[str]:
    """One line per covered-title position where we fail, are lower, or disagree on the routes."""
    lines = []
    for r in results:
        where = f"{r.get('title')} {r.get('fixture')} action {r.get('action_index')} " \
                f"({r.get('file')}:{r.get('line')})"
        if "error" in r:
            lines.append(f"{where}: error: {r['error']}")
            continue
        if not r["rules_covered"]:
            continue
        ours = r["total"] if objective == "income" else r["revenue"]
        for who, theirs in (("players", _players_income(r, objective)),
                            ("auto-router", _router_income(r, objective))):
            if theirs is not None and ours < theirs:
                lines.append(f"{where}: ours {ours} < {who} {theirs}")
        if not r["optimal"]:
            lines.append(f"{where}: not proven optimal (bound {r['upper_bound']})")
        scored = r.get("submitted_scored")
        if scored and scored.get("checkable") and scored["agree"] is False:
            theirs = _verdict(scored["engine_legal"], scored["engine_revenue"], scored["engine_subsidy"])
            ours_ = _verdict(scored["legal"], scored["revenue"], scored["subsidy"])
            lines.append(f"{where}: players' routes: 18xx.games {theirs}, ours {ours_} "
                         f"{scored.get('errors') or ''}".rstrip())
        if r.get("score_error"):
            lines.append(f"{where}: scoring failed: {r['score_error']}")
    return lines


def run_corpus(files: list[str], out: IO[str], *, time_limit: float | None = None, workers: int = 1,
               progress: bool = True, json_out: str | None = None) -> int:
    """Solve every position of `files`, print the summary per title, and list discrepancies.

    Returns 0 when every position of the titles whose rules we cover is solved, proven optimal,
    at least as good as both recorded figures and agrees on the players' routes; else 1.
    """
    tasks = list(iter_tasks(files))
    if not tasks:
        raise HexrailError("no positions found", where=", ".join(map(str, files)) or "files")
    results = solve_all(tasks, time_limit=time_limit, workers=workers, progress=progress)
    if json_out:
        with open(json_out, "w", encoding="utf-8") as stream:
            for r in results:
                stream.write(json.dumps(r) + "\n")
    titles = summarise(results)
    out.write(format_summary(titles) + "\n")
    problems = discrepancies(results)
    if problems:
        out.write(f"\n{len(problems)} discrepancies on titles whose rules we cover:\n")
        out.writelines(f"  {p}\n" for p in problems)
    else:
        out.write("\nno discrepancies on titles whose rules we cover\n")
    out.flush()
    return 1 if problems else 0
