"""Choose one route per train, exactly: branch and bound over candidate bitsets."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from hexrail.combine import _kernels as K

SLICE = 1_000_000  # work (nodes and candidates scanned) between deadline checks


@dataclass(frozen=True)
class Selection:
    """The chosen candidate per train (-1 = idle) and what it is worth."""

    choice: tuple[int, ...]
    value: int
    optimal: bool
    upper_bound: int
    nodes: int
    # When routes are coupled (stops paying once), what each chosen route is paid: per train a
    # dict of RoutePlan overrides (revenue, subsidy, paid), or None to keep the candidate's own.
    routes: tuple[dict | None, ...] | None = None
    # Routes joined into sets: (train indices, the two end node ids, the set's bonus).
    sets: tuple[tuple[tuple[int, ...], tuple[int, int], int], ...] = ()
    # The order the plan lists the trains' routes in (None: train order); where routes form
    # sets, the order they are formed in.
    order: tuple[int, ...] | None = None


def combine_disjoint(values: list[np.ndarray], res: list[np.ndarray], groups: list[int], *,
                     deadline: float | None = None, meets: list[np.ndarray] | None = None,
                     required: int = 0, region_limits: np.ndarray | None = None,
                     stops: list[np.ndarray] | None = None) -> Selection:
    """Best choice of one candidate per train such that no two share a resource bit.

    `values[t]` must be sorted descending; `groups[t]` is equal for trains with identical
    candidate lists (their choices are interchangeable, so only one order is searched).
    With `required` (bits of the "one route must ..." rules, `hexrail.stage.required`) and
    `meets` (per train, the bits each candidate meets) each bit needs a running route that
    meets it, and per region r (`region_limits`) at most that many running routes have bit
    ``REGION << r``; with `stops` (per train, bitsets of the candidates' stops) the running routes
    must form one graph through shared stops.
    """
    n_trains = len(values)
    if n_trains == 0:
        return Selection((), 0, True, 0, 0)
    best_each = [int(v[0]) if len(v) else 0 for v in values]
    # Search the most valuable trains first; identical trains stay side by side.
    order = sorted(range(n_trains), key=lambda t: (-best_each[t], groups[t], t))
    ptr = np.zeros(n_trains + 1, np.int64)
    for k, t in enumerate(order):
        ptr[k + 1] = ptr[k] + len(values[t])
    words = max(r.shape[1] for r in res) if res else 1
    all_value = np.concatenate([values[t] for t in order]).astype(np.int64) if ptr[-1] else \
        np.zeros(0, np.int64)
    all_res = np.zeros((int(ptr[-1]), words), np.uint64)
    for k, t in enumerate(order):
        all_res[ptr[k]:ptr[k + 1], :res[t].shape[1]] = res[t]
    same = np.array([k > 0 and groups[order[k]] == groups[order[k - 1]] for k in range(n_trains)],
                    np.bool_)
    n_all = int(ptr[-1])
    cand_meets = np.zeros(n_all, np.int64)
    limits = np.zeros(0, np.int64) if region_limits is None else region_limits
    if (limits >= n_trains).all():
        limits = limits[:0]  # no region can hold more routes than the plan has: no rule
    if required or len(limits):
        cand_meets = np.concatenate([meets[t] for t in order]) if n_all else cand_meets
    stop_words = max((s.shape[1] for s in stops), default=1) if stops is not None else 1
    cand_stops = np.zeros((n_all, stop_words), np.uint64)
    if stops is not None:
        for k, t in enumerate(order):
            cand_stops[ptr[k]:ptr[k + 1], :stops[t].shape[1]] = stops[t]
    rules = (cand_meets, cand_stops, required, stops is not None, limits)

    # Russian-doll bounds: the exact best of the last trains alone, solved smallest first,
    # bounds what those trains can add under any choice of the earlier ones.
    suffix = np.zeros(n_trains + 1, np.int64)
    nodes = 0
    optimal = True
    for k in range(n_trains - 1, -1, -1):
        if k and deadline is not None and time.perf_counter() > deadline:
            # out of time: the train's best route on top of the tail's bound is a bound too
            suffix[k] = suffix[k + 1] + max(0, best_each[order[k]])
            continue
        # the tail problems drop the plan rules: a relaxation, so still a bound
        sub = _search(ptr[k:] - ptr[k], all_value[ptr[k]:], all_res[ptr[k]:],
                      np.concatenate([[False], same[k + 1:]]), suffix[k:], deadline,
                      rules if k == 0 else (cand_meets[ptr[k]:], cand_stops[ptr[k]:], 0, False, limits[:0]))
        suffix[k] = sub[3]  # its upper bound (its optimum when it finished)
        nodes += sub[4]
        if k == 0:
            best, best_choice, optimal = sub[0], sub[1], sub[2]
    choice = [-1] * n_trains
    for k, t in enumerate(order):
        c = int(best_choice[k])
        choice[t] = c if c < len(values[t]) else -1
    return Selection(tuple(choice), int(best), optimal, int(suffix[0]), nodes)


def greedy_value(values: list[np.ndarray], res: list[np.ndarray], groups: list[int] | None = None,
                 deadline: float | None = None) -> int:
    """A quick plan value to beat: each train in turn takes its best route that fits the
    routes taken before, every train given the first turn once (one of trains alike, by
    `groups`); the best total (plan rules are not checked, so the plan may not be allowed).
    Past the `deadline` the best so far."""
    n = len(values)
    best = 0
    firsts = list(range(n)) if groups is None else list({g: t for t, g in reversed(
        list(enumerate(groups)))}.values())
    for first in firsts:
        if deadline is not None and first != firsts[0] and time.perf_counter() > deadline:
            break
        words = max((r.shape[1] for r in res), default=1)
        mask = np.zeros(words, np.uint64)
        total = 0
        for t in [first] + [t for t in range(n) if t != first]:
            r = res[t]
            j = K._first_free(0, len(values[t]), r, mask[:r.shape[1]])
            if j < len(values[t]):
                total += int(values[t][j])
                mask[:r.shape[1]] |= r[j]
        best = max(best, total)
    return best


def worth_keeping(values: list[np.ndarray], floor: int) -> list[int]:
    """Per train, how many of its candidates (sorted best first) can be in a plan worth at
    least `floor`: the other trains add at most their best routes, so a route worth less than
    `floor` minus those cannot."""
    tops = [int(v[0]) if len(v) else 0 for v in values]
    total = sum(tops)
    return [int(np.searchsorted(-v, -(floor - (total - top)), side="right"))
            for v, top in zip(values, tops)]


def _search(ptr: np.ndarray, value: np.ndarray, res: np.ndarray, same: np.ndarray,
            suffix: np.ndarray, deadline: float | None, rules: tuple):
    """Branch and bound over levels; returns (best, choice, optimal, upper bound, nodes)."""
    n_levels = len(ptr) - 1
    words = res.shape[1]
    # Greedy incumbents: trains in turn take their best route that still fits; trying each
    # train first (one of trains alike) gives a strong starting bound for little work, while
    # the deadline allows.
    best = -1
    best_choice = np.zeros(n_levels, np.int64)
    for first in range(n_levels):
        if first and (same[first] or (deadline is not None and time.perf_counter() > deadline)):
            continue
        turn = [first] + [k for k in range(n_levels) if k != first]
        mask = np.zeros(words, np.uint64)
        picks = np.zeros(n_levels, np.int64)
        total = 0
        for k in turn:
            lo, hi = int(ptr[k]), int(ptr[k + 1])
            j = K._first_free(lo, hi, res, mask)
            picks[k] = j - lo  # == number of candidates: idle
            if j < hi:
                total += int(value[j])
                mask |= res[j]
        if total > best and K.plan_ok(ptr, picks, *rules):
            best, best_choice = total, picks
    if best < 0:
        best, best_choice = 0, ptr[1:] - ptr[:-1]  # every train idle: always allowed

    idx = np.full(n_levels, -1, np.int64)
    used = np.zeros((n_levels + 1, words), np.uint64)
    cur = np.zeros(n_levels + 1, np.int64)
    hint = np.zeros((n_levels + 1, n_levels), np.int64)
    level = 0
    nodes = 0
    optimal = True
    while True:
        status, level, best, spent = K.branch_and_bound(
            ptr, value, res, same, suffix, level, idx, used, cur, hint, best, best_choice, SLICE,
            *rules)
        nodes += spent
        if status == K.DONE:
            break
        if deadline is not None and time.perf_counter() > deadline:
            optimal = False
            break
    upper = best
    if not optimal:
        # Unexplored: at each open level, the rest of its (sorted) candidates from idx on.
        for k in range(level + 1):
            n = ptr[k + 1] - ptr[k]
            i = max(int(idx[k]), 0)
            v = int(value[ptr[k] + i]) if i < n else 0
            upper = max(upper, int(cur[k]) + v + int(suffix[k + 1]))
    return best, best_choice, optimal, upper, nodes
