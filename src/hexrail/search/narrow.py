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
from hexrail.graph.trains import NO_LIMIT, TrainData
from hexrail.search.routes import Candidates, enumerate_routes, no_routes


LIST_CAP = 1 << 13  # routes a listing walk (`least_values(listing=True)`) keeps at most


def least_values(graph: TrackGraph, trains: list[TrainData], groups: list[int],
                  first: dict[int, int], idle: set[int], one_bypass: bool, objective: str,
                  deadline: float | None, floor: int | None, slack: int = 0,
                  listing: bool = False) -> tuple[int, dict[int, int], dict[int, Candidates],
                                                  dict[int, Candidates], dict[int, Candidates]]:
    """The plan floor (`floor`, or a greedy plan's value); per group of identical trains the
    least value a route of theirs needs to be in a plan worth that much (the floor less the
    other trains' best routes); per group its best routes (`enumerate_routes` with
    `best_only`); per group the routes the greedy plan took beside the others' (where a
    time limit cuts the later walks short, they keep that plan within reach); and per group
    every route worth its least, where one walk found them all (below).

    With a `deadline`, the walks share the time to it: each gets an equal part of what is
    left for the walks still to come, so that none starves. A group's best routes hold every
    route within `slack` of its best (`enumerate_routes`).

    With `listing` (each group one train, and a greedy plan's floor wanted), a train of
    unlimited distance walks last and, where few enough routes qualify, lists every route it
    may run in a plan worth the floor in that one walk, instead of a best-only walk now and a
    narrowed one after (`_listing`: the threshold rises with the floor, found beside each
    route best so far). Past `LIST_CAP` routes its walk goes on as a best-only one.
    """
    work = [g for g in first if g not in idle]
    big = None
    if listing and floor is None and len(work) >= 2:
        # (a train of unlimited distance: its walks are long, and other trains prune them
        # little, their routes running beside most of its)
        big = next((g for g in work if trains[first[g]].visit_cap[-1] >= NO_LIMIT), None)
        work = [g for g in work if g != big] + ([big] if big is not None else [])
    best = {g: no_routes(graph.chain_res.shape[1]) for g in idle}
    listed: dict[int, Candidates] = {}
    lift = 0
    for k, g in enumerate(work):
        if g == big:
            others = sum(int(best[h].value(objective)[0]) if len(best[h]) else 0
                         for h in work if h != g)
            rest = sorted((t for t in range(len(trains)) if groups[t] in work and groups[t] != g),
                          key=lambda t: -int(best[groups[t]].value(objective)[0])
                          if len(best[groups[t]]) else 0)
            best[g], lift, whole = _listing(graph, trains[first[g]], trains, groups, rest, best,
                                            others, one_bypass, objective, share(deadline, 1),
                                            slack)
            if whole is not None:
                listed[g] = whole
            continue
        best[g] = enumerate_routes(graph, trains[first[g]], objective=objective, best_only=True,
                                   deadline=share(deadline, len(work) - k), slack=slack)
    tops = [int(best[g].value(objective)[0]) if len(best[g]) else 0 for g in groups]
    greedy: dict[int, Candidates] = {}
    if floor is None:
        order = [t for t in sorted(range(len(trains)), key=lambda t: -tops[t])
                 if groups[t] not in idle]
        floor = max(lift, _greedy(graph, trains, groups, order, best, None, one_bypass,
                                  objective, deadline, greedy))
    total = sum(tops)
    least = {g: floor - (total - tops[t]) for g, t in first.items()}
    listed = {g: c.subset(np.flatnonzero(c.value(objective) >= least[g]))
              for g, c in listed.items()}
    return floor, least, best, greedy, listed


def _greedy(graph: TrackGraph, trains: list[TrainData], groups: list[int], order: list[int],
            best: dict[int, Candidates], start: tuple[np.ndarray, bool] | None, one_bypass: bool,
            objective: str, deadline: float | None,
            greedy: dict[int, Candidates] | None = None) -> int:
    """A greedy plan's value: the trains in `order`, each taking its best route on the track
    the ones before left (and no bypass once one is spent); the first its best route (in
    `best`), or, with `start` (a route's track and whether it spent a bypass), each after a
    route on that track. The routes taken beside others go to `greedy`, per group."""
    floor = 0
    mask = np.zeros(graph.chain_res.shape[1], np.uint64)
    bypass_spent = False
    if start is not None:
        mask |= start[0]
        bypass_spent = one_bypass and start[1]
    for k, t in enumerate(order):
        td = replace(trains[t], max_bypass=0) if bypass_spent else trains[t]
        beside = k or start is not None
        got = enumerate_routes(graph, td, objective=objective, best_only=True, forbid=mask,
                               deadline=share(deadline, len(order) - k)
                               ) if beside else best[groups[t]]
        if beside and greedy is not None:
            g = groups[t]
            greedy[g] = got if g not in greedy else greedy[g].merged(got, objective)
        if len(got):
            floor += int(got.value(objective)[0])
            mask |= got.res[0]
            bypass_spent = bypass_spent or (one_bypass and got.bypass[0] > 0)
    return floor


def _listing(graph: TrackGraph, td: TrainData, trains: list[TrainData], groups: list[int],
             rest: list[int], best: dict[int, Candidates], others: int, one_bypass: bool,
             objective: str, deadline: float | None, slack: int
             ) -> tuple[Candidates, int, Candidates | None]:
    """The train `td`'s best routes (within `slack` of its best), a plan floor, and, unless more
    than `LIST_CAP` routes came in the way, every route of it worth the plan floor less
    `others` (the best routes of the trains `rest`, by their best routes in `best`; so at
    least what a route needs in a plan worth that floor).

    One walk: it keeps the routes worth at least its best so far less `others` (a plan holding
    a route is worth no more than it and the others' best) and, at each pause, a plan floor
    is found beside its best route so far (`_greedy`, the other trains after it), the
    threshold rising to that floor less `others`. A threshold only rises, and every floor is
    a plan's, so no route worth the final floor less `others` is left out."""
    seen = {"top": None, "floor": 0, "listing": True}

    def watch(thr: np.ndarray, bufs: list, n: int) -> None:
        if not seen["listing"] or n == 0:
            return
        value = bufs[0][:n] + bufs[1][:n] if objective == "income" else bufs[0][:n]
        i = int(np.argmax(value))
        top = int(value[i])
        if n > 4 * LIST_CAP or np.count_nonzero(value >= thr[0]) > LIST_CAP:
            # too many to list: a best-only walk from here on
            seen["listing"] = False
            thr[5] = slack
            thr[0] = max(thr[0], top - slack)
            return
        if seen["top"] is None or top > seen["top"]:
            seen["top"] = top
            beside = _greedy(graph, trains, groups, rest, best, (bufs[10][i], bufs[3][i] > 0),
                             one_bypass, objective, deadline)
            seen["floor"] = max(seen["floor"], top + beside)
            thr[0] = max(thr[0], seen["floor"] - others)

    found = enumerate_routes(graph, td, objective=objective, best_only=True, deadline=deadline,
                             slack=max(others, slack), watch=watch)
    if not len(found):
        return found, 0, (found if found.complete else None)
    value = found.value(objective)
    near = found.subset(np.flatnonzero(value >= value[0] - slack))
    whole = found if seen["listing"] and found.complete else None
    return near, seen["floor"], whole


def share(deadline: float | None, parts: int) -> float | None:
    """A walk's deadline where `parts` equal parts share the time left to `deadline`."""
    if deadline is None:
        return None
    now = time.perf_counter()
    return now + max(0.0, deadline - now) / max(1, parts)
