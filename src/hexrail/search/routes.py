"""Enumerate every legal route of one train: the `Candidates` the combiner chooses from."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np

from hexrail.graph.track import KIND_CODES, TrackGraph, may_pass
from hexrail.graph.trains import TrainData
from hexrail.rules.base import CyclicRun, EndsSubsidy, SpanBonus, VisitAllBonus, VisitBonus
from hexrail.search import _kernels as K


@dataclass(frozen=True, eq=False)
class Candidates:
    """All routes of one train, sorted by objective value (best first).

    Per route: revenue (bonuses included), subsidy, bonus part, bypasses spent, hexside
    crossings, the resource bitset (paths, hexsides and profile claims) and the span bonuses it
    claims (``span[i, k]``: the amount of the train's k-th `SpanBonus`, 0 if not claimed), all in
    sorted order;
    the ordered stops with their paid flags and the ordered chains (``~c`` = chain c run
    backwards) stay in the kernel's ragged arrays, reached through ``src``.
    """

    revenue: np.ndarray
    subsidy: np.ndarray
    bonus: np.ndarray
    bypass: np.ndarray
    crossings: np.ndarray
    res: np.ndarray
    src: np.ndarray  # sorted position → index in the ragged arrays
    node_ptr: np.ndarray
    nodes: np.ndarray
    paid: np.ndarray
    chain_ptr: np.ndarray
    chains: np.ndarray
    complete: bool  # False when a deadline cut the enumeration short
    span: np.ndarray | None = None  # int64[n, span bonuses]; None: the train has none

    def __len__(self) -> int:
        return len(self.revenue)

    def value(self, objective: str = "income") -> np.ndarray:
        return self.revenue + self.subsidy if objective == "income" else self.revenue.copy()

    def subset(self, keep: np.ndarray) -> Candidates:
        """The candidates at the sorted positions `keep` (in that order)."""
        return replace(self, revenue=self.revenue[keep], subsidy=self.subsidy[keep],
                       bonus=self.bonus[keep], bypass=self.bypass[keep],
                       crossings=self.crossings[keep], res=self.res[keep], src=self.src[keep],
                       span=None if self.span is None else self.span[keep])

    def merged(self, other: Candidates, objective: str = "income") -> Candidates:
        """These routes and `other`'s (of the same train), best first, each once (a route of
        both lists, by its track, worth, ends, stops and claims, is kept as this list has
        it); complete only if both are."""
        if not len(other):
            return replace(self, complete=self.complete and other.complete)
        n_nodes, n_chains = self.node_ptr[-1], self.chain_ptr[-1]
        node_ptr = np.concatenate([self.node_ptr, other.node_ptr[1:] + n_nodes])
        nodes = np.concatenate([self.nodes[:n_nodes], other.nodes])
        src = np.concatenate([self.src, other.src + (len(self.node_ptr) - 1)])
        cat = {f: np.concatenate([getattr(self, f), getattr(other, f)])
               for f in ("revenue", "subsidy", "bonus", "bypass", "crossings", "res")}
        span = None if self.span is None or other.span is None else \
            np.concatenate([self.span, other.span])
        value = cat["revenue"] + cat["subsidy"] if objective == "income" else cat["revenue"]
        stops = np.concatenate([np.diff(c.node_ptr)[c.src] for c in (self, other)])
        key = np.hstack([cat["res"].view(np.int64), cat["revenue"][:, None],
                         cat["subsidy"][:, None], cat["bypass"][:, None],
                         np.concatenate([self.ends(), other.ends()]), stops[:, None]]
                        + ([span] if span is not None else []))
        keep = np.ones(len(value), np.bool_)
        keep[len(self) + _twins(key, len(self))] = False
        keep = np.flatnonzero(keep)
        order = keep[np.lexsort((-cat["revenue"][keep], -value[keep]))]
        return Candidates(
            *(cat[f][order] for f in ("revenue", "subsidy", "bonus", "bypass", "crossings", "res")),
            src[order], node_ptr, nodes, np.concatenate([self.paid[:n_nodes], other.paid]),
            np.concatenate([self.chain_ptr, other.chain_ptr[1:] + n_chains]),
            np.concatenate([self.chains[:n_chains], other.chains]),
            self.complete and other.complete, None if span is None else span[order])

    def route_nodes(self, i: int) -> np.ndarray:
        k = self.src[i]
        return self.nodes[self.node_ptr[k]:self.node_ptr[k + 1]]

    def route_paid(self, i: int) -> np.ndarray:
        k = self.src[i]
        return self.paid[self.node_ptr[k]:self.node_ptr[k + 1]]

    def route_chains(self, i: int) -> np.ndarray:
        k = self.src[i]
        return self.chains[self.chain_ptr[k]:self.chain_ptr[k + 1]]

    def stop_bits(self, n_nodes: int, count: int | None = None) -> np.ndarray:
        """Per route (sorted order; the first `count` only, if given), a bitset of the stops
        it visits."""
        words = max(1, (n_nodes + 63) // 64)
        src = self.src if count is None else self.src[:count]
        return K.stop_bitsets(src, self.node_ptr, self.nodes, words)

    def ends(self) -> np.ndarray:
        """Per route (sorted order), its first and last stop."""
        first = self.nodes[self.node_ptr[self.src]]
        last = self.nodes[self.node_ptr[self.src + 1] - 1]
        return np.stack([first, last], axis=1)


def _twins(rows: np.ndarray, mine: int) -> np.ndarray:
    """Of the `rows` (int64 keys, one route per row) past the first `mine`, those equal to
    an earlier row, counted from `mine`. Rows are hashed to one word; only rows whose hash
    repeats are compared, so a collision never drops a route."""
    h = np.zeros(len(rows), np.uint64)
    with np.errstate(over="ignore"):
        for column in rows.T:
            h = (h ^ column.view(np.uint64)) * np.uint64(0x9E3779B97F4A7C15)
            h ^= h >> np.uint64(29)
    order = np.argsort(h, kind="stable")
    sorted_h = h[order]
    starts = np.flatnonzero(np.concatenate([[True], sorted_h[1:] != sorted_h[:-1]]))
    sizes = np.diff(np.append(starts, len(rows)))
    # (only groups holding a row past `mine` beside another row)
    theirs_in = np.maximum.reduceat((order >= mine).astype(np.int8), starts) > 0
    out = []
    for start, size in zip(starts[theirs_in & (sizes > 1)].tolist(),
                           sizes[theirs_in & (sizes > 1)].tolist()):
        group = order[start:start + size].tolist()  # (earliest first)
        for k, b in enumerate(group):
            if b >= mine and any((rows[a] == rows[b]).all() for a in group[:k]):
                out.append(b - mine)
    return np.asarray(out, np.int64)


def no_routes(words: int) -> Candidates:
    """The candidates of a train that may not run."""
    z = np.zeros(0, np.int64)
    return Candidates(z, z, z, z, z, np.zeros((0, words), np.uint64), z, np.zeros(1, np.int64),
                      z, np.zeros(0, np.bool_), np.zeros(1, np.int64), z, True)


MAX_ROUTES = 10_000_000  # per train: past this the answer is the best found, not proven
STEPS = 1 << 16  # walk steps between deadline checks

# Called whenever a walk pauses, in this context (a solve's thread): what runs beside the
# search looks in there (`hexrail.solve`'s model of track, which may end the search by raising).
PAUSED: ContextVar[Callable[[], None] | None] = ContextVar("hexrail_walk_paused", default=None)


NO_THRESHOLD = -(1 << 62)


def _track_view(graph: TrackGraph, junctions_twice: bool) -> tuple:
    """The walk's view of the track (`K.TrackArrays`, as a plain tuple: numba types those in
    its fast path, named tuples in a slow one), made once per graph and junction rule: with it,
    per vertex, may a route pass it again (by other track)? Junctions, where the profile says
    so (`Profile.junctions_pass_twice`)."""
    views = graph.__dict__.setdefault("_walk_views", {})
    view = views.get(junctions_twice)
    if view is None:
        again = np.zeros(graph.n_vertices, np.bool_)
        if junctions_twice:
            again[:graph.n_nodes] = graph.node_kind == KIND_CODES["junction"]
        view = views[junctions_twice] = tuple(K.TrackArrays(
            graph.n_nodes, len(graph.hex_ids), graph.adj_ptr, graph.adj_chain, graph.adj_end,
            graph.chain_ends, graph.chain_side, graph.chain_terminal, graph.chain_crossings,
            graph.chain_hex_ptr, graph.chain_hexes, graph.chain_res, graph.vertex_res,
            graph.node_hex, again))
    return view


def enumerate_routes(graph: TrackGraph, td: TrainData, *, deadline: float | None = None,
                     objective: str = "income", max_routes: int = MAX_ROUTES,
                     min_value: int | None = None, best_only: bool = False,
                     forbid: np.ndarray | None = None, partners: list[Partner] = (),
                     plan_floor: np.ndarray | None = None, slack: int = 0,
                     watch: Callable[[np.ndarray, list, int], None] | None = None) -> Candidates:
    """Every legal route of the train `td` on `graph`, best first.

    With a `deadline` (a ``time.perf_counter()`` value) the walk stops soon after it passes;
    past `max_routes` routes it stops too. Either way the result says ``complete=False``.

    Narrower walks, for the solver: `min_value` keeps only the routes worth at least that to
    the objective the train's weights were lowered for; `best_only` keeps only routes at least
    as good as every one before them less `slack` (so the result holds every route worth as
    much as the best less `slack`); `forbid` is a
    resource bitset (track another train holds) no route may use.

    With `partners` (the other trains' routes, where a plan is worth the sum of its routes and
    its routes share no track) only the routes that, beside the best routes of the partners
    sharing no track with them, reach ``plan_floor[0]`` are kept: no other route is in a plan
    worth that much. With one partner and ``plan_floor[1]`` set the floor rises, in place, to
    the best plan of a route and a partner route found (its plan rules unchecked, like a
    greedy plan's).

    `watch`, if given, is called as ``watch(thr, buffers, n)`` whenever the walk pauses (every
    `STEPS` steps, or when a buffer fills): the `n` routes written so far are in the buffers
    (`K.RouteBuffers`, unsorted), and the walk goes on keeping only the routes worth at least
    ``thr[0]``, which the watcher may raise (never lower) or, with ``thr[1]``, the best less
    ``thr[5]``.
    """
    words = graph.chain_res.shape[1]
    depth_cap = 2 * graph.n_vertices + 4
    # routes, stops, chains (a narrowed walk keeps few routes)
    caps, walk, bufs, routes, key = _scratch(
        graph, words, 1 << 10 if min_value is not None or best_only else 1 << 15, max_routes)
    state = walk[7]
    # where a route's worth is the sum of its stops' (`TrainData.arm_extra`) and routes are
    # narrowed, a route's worthier arm is walked first (`K.enumerate_anchor`, ``thr[2:]``)
    by_worth = td.arm_extra >= 0 and (min_value is not None or best_only)
    thr = np.array([NO_THRESHOLD if min_value is None else min_value, best_only, by_worth,
                    max(td.arm_extra, 0), max(td.arm_extra - int(td.hex_track_bonus.sum()), 0),
                    slack], np.int64)
    forbid = np.zeros(words, np.uint64) if forbid is None else \
        np.ascontiguousarray(forbid[:words], np.uint64)
    # The kernel's inputs by name (`K.TrackArrays`, ...), handed over as plain tuples: numba
    # types those in its fast path, named tuples in a slow one (0.1 ms a solve on small boards).
    track = _track_view(graph, td.junctions_twice)
    train = td.kernel_view
    partner = _partner_arrays(graph, partners, plan_floor, depth_cap)
    n_out = n_nodes = n_chains = 0
    complete = True
    paused = PAUSED.get()
    anchors = td.anchors
    state[0] = -1
    state[K.AT_ANCHOR] = 0
    arms, arms_of = _NO_ARMS, -1  # the arms bounded, of the anchor at that place
    # (the walk's first steps from an anchor, before its arms are bounded)
    first = ARM_AFTER if by_worth and len(td.cut_top) > 0 else NO_END
    while complete and len(anchors):
        status, n_out, n_nodes, n_chains = K.enumerate_anchors(
            anchors, arms_of, track, train, routes, n_out, n_nodes, n_chains, walk, STEPS, first,
            thr, forbid, partner, arms)
        if status == K.OK:
            break
        if watch is not None:
            watch(thr, bufs, n_out)
        k = int(state[K.AT_ANCHOR])
        if status == K.PAUSE and arms_of != k and state[K.ANCHOR_STEPS] >= first:
            # a long walk from this anchor: the best arms leaving it cost little beside it
            arms, arms_of = _arm_best(td, track, int(anchors[k])), k
        if status == K.FULL:
            # grow the buffer that ran short (a route's stops and chains need room for the
            # longest walk beyond what is filled)
            if n_out >= caps[0]:
                if caps[0] >= max_routes:
                    complete = False
                    break
                caps[0] = min(caps[0] * 2, max_routes)
            if n_nodes + depth_cap > caps[1]:
                caps[1] = 2 * (n_nodes + depth_cap)
            if n_chains + depth_cap > caps[2]:
                caps[2] = 2 * (n_chains + depth_cap)
            bufs = _grow(bufs, caps, words)
            routes = tuple(K.RouteBuffers(*bufs))
        if paused is not None:
            paused()
        if deadline is not None and time.perf_counter() > deadline:
            complete = False
    revenue, subsidy, bonus, bypass, crossings, node_ptr, nodes, paid, chain_ptr, chains, res = bufs
    revenue, subsidy = revenue[:n_out], subsidy[:n_out]
    value = revenue + subsidy if objective == "income" else revenue
    order = np.lexsort((-revenue, -value))  # best objective first, then more revenue
    # the ragged arrays: copied out of buffers kept for the next walk, else the buffers' own
    keep = _keeps(caps)
    ragged = [a[:n] for a, n in ((node_ptr, n_out + 1), (nodes, n_nodes), (paid, n_nodes),
                                 (chain_ptr, n_out + 1), (chains, n_chains))]
    found = Candidates(revenue[order], subsidy[order], bonus[:n_out][order], bypass[:n_out][order],
                       crossings[:n_out][order], res[:n_out][order], order,
                       *(a.copy() for a in ragged) if keep else ragged, complete)
    if keep:
        _KEPT.last = (key, tuple(caps), walk, bufs, routes)
    return found


# Per thread, the work arrays and route buffers of its last walk (`_scratch`).
_KEPT = threading.local()
ROUTES_KEPT = 1 << 15  # route buffers kept between walks at most this many routes long (the first sizes)


def _scratch(graph: TrackGraph, words: int, first: int, max_routes: int) -> tuple:
    """A walk's buffers: its capacities (routes, stops, chains), its work arrays and route
    buffers as the kernel's tuples (`K.WalkWork`, `K.RouteBuffers`), the route buffers as a
    list, and their key. Those of the thread's last walk on a track of these sizes, where they
    are at their first sizes, zeroed (the same tuples: the kernel's argument check passes
    them at once; taken while the walk runs, so a walk started beside it, as `_listing`'s
    greedy plans are, gets its own); else new ones."""
    key = (graph.n_vertices, len(graph.hex_ids), len(graph.chain_ends), words)
    kept = getattr(_KEPT, "last", None)
    if kept is not None and kept[0] == key and first <= kept[1][0] <= max_routes:
        _KEPT.last = None
        _, caps, walk, bufs, routes = kept
        for a in walk:
            a.fill(0)
        return list(caps), walk, bufs, routes, key
    caps = [min(first, max_routes), 1 << 18, 1 << 18]
    depth_cap = 2 * graph.n_vertices + 4
    bufs = _alloc(caps, words)
    work = [np.zeros(graph.n_vertices, np.bool_), np.zeros(len(graph.hex_ids), np.int32),
            np.zeros(4, np.int64), np.zeros((10, depth_cap), np.int64),
            np.zeros(depth_cap, np.int64), np.zeros(depth_cap, np.bool_),
            np.zeros(words, np.uint64), np.zeros(K.STATE, np.int64), np.zeros(K.TALLY, np.int64),
            np.zeros(len(graph.chain_ends), np.bool_)]
    # (one tuple while the buffers last: checked once)
    return caps, tuple(K.WalkWork(*work)), bufs, tuple(K.RouteBuffers(*bufs)), key


def _keeps(caps: list[int]) -> bool:
    """Are a walk's buffers kept for the thread's next (`_scratch`)? Where they are at their
    first sizes (a long walk's grown ones go, and its routes keep them)."""
    return caps[0] <= ROUTES_KEPT and caps[1] == caps[2] == 1 << 18


_NO_ARMS = np.zeros(0, np.int64)
ARM_UNITS = 3  # arms of at most this many units are bounded (`K.arm_bounds`), ...
ARM_STEPS = 100_000  # ... each number of units in at most this many steps of its search,
ARM_AFTER = 65_536  # once an anchor's walk takes more steps than this
NO_END = 1 << 62  # steps no walk takes


def _arm_best(td: TrainData, track: tuple, anchor: int) -> np.ndarray:
    """`K.arm_bounds` of the arms leaving `anchor`, made once per train and anchor, for a train
    with a distance (`TrainData.cut_top`): the arms a route leaves with few units left."""
    known = td.__dict__.setdefault("_arm_best", {})
    found = known.get(anchor)
    if found is None:
        found = _NO_ARMS
        for units in range(1, min(ARM_UNITS, len(td.cut_top) - 1) + 1):
            # (each unit more costs several times the search before it: stop at the budget)
            more = K.arm_bounds(anchor, units, ARM_STEPS, track, td.node_kidx, td.node_cost,
                                td.node_optional, td.node_block, td.node_weight, td.node_bound,
                                td.hex_track_bonus)
            if not len(more):
                break
            found = more
        known[anchor] = found
    return found


@dataclass(frozen=True)
class Partner:
    """Another train's routes, for a narrowed walk (`enumerate_routes(partners=...)`): every
    route of its worth at least `least` (to the same objective), best first."""

    routes: Candidates
    value: np.ndarray
    least: int


PAIR_WORK = 50_000_000  # partner routes x chain pairs past which only single chains are bounded


_EMPTY_PARTNERS: dict[tuple[int, int], K.PartnerArrays] = {}


def _partner_arrays(graph: TrackGraph, partners: list[Partner], plan_floor: np.ndarray | None,
                    depth_cap: int) -> tuple:
    """`K.PartnerArrays` of the partners, as a plain tuple."""
    words = graph.chain_res.shape[1]
    if not partners:  # the common walk: empty tables of the kernel's types (never written)
        empty = _EMPTY_PARTNERS.get((words, depth_cap))
        if empty is None:
            empty = _EMPTY_PARTNERS[words, depth_cap] = K.PartnerArrays(
                np.zeros((0, 0), np.int64), np.zeros((0, 0, 0), np.int64), np.zeros(0, np.int64),
                np.zeros((depth_cap, 0), np.int64), np.zeros(2, np.int64),
                np.zeros(0, np.int64), 0, np.zeros((0, 0), np.uint64), np.zeros(0, np.int64),
                np.zeros(0, np.int64))
        return tuple(empty if plan_floor is None else empty._replace(p_floor=plan_floor))
    ptr = np.zeros(len(partners) + 1, np.int64)
    for k, p in enumerate(partners):
        ptr[k + 1] = ptr[k] + len(p.routes)
    value = np.zeros(ptr[-1], np.int64)
    res = np.zeros((ptr[-1], words), np.uint64)
    for k, p in enumerate(partners):
        value[ptr[k]:ptr[k + 1]] = p.value
        res[ptr[k]:ptr[k + 1]] = p.routes.res[:, :words]
    # a route left out of a partner's list is worth less than its least
    fallback = np.array([p.least - 1 for p in partners], np.int64)
    top = np.array([max(int(p.value[0]) if len(p.value) else 0, p.least - 1, 0)
                    for p in partners], np.int64)
    # a chain's track with its ends (a walk that runs it passes both)
    unit = graph.chain_res.copy()
    for c, ends in enumerate(graph.chain_ends):
        for x in ends:
            if x >= graph.n_nodes:
                r = graph.vertex_res[x]
                unit[c, r >> 6] |= np.uint64(1) << np.uint64(r & 63)
    n_units = len(unit)
    pairs = n_units * n_units // 2 * max(1, (int(ptr[-1]) + 63) // 64) <= PAIR_WORK
    single, pair, clash = K.partner_tables(ptr, value, res, fallback, unit, pairs)
    lone = len(partners) == 1
    floor = np.zeros(2, np.int64) if plan_floor is None else plan_floor
    return tuple(K.PartnerArrays(single, pair, top,
                                 np.zeros((depth_cap, len(partners)), np.int64), floor,
                                 value if lone else value[:0], int(fallback[0]) if lone else 0,
                                 clash, np.zeros(depth_cap if lone else 0, np.int64),
                                 np.full(depth_cap if lone else 0, K.NO_KEY, np.int64)))


def _alloc(caps: list[int], words: int) -> list[np.ndarray]:
    # Uninitialised: the kernel writes every slot it reports as filled.
    routes, stops, chains = caps
    bufs = [
        np.empty(routes, np.int64), np.empty(routes, np.int64), np.empty(routes, np.int64),
        np.empty(routes, np.int64), np.empty(routes, np.int64),
        np.empty(routes + 1, np.int64), np.empty(stops, np.int64), np.empty(stops, np.bool_),
        np.empty(routes + 1, np.int64), np.empty(chains, np.int64),
        np.empty((routes, words), np.uint64),
    ]
    bufs[5][0] = 0
    bufs[8][0] = 0
    return bufs


def _grow(bufs: list[np.ndarray], caps: list[int], words: int) -> list[np.ndarray]:
    """Buffers at the new capacities, keeping what the old ones hold (unchanged ones reused)."""
    new = _alloc(caps, words)
    out = []
    for old, fresh in zip(bufs, new):
        if len(old) == len(fresh):
            out.append(old)
        else:
            fresh[:len(old)] = old
            out.append(fresh)
    return out


def with_span_bonuses(graph: TrackGraph, td: TrainData, cands: Candidates,
                      objective: str = "income") -> Candidates:
    """The candidates with the train's once-per-round bonuses priced in.

    A route starting at a `SpanBonus`'s start (one of its two end stops) and containing its
    target earns it, less its price per hex-side crossing between the two along the route; a
    `VisitBonus` pays every route for its visited stops. Because a bonus pays once per round,
    each such route also stays a candidate without it (and, with several, with every subset),
    so that another train may claim it; the combiner keeps claims disjoint (`hexrail.solve`).
    """
    bonuses = td.span_bonuses
    k = len(bonuses)
    if not k:
        return cands
    n = len(cands)
    amounts = np.zeros((n, k), np.int64)
    visits = [j for j, b in enumerate(bonuses) if isinstance(b, VisitBonus)]
    visit_all = [j for j, b in enumerate(bonuses) if isinstance(b, VisitAllBonus)]
    spans = [b if isinstance(b, SpanBonus) else None for b in bonuses]
    starts = [{graph.node_index[r] for r in b.start if r in graph.node_index} if b else set() for b in spans]
    targets = [{graph.node_index[r] for r in b.target if r in graph.node_index} if b else set() for b in spans]
    wanted = np.array(sorted(set().union(*starts) | set().union(*targets)), np.int64)
    # Only routes that contain some start or target stop are walked.
    lengths = cands.node_ptr[1:] - cands.node_ptr[:-1]
    hit = np.zeros(len(lengths), np.int64)
    if len(wanted) and len(cands.nodes):
        np.add.at(hit, np.repeat(np.arange(len(lengths)), lengths), np.isin(cands.nodes, wanted))
    # (earlier passes may have dropped some of the walk's routes: those map to -1)
    raw_to_sorted = np.full(len(lengths), -1, np.int64)
    raw_to_sorted[cands.src] = np.arange(n)
    for j in visits:
        amounts[:, j] = bonuses[j].earned(lengths[cands.src])
    for j in (j for j, b in enumerate(bonuses) if isinstance(b, EndsSubsidy)):
        base = np.zeros(graph.n_nodes + 1, np.int64)  # (the last entry: a route of one stop)
        for ref, value in bonuses[j].values:
            if ref in graph.node_index:
                base[graph.node_index[ref]] = value
        first = np.where(lengths >= 2, cands.nodes[cands.node_ptr[:-1]], graph.n_nodes)
        last = np.where(lengths >= 2, cands.nodes[np.maximum(cands.node_ptr[1:] - 1, 0)], graph.n_nodes)
        amounts[:, j] = ((base[first] + base[last]) // 2)[cands.src]
    if visit_all and n:
        # per route, which of the levels' needs (a stop, or any stop of a hex) it meets
        items = sorted({x for j in visit_all for need, _ in bonuses[j].levels for x in need})
        meets = np.zeros((len(graph.node_ref), len(items)), np.bool_)
        for i, x in enumerate(items):
            meets[[v for v, ref in enumerate(graph.node_ref)
                   if ref == x or ref.rpartition("-")[0] == x], i] = True
        met = np.zeros((len(lengths), len(items)), np.bool_)
        walked = np.flatnonzero(lengths > 0)
        if len(walked):
            met[walked] = np.logical_or.reduceat(meets[cands.nodes[:int(cands.node_ptr[-1])]],
                                                 cands.node_ptr[walked], axis=0)
        met = met[cands.src]
        for j in visit_all:
            earned = np.zeros(n, np.int64)
            for need, amount in reversed(bonuses[j].levels):  # the first level met pays
                cols = [items.index(x) for x in need]
                earned[met[:, cols].all(axis=1)] = amount
            amounts[:, j] = earned
    for raw in np.flatnonzero((hit >= 2) & (raw_to_sorted >= 0)).tolist():
        at = _crossings_at_nodes(graph, cands.chains[cands.chain_ptr[raw]:cands.chain_ptr[raw + 1]])
        ends = {int(cands.nodes[cands.node_ptr[raw]]), int(cands.nodes[cands.node_ptr[raw + 1] - 1])}
        for j, b in enumerate(spans):
            if b is None:
                continue
            gaps = [abs(at[a] - at[c]) for a in starts[j] if a in ends and a in at
                    for c in targets[j] if c in at and c != a]
            if gaps:
                amounts[raw_to_sorted[raw], j] = b.earned(min(gaps))
    # Every route once per subset of the bonuses it earns (the empty subset included): the
    # routes earning none first, then route by route, its subsets by size, then in order. Of
    # the copies of one bonus paying several routes (`hexrail.graph.trains.claims`), a subset
    # holds one at most.
    earns = ((amounts > 0) << np.arange(k, dtype=np.int64)).sum(axis=1)
    kin = [next(i for i, c in enumerate(bonuses) if c == replace(b, name=c.name))
           if isinstance(b, EndsSubsidy) and b.routes > 1 else j for j, b in enumerate(bonuses)]
    parts = []
    for mask in np.unique(earns).tolist():
        rows = np.flatnonzero(earns == mask)
        bits = [j for j in range(k) if mask >> j & 1]
        subsets = [sum(1 << j for j in c) for size in range(len(bits) + 1)
                   for c in combinations(bits, size)
                   if len({kin[j] for j in c}) == len(c)]
        parts += [(rows, np.full(len(rows), s, np.int64), np.full(len(rows), r, np.int64))
                  for r, s in enumerate(subsets)]
    idx, claim, rank = (np.concatenate(p) for p in zip(*parts)) if parts else \
        (np.zeros(0, np.int64),) * 3
    first = np.lexsort((rank, idx, earns[idx] != 0))
    idx, claim = idx[first], claim[first]
    span = np.where((claim[:, None] >> np.arange(k)) & 1, amounts[idx], 0).astype(np.int64)
    paid_as = np.array([isinstance(b, EndsSubsidy) for b in bonuses], np.bool_)
    extra = span[:, ~paid_as].sum(axis=1)  # revenue
    subsidy = cands.subsidy[idx] + span[:, paid_as].sum(axis=1)
    revenue = cands.revenue[idx] + extra
    value = revenue + subsidy if objective == "income" else revenue
    order = np.lexsort((-revenue, -value))
    idx = idx[order]
    return replace(cands, revenue=revenue[order], subsidy=subsidy[order],
                   bonus=cands.bonus[idx] + extra[order], bypass=cands.bypass[idx],
                   crossings=cands.crossings[idx], res=cands.res[idx], src=cands.src[idx],
                   span=span[order])


def with_revisits(graph: TrackGraph, td: TrainData, cands: Candidates) -> Candidates:
    """The candidates that run to a revisit stop twice legally (`hexrail.rules.base.Revisit`),
    and every other one; sorted order kept.

    The graph gives each revisit stop a twin node over copies of its chains (same resources).
    A route through the twin must also run to the original, where the train may end; between
    the two, run to a stop where it may end in each of the revisit's hexes; and use no track
    twice (a chain and its copy). Of the two namings of one such route (which visit is the
    twin), one is kept; a route through the twin alone is the same as through the original,
    which is there too."""
    twins = np.flatnonzero(graph.node_twin >= 0)
    if not len(twins) or not len(cands):
        return cands
    between = {}
    for r in td.revisits:
        original = graph.node_index.get(r.stop)
        if original is not None:
            hexes = [graph.hex_ids.index(h) for h in r.between if h in graph.hex_ids]
            between[int(np.flatnonzero(graph.node_twin == original)[0])] = (original, hexes)
    chain_bits = [sum(int(w) << (64 * k) for k, w in enumerate(row)) for row in graph.chain_res]
    lengths = cands.node_ptr[1:] - cands.node_ptr[:-1]
    has_twin = np.zeros(len(lengths), np.int64)
    np.add.at(has_twin, np.repeat(np.arange(len(lengths)), lengths),
              np.isin(cands.nodes[:int(cands.node_ptr[-1])], twins))
    ok_raw = np.ones(len(lengths), np.bool_)
    seen: set[bytes] = set()
    for raw in np.flatnonzero(has_twin).tolist():
        nodes = cands.nodes[cands.node_ptr[raw]:cands.node_ptr[raw + 1]].tolist()
        ok = True
        for twin in [v for v in nodes if graph.node_twin[v] >= 0]:
            original, hexes = between.get(twin, (int(graph.node_twin[twin]), None))
            if hexes is None or original not in nodes or not td.node_can_end[original]:
                ok = False
                break
            a, b = sorted((nodes.index(original), nodes.index(twin)))
            if not all(any(int(graph.node_hex[v]) == h and td.node_can_end[v]
                           for v in nodes[a + 1:b]) for h in hexes):
                ok = False
                break
        used = 0
        for c in cands.chains[cands.chain_ptr[raw]:cands.chain_ptr[raw + 1]].tolist():
            bits = chain_bits[c if c >= 0 else ~c]
            if used & bits:
                ok = False
                break
            used |= bits
        key = used.to_bytes((used.bit_length() + 7) // 8 or 1, "little")
        if ok and key in seen:
            ok = False  # the other naming of a route already kept
        seen.add(key)
        ok_raw[raw] = ok
    keep = np.flatnonzero(ok_raw[cands.src])
    return replace(cands, revenue=cands.revenue[keep], subsidy=cands.subsidy[keep],
                   bonus=cands.bonus[keep], bypass=cands.bypass[keep],
                   crossings=cands.crossings[keep], res=cands.res[keep], src=cands.src[keep],
                   span=None if cands.span is None else cands.span[keep])


def with_cyclic_runs(graph: TrackGraph, td: TrainData, cands: Candidates,
                     objective: str = "income", *, deadline: float | None = None,
                     max_routes: int = MAX_ROUTES) -> Candidates:
    """The candidates plus every run the train may make over its cyclic patterns
    (`hexrail.rules.base.CyclicRun`), each as one more candidate: its visits are its stops (all
    paid, repeats kept), its legs' chains its track, their resources its resource bits.

    Legs are walked here in Python over the chains, with the kernel's rules for branch points
    and terminal track; a leg passes through no vertex twice, nothing the train may not pass
    (`node_block`) and no stop where it may end. Runs of every length from the pattern's
    `min_visits` to its `max_visits` are kept: a shorter run leaves track to the other trains. Past the `deadline`
    or `max_routes` runs the walk stops and the result says ``complete=False``.
    """
    runs = [r for r in td.cyclic_runs if all(ref in graph.node_index for ref in r.cycle)]
    if not runs:
        return cands
    words = cands.res.shape[1]
    chain_bits = [sum(int(w) << (64 * k) for k, w in enumerate(row)) for row in graph.chain_res]
    found: list[tuple[list[int], list[int], int, int, int]] = []  # visits, chains, bits,
    #                                                                  crossings, revenue
    steps = [0]
    stopped = [False]

    def cut() -> bool:
        """Has the walk run past its deadline or its route cap? (the clock read every STEPS)"""
        steps[0] += 1
        if not stopped[0] and (len(found) >= max_routes or (
                deadline is not None and steps[0] % STEPS == 0 and time.perf_counter() > deadline)):
            stopped[0] = True
        return stopped[0]

    def legs(a: int, b: int, used: int):
        """Every leg from node a to node b over resources not in `used`:
        (oriented chains, resource bits, crossings)."""
        visited = {a}
        path: list[int] = []

        def walk(v: int, arrived: int | None, fwd: bool, bits: int, cross: int):
            for slot in range(int(graph.adj_ptr[v]), int(graph.adj_ptr[v + 1])):
                if cut():
                    return
                c = int(graph.adj_chain[slot])
                end = int(graph.adj_end[slot])
                u = int(graph.chain_ends[c, 1 - end])
                if u in visited or (u < graph.n_nodes and graph.node_twin[u] >= 0):
                    continue  # a twin node is its original again, over the same track
                add = 0
                if arrived is not None:
                    if v >= graph.n_nodes:
                        if graph.chain_side[c, end] == graph.chain_side[arrived, 1 if fwd else 0]:
                            continue
                        add = 1
                    elif not may_pass(graph.chain_terminal[arrived, 1 if fwd else 0],
                                      graph.chain_terminal[c, end]):
                        continue
                new = chain_bits[c]
                if u >= graph.n_nodes:
                    new |= 1 << int(graph.vertex_res[u])
                if new & (used | bits):
                    continue
                path.append(c if end == 0 else ~c)
                here = cross + add + int(graph.chain_crossings[c])
                if u == b:
                    yield list(path), bits | new, here
                elif u >= graph.n_nodes or not (
                        td.node_block[u] or (td.node_kidx[u] >= 0 and td.node_can_end[u])):
                    visited.add(u)
                    yield from walk(u, c, end == 0, bits | new, here)
                    visited.discard(u)
                path.pop()

        yield from walk(a, None, True, 0, 0)

    def extend(run: CyclicRun, start: int, visits: list[int], chains: list[int], bits: int,
               cross: int) -> None:
        """Record the run so far, then every way on by one more leg."""
        if len(visits) >= run.min_visits:
            pays = sum(run.value_of(graph.node_ref[v]) for v in visits)
            found.append((list(visits), list(chains), bits, cross, pays))
        if len(visits) >= run.max_visits:
            return
        target = graph.node_index[run.cycle[(start + len(visits)) % len(run.cycle)]]
        for leg, leg_bits, leg_cross in legs(visits[-1], target, bits):
            visits.append(target)
            extend(run, start, visits, chains + leg, bits | leg_bits, cross + leg_cross)
            visits.pop()

    for run in runs:
        for start in run.starts:
            extend(run, start, [graph.node_index[run.cycle[start]]], [], 0, 0)
    complete = cands.complete and not stopped[0]
    if not found:
        return replace(cands, complete=complete)
    k = len(found)
    n_raw = len(cands.node_ptr) - 1
    node_base, chain_base = int(cands.node_ptr[-1]), int(cands.chain_ptr[-1])
    new_nodes = np.concatenate([np.asarray(v, np.int64) for v, *_ in found])
    new_chains = np.concatenate([np.asarray(c, np.int64) for _, c, *_ in found])
    node_ptr = np.concatenate([cands.node_ptr, node_base + np.cumsum([len(v) for v, *_ in found])])
    chain_ptr = np.concatenate([cands.chain_ptr,
                                chain_base + np.cumsum([len(c) for _, c, *_ in found])])
    res = np.zeros((k, words), np.uint64)
    for i, (_, _, bits, *_) in enumerate(found):
        for w in range(words):
            res[i, w] = np.uint64((bits >> (64 * w)) & ((1 << 64) - 1))
    revenue = np.concatenate([cands.revenue, [pays for *_, pays in found]]).astype(np.int64)
    subsidy = np.concatenate([cands.subsidy, np.zeros(k, np.int64)])
    zeros = np.zeros(k, np.int64)
    value = revenue + subsidy if objective == "income" else revenue
    order = np.lexsort((-revenue, -value))
    span = None if cands.span is None else np.concatenate(
        [cands.span, np.zeros((k, cands.span.shape[1]), np.int64)])[order]
    return Candidates(
        revenue[order], subsidy[order], np.concatenate([cands.bonus, zeros])[order],
        np.concatenate([cands.bypass, zeros])[order],
        np.concatenate([cands.crossings, [c for _, _, _, c, _ in found]]).astype(np.int64)[order],
        np.concatenate([cands.res, res])[order],
        np.concatenate([cands.src, n_raw + np.arange(k)])[order],
        node_ptr, np.concatenate([cands.nodes[:node_base], new_nodes]),
        np.concatenate([cands.paid[:node_base], np.ones(len(new_nodes), np.bool_)]),
        chain_ptr, np.concatenate([cands.chains[:chain_base], new_chains]), complete, span)


def _crossings_at_nodes(graph: TrackGraph, chains: np.ndarray) -> dict[int, int]:
    """Hex-side crossings from the route's first stop to each node it passes (``~c``: chain c
    run backwards; a branch point passed is one crossing, as in the kernel)."""
    if not len(chains):
        return {}
    c0 = int(chains[0])
    first = int(graph.chain_ends[c0, 0] if c0 >= 0 else graph.chain_ends[~c0, 1])
    at = {first: 0}
    total = 0
    for c in chains.tolist():
        cc, fwd = (c, True) if c >= 0 else (~c, False)
        a, b = (int(x) for x in graph.chain_ends[cc])
        here, there = (a, b) if fwd else (b, a)
        if here >= graph.n_nodes:
            total += 1
        total += int(graph.chain_crossings[cc])
        if there < graph.n_nodes:
            at[there] = total
    return at
