"""Two lanes of workers, so that light requests never wait behind heavy ones.

A body of a few hundred bytes can ask for a solve that runs to its time limit (a board whose
routes run into the millions), so the size of a request says nothing of its work. The service
finds out by trying, and keeps one lane for work that turned out to be light:

- **heavy lane** (``workers`` processes, at most ``max_pending`` jobs running or queued): every
  job goes here while a worker of it is free. A job that finds it busy goes to the light lane
  first; if that shows the job is heavy, it waits for the heavy lane. Jobs known to be heavy
  use at most ``workers - 1`` of its workers (all, if it has one): the last is kept for jobs
  not known to be heavy (those the light lane had no room for), and a worker coming free takes
  those first, then the heavy ones in order of arrival (but a kind of job waiting with none of
  it running goes first, so neither starves). When the heavy lane holds ``max_pending`` jobs,
  the request is refused at once with 503 and ``Retry-After``.
- **light lane** (``light_workers`` processes, at most ``max_light_pending`` jobs): a job runs
  here as a probe under the short time limit ``light_time_limit``. A probe that finishes
  (a solve proven optimal, a validation, a drawing) is the answer. A solve cut short by the
  probe's limit (when the request allowed longer), or a probe stopped at its hard limit, makes
  the job heavy: it goes to the heavy lane with its full time limit, and the body is remembered
  (the last `REMEMBERED` bodies found heavy, here or by a solve cut short in the heavy lane)
  so that it skips the probe next time. No job waits in the light lane behind more than
  ``max_light_pending`` probes of at most ``light_time_limit`` each.
- PNG drawings skip the light lane: drawing millions of pixels is heavy whatever the board.
- ``/health``, ``/profiles`` and the documentation use no worker at all; the connection limits
  (`hexrail.server.connections`) keep one client's many connections from crowding them out.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from hexrail.server.jobs import JobError, Lane

REMEMBERED = 4096  # bodies known to be heavy
LIGHT, HEAVY = 0, 1  # priorities in the heavy lane: jobs not known to be heavy go first
WATCH_SECONDS = 1.0


class Lanes:
    """The light and the heavy lane, and the policy above."""

    def __init__(self, *, workers: int, max_pending: int, light_workers: int, max_light_pending: int,
                 light_time_limit: float, memory_bytes: int = 0, retry_after: int = 5):
        # Known-heavy jobs leave one heavy worker to the others (when there are two or more).
        self.heavy = Lane("heavy", workers, max_pending, memory_bytes, retry_after,
                          caps={HEAVY: max(1, workers - 1)})
        self.light = Lane("light", light_workers, max_light_pending, memory_bytes, retry_after)
        self.light_time_limit = light_time_limit
        self._heavy_bodies: OrderedDict[bytes, None] = OrderedDict()

    @property
    def lanes(self) -> tuple[Lane, Lane]:
        return self.light, self.heavy

    async def ready(self) -> None:
        await asyncio.gather(*(lane.ready() for lane in self.lanes))

    @property
    def healthy(self) -> bool:
        return all(lane.healthy for lane in self.lanes)

    def heal(self) -> None:
        for lane in self.lanes:
            lane.heal()

    async def watch(self) -> None:
        """Rebuild a failed pool within `WATCH_SECONDS`, not only when a job finds it: pebble
        gives up a whole pool when a worker dies while none of its workers holds a job."""
        while True:
            await asyncio.sleep(WATCH_SECONDS)
            self.heal()

    async def run(self, fn: Callable[[dict], dict], request: dict[str, Any], *, time_limit: float,
                  grace: float, body: bytes = b"", probe: bool = True) -> dict:
        """``fn(request)`` with ``time_limit`` (seconds of solving; hard limit ``time_limit +
        grace``) in the lane the policy picks; `JobError` when no answer came."""
        key = hashlib.sha256(body).digest() if body else None
        heavy = key in self._heavy_bodies
        if probe and not heavy and not self.heavy.idle and not self.light.full:
            limit = min(time_limit, self.light_time_limit)
            try:
                out = await self.light.run(fn, {**request, "time_limit": limit}, timeout=limit + grace)
            except JobError as err:
                if not err.overran:
                    raise
            else:
                if not out.get("cut_short") or limit >= time_limit:
                    return out
            heavy = True
            self._remember(key)
        out = await self.heavy.run(fn, {**request, "time_limit": time_limit}, timeout=time_limit + grace,
                                   priority=HEAVY if heavy else LIGHT)
        if out.get("cut_short"):
            self._remember(key)
        return out

    def _remember(self, key: bytes | None) -> None:
        if key is None:
            return
        self._heavy_bodies[key] = None
        self._heavy_bodies.move_to_end(key)
        while len(self._heavy_bodies) > REMEMBERED:
            self._heavy_bodies.popitem(last=False)

    def close(self) -> None:
        for lane in self.lanes:
            lane.close()
