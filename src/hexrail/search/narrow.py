"""Narrowing: which candidate routes can be in a plan as good as a quick greedy one.

Where a plan is worth the sum of its routes, a route worth less than the floor minus the other
trains' best routes cannot be in a plan worth the floor: the solver asks the walk only for the
routes above that threshold (`enumerate_routes(min_value=...)`). The floor is a greedy plan: the
trains by their best route, each taking its best route on the track the ones before left.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from hexrail.graph.track import TrackGraph
from hexrail.graph.trains import TrainData
from hexrail.search.routes import Candidates, enumerate_routes, no_routes


def least_values(graph: TrackGraph, trains: list[TrainData], groups: list[int],
                  first: dict[int, int], idle: set[int], one_bypass: bool, objective: str,
                  deadline: float | None, floor: int | None, slack: int = 0
                  ) -> tuple[int, dict[int, int], dict[int, Candidates], dict[int, Candidates]]:
    """The plan floor (`floor`, or a greedy plan's value); per group of identical trains the
    least value a route of theirs needs to be in a plan worth that much (the floor less the
    other trains' best routes); per group its best routes (`enumerate_routes` with
    `best_only`); and per group the routes the greedy plan took beside the others' (where a
    time limit cuts the later walks short, they keep that plan within reach).

    With a `deadline`, the walks share the time to it: each gets an equal part of what is
    left for the walks still to come, so that none starves. A group's best routes hold every
    route within `slack` of its best (`enumerate_routes`)."""
    work = [g for g in first if g not in idle]
    best = {g: no_routes(graph.chain_res.shape[1]) for g in idle}
    for k, g in enumerate(work):
        best[g] = enumerate_routes(graph, trains[first[g]], objective=objective, best_only=True,
                                   deadline=share(deadline, len(work) - k), slack=slack)
    tops = [int(best[g].value(objective)[0]) if len(best[g]) else 0 for g in groups]
    greedy: dict[int, Candidates] = {}
    if floor is None:
        # Greedy: the trains by their best route, each taking its best route on the track
        # the ones before left (and no bypass once one is spent).
        floor = 0
        mask = np.zeros(graph.chain_res.shape[1], np.uint64)
        bypass_spent = False
        order = [t for t in sorted(range(len(trains)), key=lambda t: -tops[t])
                 if groups[t] not in idle]
        for k, t in enumerate(order):
            td = replace(trains[t], max_bypass=0) if bypass_spent else trains[t]
            got = best[groups[t]] if k == 0 else enumerate_routes(
                graph, td, objective=objective, best_only=True, forbid=mask,
                deadline=share(deadline, len(order) - k))
            if k:
                g = groups[t]
                greedy[g] = got if g not in greedy else greedy[g].merged(got, objective)
            if len(got):
                floor += int(got.value(objective)[0])
                mask |= got.res[0]
                bypass_spent = bypass_spent or (one_bypass and got.bypass[0] > 0)
    total = sum(tops)
    return floor, {g: floor - (total - tops[t]) for g, t in first.items()}, best, greedy


def share(deadline: float | None, parts: int) -> float | None:
    """A walk's deadline where `parts` equal parts share the time left to `deadline`."""
    if deadline is None:
        return None
    now = time.perf_counter()
    return now + max(0.0, deadline - now) / max(1, parts)
