"""Worker processes for the server's work, each job with a hard time limit.

Solving is CPU-bound and a request must never hang the server, so every job runs in a pool of
worker processes (`pebble.ProcessPool`, spawned, each warmed up once): a `Lane`. A job that
overruns its hard limit has its worker killed and replaced; each worker's memory is capped, so a
job that would need too much fails alone. A worker that dies (killed from outside, or crashed)
is replaced, and the job it held runs once more on a fresh worker, so one lost process does not
fail the request. The pool's own machinery can fail too: pebble's scheduler thread dies when a
job's arguments cannot be pickled (a value nested too deep overflows the stack), and from then
on the pool takes jobs and never runs them. A lane notices (`Lane.healthy`), answers the jobs it
held by running them once more, and builds a fresh pool before its next job (`Lane.heal`).
Jobs beyond ``max_pending`` are refused at once instead of queueing without bound.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import threading
from collections import Counter, deque
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from pebble import ProcessExpired, ProcessPool

from hexrail.server.work import ping, start_worker

POLL_SECONDS = 0.25  # how often a waiting job looks whether its pool still runs
ATTEMPTS = 2  # a job whose worker or pool was lost runs once more, then fails


class JobError(Exception):
    """A job that produced no answer: ``status`` is the HTTP status to report; ``retry_after``
    (seconds) is set when trying again later may succeed; ``overran`` when the job was stopped
    at its hard limit."""

    def __init__(self, status: int, message: str, *, retry_after: int | None = None,
                 overran: bool = False):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after
        self.overran = overran


class _PoolFailed(Exception):
    """The pool a job was waiting in stopped running it."""


class Lane:
    """A pool of `workers` processes running jobs with hard time limits; at most `max_pending`
    jobs in it at once (running or queued). Jobs wait for a worker by priority, and at most
    ``caps[p]`` jobs of priority ``p`` run at once (the rest of the workers are kept for others)."""

    def __init__(self, name: str, workers: int, max_pending: int, memory_bytes: int = 0,
                 retry_after: int = 5, caps: dict[int, int] | None = None):
        self.name = name
        self.caps = caps or {}
        self.workers = workers
        self.max_pending = max_pending
        self.memory_bytes = memory_bytes
        self.retry_after = retry_after
        self.pending = 0  # jobs running or waiting
        self.running = 0  # jobs handed to the pool: never more than its workers
        self.rebuilds = 0
        self._waiting: dict[int, deque[asyncio.Future]] = {}  # by priority: jobs waiting for a worker
        self._running: Counter[int] = Counter()  # by priority: jobs running
        self.pool = self._start()

    def _start(self) -> ProcessPool:
        return ProcessPool(max_workers=self.workers, initializer=start_worker,
                           initargs=(self.memory_bytes,), context=multiprocessing.get_context("spawn"))

    @property
    def healthy(self) -> bool:
        """Whether the pool runs: false once its scheduler or manager thread has died."""
        return self.pool.active

    @property
    def idle(self) -> bool:
        """Whether a worker is free for a job now."""
        return self.pending < self.workers

    @property
    def full(self) -> bool:
        return self.pending >= self.max_pending

    async def ready(self) -> None:
        """Wait until a worker has started and warmed up."""
        await asyncio.wrap_future(self.pool.schedule(ping))

    def heal(self) -> bool:
        """Put a fresh pool in place of one that stopped running; whether it did."""
        if self.pool.active:
            return False
        old, self.pool = self.pool, self._start()
        self.rebuilds += 1
        # Stopping joins the old pool's threads and workers: not on the event loop.
        threading.Thread(target=_stop, args=(old,), name=f"stop-{self.name}-pool", daemon=True).start()
        return True

    async def run(self, fn: Callable[..., Any], *args: Any, timeout: float, priority: int = 0) -> Any:
        """`fn(*args)` in a worker, queued by `priority` (`_next_waiter`); `JobError` when
        full, over `timeout` seconds, or lost twice."""
        if self.full:
            raise JobError(503, f"server busy: {self.pending} jobs pending in the {self.name} lane; "
                                "retry later", retry_after=self.retry_after)
        self.pending += 1
        try:
            await self._take_worker(priority)
            try:
                return await self._attempts(fn, args, timeout)
            finally:
                self._give_worker(priority)
        finally:
            self.pending -= 1

    # The lane queues jobs itself, not in pebble's first-come-first-served queue, so that a
    # worker coming free can take the job that should go next.

    def _may_start(self, priority: int) -> bool:
        return self.running < self.workers and self._running[priority] < self.caps.get(priority, self.workers)

    def _start_job(self, priority: int) -> None:
        self._running[priority] += 1
        self.running += 1

    def _next_waiter(self) -> int | None:
        """The priority whose first waiting job starts next, if any may start now. Lower
        priorities first; but a priority with jobs waiting and none running goes before all,
        so that no kind of job starves while another keeps coming."""
        for waiting in self._waiting.values():
            while waiting and waiting[0].done():  # (their requests went away)
                waiting.popleft()
        order = sorted(p for p, waiting in self._waiting.items() if waiting)
        starved = [p for p in order if not self._running[p]]
        for p in starved + [p for p in order if p not in starved]:
            if self._may_start(p):
                return p
        return None

    async def _take_worker(self, priority: int) -> None:
        if self._may_start(priority) and self._next_waiter() is None:
            self._start_job(priority)
            return
        wake = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(priority, deque()).append(wake)
        try:
            await wake
        except asyncio.CancelledError:
            if wake.done() and not wake.cancelled():
                self._give_worker(priority)  # woken and cancelled at once: pass the worker on
            raise

    def _give_worker(self, priority: int) -> None:
        self._running[priority] -= 1
        self.running -= 1
        p = self._next_waiter()
        if p is not None:
            self._start_job(p)  # counted for it now, so no one else takes the worker meanwhile
            self._waiting[p].popleft().set_result(None)

    async def _attempts(self, fn: Callable[..., Any], args: tuple, timeout: float) -> Any:
        for attempt in range(1, ATTEMPTS + 1):
            self.heal()
            try:
                return await self._wait(self.pool, fn, args, timeout)
            except FutureTimeout:
                raise JobError(503, f"the job did not finish within its hard limit of {timeout:g} s "
                                    "and was stopped", retry_after=self.retry_after,
                               overran=True) from None
            except MemoryError:
                limit = f" of {self.memory_bytes / 2**30:g} GiB" if self.memory_bytes else ""
                raise JobError(503, f"the job needs more memory than a worker may use{limit}") from None
            except ProcessExpired as err:
                if attempt == ATTEMPTS:
                    raise JobError(500, f"the worker process died twice on this job ({err}); "
                                        "it has been replaced") from None
            except (_PoolFailed, BrokenProcessPool):
                if attempt == ATTEMPTS:
                    raise JobError(500, "the worker pool failed twice on this job; "
                                        "it has been rebuilt") from None

    async def _wait(self, pool: ProcessPool, fn: Callable[..., Any], args: tuple, timeout: float) -> Any:
        future = pool.schedule(fn, args=args, timeout=timeout)
        waiting = asyncio.wrap_future(future)
        try:
            while True:
                done, _ = await asyncio.wait({waiting}, timeout=POLL_SECONDS)
                if done:
                    return waiting.result()
                if not pool.active:  # the job will never be run: its pool's threads are gone
                    waiting.cancel()
                    raise _PoolFailed
        except asyncio.CancelledError:
            waiting.cancel()  # (the request went away: free the worker)
            raise

    def close(self) -> None:
        _stop(self.pool)


def _stop(pool: ProcessPool) -> None:
    pool.stop()
    pool.join(timeout=10)
