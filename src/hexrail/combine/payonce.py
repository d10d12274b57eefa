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

**Where it runs.** The search runs in a numba kernel (`_payonce_kernels.search`) over flat
arrays of every train's candidates (`_Search._board`); this module builds them, bounds the
root and describes the winning plan (`_Search._price` with details). Where the ways sets form
are tried, arrangements that price alike are tried once. A location worth more to one train
than to another (stops of one offboard area with different values) is priced by trying every
payer. Its slow twins are the brute-force oracle and the validator, which tests compare it
with (run the kernels uncompiled, ``NUMBA_DISABLE_JIT=1``, to debug them).
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from itertools import chain, combinations, permutations, product

import numpy as np

from hexrail.combine import _kernels as K
from hexrail.combine import _payonce_kernels as KP
from hexrail.combine.bnb import Selection
from hexrail.combine.cpsat import _routes, locations
from hexrail.combine.sets import build_sets, set_ends, sets_legal
from hexrail.graph.track import KIND_CODES
from hexrail.graph.trains import NO_LIMIT
from hexrail.rules.base import SET_TEMPORARY
from hexrail.stage import TIE_SCALE, Prepared, meets, required

_OFFBOARD = KIND_CODES["offboard"]
_PAUSE_EVERY = 256  # kernel nodes between looks at the deadline, at most a quarter of
_SLICE = 0.02  # seconds between looks at the deadline the pause aims at
_FIRST_RATE = 2e6  # kernel work units per second, until measured (a low guess)
_UNLIMITED = 1 << 62


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
    bonus: np.ndarray  # (n,) the route's own bonus, scaled
    own: np.ndarray | None  # (n,) set trains: the bonus of a set of the route alone, unscaled
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
    if rules.regions:  # (the CP-SAT model counts the routes per region)
        return False
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
                 checks: bool = True, trains: list[_Train] | None = None,
                 board: KP.Board | None = None):
        """`only`: the trains that may run (the others stay idle); `checks`: enforce the home
        route and meeting routes (off for a bound); `board`: the kernel's candidate arrays,
        when made already."""
        self.prep, self.deadline, self.checks = prep, deadline, checks
        self.n_trains = len(prep.trains)
        income = prep.objective == "income"
        # Income ranks plans by revenue + subsidy, then revenue: both ride in one integer.
        self.scale = TIE_SCALE if income else 1
        self.loc = locations(prep)
        self.n_loc = max(self.loc, default=-1) + 1
        graph = prep.graphs[next(iter(prep.graphs))]
        self.graph = graph
        self.hex_amount = max(prep.hex_subsidy, default=0)
        self.hex_weight = self.hex_amount * self.scale if income else 0
        self.bonus_cache: dict = {}
        self.end_cache: dict = {}
        self.sets_cache: dict = {}
        self.arrangement_cache: dict = {}
        self.trains = trains or self._all_trains()
        # per train, its binding pay limits: (stop kinds, how many of them it may be paid for)
        self.caps = [self._caps(t) for t in range(self.n_trains)]
        runs = set(range(self.n_trains) if only is None else only)
        self.set_trains = [t for t in range(self.n_trains) if prep.set_role[t] and t in runs]
        self.bonus_keys: dict[tuple[int, int], int] = {}
        self.bonus_table = np.zeros((0, 0), np.int64)
        self.slack = self._join_slack() if len(self.set_trains) > 1 else 0
        # the "one route must ..." rules (home route, connection run): per train and kept
        # candidate the bits it meets
        self.required = required(prep) if checks else 0
        self.meets = [meets(prep, t)[self.trains[t].keep] for t in range(self.n_trains)] \
            if self.required else None
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
        self.board = board  # the kernel's arrays (None: no trains)
        if board is None and self.n_trains:
            self.board = self._board()
        # What the trains after a level (set trains aside) can earn at most, together: a cap on
        # their gains, which overlap each other (found by this search on those trains alone,
        # without legality checks).
        self.caps_from: dict[int, int] = {}
        if checks:
            n_set = len(self.set_trains)
            for start in range(n_set if n_set else 1, len(self.order) - 1):
                sub = _Search(prep, deadline, only=self.order[start:], checks=False,
                              trains=self.trains, board=self.board)
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

    def _all_trains(self) -> list[_Train]:
        """Every train's candidates as the search sees them; identical trains share theirs."""
        made: dict[tuple[int, int, int], _Train] = {}
        out = []
        for t in range(self.n_trains):
            key = (self.prep.groups[t], self.prep.set_role[t], self.prep.hex_subsidy[t])
            if key not in made:
                made[key] = self._train(t)
            out.append(made[key])
        return out

    def _node_weights(self, t: int) -> np.ndarray:
        """`_weight` of every node for train t."""
        td = self.prep.trains[t]
        value = td.node_value.astype(np.int64)
        if self.prep.objective == "income":
            return (value + td.node_subsidy.astype(np.int64)) * self.scale + value
        return value

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
        weight = self._node_weights(t)
        # a kind the train's rows pay none of (an express train's towns) is not payable
        kind_bit = np.left_shift(1, np.maximum(td.node_kidx, 0).astype(np.int64))
        paid_kind = (td.pay_cap[kind_bit] > 0) & (td.node_kidx >= 0)
        pays = ((weight > 0) & (paid_kind | set_train)).tolist()
        loc = self.loc
        rows, cols, paid = [], [], []
        for k, route in enumerate(r.ends.tolist() if set_train else r.stops):
            mine = {loc[s]: s for s in route if pays[s]}  # a later stop of a location wins
            payable.append(mine)
            rows += [k] * len(mine)
            cols += mine.keys()
            paid += mine.values()
        pay[rows, cols] = weight[paid]
        cands = prep.candidates[t]
        bonus = cands.bonus[r.keep].astype(np.int64) * (self.scale + (1 if self.scale > 1 else 0))
        keys: list[tuple[int, int]] = []
        ends = [tuple(e) for e in r.ends.tolist()]
        own = None
        if set_train:
            # an end as the set bonus sees it: an offboard by the hex its track comes from
            entry = _entry_hexes(prep, t, r.keep)
            at = np.where(self.graph.node_kind[r.ends] == _OFFBOARD, entry,
                          self.graph.node_hex[r.ends])
            keys = [((a, va), (b, vb)) for (a, b), (va, vb) in zip(ends, at.tolist())]
            distinct, index = np.unique(np.stack([r.ends, at], axis=2).reshape(-1, 2), axis=0,
                                        return_inverse=True)
            index = index.reshape(-1, 2)
            own = self._bonuses([tuple(k) for k in distinct.tolist()])[index[:, 0], index[:, 1]]
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
                      [keys[k] for k in pick] if keys else keys, bonus[o],
                      None if own is None else own[o])

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

    def _bonuses(self, keys: list[tuple[int, int]]) -> np.ndarray:
        """The set bonus between every two of the end `keys`, as a table. A set has no
        direction (`Profile.set_bonus`): each pair is asked once."""
        table = np.empty((len(keys), len(keys)), np.int64)
        for i, a in enumerate(keys):
            for j in range(i, len(keys)):
                table[i, j] = table[j, i] = self._set_bonus(a, keys[j])
        return table

    def _set_bonus(self, a: tuple[int, int], b: tuple[int, int]) -> int:
        found = self.bonus_cache.get((a, b))
        if found is None:
            found = self.prep.profile.set_bonus(self.prep.position, self._end(a), self._end(b))
            self.bonus_cache[a, b] = self.bonus_cache[b, a] = found
        return found

    def _end(self, key: tuple[int, int]):
        """An end key as `Profile.set_bonus` takes it: (hex, node, the hex its track enters from)."""
        if key not in self.end_cache:
            pos = self.prep.position
            hex_id, index = self.graph.node_ref[key[0]].rsplit("-", 1)
            self.end_cache[key] = (pos.hex(hex_id), pos.hex(hex_id).node(int(index)),
                                   pos.hex(self.graph.hex_ids[key[1]]))
        return self.end_cache[key]

    def _join_slack(self) -> int:
        """The most joining two sets at a stop can add to their bonuses (0 when bonuses obey
        the triangle inequality)."""
        keys = sorted({k for t in self.set_trains for pair in self.trains[t].keys for k in pair})
        if not keys:
            return 0
        table = self._bonuses(keys)
        # the kernel prices sets from this table
        self.bonus_keys, self.bonus_table = {k: i for i, k in enumerate(keys)}, table
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
        if self.board is not None:
            self._run_kernel()
        return self._selection()

    # -- the kernel -----------------------------------------------------------------------
    def _board(self) -> KP.Board:
        """Every train's candidates as flat arrays for the kernel; identical trains share a
        candidate table."""
        tables: list[int] = []  # per table, its first train
        train_table = []
        for t in range(self.n_trains):
            same = [i for i, u in enumerate(tables) if self.trains[u] is self.trains[t]]
            if not same:
                tables.append(t)
            train_table.append(same[0] if same else len(tables) - 1)
        parts = [self._table(t) for t in tables]
        table = np.zeros((len(tables), KP.TABLE_COLS), np.int64)
        caps: list[tuple[int, int]] = []
        first = entries = 0
        for i, (t, part) in enumerate(zip(tables, parts)):
            n = len(part["alone"])
            table[i, KP.T_FIRST:KP.T_STOP + 1] = first, first + n
            table[i, KP.T_SET] = bool(self.prep.set_role[t])
            table[i, KP.T_TEMPORARY] = self.prep.set_role[t] == SET_TEMPORARY
            table[i, KP.T_HEX_WEIGHT] = self.hex_weight if self.trains[t].hexes is not None else 0
            table[i, KP.T_CAPS] = len(caps)
            caps += [(sum(1 << k for k in kinds), most) for kinds, most in self.caps[t]]
            table[i, KP.T_CAPS_STOP] = len(caps)
            part["cand"][:, KP.C_TABLE] = i
            part["cand"][:, [KP.C_ENT, KP.C_ENT_STOP]] += entries
            first, entries = first + n, entries + len(part["ent"])

        def joined(name, dtype=np.int64):
            return np.ascontiguousarray(np.concatenate([p[name] for p in parts]), dtype)

        def ragged(name):
            """Concatenated pointers of ragged rows: each table's shifted past the ones before."""
            ptr, shift = [np.zeros(1, np.int64)], 0
            for p in parts:
                ptr.append(p[name][1:] + shift)
                shift += int(p[name][-1])
            return np.concatenate(ptr).astype(np.int64)

        return KP.Board(
            train_table=np.asarray(train_table, np.int64), table=table,
            pay_ptr=ragged("pay_ptr"), pay_loc=joined("pay_loc"), pay_w=joined("pay_w"),
            alone=joined("alone"), extra=joined("extra"),
            hex_ptr=ragged("hex_ptr"), hex_idx=joined("hex_idx"),
            cand=joined("cand"), ent=joined("ent"), caps=np.array(caps, np.int64).reshape(-1, 2),
            stop_bits=joined("stop_bits", np.uint64),
            bonus_table=np.ascontiguousarray(self.bonus_table, np.int64),
            rev_scale=self.rev_scale, hex_weight=self.hex_weight, n_loc=self.n_loc,
            n_hex=len(self.graph.hex_ids))

    def _table(self, t: int) -> dict[str, np.ndarray]:
        """Train t's candidates as the kernel's `Board` holds them (the table and entry
        columns of ``cand`` still to be set)."""
        tr, td = self.trains[t], self.prep.trains[t]
        n = len(tr.keep)
        cand = np.zeros((n, KP.CAND_COLS), np.int64)
        cand[:, KP.C_BONUS] = tr.bonus
        # what a candidate can add at most (`K.route_gains` over nothing covered), and the
        # most of any from it on
        most = tr.alone + tr.extra
        if tr.hexes is not None:
            most = most + np.diff(tr.hex_ptr) * self.hex_weight
        cand[:, KP.C_MOST_FROM] = np.maximum.accumulate(most[::-1])[::-1] if n else most
        cand[:, KP.C_END:KP.C_END + 2] = tr.ends_arr
        cand[:, KP.C_KEY:KP.C_KEY + 2] = -1
        if self.prep.set_role[t] and n:
            if self.bonus_keys:
                cand[:, KP.C_KEY:KP.C_KEY + 2] = [[self.bonus_keys[a], self.bonus_keys[b]]
                                                  for a, b in tr.keys]
            # a set of the route alone (`_formed`): a route ending where it starts is a loop
            cand[:, KP.C_SINGLE_BONUS] = [
                own if a != b else self._set_bonus(ka, ka)
                for own, (a, b), (ka, _) in zip(tr.own.tolist(), tr.ends, tr.keys)]
        bits = _stop_bits(tr.stops, self.graph.n_nodes)
        if self.meets is not None:
            cand[:, KP.C_MEETS] = self.meets[t]
        # the payable locations in the order `_assign` meets them
        ent_ptr, ent_loc, ent_stop = [0], [], []
        for mine in tr.payable:
            ent_loc += mine.keys()
            ent_stop += mine.values()
            ent_ptr.append(len(ent_loc))
        cand[:, KP.C_ENT], cand[:, KP.C_ENT_STOP] = ent_ptr[:-1], ent_ptr[1:]
        stop = np.asarray(ent_stop, np.int64)
        # `_fits` counts a stop of kind index -1 at index 3, as Python lists do
        ent = np.stack([np.asarray(ent_loc, np.int64), stop, self._node_weights(t)[stop],
                        td.node_kidx[stop].astype(np.int64) % 4], axis=1)
        return {"alone": tr.alone, "extra": tr.extra, "pay_ptr": tr.pay_ptr, "pay_loc": tr.pay_loc,
                "pay_w": tr.pay_w, "hex_ptr": tr.hex_ptr, "hex_idx": tr.hex_idx, "cand": cand,
                "ent": ent, "stop_bits": bits}

    def _levels(self) -> KP.Levels:
        """This search's levels and settings for the kernel."""
        order, table = self.order, self.board.train_table
        level = np.zeros((len(order), 3), np.int64)
        for d, t in enumerate(order):
            level[d, KP.L_TRAIN], level[d, KP.L_FOLLOWERS] = t, self._followers[d]
            level[d, KP.L_TWIN] = d > 0 and table[t] == table[order[d - 1]]
        caps_from = np.full(len(order) + 1, -1, np.int64)  # found plans are worth 0 or more
        for start, cap in self.caps_from.items():
            caps_from[start] = cap
        perm_ptr, perms, flip_ptr, flips = [0], [], [0], []
        for m in range(len(self.set_trains) + 1):
            # `_arrangements_of`: every order of up to four routes, else the trains' own
            rows = list(permutations(range(m))) if m <= 4 else [tuple(range(m))]
            perms += [p for row in rows for p in row]
            perm_ptr.append(len(perms))
            flips += [sum(1 << p for p in f) for r in range(m + 1) for f in combinations(range(m), r)]
            flip_ptr.append(len(flips))
        return KP.Levels(
            level=level, caps_from=caps_from, set_trains=np.asarray(self.set_trains, np.int64),
            perm_ptr=np.asarray(perm_ptr, np.int64), perms=np.asarray(perms, np.int64),
            flip_ptr=np.asarray(flip_ptr, np.int64), flips=np.asarray(flips, np.int64),
            slack=int(self.slack), required=self.required,
            check_meet=bool(self.prep.rules.intersect and self.checks))

    def _run_kernel(self) -> None:
        """The search from the root, in the kernel, in slices between which the deadline is
        watched."""
        board, levels, st = self._kernel_start()
        # Nodes differ in cost by orders of magnitude (a leaf with many set routes prices
        # every way they form sets): the pause adapts so that a slice takes about _SLICE.
        # A single node may cost more than the whole time limit, so the kernel also stops
        # inside one when its work budget, what it gets done by the deadline at the rate
        # measured so far, runs out.
        pause, rate = 8, _FIRST_RATE
        while True:
            t0 = time.perf_counter()
            budget = self._budget(rate, t0)
            st.ctl[KP.WORK] = budget
            if KP.search(board, levels, st, pause) == KP.DONE:
                break
            now = time.perf_counter()
            if self.deadline is not None:
                if now > self.deadline:
                    self.timed_out = True
                    break
                used = budget - int(st.ctl[KP.WORK])
                if now - t0 > 1e-3 and used > 0:
                    rate = used / (now - t0)
            if now - t0 > _SLICE:
                pause = max(1, pause // 2)
            elif now - t0 < _SLICE / 4:
                pause = min(4 * _PAUSE_EVERY, pause * 2)  # cheap nodes: look less often
        self.nodes += int(st.ctl[KP.NODES])
        self.best_value = int(st.ctl[KP.BEST])
        self.best_choice = tuple(st.best_choice.tolist())

    def _budget(self, rate: float, now: float) -> int:
        """Kernel work units for the next slice: what it gets done by the deadline at `rate`."""
        return _UNLIMITED if self.deadline is None else int(rate * max(self.deadline - now, 0.0)) + 1

    def _kernel_start(self) -> tuple[KP.Board, KP.Levels, KP.State]:
        """The kernel's board, levels and a fresh search state at the root."""
        board, levels = self.board, self._levels()
        n_set = len(self.set_trains)
        # the most ways the set routes may form sets: orders times directions
        options = max((levels.perm_ptr[m + 1] - levels.perm_ptr[m]) // max(m, 1)
                      * (levels.flip_ptr[m + 1] - levels.flip_ptr[m]) for m in range(n_set + 1))
        most = max((len(self.trains[t].keep) for t in self.order), default=0)
        st = KP.new_state(self.n_trains, len(self.order), board.n_loc, board.n_hex, max(most, 1),
                          int(options), n_set, KP.LEVEL if self.order else KP.LEAF)
        return board, levels, st

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

    # -- pricing a complete choice exactly -------------------------------------------------
    def _arrangements(self, choice: list[int]) -> list[tuple[tuple[int, ...], frozenset[int]]]:
        """The plan orders and directions of the set routes worth trying, as (order, routes
        run backwards). 18xx.games forms sets following the routes in plan order and each
        route from its first stop; that matters only where three route ends meet at one stop
        or routes close a loop (which pays at its first route's first stop), and then every
        order and direction is tried. Otherwise the trains' own order, as they run."""
        set_running = tuple(t for t in self.set_trains if choice[t] >= 0)
        ends = tuple(self.trains[t].ends[choice[t]] for t in set_running)
        key = (set_running, ends)
        if key not in self.arrangement_cache:
            self.arrangement_cache[key] = self._arrangements_of(set_running, ends)
        return self.arrangement_cache[key]

    def _arrangements_of(self, set_running: tuple[int, ...], ends: tuple[tuple[int, int], ...]):
        plain = [(set_running, frozenset())]
        if len(set_running) < 2:
            return plain
        count: dict[int, int] = {}
        for pair in ends:
            for e in pair:
                count[e] = count.get(e, 0) + 1
        if max(count.values()) == 1:
            return plain  # no route meets another: sets of one, no loop
        temporary = [self.prep.set_role[t] == SET_TEMPORARY for t in set_running]
        # a loop, or a set of one end only (illegal in some arrangements, maybe not in others)
        loop = any(e is None or e[0] == e[1] for e in (set_ends(m, ends) for m in build_sets(ends, temporary)))
        if max(count.values()) < 3 and not loop:
            return plain
        if len(set_running) > 4:  # too many to try: only the loops' directions
            return [(set_running, frozenset(f))
                    for r in range(len(set_running) + 1) for f in combinations(set_running, r)]
        return [(order, frozenset(f)) for order in permutations(set_running)
                for r in range(len(set_running) + 1) for f in combinations(set_running, r)]

    def _set_part(self, choice: list[int], arrangement=None):
        """The sets of the chosen set routes, as 18xx.games forms them (in the `arrangement`'s
        plan order, its routes run backwards; default the trains' order): per set train the
        locations it may be paid for (its set's ends), the sets' bonuses, the sets; None when
        the temporary trains break the rules."""
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
        formed = self._formed(set_running, tuple(ends), tuple(keys))
        if formed is None:
            return None
        payable, set_value, sets = {}, 0, []
        for members, (a, b), bonus in formed:
            for r in members:
                t = set_running[r]
                payable[t] = {loc: s for loc, s in self.trains[t].payable[choice[t]].items()
                              if s == a or s == b}
            set_value += bonus
            sets.append((tuple(set_running[r] for r in members), (a, b), bonus))
        return payable, set_value, sets

    def _formed(self, set_running: tuple[int, ...], ends: tuple, keys: tuple):
        """The sets routes with these ends and end keys (in plan order) form: per set its
        members, its ends and its bonus; None when the temporary trains break the rules.
        Memoized: many choices share their routes' ends."""
        temporary = tuple(self.prep.set_role[t] == SET_TEMPORARY for t in set_running)
        memo = (ends, keys, temporary)
        if memo in self.sets_cache:
            return self.sets_cache[memo]
        if len({s for e in ends for s in e}) == 2 * len(ends):
            built = [[r] for r in range(len(ends))]  # no route meets another
        else:
            built = build_sets(list(ends), list(temporary))
        formed = None
        if sets_legal(built, list(temporary)) and all(set_ends(m, ends) for m in built):
            formed = []
            for members in built:
                a, b = set_ends(members, ends)
                key_of = {}
                for r in members:
                    for e, key in zip(ends[r], keys[r]):
                        key_of.setdefault(e, key)
                formed.append((tuple(members), (a, b), self._set_bonus(key_of[a], key_of[b])))
        self.sets_cache[memo] = formed
        return formed

    def _price(self, choice: list[int], details: bool = False, target: int | None = None):
        """The exact value of a complete choice (None if illegal); with `details` also per
        train its paid stops, the sets, the hex subsidies and the routes run backwards. With a
        `target` (the value the kernel found for it), the first arrangement reaching it will
        do."""
        prep = self.prep
        running = [t for t in range(self.n_trains) if choice[t] >= 0]
        if not running:
            return (0, ({}, [], {}, ((), frozenset()))) if details else 0
        stops = {t: self.trains[t].stops[choice[t]] for t in running}
        if self.required:
            met = 0
            for t in running:
                met |= int(self.meets[t][choice[t]])
            if met & self.required != self.required:
                return None
        if prep.rules.intersect and self.checks and not K.routes_meet(
                _stop_bits([stops[t] for t in running], self.graph.n_nodes),
                np.arange(len(running))):
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
                if target is not None and total >= target:
                    break
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
            total, (paid, sets, subsidy, (set_order, flip)) = self._price(list(choice), details=True,
                                                                      target=self.best_value)
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


def _stop_bits(routes: list[list[int]], n_nodes: int) -> np.ndarray:
    """Per route, a bitset of the stops it visits."""
    lengths = np.fromiter(map(len, routes), np.int64, len(routes))
    stops = np.fromiter(chain.from_iterable(routes), np.int64, int(lengths.sum()))
    bits = np.zeros((len(routes), max(1, (n_nodes + 63) // 64)), np.uint64)
    np.bitwise_or.at(bits, (np.repeat(np.arange(len(routes)), lengths), stops >> 6),
                     np.left_shift(np.uint64(1), (stops & 63).astype(np.uint64)))
    return bits


def _entry_hexes(prep: Prepared, t: int, keep: np.ndarray) -> np.ndarray:
    """Per kept candidate, the hex its track comes from at its first and at its last stop."""
    cands, graph = prep.candidates[t], prep.graph_of(t)
    return K.route_end_hexes(cands.src[keep], cands.chain_ptr, cands.chains,
                             graph.chain_hex_ptr, graph.chain_hexes).reshape(len(keep), 2)
