"""Worker processes for the server's work, each job with a hard time limit.

Solving is CPU-bound and a request must never hang the server, so every job runs in a pool of
worker processes (`pebble.ProcessPool`, spawned, each warmed up once). A job that overruns its
hard limit has its worker killed and replaced; a worker that dies is replaced too; each worker's
memory is capped, so a job that would need too much fails alone. Either way the request gets an
answer and the server carries on. Jobs beyond ``max_pending`` are refused
at once instead of queueing without bound.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from pebble import ProcessExpired, ProcessPool

from hexrail.server.work import ping, start_worker


class JobError(Exception):
    """A job that produced no answer: ``status`` is the HTTP status to report."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class Jobs:
    """A pool of `workers` processes running jobs with hard time limits."""

    def __init__(self, workers: int = 2, max_pending: int = 64, memory_bytes: int = 0):
        self.workers = workers
        self.max_pending = max_pending
        self.memory_bytes = memory_bytes
        self.pending = 0
        self.pool = ProcessPool(max_workers=workers, initializer=start_worker, initargs=(memory_bytes,),
                                context=multiprocessing.get_context("spawn"))

    async def ready(self) -> None:
        """Wait until a worker has started and warmed up."""
        await asyncio.wrap_future(self.pool.schedule(ping))

    async def run(self, fn: Callable[..., Any], *args: Any, timeout: float) -> Any:
        """`fn(*args)` in a worker; `JobError` when busy, over `timeout` seconds, or crashed."""
        if self.pending >= self.max_pending:
            raise JobError(503, f"server busy: {self.pending} jobs pending; retry later")
        self.pending += 1
        try:
            return await asyncio.wrap_future(self.pool.schedule(fn, args=args, timeout=timeout))
        except FutureTimeout:
            raise JobError(503, f"the job did not finish within its hard limit of {timeout:g} s "
                                "and was stopped") from None
        except MemoryError:
            limit = f" of {self.memory_bytes / 2**30:g} GiB" if self.memory_bytes else ""
            raise JobError(503, f"the job needs more memory than a worker may use{limit}") from None
        except ProcessExpired as err:
            raise JobError(500, f"the worker process died ({err}); it has been replaced") from None
        finally:
            self.pending -= 1

    def close(self) -> None:
        self.pool.stop()
        self.pool.join(timeout=10)
