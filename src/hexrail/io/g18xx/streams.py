"""Streams over 18xx.games positions: solve and score, one result line per input line.

`solve_stream` and `score_stream` write the lines of the CLI's ``solve --from 18xx`` and
``score`` (the same records, from `solve_record` and `score_record`).
"""

from __future__ import annotations

import gc
import json
import logging
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path as FilePath
from typing import IO, Any

from hexrail.compiled import first_run_notice
from hexrail.errors import HexrailError
from hexrail.io.g18xx.reader import position_from_18xx
from hexrail.io.limits import loads
from hexrail.io.native import Apart, split_json
from hexrail.io.g18xx.routes import plan_from_18xx_routes, route_to_18xx
from hexrail.model.position import Position

log = logging.getLogger(__name__)


def _parse(text: str, number: int, path: str | FilePath, *, whole: bool) -> Any:
    """The document of `text` (starting at line `number` of `path`; `whole`: the file is one
    document), or the `HexrailError` that says where it is malformed."""
    try:
        return loads(text)
    except json.JSONDecodeError as err:
        if whole:
            return HexrailError(f"malformed JSON at line {err.lineno + number - 1} column "
                                f"{err.colno}: {err.msg}", where=str(path))
        return HexrailError(f"malformed JSON at column {err.colno}: {err.msg}", where=f"line {number}")
    except ValueError as err:  # NaN, Infinity, 1e999: no JSON numbers
        return HexrailError(str(err), where=str(path) if whole else f"line {number}")


def _open(path: str | FilePath) -> IO[str]:
    """The file at `path` (``-``: stdin), or a one-line error naming it."""
    if str(path) == "-":
        return sys.stdin
    try:
        return open(path, encoding="utf-8")  # noqa: SIM115 - the caller closes it
    except OSError as err:
        raise HexrailError(f"cannot read file: {err.strerror}", where=str(path)) from None


def _document(text: str, number: int, path: str | FilePath, *, whole: bool
              ) -> tuple[Any, Apart | None]:
    """`_parse`, an 18xx.games position's hexes left apart where they may be (`split_json`:
    read each from its text, the reader looks it up among those read before)."""
    split = split_json(text, "hexes", str(path) if whole else f"line {number}")
    return split if split is not None else (_parse(text, number, path, whole=whole), None)


def _documents(path: str | FilePath) -> Iterator[tuple[int, Any, Apart | None]]:
    """``(line number, parsed object or HexrailError, its hexes apart or None)`` for every
    position in a file or stdin (`read_positions`)."""
    stream = _open(path)
    try:
        first = True
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            split = split_json(line, "hexes", f"line {number}")
            try:
                yield (number, *split) if split is not None else (number, loads(line), None)
            except json.JSONDecodeError:
                if first:
                    # not JSON lines: one document spread over several lines
                    yield number, *_document(line + stream.read(), number, path, whole=True)
                    return
                yield number, _parse(line, number, path, whole=False), None
            except ValueError as err:  # NaN, Infinity, 1e999: no JSON numbers
                yield number, HexrailError(str(err), where=f"line {number}"), None
            first = False
    finally:
        if stream is not sys.stdin:
            stream.close()


def read_positions(path: str | FilePath) -> Iterator[tuple[int, Any]]:
    """``(line number, parsed object or HexrailError)`` for every position in a file or stdin.

    A file holds JSON lines, or one JSON document over several lines. Blank lines are skipped.
    """
    for number, data, apart in _documents(path):
        yield number, _whole(data, apart)


def _whole(data: Any, apart: Apart | None) -> Any:
    """The document with its hexes, read apart, parsed back in."""
    if apart is not None:
        data["hexes"] = apart.whole()
    return data


def _ids(data: Any) -> dict[str, Any]:
    data = data if isinstance(data, dict) else {}
    return {"title": data.get("title"), "fixture": data.get("fixture"),
            "action_index": data.get("action_index")}


def recorded_figures(data: dict) -> dict[str, Any]:
    """The figures 18xx.games recorded for a position: players' and auto-router's."""
    sub = data.get("submitted") or {}
    ar = data.get("auto_router") or {}
    out: dict[str, Any] = {
        "submitted_revenue": sub.get("revenue"),
        "submitted_subsidy": sub.get("subsidy", 0) if "revenue" in sub else None,
        "auto_router_revenue": ar.get("revenue"),
        "auto_router_revenue_rescored": ar.get("revenue_rescored"),
        "auto_router_subsidy": ar.get("subsidy", 0) if "revenue" in ar else None,
        "auto_router_time_s": ar.get("time_s"),
    }
    if sub.get("error"):
        out["submitted_error"] = sub["error"]
    if ar.get("error"):
        out["auto_router_error"] = ar["error"]
    if ar.get("rescore_error"):
        out["auto_router_rescore_error"] = ar["rescore_error"]
    if ar.get("path_timed_out") or ar.get("route_timed_out"):
        out["auto_router_timed_out"] = True
    return out


def best_recorded(figures: dict[str, Any], objective: str = "income") -> int | None:
    """The larger of the players' and the auto-router's figure (income: revenue + subsidy)."""
    values = []
    for who, revenue_key in (("submitted", "submitted_revenue"),
                             ("auto_router", "auto_router_revenue_rescored")):
        revenue = figures.get(revenue_key)
        if revenue is None or figures.get(f"{who}_rescore_error"):
            continue
        subsidy = (figures.get(f"{who}_subsidy") or 0) if objective == "income" else 0
        values.append(revenue + subsidy)
    return max(values) if values else None


def solve_record(data: Any, *, time_limit: float | None = None, objective: str = "income",
                 apart: Apart | None = None, choices: bool = False) -> dict:
    """Solve one parsed position and describe the result as one output line (a dict).
    `apart`: its hexes' texts, where they were read apart (`split_json`). With `choices`, the
    company's choices before it runs are weighed (`hexrail.solve`) and the line says them
    (``choices``).

    Bad input or a failed solve gives ``{"title", "fixture", "action_index", "error"}``.
    """
    from hexrail.solve import solve

    ids = _ids(data)
    try:
        pos = position_from_18xx(data, apart)
        start = time.perf_counter()
        plan = solve(pos, time_limit=time_limit, objective=objective, choices=choices)
        seconds = time.perf_counter() - start
        routes = []
        for r in plan.routes:
            doc = r.to_json()
            doc["g18xx"] = route_to_18xx(pos, r)
            routes.append(doc)
    except HexrailError as err:
        return {**ids, "error": str(err)}
    except Exception as err:  # an engine failure must not stop the stream; say what it was
        return {**ids, "error": f"internal error: {type(err).__name__}: {err}"}
    figures = recorded_figures(data)
    value = plan.value(objective)
    best = best_recorded(figures, objective)
    return {
        **ids, "game_id": data.get("game_id"), "entity": pos.company,
        "profile": plan.profile, "rules_covered": pos.meta["rules_covered"],
        "rules_note": pos.meta["rules_note"], "objective": objective,
        "revenue": plan.revenue, "subsidy": plan.subsidy, "total": plan.total,
        "optimal": plan.optimal, "upper_bound": plan.upper_bound, "seconds": round(seconds, 6),
        "routes": routes, **({"sets": [x.to_json() for x in plan.sets]} if plan.sets else {}),
        **({"choices": plan.choices} if plan.choices is not None else {}),
        **figures, "best_recorded": best,
        "vs_best_recorded": None if best is None else value - best,
    }


def warm_up() -> float:
    """Load the solver's compiled kernels (the built module, or numba's disk cache) on the
    bundled examples, which between them take every combiner; the seconds it took.

    Done once before the first position, so that position's ``seconds`` measure the solve alone.
    What is alive afterwards (the compiled kernels and their type machinery: most of the
    heap) lives as long as the process, so it is frozen out of the garbage collector: else
    every full collection walks it, a 75 ms pause inside some position's solve.
    """
    from hexrail.examples import example_names, example_path
    from hexrail.solve import solve

    start = time.perf_counter()
    for name in example_names():
        solve(example_path(name))
    gc.collect()
    gc.freeze()
    return time.perf_counter() - start


def position_records(path: str, make: Callable[[Any], dict]) -> Iterator[dict]:
    """`make(position)` for every position of `path` (``-``: stdin), each with its ``line``; a
    line that cannot be read gives an ``error`` record. Empty input is an error, not silence.

    The same records, keys and order as the CLI's ``solve --from 18xx`` and ``score`` lines.
    """
    return _records(path, lambda data, apart: make(_whole(data, apart)))


def _records(path: str, make: Callable[[Any, Apart | None], dict]) -> Iterator[dict]:
    """`position_records`, `make` given each position's hexes apart (or None)."""
    count = 0
    for number, data, apart in _documents(path):
        count += 1
        if isinstance(data, HexrailError):
            yield {**_ids(None), "line": number, "error": str(data)}
        else:
            yield {**make(data, apart), "line": number}
    if not count:
        raise HexrailError("no positions: the input is empty", where="stdin" if path == "-" else path)


def _texts(path: str) -> Iterator[tuple[int, str, bool]]:
    """``(line number, JSON text, whole)`` per position of `path`, unparsed: for workers to parse.

    Only the first line is parsed here, to tell JSON lines from one document over several
    lines (then the whole text is the one item, and ``whole`` is true).
    """
    first = True
    stream = _open(path)
    try:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            if first:
                first = False
                try:
                    json.loads(line)
                except ValueError:
                    yield number, line + stream.read(), True
                    return
            yield number, line, False
    finally:
        if stream is not sys.stdin:
            stream.close()


def _solve_texts(items: list[tuple[int, str, bool]], time_limit: float | None, objective: str,
                 path: str, choices: bool = False) -> list[dict]:
    out = []
    for number, text, whole in items:
        data, apart = _document(text, number, path, whole=whole)  # (`read_positions`' words)
        if isinstance(data, HexrailError):
            out.append({**_ids(None), "line": number, "error": str(data)})
            continue
        out.append({**solve_record(data, time_limit=time_limit, objective=objective, apart=apart,
                                   choices=choices), "line": number})
    return out


def solve_records(path: str, *, time_limit: float | None = None, objective: str = "income",
                  workers: int = 1, choices: bool = False) -> Iterator[dict]:
    """The records of ``solve --from 18xx``, in input order, solved in `workers` processes.

    One process: the kernels load once before the first position (`warm_up`, logged at info),
    so no line's ``seconds`` holds it. Several: each worker loads what its positions need,
    and lines travel to them unparsed (`hexrail.batch.map_ordered`).
    """
    if workers <= 1:
        warmed = False

        def solved(data: Any, apart: Apart | None) -> dict:
            nonlocal warmed
            if not warmed:
                warmed = True
                first_run_notice()
                log.info(f"warm-up: loaded the compiled solver in {warm_up():.2f} s")
            return solve_record(data, time_limit=time_limit, objective=objective, apart=apart,
                                choices=choices)

        yield from _records(path, solved)
        return
    from functools import partial

    from hexrail.batch import map_ordered

    count = 0

    def counted(items: Iterator[tuple[int, str, bool]]) -> Iterator[tuple[int, str, bool]]:
        nonlocal count
        for item in items:
            count += 1
            if count == 1:
                first_run_notice()  # (each worker compiles what it needs)
            yield item

    def died(item: tuple[int, str, bool], reason: str) -> dict:
        return {**_ids(None), "line": item[0], "error": f"not solved: {reason}"}

    work = partial(_solve_texts, time_limit=time_limit, objective=objective, path=path,
                   choices=choices)
    yield from map_ordered(work, counted(_texts(path)), workers=workers, failed=died)
    if not count:
        raise HexrailError("no positions: the input is empty", where="stdin" if path == "-" else path)


def solve_stream(path: str, out: IO[str], *, time_limit: float | None = None,
                 objective: str = "income") -> int:
    """Solve every position of `path` (a file or ``-`` for stdin); one JSON line each, in order.

    The lines of ``hexrail solve --from 18xx --format json``: `solve_record` plus ``line``, the
    same keys on every line. The one-off warm-up before the first solve (`warm_up`) is in no
    line's ``seconds``; it is logged at info level. Returns 0 when every line was solved, 2 when
    some line gave an error (the others are still written); raises `HexrailError` on empty input.
    """
    warmed = False

    def solved(data: Any, apart: Apart | None) -> dict:
        nonlocal warmed
        if not warmed:
            warmed = True
            log.info(f"warm-up: loaded the compiled solver in {warm_up():.2f} s")
        return solve_record(data, time_limit=time_limit, objective=objective, apart=apart)

    status = 0
    for record in _records(path, solved):
        if "error" in record:
            status = 2
        out.write(json.dumps(record) + "\n")
        out.flush()
    return status


# ------------------------------------------------------------------------------------------------
# Scoring the recorded routes


def score_routes(pos: Position, data: dict, source: str, *, objective: str = "income") -> dict | None:
    """Check the routes stored under `source` (``submitted``/``auto_router``) with our validator.

    Returns None when the position has no such routes. Otherwise a dict with the engine's and our
    verdicts: ``engine_legal``, ``engine_revenue``, ``engine_subsidy``, ``legal``, ``revenue``,
    ``subsidy``, ``agree`` and per-route ``errors``.
    """
    from hexrail.validate import check_plan

    rec = data.get(source)
    if not isinstance(rec, dict) or "routes" not in rec:
        return None
    routes = rec.get("routes") or []
    if source == "auto_router":
        engine_revenue = rec.get("revenue_rescored", rec.get("revenue"))
        engine_legal = not rec.get("error") and not rec.get("rescore_error")
    else:
        engine_revenue = rec.get("revenue")
        engine_legal = not rec.get("error")
    engine_legal = engine_legal and not any(r.get("error") for r in routes)
    out: dict[str, Any] = {"engine_legal": engine_legal, "engine_revenue": engine_revenue,
                           "engine_subsidy": rec.get("subsidy", 0)}
    if any(not r.get("track") for r in routes):
        out.update(checkable=False, note="the engine could not rebuild these routes (no track)",
                   agree=None)
        return out
    plan = plan_from_18xx_routes(routes, where=f"{source}.routes")
    report = check_plan(pos, plan, objective=objective)
    errors = {}
    for r, rr in zip(plan.routes, report.routes):
        if rr.errors:
            errors[r.train] = [str(e) for e in rr.errors]
    agree_legal = bool(report.legal) == bool(engine_legal)
    agree_revenue = (not engine_legal) or (report.revenue == engine_revenue
                                           and report.subsidy == out["engine_subsidy"])
    out.update(checkable=True, legal=bool(report.legal), revenue=report.revenue,
               subsidy=report.subsidy, agree=agree_legal and agree_revenue, errors=errors)
    return out


def score_record(data: Any) -> dict:
    """One output line of ``hexrail score``: our verdict on a position's recorded routes."""
    ids = _ids(data)
    try:
        pos = position_from_18xx(data)
        record = {**ids, "profile": pos.rules.profile, "rules_covered": pos.meta["rules_covered"]}
        for source in ("submitted", "auto_router"):
            scored = score_routes(pos, data, source)
            if scored is not None:
                record[source] = scored
    except HexrailError as err:
        return {**ids, "error": str(err)}
    except Exception as err:
        return {**ids, "error": f"internal error: {type(err).__name__}: {err}"}
    verdicts = [record[s]["agree"] for s in ("submitted", "auto_router") if s in record]
    record["agree"] = all(v is not False for v in verdicts)
    return record


def _verdict_cell(scored: dict | None) -> str:
    if scored is None:
        return "-"
    engine = f"{scored['engine_revenue']}" if scored["engine_legal"] else "illegal"
    if not scored.get("checkable"):
        return f"{engine} / unchecked"
    ours = f"{scored['revenue']}" if scored["legal"] else "illegal"
    return f"{engine} / {ours} {'ok' if scored['agree'] else 'DIFFER'}"


def _cell(value: Any) -> str:
    return "" if value is None else str(value)


def score_stream(path: str, out: IO[str], *, fmt: str = "json",
                 seen: Callable[[dict], Any] | None = None) -> int:
    """Score the recorded routes of every position of `path`: do we agree with 18xx.games?

    The output of ``hexrail score --format FMT``: ``fmt="json"`` writes one JSON line per
    position (`score_record` plus ``line``); ``"table"`` one table row per position (18xx.games
    figure / ours). Returns 0 when we agree on every position whose rules we cover, 1 otherwise,
    2 when a line could not be read; raises `HexrailError` on empty input. `seen` is called
    with every record scored (the CLI warns there about titles without a profile).
    """
    status = 0
    head = (f"{'line':>5}  {'title':<6} {'fixture':<28} {'action':>6}  {'players: 18xx / ours':<26}  "
            f"{'auto-router: 18xx / ours':<26}  rules")
    for k, record in enumerate(position_records(path, score_record)):
        if fmt == "table" and k == 0:
            out.write(f"{head}\n{'-' * len(head)}\n")
        if "error" in record:
            status = 2
            line = f"{record['line']:>5}  error: {record['error']}"
        else:
            if seen is not None:
                seen(record)
            uncovered = record.get("rules_covered") is False
            if not record["agree"] and not uncovered:
                status = max(status, 1)
            line = (f"{record['line']:>5}  {_cell(record['title']):<6} {_cell(record['fixture']):<28} "
                    f"{_cell(record['action_index']):>6}  {_verdict_cell(record.get('submitted')):<26}  "
                    f"{_verdict_cell(record.get('auto_router')):<26}  "
                    f"{'not covered: generic (fallback)' if uncovered else 'covered'}")
        out.write((line if fmt == "table" else json.dumps(record)) + "\n")
        out.flush()
    return status
