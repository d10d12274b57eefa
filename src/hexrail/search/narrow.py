"""Narrowing: which candidate routes can be in a plan as good as a quick greedy one.

Where a plan is worth the sum of its routes, a route worth less than the floor minus the other
trains' best routes cannot be in a plan worth the floor: the solver asks the walk only for the
routes above that threshold (`enumerate_routes(min_value=...)`). The floor is a greedy plan: the
trains by their best route, each taking its best route on the track the ones before left.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from hexrail.graph.track import TrackGraph
from hexrail.graph.trains import TrainData
from hexrail.search.routes import Candidates, enumerate_routes, no_routes


def least_values(graph: TrackGraph, trains: list[TrainData], groups: list[int],
                  first: dict[int, int], idle: set[int], one_bypass: bool, objective: str,
                  deadline: float | None, floor: int | None
                  ) -> tuple[int, dict[int, int], dict[int, Candidates]]:
    """The plan floor (`floor`, or a greedy plan's value); per group of identical trains the
    least value a route of theirs needs to be in a plan worth that much (the floor less the
    other trains' best routes); and per group its best routes (`enumerate_routes` with
    `best_only`)."""
    best = {g: no_routes(graph.chain_res.shape[1]) if g in idle else
            enumerate_routes(graph, trains[t], deadline=deadline, objective=objective,
                             best_only=True) for g, t in first.items()}
    tops = [int(best[g].value(objective)[0]) if len(best[g]) else 0 for g in groups]
    if floor is None:
        # Greedy: the trains by their best route, each taking its best route on the track
        # the ones before left (and no bypass once one is spent).
        floor = 0
        mask = np.zeros(graph.chain_res.shape[1], np.uint64)
        bypass_spent = False
        for k, t in enumerate(sorted(range(len(trains)), key=lambda t: -tops[t])):
            if groups[t] in idle:
                continue
            td = replace(trains[t], max_bypass=0) if bypass_spent else trains[t]
            got = best[groups[t]] if k == 0 else enumerate_routes(
                graph, td, deadline=deadline, objective=objective, best_only=True, forbid=mask)
            if len(got):
                floor += int(got.value(objective)[0])
                mask |= got.res[0]
                bypass_spent = bypass_spent or (one_bypass and got.bypass[0] > 0)
    total = sum(tops)
    return floor, {g: floor - (total - tops[t]) for g, t in first.items()}, best
