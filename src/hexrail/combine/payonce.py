"""Choose one route per train when what a route earns depends on the others: branch and bound.

The rules this combiner handles (track is shared between trains): every location (a stop, or
all stops of one offboard area) pays once across the company's routes, trains with a pay
limit (x/y) choose their paid stops jointly with the others; hex subsidies pay once per hex;
set trains (`Profile.set_role`) are paid for the ends of the set their routes join into, plus
the set's bonus; a route holds the home token; the routes meet at stops.

**Search.** Trains are levels: set trains first, then the best earners; a level tries its
candidates by their *gain* — what they add to the locations and hexes the routes above already
cover, never more than the route earns alone — and idleness last. A partial choice is cut when

    w(covered locations, each at its best value) + hex subsidies + bonuses so far
      + sum over the levels below of their best gain + join slack

cannot beat the best plan found. That sum bounds every completion: whatever the final
assignment of paid stops, the stops paid to a lower train outside the covered ones are among
its route's stops, and no train is paid more than its route alone. Set bonuses count each
route's own (its set of one); joining sets can add at most ``join slack`` per join (from the
triangle of the profile's set bonuses over all possible ends). Three refinements:

- once every set train is placed, its sets are formed and priced exactly (only set ends pay)
  and the temporary-train rules checked, which cuts whole subtrees;
- the other trains' gains together never exceed their best joint value without sets and
  legality checks (found first by the same search), since their gains overlap;
- identical trains take increasing candidate indices (candidates sorted by what they earn
  alone), so the trains after one earn at most its candidates' best from its index on.

**Leaves** are priced exactly: sets are formed as 18xx.games forms them (`sets.build_sets`), the
temporary-train rules checked, home and meeting checked on the visited stops, and the paid
stops chosen greedily by value over the union of the trains' pay matroids (a stop goes to any
train that can still take it, moving others along an exchange path), which is exact for
matroids.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from itertools import combinations, permutations, product
from typing import TYPE_CHECKING

import numpy as np

from hexrail.combine import _kernels as K
from hexrail.combine.bnb import Selection
from hexrail.combine.cpsat import _routes, home_nodes, locations
from hexrail.combine.sets import build_sets, set_ends, sets_legal
from hexrail.graph.track import KIND_CODES
from hexrail.graph.trains import NO_LIMIT
from hexrail.rules.base import SET_TEMPORARY

_OFFBOARD = KIND_CODES["offboard"]

if TYPE_CHECKING:
    from hexrail.solve import Prepared


@dataclass
class _Train:
    """One train's candidates as the search sees them (those kept after dominance)."""

    keep: np.ndarray  # candidate indices
    pay: np.ndarray  # (n, locations) int64: what each payable location is worth to the plan
    alone: np.ndarray  # (n,) what the route's stops earn alone
    extra: np.ndarray  # (n,) route bonus plus, for set trains, the bonus of a set of one
    hexes: np.ndarray | None  # (n, hexes) bool, for trains with a hex subsidy
    stops: list[list[int]]  # visited stops
    payable: list[dict[int, int]]  # location -> the stop paying it
    ends: list[tuple[int, int]]
    keys: list[tuple[int, int]]  # end keys (stop, entry hex) for set bonuses
    by_end: dict | None = None  # set trains: stop -> candidates ending there (built lazily)
    ends_arr: np.ndarray = None  # `ends` as an (n, 2) array
    # sparse rows of `pay` and `hexes` for the kernels
    pay_ptr: np.ndarray = None
    pay_loc: np.ndarray = None
    pay_w: np.ndarray = None
    hex_ptr: np.ndarray = None
    hex_idx: np.ndarray = None

    def __post_init__(self) -> None:
        self.ends_arr = np.asarray(self.ends, np.int64).reshape(len(self.ends), 2)
        rows, cols = np.nonzero(self.pay)
        self.pay_ptr = np.searchsorted(rows, np.arange(len(self.alone) + 1)).astype(np.int64)
        self.pay_loc = cols.astype(np.int64)
        self.pay_w = self.pay[rows, cols].astype(np.int64)
        if self.hexes is not None:
            rows, cols = np.nonzero(self.hexes)
            self.hex_ptr = np.searchsorted(rows, np.arange(len(self.alone) + 1)).astype(np.int64)
            self.hex_idx = cols.astype(np.int64)
        else:
            self.hex_ptr = np.zeros(len(self.alone) + 1, np.int64)
            self.hex_idx = np.zeros(0, np.int64)


def payonce_applies(prep: Prepared) -> bool:
    """Can this combiner take the position? Track must be shared (no resources to split),
    bypasses uncounted, one hex subsidy amount, and a stop worth the same to every train
    that can be paid for it (so paying it greedily by value is exact)."""
    rules = prep.rules
    if not rules.share_track or rules.max_bypass != 0 or len({a for a in prep.hex_subsidy if a}) > 1:
        return False
    for s in range(prep.graph_of(0).n_nodes) if prep.trains else ():
        worth = {int(td.node_weight[s]) for td in prep.trains if td.node_weight[s] > 0}
        if len(worth) > 1:
            return False
    return True


def combine_payonce(prep: Prepared, *, deadline: float | None = None) -> Selection:
    """Exact best choice under stops paying once, hex subsidies and sets (module docstring)."""
    return _Search(prep, deadline).run()


class _Search:
    def __init__(self, prep: Prepared, deadline: float | None, only: list[int] | None = None,
                 checks: bool = True, trains: list[_Train] | None = None):
        """`only`: the trains that may run (the others stay idle); `checks`: enforce the home
        route and meeting routes (off for a bound)."""
        self.prep, self.deadline, self.checks = prep, deadline, checks
        self.n_trains = len(prep.trains)
        income = prep.objective == "income"
        # Income ranks plans by revenue + subsidy, then revenue: both ride in one integer.
        self.scale = (1 << 22) if income else 1
        self.loc = locations(prep)
        self.n_loc = max(self.loc, default=-1) + 1
        graph = prep.graphs[next(iter(prep.graphs))]
        self.graph = graph
        self.hex_amount = max(prep.hex_subsidy, default=0)
        self.hex_weight = self.hex_amount * self.scale if income else 0
        self.bonus_cache: dict = {}
        self.trains = trains or [self._train(t) for t in range(self.n_trains)]
        # per train, its binding pay limits: (stop kinds, how many of them it may be paid for)
        self.caps = [self._caps(t) for t in range(self.n_trains)]
        runs = set(range(self.n_trains) if only is None else only)
        self.set_trains = [t for t in range(self.n_trains) if prep.set_role[t] and t in runs]
        self.slack = self._join_slack() if len(self.set_trains) > 1 else 0
        self.home = None
        if prep.rules.home_route and checks:
            self.home = [home_nodes(prep, t) for t in range(self.n_trains)]
        # levels: set trains first (their sets are priced, and checked, once all are placed),
        # then the best earners; identical trains next to each other
        self.order = sorted(runs,
                            key=lambda t: (not prep.set_role[t], -int(self.trains[t].alone.max(initial=0)
                                                + self.trains[t].extra.max(initial=0)),
                                           prep.groups[t], t))
        self.best_value = -1
        self._sets_priced = False
        self._arrangement: tuple = ((), frozenset())
        self.rev_scale = self.scale + (1 if self.scale > 1 else 0)  # a revenue unit, scaled
        self.best_choice: tuple[int, ...] = tuple([-1] * self.n_trains)
        self.nodes = 0
        self.timed_out = False
        # What the trains after a level (set trains aside) can earn at most, together: a cap on
        # their gains, which overlap each other (found by this search on those trains alone,
        # without legality checks).
        self.caps_from: dict[int, int] = {}
        if checks:
            n_set = len(self.set_trains)
            for start in range(n_set if n_set else 1, len(self.order) - 1):
                sub = _Search(prep, deadline, only=self.order[start:], checks=False,
                              trains=self.trains)
                sub.run()
                self.nodes += sub.nodes
                if not sub.timed_out:
                    self.caps_from[start] = sub.best_value

    # -- data -----------------------------------------------------------------------------
    def _weight(self, t: int, s: int) -> int:
        td = self.prep.trains[t]
        if self.prep.objective == "income":
            return (int(td.node_value[s]) + int(td.node_subsidy[s])) * self.scale + int(td.node_value[s])
        return int(td.node_value[s])

    def _train(self, t: int) -> _Train:
        prep = self.prep
        rules = prep.rules
        reduce = rules.share_track and rules.max_bypass == 0
        r = _routes(prep, t, reduce)
        n = len(r.keep)
        td = prep.trains[t]
        pay = np.zeros((n, self.n_loc), np.int64)
        payable: list[dict[int, int]] = []
        set_train = bool(prep.set_role[t])
        for k in range(n):
            mine: dict[int, int] = {}
            for s in (r.ends[k].tolist() if set_train else r.stops[k]):
                w = self._weight(t, s)
                # a kind the train's rows pay none of (an express train's towns) is not payable
                if w > 0 and (set_train or td.pay_cap[1 << int(td.node_kidx[s])] > 0):
                    mine[self.loc[s]] = s
                    pay[k, self.loc[s]] = w
            payable.append(mine)
        cands = prep.candidates[t]
        bonus = cands.bonus[r.keep].astype(np.int64) * (self.scale + (1 if self.scale > 1 else 0))
        keys: list[tuple[int, int]] = []
        ends = [tuple(e) for e in r.ends.tolist()]
        if set_train:
            entry = _entry_hexes(prep, t, r.keep)
            for k, (a, b) in enumerate(ends):
                keys.append((self._key(a, entry[k][0]), self._key(b, entry[k][1])))
            own = np.array([self._set_bonus(ka, kb) for ka, kb in keys], np.int64)
            alone = pay.sum(axis=1)
            extra = bonus + own * (self.scale + (1 if self.scale > 1 else 0))
        else:
            alone = (cands.value(prep.objective)[r.keep] - cands.bonus[r.keep]).astype(np.int64)
            alone = alone * self.scale + (cands.revenue[r.keep] - cands.bonus[r.keep] if self.scale > 1 else 0)
            extra = bonus
        hexes = None
        if prep.hex_subsidy[t] and r.hexes is not None:
            hexes = np.zeros((n, len(self.graph.hex_ids)), np.bool_)
            for k, hs in enumerate(r.hexes):
                hexes[k, hs] = True
        # best alone first: identical trains take increasing indices, so a train's followers
        # can earn no more than its own candidates from its index on
        o = np.argsort(-(alone + extra), kind="stable")
        pick = o.tolist()
        return _Train(r.keep[o], pay[o], alone[o].astype(np.int64), extra[o].astype(np.int64),
                      None if hexes is None else hexes[o], [r.stops[k] for k in pick],
                      [payable[k] for k in pick], [ends[k] for k in pick],
                      [keys[k] for k in pick] if keys else keys)

    def _caps(self, t: int) -> list[tuple[list[int], int]]:
        """Train t's pay limits that can bind: (stop kinds, how many of them it may be paid
        for), over the kinds it can be paid for at all, without limits others imply."""
        prep, td = self.prep, self.prep.trains[t]
        if prep.set_role[t]:
            return []
        paid_kinds = 0
        for mine in self.trains[t].payable:
            for s in mine.values():
                paid_kinds |= 1 << int(td.node_kidx[s])
        limits = {}
        for subset in range(1, 16):
            kinds = subset & paid_kinds
            cap = int(td.pay_cap[subset])
            if kinds and cap < NO_LIMIT:
                limits[kinds] = min(cap, limits.get(kinds, cap))
        # count(K) <= c follows from count(K') <= c' when K is within K' and c' <= c
        kept = [(k, c) for k, c in limits.items()
                if not any(k2 != k and k & k2 == k and c2 <= c for k2, c2 in limits.items())]
        return [([i for i in range(4) if (k >> i) & 1], c) for k, c in kept]

    def _key(self, stop: int, entry: int) -> tuple[int, int]:
        """An end as the set bonus sees it: an offboard by the hex its track comes from."""
        if int(self.graph.node_kind[stop]) == _OFFBOARD:
            return stop, entry
        return stop, int(self.graph.node_hex[stop])

    def _set_bonus(self, a: tuple[int, int], b: tuple[int, int]) -> int:
        if (a, b) not in self.bonus_cache:
            pos = self.prep.position

            def end(key):
                ref = self.graph.node_ref[key[0]]
                hex_id, index = ref.rsplit("-", 1)
                return pos.hex(hex_id), pos.hex(hex_id).node(int(index)), pos.hex(self.graph.hex_ids[key[1]])

            self.bonus_cache[a, b] = self.prep.profile.set_bonus(pos, end(a), end(b))
        return self.bonus_cache[a, b]

    def _join_slack(self) -> int:
        """The most joining two sets at a stop can add to their bonuses (0 when bonuses obey
        the triangle inequality)."""
        keys = sorted({k for t in self.set_trains for pair in self.trains[t].keys for k in pair})
        if not keys:
            return 0
        table = np.array([[self._set_bonus(a, b) for b in keys] for a in keys], np.int64)
        # gain[p, v, q] = B[p, q] - B[p, v] - B[v, q]
        gain = table[:, None, :] - table[:, :, None] - table[None, :, :]
        slack = int(max(0, gain.max(initial=0)))
        return slack * (self.scale + (1 if self.scale > 1 else 0))

    # -- search ---------------------------------------------------------------------------
    def _gains(self, t: int, covered: np.ndarray, hexes: np.ndarray) -> np.ndarray:
        tr = self.trains[t]
        return K.route_gains(tr.pay_ptr, tr.pay_loc, tr.pay_w, tr.alone, tr.extra, covered,
                             tr.hex_ptr, tr.hex_idx, hexes,
                             self.hex_weight if tr.hexes is not None else 0)

    def run(self) -> Selection:
        # per level, how many identical trains follow it
        self._followers = []
        for d, t in enumerate(self.order):
            n = 0
            while d + 1 + n < len(self.order) and self._same(t, self.order[d + 1 + n]):
                n += 1
            self._followers.append(n)
        covered = np.zeros(self.n_loc, np.int64)  # per location, the value counted so far
        hexes = np.zeros(len(self.graph.hex_ids), np.bool_)
        self.root_bound = self._bound(0, covered, hexes, 0)
        self._dfs(0, covered, hexes, 0, [-1] * self.n_trains)
        return self._selection()

    def _join_slacks(self, depth: int, choice: list[int]) -> np.ndarray | None:
        """At the last set train's level, per candidate the join slack its choice can bring:
        one per join among the placed set routes and per end it shares with them."""
        if depth != len(self.set_trains) - 1:
            return None
        t = self.order[depth]
        placed = [self.trains[u].ends[choice[u]] for u in self.order[:depth] if choice[u] >= 0]
        seen: dict[int, int] = {}
        for pair in placed:
            for e in pair:
                seen[e] = seen.get(e, 0) + 1
        among = sum(c - 1 for c in seen.values())
        tr = self.trains[t]
        if not tr.ends:
            return np.zeros(0, np.int64)
        meets = np.isin(tr.ends_arr, list(seen)).sum(axis=1)
        return (among + meets) * self.slack

    def _must_join(self, depth: int, choice: list[int]) -> np.ndarray | None:
        """At the last set train's level: when running it apart from the others would break
        the temporary-train rules, the candidates that share an end with a placed set route
        (None: any may run)."""
        if depth != len(self.set_trains) - 1 or depth == 0:
            return None
        t = self.order[depth]
        placed = [u for u in self.order[:depth] if choice[u] >= 0]
        if not placed:
            return None
        ends = [self.trains[u].ends[choice[u]] for u in placed]
        temporary = [self.prep.set_role[u] == SET_TEMPORARY for u in placed]
        apart = ends + [(-1, -2)]  # t's route meeting no other
        if sets_legal(build_sets(apart, temporary + [self.prep.set_role[t] == SET_TEMPORARY]),
                      temporary + [self.prep.set_role[t] == SET_TEMPORARY]):
            return None
        tr = self.trains[t]
        if tr.by_end is None:
            tr.by_end = {}
            for k, (a, b) in enumerate(tr.ends):
                tr.by_end.setdefault(a, []).append(k)
                tr.by_end.setdefault(b, []).append(k)
        mask = np.zeros(len(tr.keep), np.bool_)
        for e in {s for pair in ends for s in pair}:
            mask[tr.by_end.get(e, [])] = True
        return mask

    def _same(self, t: int, u: int) -> bool:
        """Are trains t and u interchangeable (same candidates, same rules)?"""
        p = self.prep
        return (p.groups[t] == p.groups[u] and p.set_role[t] == p.set_role[u]
                and p.hex_subsidy[t] == p.hex_subsidy[u])

    def _rest_parts(self, trains: list[int], covered, hexes) -> tuple[int, int]:
        """The best gains of `trains` after a partial choice: set trains' and the others'."""
        sets = others = 0
        for t in trains:
            if len(self.trains[t].keep):
                best = max(0, int(self._gains(t, covered, hexes).max()))
                if self.prep.set_role[t]:
                    sets += best
                else:
                    others += best
        return sets, others

    def _cap(self, others, start: int):
        """`others` (the gains of the non-set trains from level `start` on), capped by what
        those trains can earn together."""
        cap = self.caps_from.get(max(start, len(self.set_trains)))
        return others if cap is None else np.minimum(others, cap)

    def _rest(self, trains: list[int], covered, hexes) -> int:
        """At most what `trains` (the levels from some depth on) can add to a partial choice
        covering `covered` and `hexes`."""
        sets, others = self._rest_parts(trains, covered, hexes)
        return sets + int(self._cap(others, len(self.order) - len(trains)))

    def _bound(self, depth: int, covered, hexes, base: int) -> int:
        rest = self._rest(self.order[depth:], covered, hexes)
        joins = max(0, len(self.set_trains) - 1)
        return base + rest + joins * self.slack

    def _dfs(self, depth: int, covered, hexes, base: int, choice: list[int]) -> None:
        self.nodes += 1
        if self.deadline is not None and self.nodes % 256 == 0 and time.perf_counter() > self.deadline:
            self.timed_out = True
        if self.timed_out:
            return
        if depth == len(self.order):
            value = self._price(choice)
            if value is not None and value > self.best_value:
                self.best_value, self.best_choice = value, tuple(choice)
            return
        if depth == len(self.set_trains) and depth and not self._sets_priced and self.set_trains:
            # every set train placed: price its sets exactly (only set ends pay), for each
            # direction of the routes that decides where a loop of routes pays
            for arrangement in self._arrangements(choice):
                part = self._set_part(choice, arrangement)
                if part is None:
                    continue
                ends_paid, set_value, _ = part
                covered = np.zeros(self.n_loc, np.int64)
                base = set_value * self.rev_scale + int(hexes.sum()) * self.hex_weight
                for t, locs in ends_paid.items():
                    base += int(self.prep.candidates[t].bonus[self.trains[t].keep[choice[t]]]) * self.rev_scale
                    for loc, s in locs.items():
                        w = self._weight(t, s)
                        if w > covered[loc]:
                            base += w - int(covered[loc])
                            covered[loc] = w
                self._sets_priced, self._arrangement = True, arrangement
                try:
                    self._dfs(depth, covered, hexes, base, choice)
                finally:
                    self._sets_priced = False
            return
        t = self.order[depth]
        tr = self.trains[t]
        gains = self._gains(t, covered, hexes)
        joins = max(0, len(self.set_trains) - 1) * self.slack if depth < len(self.set_trains) else 0
        # identical trains take candidates in increasing index (idle = last)
        floor = -1
        if depth and self._same(self.order[depth - 1], t):
            prev = self.order[depth - 1]
            floor = choice[prev] if choice[prev] >= 0 else len(tr.keep)
        # the identical trains after this one choose from this one's index on
        followers = self._followers[depth]
        tail = depth + 1 + followers
        tail_sets, tail_others = self._rest_parts(self.order[tail:], covered, hexes)
        top = max(0, int(gains.max())) if len(gains) else 0

        def rest_from(best_follower):
            more = followers * best_follower
            if self.prep.set_role[t]:
                return tail_sets + more + self._cap(tail_others, tail)
            return tail_sets + self._cap(tail_others + more, depth + 1)

        loose = int(rest_from(top))
        meets = self._join_slacks(depth, choice) if joins else None
        slack = joins
        if meets is not None:
            slack = meets
            joins = max(joins, int(meets.max())) if len(meets) else joins
        if base + top + loose + joins <= self.best_value:
            return  # neither a route nor idleness can beat the best plan
        suffix = np.maximum.accumulate(np.maximum(gains, 0)[::-1])[::-1] if followers else 0
        joining = self._must_join(depth, choice)
        # Each candidate's own bound, all at once: the loop below re-checks against the best
        # plan as it improves.
        bound = base + gains + rest_from(suffix) + slack
        if followers and floor < 0:
            # The first of identical trains: its followers bounded given each of its routes.
            # They lose the route's payable locations, so the route counts all of them (a pay
            # limit may leave one to a follower).
            hexed = (tr.hex_ptr, tr.hex_idx, hexes, self.hex_weight if tr.hexes is not None else 0)
            after = K.follower_gains(tr.pay_ptr, tr.pay_loc, tr.pay_w, tr.alone, tr.extra, covered,
                                     *hexed)
            uncapped = K.route_gains(tr.pay_ptr, tr.pay_loc, tr.pay_w,
                                     np.full(len(gains), 1 << 62, np.int64), tr.extra, covered,
                                     *hexed)
            bound = np.minimum(bound, base + uncapped + rest_from(after) + slack)
        ok = bound > self.best_value
        ok[:max(floor, 0)] = False
        if joining is not None:
            ok &= joining
        order = np.argsort(-gains, kind="stable")
        for k in order[ok[order]].tolist():
            if base + int(gains[k]) + loose + joins <= self.best_value:
                break
            if int(bound[k]) <= self.best_value:
                continue
            locs = tr.pay_loc[tr.pay_ptr[k]:tr.pay_ptr[k + 1]]
            worth = tr.pay_w[tr.pay_ptr[k]:tr.pay_ptr[k + 1]]
            new_cov = covered.copy()
            new_cov[locs] = np.maximum(covered[locs], worth)
            add = int(np.maximum(worth - covered[locs], 0).sum()) + int(tr.extra[k])
            new_hex = hexes
            if tr.hexes is not None:
                add += int((tr.hexes[k] & ~hexes).sum()) * self.hex_weight
                new_hex = hexes | tr.hexes[k]
            choice[t] = int(k)
            self._dfs(depth + 1, new_cov, new_hex, base + add, choice)
            choice[t] = -1
            if self.timed_out:
                return
        if floor <= len(tr.keep) and base + int(rest_from(0)) + joins > self.best_value:
            # idle (and so are the identical trains after it)
            self._dfs(depth + 1, covered, hexes, base, choice)

    # -- pricing a complete choice exactly -------------------------------------------------
    def _arrangements(self, choice: list[int]) -> list[tuple[tuple[int, ...], frozenset[int]]]:
        """The plan orders and directions of the set routes worth trying, as (order, routes
        run backwards). 18xx.games forms sets following the routes in plan order and each
        route from its first stop; that matters only where three route ends meet at one stop
        or routes close a loop (which pays at its first route's first stop), and then every
        order and direction is tried. Otherwise the trains' own order, as they run."""
        set_running = [t for t in self.set_trains if choice[t] >= 0]
        plain = [(tuple(set_running), frozenset())]
        if len(set_running) < 2:
            return plain
        ends = [self.trains[t].ends[choice[t]] for t in set_running]
        count: dict[int, int] = {}
        for pair in ends:
            for e in pair:
                count[e] = count.get(e, 0) + 1
        if max(count.values()) == 1:
            return plain  # no route meets another: sets of one, no loop
        temporary = [self.prep.set_role[t] == SET_TEMPORARY for t in set_running]
        loop = any(a == b for a, b in (set_ends(m, ends) for m in build_sets(ends, temporary)))
        if max(count.values()) < 3 and not loop:
            return plain
        if len(set_running) > 4:  # too many to try: only the loops' directions
            return [(tuple(set_running), frozenset(f))
                    for r in range(len(set_running) + 1) for f in combinations(set_running, r)]
        return [(order, frozenset(f)) for order in permutations(set_running)
                for r in range(len(set_running) + 1) for f in combinations(set_running, r)]

    def _set_part(self, choice: list[int], arrangement=None):
        """The sets of the chosen set routes, as 18xx.games forms them (in the `arrangement`'s
        plan order, its routes run backwards; default the trains' order): per set train the
        locations it may be paid for (its set's ends), the sets' bonuses, the sets; None when
        the temporary trains break the rules."""
        prep = self.prep
        if arrangement is None:
            arrangement = (tuple(t for t in self.set_trains if choice[t] >= 0), frozenset())
        set_running, flip = arrangement
        if not set_running:
            return {}, 0, []
        ends, keys = [], []
        for t in set_running:
            e, k = self.trains[t].ends[choice[t]], self.trains[t].keys[choice[t]]
            ends.append(e[::-1] if t in flip else e)
            keys.append(k[::-1] if t in flip else k)
        temporary = [prep.set_role[t] == SET_TEMPORARY for t in set_running]
        if len({s for e in ends for s in e}) == 2 * len(ends):
            built = [[r] for r in range(len(ends))]  # no route meets another
        else:
            built = build_sets(ends, temporary)
        if not sets_legal(built, temporary):
            return None
        payable, set_value, sets = {}, 0, []
        for members in built:
            a, b = set_ends(members, ends)
            key_of = {}
            for r in members:
                t = set_running[r]
                for e, key in zip(ends[r], keys[r]):
                    key_of.setdefault(e, key)
                payable[t] = {loc: s for loc, s in self.trains[t].payable[choice[t]].items()
                              if s in (a, b)}
            bonus = self._set_bonus(key_of[a], key_of[b])
            set_value += bonus
            sets.append((tuple(set_running[r] for r in members), (a, b), bonus))
        return payable, set_value, sets

    def _price(self, choice: list[int], details: bool = False):
        """The exact value of a complete choice (None if illegal); with `details` also per
        train its paid stops, the sets, the hex subsidies and the routes run backwards."""
        prep = self.prep
        running = [t for t in range(self.n_trains) if choice[t] >= 0]
        if not running:
            return (0, ({}, [], {}, ((), frozenset()))) if details else 0
        stops = {t: self.trains[t].stops[choice[t]] for t in running}
        if self.home is not None and not any(set(stops[t]) & self.home[t] for t in running):
            return None
        if prep.rules.intersect and self.checks and not _connected([set(stops[t]) for t in running]):
            return None
        fixed = sum(int(self.trains[t].extra[choice[t]]) for t in running if not prep.set_role[t])
        fixed += sum(int(prep.candidates[t].bonus[self.trains[t].keep[choice[t]]]) * self.rev_scale
                     for t in running if prep.set_role[t])
        subsidy = {}
        if self.hex_amount:
            seen: set[int] = set()
            for t in running:
                tr = self.trains[t]
                if tr.hexes is None:
                    continue
                mine = set(np.flatnonzero(tr.hexes[choice[t]]).tolist())
                subsidy[t] = prep.hex_subsidy[t] * len(mine - seen)
                seen |= mine
            if prep.objective == "income":
                fixed += sum(subsidy.values()) * self.scale
        arrangements = [self._arrangement] if self._sets_priced else self._arrangements(choice)
        best = None
        for arrangement in arrangements:
            part = self._set_part(choice, arrangement)
            if part is None:
                continue
            ends_paid, set_value, sets = part
            payable = {t: ends_paid.get(t, self.trains[t].payable[choice[t]]) for t in running}
            paid = self._assign(running, payable)
            total = fixed + set_value * self.rev_scale
            total += sum(self._weight(t, s) for t in running for s in paid[t])
            if best is None or total > best[0]:
                best = (total, (paid, sets, subsidy, arrangement))
        if best is None:
            return None
        return best if details else best[0]

    def _assign(self, running: list[int], payable: dict[int, dict[int, int]]) -> dict[int, list[int]]:
        """The best paid stops per train. Locations go by value, each to a train that can
        take it, moving taken ones along an exchange path if needed: greedy on a union of
        matroids, exact while a location is worth the same to every train that can be paid for
        it. Where it is not (stops of one offboard area with different values), every choice
        of payer for those locations is tried and the rest filled greedily."""
        worth = {}
        for t in running:
            for loc, s in payable[t].items():
                worth.setdefault(loc, {})[t] = self._weight(t, s)
        if all(self._fits(t, list(payable[t]), payable) for t in running):
            # no pay limit binds: every location pays, to the train it is worth most to
            out: dict[int, list[int]] = {t: [] for t in running}
            for loc, by_train in worth.items():
                t = max(by_train, key=lambda u: (by_train[u], -running.index(u)))
                out[t].append(payable[t][loc])
            return out
        contested = [loc for loc, by_train in worth.items() if len(set(by_train.values())) > 1]
        best, best_value = None, -1
        for payers in product(*[list(worth[loc]) + [None] for loc in contested]):
            held: dict[int, list[int]] = {t: [] for t in running}
            owner: dict[int, int] = {}
            for loc, t in zip(contested, payers):
                if t is not None:
                    held[t].append(loc)
                    owner[loc] = t
            if not all(self._fits(t, held[t], payable) for t in running):
                continue
            fixed = set(owner)
            rest = sorted((loc for loc in worth if loc not in contested),
                          key=lambda loc: -max(worth[loc].values()))
            for loc in rest:
                path = self._augment(loc, running, payable, owner, held, fixed)
                for item, t in path or ():
                    if item in owner:
                        held[owner[item]].remove(item)
                    owner[item] = t
                    held[t].append(item)
            value = sum(worth[loc][t] for t in running for loc in held[t])
            if value > best_value:
                best, best_value = held, value
        return {t: [payable[t][loc] for loc in best[t]] for t in running}

    def _fits(self, t: int, locs: list[int], payable: dict[int, dict[int, int]]) -> bool:
        caps = self.caps[t]
        if not caps:
            return True
        kidx = self.prep.trains[t].node_kidx
        counts = [0, 0, 0, 0]
        for loc in locs:
            counts[kidx[payable[t][loc]]] += 1
        return all(sum(counts[k] for k in kinds) <= cap for kinds, cap in caps)

    def _augment(self, start: int, running, payable, owner, held, fixed=frozenset()):
        """A breadth-first exchange path placing location `start`: a list of (location, new
        train) moves, or None if no train can take it without dropping another."""
        queue = deque([(start, [])])
        seen = {start}
        while queue:
            item, path = queue.popleft()
            for t in running:
                if item not in payable[t] or owner.get(item) == t:
                    continue
                if self._fits(t, held[t] + [item], payable):
                    return path + [(item, t)]
                for other in held[t]:
                    if other in seen or other in fixed:
                        continue
                    swapped = [x for x in held[t] if x != other] + [item]
                    if self._fits(t, swapped, payable):
                        seen.add(other)
                        queue.append((other, path + [(item, t)]))
        return None

    # -- answer ----------------------------------------------------------------------------
    def _selection(self) -> Selection:
        prep = self.prep
        optimal = not self.timed_out
        choice = self.best_choice
        overrides: list[dict | None] = [None] * self.n_trains
        sets_out: tuple = ()
        value = 0
        order = None
        if self.best_value > 0:
            total, (paid, sets, subsidy, (set_order, flip)) = self._price(list(choice), details=True)
            for t in range(self.n_trains):
                if choice[t] < 0:
                    continue
                td = prep.trains[t]
                i = int(self.trains[t].keep[choice[t]])
                overrides[t] = {
                    "revenue": int(sum(int(td.node_value[s]) for s in paid[t]) + prep.candidates[t].bonus[i]),
                    "subsidy": int(sum(int(td.node_subsidy[s]) for s in paid[t]) + subsidy.get(t, 0)),
                    "paid": paid[t],
                    "reverse": t in flip,
                }
            for trains, ends, bonus in sets:
                overrides[trains[0]]["revenue"] += bonus
            sets_out = tuple(sets)
            value = total // self.scale
            # the plan lists the set routes in the order their sets were formed in
            in_order = iter(set_order)
            order = tuple(next(in_order) if t in set_order else t for t in range(self.n_trains))
        else:
            choice = tuple([-1] * self.n_trains)
        real_choice = tuple(int(self.trains[t].keep[k]) if k >= 0 else -1 for t, k in enumerate(choice))
        upper = value if optimal else max(value, self.root_bound // self.scale)
        return Selection(real_choice, value, optimal, upper, self.nodes, tuple(overrides), sets_out,
                         order)


def _connected(stop_sets: list[set[int]]) -> bool:
    """Do the routes form one graph through shared stops?"""
    reached = [0]
    todo = [0]
    while todo:
        i = todo.pop()
        for j in range(len(stop_sets)):
            if j not in reached and stop_sets[i] & stop_sets[j]:
                reached.append(j)
                todo.append(j)
    return len(reached) == len(stop_sets)


def _entry_hexes(prep: Prepared, t: int, keep: np.ndarray) -> list[tuple[int, int]]:
    """Per kept candidate, the hex its track comes from at its first and at its last stop."""
    cands, graph = prep.candidates[t], prep.graph_of(t)
    out = []
    for i in keep.tolist():
        hexes: list[int] = []
        for c in cands.route_chains(i).tolist():
            cc = c if c >= 0 else ~c
            hs = graph.chain_hexes[graph.chain_hex_ptr[cc]:graph.chain_hex_ptr[cc + 1]].tolist()
            if c < 0:
                hs.reverse()
            for h in hs:
                if not hexes or hexes[-1] != h:
                    hexes.append(h)
        first = hexes[1] if len(hexes) > 1 else hexes[0]
        last = hexes[-2] if len(hexes) > 1 else hexes[-1]
        out.append((first, last))
    return out
