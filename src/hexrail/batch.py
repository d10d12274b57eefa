"""Many positions at once: `solve_many` streams plans in input order, over worker processes.

One position per item: a `Position`, a native or 18xx.games document (dict), its JSON text, or
a file path. A position that cannot be read or solved gives its `HexrailError` in its place,
so one bad item never stops a batch. With ``workers > 1`` the items go to a pool of spawned
processes in chunks (a few in flight per worker, so a long or endless input is streamed,
not read ahead), and the results still come back in input order. A worker that dies (killed,
out of memory) is replaced and its items are reported as errors, not lost.

Plans made in a worker come back without their `Plan.position` (sending a board back costs
more than solving it) unless the item was a `Position`, which is attached again. `map_ordered`
is the machinery, shared with ``hexrail solve --from 18xx --workers N``.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from functools import partial
from typing import Any, TypeVar

from hexrail.errors import HexrailError

T = TypeVar("T")
R = TypeVar("R")

# Items per task sent to a worker: large enough that the round trip is small beside the solves
# (a small position solves in about a millisecond), small enough to keep results flowing.
CHUNK = 32
# Chunks in flight per worker: one being solved, more queued so a worker never waits.
AHEAD = 3


def _solve_one(item: Any, time_limit: float | None, objective: str, choices: bool = False) -> Any:
    from hexrail.solve import solve

    try:
        return solve(item, time_limit, objective=objective, choices=choices)
    except HexrailError as err:
        return err
    except RecursionError:
        return HexrailError("the position is nested too deeply to read")


def _solve_chunk(items: list, time_limit: float | None, objective: str, choices: bool = False) -> list:
    # a plan crosses back without its position (see the module docstring)
    return [replace(p, position=None) if not isinstance(p, HexrailError) else p
            for p in (_solve_one(item, time_limit, objective, choices) for item in items)]


def _apply_chunk(fn: Callable[[Any], Any], items: list) -> list:
    return [fn(item) for item in items]


def _start_worker() -> None:
    import gc

    # what is loaded at start lives as long as the worker: keep the collector off it
    gc.collect()
    gc.freeze()


def map_ordered(fn: Callable[[list], list], items: Iterable[T], *, workers: int,
                failed: Callable[[T, str], R], chunk: int = CHUNK) -> Iterator[R]:
    """``fn`` over chunks of `items` in `workers` spawned processes; results in input order.

    `fn` takes a list of items and returns one result per item; it must be picklable (a
    module-level function or a `functools.partial` of one). An item whose worker died gives
    ``failed(item, reason)``; the pool is then rebuilt and the batch goes on.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    # spawn: workers must not inherit this process's threads (CP-SAT's) or its locks
    ctx = multiprocessing.get_context("spawn")

    def new_pool() -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_start_worker)

    def run(part: list) -> list | None:
        # one task on its own; None if its worker died (the pool is then rebuilt)
        nonlocal pool
        try:
            return pool.submit(fn, part).result()
        except BrokenProcessPool:
            pool.shutdown(wait=False, cancel_futures=True)
            pool = new_pool()
            return None

    def alone(batch: list) -> Iterator[R]:
        # After a death, the chunk at the head runs again on its own, then (if it kills again)
        # one item at a time: only the item that kills its worker is reported, not its
        # neighbours or the chunks that happened to be in flight beside it.
        results = run(batch) if len(batch) > 1 else None
        if results is not None:
            yield from results
            return
        for item in batch:
            results = run([item])
            yield from results if results is not None else [failed(item, "its worker process died")]

    chunks = iter(lambda it=iter(items): list(itertools.islice(it, chunk)), [])
    pool = new_pool()
    pending: deque = deque()
    try:
        while True:
            while len(pending) < workers * AHEAD:
                batch = next(chunks, None)
                if batch is None:
                    break
                pending.append((batch, pool.submit(fn, batch)))
            if not pending:
                return
            batch, future = pending.popleft()
            try:
                results = future.result()
            except BrokenProcessPool:
                pool.shutdown(wait=False, cancel_futures=True)
                pool = new_pool()
                yield from alone(batch)
                pending = deque((b, pool.submit(fn, b)) for b, _ in pending)
                continue
            yield from results
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def solve_many(positions: Iterable[Any], *, workers: int = 1, time_limit: float | None = None,
               objective: str = "income", choices: bool = False) -> Iterator[Any]:
    """Solve every position; one `Plan` (or the `HexrailError` that stopped it) per item, in order.

    Parameters
    ----------
    positions : iterable
        Positions, native or 18xx.games documents, JSON texts or file paths; read lazily.
    workers : int
        Processes to solve in (1: this one). Each spawned worker loads the compiled kernels
        once (the built module, or numba's disk cache).
    time_limit : float, optional
        Seconds per position (`hexrail.solve`'s limit).
    objective : {"income", "revenue"}
    choices : bool
        Also weigh what each company may still decide before it runs (`hexrail.solve`).

    Examples
    --------
    >>> from hexrail.examples import example_path
    >>> plan, error = solve_many([example_path("demo"), "{}"])
    >>> plan.total, type(error).__name__
    (480, 'HexrailError')
    """
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise HexrailError(f"workers must be an integer >= 1, not {workers!r}", where="workers")
    if workers == 1:
        for item in positions:
            yield _solve_one(item, time_limit, objective, choices)
        return
    from hexrail.model import Position
    from hexrail.rules.base import decided

    held: deque = deque()  # the items that were Positions, to attach to their plans again

    def remember(items: Iterable[Any]) -> Iterator[Any]:
        for item in items:
            held.append(item if isinstance(item, Position) else None)
            yield item

    def died(item: Any, reason: str) -> HexrailError:
        return HexrailError(f"not solved: {reason}", where="position")

    work = partial(_solve_chunk, time_limit=time_limit, objective=objective, choices=choices)
    for result in map_ordered(work, remember(positions), workers=workers, failed=died):
        position = held.popleft()
        if position is not None and not isinstance(result, HexrailError):
            # (the position its choices set up, where it weighed some)
            result = replace(result, position=decided(position, result.choices or {}))
        yield result
