"""Route algorithms as plugins: built-ins by name, Python callables, and external commands.

An algorithm is anything that turns a position into a `Plan` within a time limit. It is named on
the command line by a *spec*:

- a built-in name: ``exact`` (`hexrail.solve`), ``cpsat`` (enumeration, then always the CP-SAT
  model), ``greedy`` (each train in turn takes its best route on the track still free) or
  ``oracle`` (the brute-force `reference_solve`, small boards only);
- ``path/to/file.py:func`` or ``package.module:func``: a callable ``func(position, time_limit)``
  returning a `Plan` or a plan document (dict);
- ``cmd:COMMAND``: an external program that reads a native position document (JSON) on stdin and
  writes a plan document on stdout.

Specs are plain strings so they travel to worker processes; `load_algorithm` resolves one where
it runs (and keeps it, so a worker imports a plugin once).

>>> parse_spec("exact")
('builtin', 'exact')
>>> parse_spec("cmd:python my.py")
('cmd', 'python my.py')
>>> parse_spec("mypkg.routes:solve")
('callable', 'mypkg.routes:solve')
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import shlex
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from hexrail.errors import HexrailError
from hexrail.model.position import Position
from hexrail.plan import Plan, RoutePlan, plan_from_json

Solver = Callable[[Position, float | None], Any]

# Boards past these sizes are "too big" for the brute-force oracle: it would not finish.
ORACLE_MAX_HEXES = 40
ORACLE_MAX_ROUTES = 50_000


class TooBig(HexrailError):
    """The algorithm declines the position as beyond its reach (the oracle on large boards)."""


def parse_spec(spec: str) -> tuple[str, str]:
    """``(kind, target)`` of an algorithm spec: kind is builtin, callable or cmd."""
    if spec.startswith("cmd:"):
        command = spec[4:].strip()
        if not command:
            raise HexrailError("an external algorithm needs a command after 'cmd:'", where="--algorithm")
        return "cmd", command
    if spec in BUILTINS:
        return "builtin", spec
    if ":" in spec:
        return "callable", spec
    raise HexrailError(f"unknown algorithm {spec!r}: use one of {', '.join(BUILTINS)}, "
                       "path.py:func, module:func or cmd:COMMAND", where="--algorithm")


def normalise_spec(spec: str, base: Path | None = None) -> str:
    """The spec with a plugin file's path made absolute (workers may run elsewhere)."""
    kind, target = parse_spec(spec)
    if kind == "callable":
        where, _, func = target.rpartition(":")
        if where.endswith(".py"):
            path = Path(where) if base is None else base / where
            return f"{path.resolve()}:{func}"
    return spec


# -- built-ins ----------------------------------------------------------------------------------


def solve_exact(position: Position, time_limit: float | None) -> Plan:
    """hexrail's exact solver, as the library runs it."""
    from hexrail.solve import solve

    return solve(position, time_limit)


def solve_cpsat(position: Position, time_limit: float | None) -> Plan:
    """Enumerate every train's routes, then always choose with the CP-SAT model (any rules)."""
    from hexrail.combine.cpsat import combine_coupled
    from hexrail.solve import prepare

    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    prep = prepare(position, deadline=deadline)
    t2 = time.perf_counter()
    sel = combine_coupled(prep, deadline=deadline)
    prep.timings["combine"] = time.perf_counter() - t2
    return _plan_of(prep, sel.choice, sel.routes, sel.optimal, sel.upper_bound, start)


def solve_greedy(position: Position, time_limit: float | None) -> Plan:
    """Each train in turn (in the position's order) takes its best route on the free track;
    while a "one route must ..." rule (the home route) is unmet, the best route that meets it.
    A plan the rules still refuse (routes that must meet, regions) runs no train."""
    from hexrail.solve import prepare
    from hexrail.stage import meets, required, resources

    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    prep = prepare(position, deadline=deadline)
    words = max((c.res.shape[1] for c in prep.candidates), default=1) + 1
    used = np.zeros(words, np.uint64)
    need = required(prep)
    choice = []
    for t in range(len(prep.trains)):
        res = resources(prep, t)
        if len(res) == 0:
            choice.append(-1)
            continue
        ok = ~(res & used[:res.shape[1]]).any(axis=1)
        if need:
            meeting = ok & ((meets(prep, t) & need) != 0)
            if meeting.any():
                ok = meeting
        free = np.flatnonzero(ok)
        i = int(free[0]) if len(free) else -1
        choice.append(i)
        if i >= 0:
            used[:res.shape[1]] |= res[i]
            need &= ~int(meets(prep, t, i + 1)[i])
    plan = _plan_of(prep, tuple(choice), None, False, None, start)
    if need or not _legal(prep, plan):
        plan = _plan_of(prep, tuple(-1 for _ in choice), None, False, None, start)
    if prep.coupled:
        # the routes' own pay assumes each alone; together (stops paying once, sets) they
        # earn what the validator finds
        from dataclasses import replace

        from hexrail.validate import check_plan

        report = check_plan(prep.position, plan)
        routes = tuple(replace(r, revenue=rep.revenue, subsidy=rep.subsidy, paid=rep.paid,
                               bonuses=rep.bonuses)
                       for r, rep in ((r, report.route(r.train)) for r in plan.routes))
        plan = replace(plan, routes=routes, revenue=report.revenue, subsidy=report.subsidy,
                       optimal=False, upper_bound=max(plan.upper_bound, report.total))
    return plan


def _legal(prep, plan: Plan) -> bool:
    from hexrail.validate import check_plan

    return check_plan(prep.position, plan).legal


def solve_oracle(position: Position, time_limit: float | None) -> Plan:
    """The brute-force reference (every route of every train); declines large boards."""
    from hexrail.oracle import reference_solve

    hexes = board_size(position)
    if hexes > ORACLE_MAX_HEXES:
        raise TooBig(f"too big for the oracle: {hexes} hexes with track (limit {ORACLE_MAX_HEXES})",
                     where="oracle")
    try:
        result = reference_solve(position, max_routes=ORACLE_MAX_ROUTES)
    except HexrailError as err:
        if "more" in str(err) and "routes" in str(err):
            raise TooBig(f"too big for the oracle: {err}", where="oracle") from None
        raise
    names = {t.id: t.name for t in position.trains}
    routes = tuple(RoutePlan(train=r.train, train_name=names.get(r.train, r.train), stops=r.stops,
                             paid=r.paid, paths=r.paths, revenue=r.revenue, subsidy=r.subsidy,
                             crossings=r.crossings) for r in result.routes)
    return Plan(routes=routes, revenue=result.revenue, subsidy=result.subsidy, optimal=True,
                upper_bound=result.value, profile=position.rules.profile, company=position.company,
                position=position)


def _plan_of(prep, choice, overrides, optimal: bool, upper: int | None, start: float) -> Plan:
    """A `Plan` from a choice of one candidate per train (as `hexrail.solve` assembles it)."""
    from hexrail.plan import plan_route
    from hexrail.stage import loose_bound

    routes = []
    for t, i in enumerate(choice):
        if i < 0:
            continue
        kw = (overrides[t] if overrides else None) or {}
        routes.append(plan_route(prep, t, i, **kw))
    revenue = sum(r.revenue for r in routes)
    subsidy = sum(r.subsidy for r in routes)
    value = revenue + subsidy
    if upper is None:
        upper = loose_bound(prep)
    elif not prep.complete:
        upper = max(upper, loose_bound(prep))
    optimal = (optimal and prep.complete) or value >= upper
    prep.timings["total"] = time.perf_counter() - start
    return Plan(routes=tuple(routes), revenue=revenue, subsidy=subsidy, optimal=optimal,
                upper_bound=value if optimal else max(upper, value), profile=prep.position.rules.profile,
                company=prep.position.company, position=prep.position,
                timings={k: round(v, 6) for k, v in prep.timings.items()})


BUILTINS: dict[str, Solver] = {
    "exact": solve_exact,
    "cpsat": solve_cpsat,
    "greedy": solve_greedy,
    "oracle": solve_oracle,
}


# -- plugins ------------------------------------------------------------------------------------


def _load_callable(target: str) -> Solver:
    where, _, func = target.rpartition(":")
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise HexrailError("no such plugin file", where=where)
        name = f"hexrail_bench_plugin_{abs(hash(str(path.resolve())))}"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as err:
            raise HexrailError(f"cannot import plugin module: {err}", where=where) from None
    fn = getattr(module, func, None)
    if not callable(fn):
        raise HexrailError(f"plugin has no callable {func!r}", where=where)
    return fn


def run_command(command: str, position: Position, time_limit: float | None) -> dict:
    """Run an external algorithm: the native position document on stdin, a plan on stdout."""
    from hexrail.io.native import position_to_json

    doc = position_to_json(position)
    argv = shlex.split(command)
    timeout = None if time_limit is None else time_limit + 10.0
    try:
        done = subprocess.run(argv, input=json.dumps(doc), capture_output=True, text=True,
                              timeout=timeout, check=False)
    except FileNotFoundError:
        raise HexrailError("command not found", where=argv[0]) from None
    except subprocess.TimeoutExpired:
        raise HexrailError(f"no answer within {timeout:.0f}s", where=command) from None
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or [""]
        raise HexrailError(f"exit status {done.returncode}: {tail[0]}", where=command)
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError as err:
        raise HexrailError(f"stdout is not a plan document: {err.msg}", where=command) from None


_LOADED: dict[str, Solver] = {}


def load_algorithm(spec: str) -> Solver:
    """The callable behind a spec, ``fn(position, time_limit) -> Plan``; cached per process."""
    if spec not in _LOADED:
        kind, target = parse_spec(spec)
        if kind == "builtin":
            fn = BUILTINS[target]
        elif kind == "cmd":
            def fn(position, time_limit, _command=target):
                return run_command(_command, position, time_limit)
        else:
            fn = _load_callable(target)
        _LOADED[spec] = fn
    return _LOADED[spec]


def as_plan(result: Any) -> Plan:
    """A plugin's answer as a `Plan` (plans pass through; documents are read)."""
    if isinstance(result, Plan):
        return result
    if isinstance(result, str):
        result = json.loads(result)
    return plan_from_json(result)


def board_size(position: Position) -> int:
    """Hexes with track (a tile with at least one path)."""
    return sum(1 for h in position.hexes if h.tile is not None and h.tile.paths)
