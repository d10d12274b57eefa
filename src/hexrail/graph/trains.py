"""Lower one train under one rules profile to per-node arrays the search kernels read."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache

import numpy as np

from hexrail.errors import HexrailError
from hexrail.graph.track import TrackGraph
from hexrail.model.position import Position, Train
from hexrail.model.trains import UNLIMITED, Row, TrainSpec
from hexrail.rules.base import (FIRST, MANDATORY, Bonus, CyclicRun, EndBonus, EndsSubsidy,
                               HexBonus, OnceBonus, Profile, Revisit, RouteBonus, SetsBonus, TrackBonus,
                               stop_columns)
from hexrail.rules.columns import COUNT_CODE, KIND_INDEX, node_groups

N_SUBSETS = 1 << len(KIND_INDEX)  # sets of stop kinds, by bitmask: the rows' capacities per set
NO_LIMIT = 1 << 40
MAX_SPECIAL = 16  # stops a `PayRule` choice weighs (tagged or stations), per route
REACH_UNITS = 62  # visit units past which `_reach_bound` gives way to the walk's own search
PLACE_STATES = 1024  # the most row loads the walk's placing of a route's stops weighs


@lru_cache(maxsize=1024)
def row_caps(rows: tuple, field: str) -> np.ndarray:
    """Capacity of the `rows` for every set of stop kinds (bit k = kind k): the Hall bound.
    One array per rows, shared: not to be written to."""
    caps = np.zeros(N_SUBSETS, np.int64)
    for s in range(1, N_SUBSETS):
        kinds = {k for k, i in KIND_INDEX.items() if (s >> i) & 1}
        total = 0
        for row in rows:
            if row.kinds & kinds:
                value = getattr(row, field)
                total += NO_LIMIT if value >= UNLIMITED else value
        caps[s] = min(total, NO_LIMIT)
    return caps


@dataclass(frozen=True, eq=False)
class TrainData:
    """What one train sees on the compiled graph."""

    train: Train
    node_kidx: np.ndarray  # int8: stop kind index, -1 if not a stop for this train
    node_cost: np.ndarray  # int64: visit units a counted stop uses
    node_optional: np.ndarray  # int8: 0 mandatory, 1 optional, 2 optional and counted first
    node_block: np.ndarray  # int8: 0 free, 1 passable with a bypass, 2 never passed through
    node_can_end: np.ndarray  # bool
    node_end_class: np.ndarray  # int64: a route's two ends may not share a nonzero class
    node_anchor_rank: np.ndarray  # int64: anchors (tokened stops) ranked, -1 otherwise
    node_groups: np.ndarray  # int64 bitmask of the stop's groups (one stop per group)
    node_value: np.ndarray  # int64: revenue when counted
    node_subsidy: np.ndarray  # int64: subsidy when counted
    node_weight: np.ndarray  # int64: what counting the stop is worth to the objective
    node_tags: np.ndarray  # int64 bitmask of bonus tags
    visit_cap: np.ndarray
    pay_cap: np.ndarray
    hex_limit: int
    min_stops: int
    hex_noreenter: np.ndarray  # bool per hex
    max_bypass: int
    n_groups: int
    bonuses: tuple[RouteBonus, ...]  # as the profile gives them (names, for the answer)
    tag_names: tuple[str, ...]
    bonus_cond_ptr: np.ndarray
    bonus_cond_tag: np.ndarray
    bonus_cond_min: np.ndarray
    bonus_amount: np.ndarray
    bonus_group: np.ndarray
    bonus_per_count: np.ndarray
    n_bonus_groups: int
    node_end_bonus: np.ndarray  # int64: what the stop pays again as a route's end (`EndBonus`)
    hex_track_bonus: np.ndarray  # int64 per hex: what a route's track in it earns (`TrackBonus`)
    has_track_bonus: bool
    track_skip_stops: bool
    bonus_on_paid: bool  # `PayRule`: tag bonuses count the paid stops, weighed in the choice
    paid_station: bool  # `PayRule`: one paid stop must be an anchor
    passed_unpaid: bool  # `PayRule`: a city passed with a bypass is visited, never paid
    span_bonuses: tuple[OnceBonus, ...] = ()  # bonuses paid once per round (span, visits)
    # Tallies (`StopRule.tallies`): per stop and tally its count; a route's visited stops
    # must sum to within [tally_min, tally_max] per tally (`Profile.tally_limits`): the walk
    # emits no other route.
    tally_names: tuple[str, ...] = ()
    node_tally: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int64))
    tally_min: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # per tally
    tally_max: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    cyclic_runs: tuple[CyclicRun, ...] = ()  # runs over fixed patterns instead of a route
    revisits: tuple[Revisit, ...] = ()  # stops a route may run to twice (twin nodes in the graph)
    junctions_twice: bool = False  # a route may pass a junction again (`Profile.junctions_pass_twice`)
    # The walk's choice of paid stops may pay more than placing the stops in the rows allows
    # (rows sharing a kind, `_free_riders` could not drop one): routes are paid by placing.
    by_placing: bool = False
    # Rows sharing a kind, as the walk places a route's stops in them (`_placed_rows`): per row
    # the kinds it holds (bit per kind index), its units (-1: unlimited) and the stops it pays
    # (-1: all it holds). Empty: the walk pays by kinds of rows.
    row_kinds: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    row_visit: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    row_pay: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    # The walk's cut (`_cuts`): a partial route worth w with k visit units left can earn at
    # most w + cut_top[k] + cut_extra; empty when no such bound holds.
    cut_top: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    cut_extra: int = 0
    # The bonuses counted per stop (a tag's amount for each stop carrying it) at most, per node,
    # and those paid once to a route visiting stops of given tags, with each stop of one tag
    # (where the sharper cut may hold): the cuts count them with the stop.
    node_bound: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    # Its sharper form where every stop costing distance costs one unit (`_reach_bound`): the
    # stops worth something in ``reach_order`` (best first) count only if they are close
    # enough to the walk's ends, by ``reach_dist[x, s]``: the fewest units any track from
    # vertex x to vertex s uses (s included); a hex's track bonus (``reach_hexes``,
    # ``reach_hex_amount``) only if the walk runs there or can, by ``reach_hex_dist[x, i]``,
    # and no more than the best tour of those hexes (``reach_hex_tour``); the other bonuses
    # at their most (``reach_extra``). Empty: the plain cut only.
    reach_order: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    reach_dist: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int16))
    reach_extra: int = 0
    reach_hexes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    reach_hex_amount: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    reach_hex_dist: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int16))
    # ``reach_hex_tour[x, k]``: the most track bonus a walk from x can collect with k units
    # (`hex_tours`); no rows where the hexes are too many for it.
    reach_hex_tour: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int64))
    # A train whose distance is too long for those distances but paid for a few stops only
    # (express trains): its walk is cut by the stops it can still reach over track it has not
    # run, the best ``reach_walk`` of them and of its own (`search._kernels._reach_worth`),
    # plus ``reach_extra``.
    reach_walk: int = 0  # 0: not cut so; else the most stops a route is paid for
    # What a route holds at most beyond its stops' weights and per-stop bonuses, where those
    # are worth no less than nothing and no stop passed leaves them: a narrowed walk then takes
    # a route's worthier arm first (`search._kernels.enumerate_anchor`); -1: not so.
    arm_extra: int = -1

    @cached_property
    def anchors(self) -> np.ndarray:
        ranked = np.flatnonzero(self.node_anchor_rank >= 0)
        return ranked[np.argsort(self.node_anchor_rank[ranked])]

    @cached_property
    def kernel_view(self) -> tuple:
        """The arrays the walk reads (`search._kernels.TrainArrays`), as a plain tuple."""
        from hexrail.search._kernels import TrainArrays

        return tuple(getattr(self, f) for f in TrainArrays._fields)

    def key(self) -> bytes:
        """Two trains with equal keys have the same candidate routes."""
        parts = [self.node_kidx, self.node_cost, self.node_optional, self.node_block,
                 self.node_can_end, self.node_end_class, self.node_anchor_rank, self.node_value,
                 self.node_subsidy, self.node_weight, self.node_tags, self.visit_cap, self.pay_cap,
                 self.node_end_bonus, self.hex_track_bonus,
                 self.cut_top,
                 np.array([self.hex_limit, self.min_stops, self.max_bypass, self.track_skip_stops,
                           self.bonus_on_paid, self.paid_station, self.junctions_twice,
                           self.passed_unpaid, self.cut_extra])]
        if self.tally_names:
            parts += [self.node_tally, self.tally_min, self.tally_max]
        parts += [self.row_kinds, self.row_visit, self.row_pay]
        return (b"".join(p.tobytes() for p in parts) + repr(self.bonuses).encode()
                + repr(self.span_bonuses).encode() + repr(self.tally_names).encode()
                + repr(self.cyclic_runs).encode() + repr(self.revisits).encode())


def lower_train(pos: Position, graph: TrackGraph, profile: Profile, train: Train,
                objective: str = "income") -> TrainData:
    """The arrays of `train` on `graph` as `profile` rules them."""
    from hexrail.graph._track_kernels import train_columns

    n = graph.n_nodes
    cols = stop_columns(pos, train, profile)
    stop = cols.stop
    n_real = len(stop)  # (the twins of stops run to twice come after)

    def column(values: np.ndarray, dtype: type) -> np.ndarray:
        out = np.zeros(n, dtype)
        out[:n_real] = np.where(stop, values, 0)
        return out

    stop_kinds, stop_costs = cols.kind[stop], cols.cost[stop]
    rows, riding = _free_riders(train.spec, stop_kinds, stop_costs)
    visit_cap, pay_cap = row_caps(rows, "visit"), row_caps(rows, "pay")
    # (`riding`: the walk's choice of paid stops is then exact, `hexrail.search.rows`)
    # (as the kernel is built: a profile's columns of other types would fall back to numba's JIT)
    kidx, cost, optional, block, can_end, end_class, value, subsidy, rank, weight = train_columns(
        n, *(np.ascontiguousarray(a, t) for a, t in (
            (stop, np.bool_), (cols.kind, np.int8), (cols.value, np.int64),
            (cols.subsidy, np.int64), (cols.count, np.int8), (cols.cost, np.int64),
            (cols.block, np.int8), (cols.may_end, np.bool_), (cols.end_class, np.int64),
            (cols.anchor, np.bool_))),
        not train.spec.requires_token, sum(1 << k for k in riding), graph.node_twin,
        objective == "income")
    # rows sharing a kind still: the walk places each route's stops in them, one row each,
    # where their loads are few enough to weigh (`search._kernels.select_placed`); else the
    # chosen routes are placed afterwards (`by_placing`)
    placing = train.spec.rows_share_kinds and not riding
    placed_rows = _placed_rows(rows, stop_kinds, stop_costs) if placing else {}
    by_placing = placing and not placed_rows
    bonuses = profile.bonuses(pos, train)
    tagged, hex_tag_extra = _tag_bonuses(bonuses)
    tag_names = sorted({tag for b in tagged for tag, _ in b.conditions})
    if len(tag_names) > 63:
        raise HexrailError(f"train {train.id}: more than 63 bonus tags", where=f"train {train.id}")
    tag_bit = {t: i for i, t in enumerate(tag_names)}
    tags = np.zeros(n, np.int64)
    if tag_bit:
        hex_tags = np.zeros(len(pos.hexes), np.int64)
        for k in np.unique(cols.node_hex[cols.stop]).tolist():  # (only stops carry tags)
            h = pos.hexes[k]
            for tag in (*profile.hex_tags(pos, train, h), *hex_tag_extra.get(h.id, ())):
                if tag in tag_bit:
                    hex_tags[k] |= 1 << tag_bit[tag]
        tags = column(np.where(cols.stop, hex_tags[cols.node_hex], 0), np.int64)
    end_hexes = {h for b in bonuses if isinstance(b, EndBonus) for h in b.hexes}
    if sum(isinstance(b, EndBonus) for b in bonuses) > 1:
        raise HexrailError("at most one end bonus per train", where=f"train {train.id}")
    spec = train.spec
    end_bonus = np.zeros(n, np.int64)
    if end_hexes:
        ends = np.flatnonzero(cols.hexes(end_hexes, pos) & stop)
        for i in ends.tolist():
            if optional[i] != COUNT_CODE[MANDATORY] or any(r.pay < r.visit for r in spec.rows):
                # the choice of paid stops does not weigh the end bonus: exact only when
                # the end is always paid
                hex_id, _, index = cols.refs[i].rpartition("-")
                raise HexrailError(f"an end bonus needs its stops counted and paid whenever "
                                   f"visited; train {train.id} may leave this stop unpaid",
                                   where=f"hex {hex_id} node {index}")
        end_bonus[ends] = value[ends]
    stop_tallies = {i: list(pairs) for i, pairs in cols.tallies.items() if stop[i]}
    groups = np.zeros(n, np.int64)
    group_ids: dict[str, int] = {}
    tile_groups = node_groups(pos)
    for i in sorted(tile_groups.keys() | cols.groups.keys()):
        if not stop[i]:
            continue
        for name in (*tile_groups.get(i, ()), *cols.groups.get(i, ())):
            bit = group_ids.setdefault(name, len(group_ids))
            if bit > 62:
                raise HexrailError("more than 63 stop groups on one map",
                                   where=f"hex {cols.refs[i].rpartition('-')[0]}")
            groups[i] |= 1 << bit
    # A twin node (a stop a route may run to twice) is its original once more (`train_columns`);
    # the original alone anchors routes.
    twins = np.flatnonzero(graph.node_twin >= 0)
    for v, o in zip(twins.tolist(), graph.node_twin[twins].tolist()):
        tags[v], end_bonus[v] = tags[o], end_bonus[o]
        if o in stop_tallies:
            stop_tallies[v] = stop_tallies[o]
    limits = profile.tally_limits(pos, train)
    tally_names = tuple(name for name, _, _ in limits)
    node_tally = np.zeros((n, len(tally_names)), np.int64)
    for i, pairs in stop_tallies.items():
        for name, count in pairs:
            if name in tally_names:
                node_tally[i, tally_names.index(name)] += count
    plan = profile.plan_rules(pos)

    track_bonus = np.zeros(len(pos.hexes), np.int64)
    skip_stops = False
    for b in bonuses:
        if isinstance(b, TrackBonus):
            skip_stops |= b.skip_stop_hexes
            for hex_id, amount in b.amounts:
                if hex_id in pos.hex_by_id:
                    track_bonus[graph.hex_ids.index(hex_id)] += amount
    if sum(isinstance(b, TrackBonus) for b in bonuses) > 1 and skip_stops:
        raise HexrailError("a track bonus that skips stop hexes must be the train's only one",
                           where=f"train {train.id}")

    pay_rule = profile.pay_rule(pos, train)
    if (pay_rule.bonuses_on_paid or pay_rule.paid_station) and placing:
        # the plan's routes are paid as their stops are placed in the rows
        # (`hexrail.search.rows`), which weighs no bonus
        raise HexrailError("bonuses on paid stops or a paid station need rows that share no "
                           "kind, or rows that pay all they visit", where=f"train {train.id}")
    if pay_rule.bonuses_on_paid or pay_rule.paid_station:
        # the exact choice tries every subset of the route's tagged stops and stations: as
        # many as a route holds at most (its visit units, and the stops costing none)
        marked = (tags != 0) | ((rank >= 0) & pay_rule.paid_station)
        visits = int(visit_cap[N_SUBSETS - 1])
        special = min(int(marked.sum()), visits + int((marked & (cost == 0)).sum()))
        if special > MAX_SPECIAL:
            raise HexrailError(f"{special} stops carry bonuses or stations that the paid-stop "
                               f"choice must weigh; at most {MAX_SPECIAL}", where=f"train {train.id}")
        if any(b.amount < 0 for b in tagged) or (optional == COUNT_CODE[FIRST]).any():
            raise HexrailError("bonuses on paid stops must be positive, with no stop counted "
                               "first", where=f"train {train.id}")

    cond_ptr = [0]
    cond_tag: list[int] = []
    cond_min: list[int] = []
    bonus_groups: dict[str, int] = {}
    b_group = []
    for b in tagged:
        for tag, at_least in b.conditions:
            cond_tag.append(tag_bit[tag])
            cond_min.append(at_least)
        cond_ptr.append(len(cond_tag))
        b_group.append(bonus_groups.setdefault(b.group, len(bonus_groups)) if b.group else -1)

    cond_ptr, cond_tag, cond_min = (np.asarray(a, np.int64) for a in (cond_ptr, cond_tag, cond_min))
    amounts = np.asarray([b.amount for b in tagged], np.int64)
    per_count = np.asarray([b.per_count for b in tagged], np.bool_)
    cut_top, cut_extra, node_bound, reach = _cuts(
        graph, kidx, cost, optional, block, weight, tags, (cond_ptr, cond_tag, cond_min, amounts,
                                                           per_count),
        end_bonus, track_bonus, visit_cap, pay_cap, plan.max_bypass)
    if pay_rule.passed_unpaid and plan.max_bypass > 0:
        reach.pop("arm_extra", None)  # (a stop passed unpaid takes its worth off arm 1)
    return TrainData(
        train=train, node_kidx=kidx, node_cost=cost, node_optional=optional, node_block=block,
        node_can_end=can_end, node_end_class=end_class, node_anchor_rank=rank, node_groups=groups,
        node_value=value, node_subsidy=subsidy, node_weight=weight, node_tags=tags,
        visit_cap=visit_cap, pay_cap=pay_cap,
        hex_limit=spec.hexes, min_stops=spec.min_stops,
        hex_noreenter=pos.derived(("no re-entry", type(profile)), _no_reentry, profile),
        max_bypass=plan.max_bypass, n_groups=len(group_ids),
        bonuses=tuple(bonuses), tag_names=tuple(tag_names),
        bonus_cond_ptr=cond_ptr,
        bonus_cond_tag=cond_tag,
        bonus_cond_min=cond_min,
        bonus_amount=amounts,
        bonus_group=np.asarray(b_group, np.int64),
        bonus_per_count=per_count,
        n_bonus_groups=len(bonus_groups),
        node_end_bonus=end_bonus, hex_track_bonus=track_bonus,
        has_track_bonus=bool(track_bonus.any()), track_skip_stops=skip_stops,
        bonus_on_paid=pay_rule.bonuses_on_paid, paid_station=pay_rule.paid_station,
        passed_unpaid=pay_rule.passed_unpaid,
        span_bonuses=claims(profile.span_bonuses(pos, train)),
        tally_names=tally_names, node_tally=node_tally,
        tally_min=np.asarray([lo for _, lo, _ in limits], np.int64),
        tally_max=np.asarray([hi for _, _, hi in limits], np.int64),
        cyclic_runs=tuple(profile.cyclic_runs(pos, train)),
        revisits=tuple(profile.revisits(pos)),
        junctions_twice=profile.junctions_pass_twice,
        by_placing=by_placing, **placed_rows,
        cut_top=cut_top, cut_extra=cut_extra, node_bound=node_bound, **reach,
    )


def claims(bonuses: tuple[OnceBonus, ...]) -> tuple[OnceBonus, ...]:
    """The once-per-round bonuses as routes claim them, one claim each: an `EndsSubsidy` paying
    k routes as k copies (``name``, ``name #2``, ...), of which a route claims one at most
    (`hexrail.search.routes.with_span_bonuses`)."""
    if not any(isinstance(b, EndsSubsidy) and b.routes > 1 for b in bonuses):
        return tuple(bonuses)
    out: list[OnceBonus] = []
    for b in bonuses:
        if isinstance(b, EndsSubsidy) and b.routes > 1:
            out += [replace(b, name=b.name if k == 0 else f"{b.name} #{k + 1}")
                    for k in range(b.routes)]
        else:
            out.append(b)
    return tuple(out)


def _free_riders(spec: TrainSpec, kinds: np.ndarray, costs: np.ndarray
                 ) -> tuple[tuple[Row, ...], list[int]]:
    """The train's rows as the walk counts them, and the kinds whose stops it counts as
    optional. A row paying nothing whose visit units no route can use up (1867's towns beyond
    the paying row), beside rows that pay all they visit, changes nothing but lets a stop of its
    kinds go unpaid: such stops are optional in the other rows (counted where worth it and room
    is left, best first), and the row is dropped. Then no two rows share a kind
    (`TrainSpec.rows_share_kinds`) and the walk pays as the stops are placed. Otherwise the
    rows as they are. `kinds` and `costs`: the board's stops."""
    rows = spec.rows
    free = [r for r in rows if r.pay == 0]
    others = tuple(r for r in rows if r.pay != 0)
    if not spec.rows_share_kinds or len(free) != 1 or not others or any(
            r.pay < r.visit for r in others):
        return rows, []
    riding = sorted(KIND_INDEX[k] for k in free[0].kinds)
    # a stop run to twice counts twice: room for every stop two times over
    if free[0].visit < UNLIMITED and 2 * int(costs[np.isin(kinds, riding)].sum()) > free[0].visit:
        return rows, []
    return others, riding


def _placed_rows(rows: tuple[Row, ...], kinds: np.ndarray, costs: np.ndarray) -> dict:
    """The rows as the walk places stops in them (`TrainData.row_kinds` ...), or nothing where
    their loads (units used and stops paid, per row) pass `PLACE_STATES`. A row pays all it
    holds where it cannot hold more stops than it pays (none of its stops costs nothing).
    `kinds` and `costs`: the board's stops."""
    row_kinds, row_visit, row_pay = [], [], []
    states = 1
    for row in rows:
        mask = sum(1 << KIND_INDEX[k] for k in row.kinds)
        free = (costs[np.isin(kinds, [KIND_INDEX[k] for k in row.kinds])] == 0).any()
        visit = row.visit if row.visit < UNLIMITED else -1
        pays_all = row.pay >= UNLIMITED or (0 <= visit <= row.pay and not free)
        pay = -1 if pays_all else row.pay
        states *= (visit + 1 if visit >= 0 else 1) * (pay + 1 if pay >= 0 else 1)
        row_kinds.append(mask)
        row_visit.append(visit)
        row_pay.append(pay)
    if states > PLACE_STATES:
        return {}
    return {"row_kinds": np.asarray(row_kinds, np.int64), "row_visit": np.asarray(row_visit, np.int64),
            "row_pay": np.asarray(row_pay, np.int64)}


def _no_reentry(pos: Position, profile: Profile) -> np.ndarray:
    """Per hex: may a route not leave it and come back (`Profile.reentry_forbidden`)? The
    same for every train of the position: one array, shared (not to be written to)."""
    if type(profile).reentry_forbidden is Profile.reentry_forbidden:
        return np.zeros(len(pos.hexes), np.bool_)  # (no hex forbids it: not asked hex by hex)
    return np.array([profile.reentry_forbidden(pos, h) for h in pos.hexes], np.bool_)


def _cuts(graph: TrackGraph, kidx: np.ndarray, cost: np.ndarray, optional: np.ndarray,
          block: np.ndarray, weight: np.ndarray, tags: np.ndarray, bonuses: tuple,
          end_bonus: np.ndarray, track_bonus: np.ndarray, visit_cap: np.ndarray,
          pay_cap: np.ndarray, max_bypass: int) -> tuple[np.ndarray, int, np.ndarray, dict]:
    """What a partial walk can still add, so that the walk is cut where no extension reaches
    the routes wanted (`enumerate_routes(min_value=...)`, `best_only`): with k visit units left,
    at most the k best stops costing distance (``top[k]``), every stop costing none, and every
    bonus at its most (``extra``). A bonus counted per stop carrying a tag is counted with
    each such stop (``bound``, per node), and so, where the sharper cut may hold, is one paid
    once to a route visiting stops of given tags (`bonus_bounds`: a stop a route may pass
    uncounted leaves its bonuses in ``extra``). Sound only when no stop is worth less than nothing (a
    route's worth is then at most the sum over its visited stops); else no cut (an empty
    ``top``). A train whose distance has no end gets no ``top`` either. Where the distance is
    too long for the sharper cut (`_reach_bound`) but a route is paid for a few stops only
    (express trains), the walk is also cut by the best stops it can still reach
    (``reach_walk``: how many a route is paid for; the bonuses at their most in
    ``reach_extra``), the fourth item, which also holds ``arm_extra`` (`TrainData.arm_extra`,
    the bonuses at their most) and the sharper cut's tables (`_reach_bound`). (Summing every
    stop a walk can reach cuts too little on large boards to pay for the search: D trains get
    no such cut; taking the worthier arm first is what keeps their walks short.)"""
    from hexrail.search._kernels import bonus_bounds, stop_cuts

    units = int(visit_cap[N_SUBSETS - 1])
    # (`bonuses`: the tag bonuses' conditions, amounts and whether counted per stop, as the
    # walk reads them)
    if len(bonuses[3]):
        bound, extra = bonus_bounds(kidx, optional, tags, *bonuses, units <= REACH_UNITS)
    else:
        bound, extra = np.zeros(len(kidx), np.int64), 0
    usable, top, free, costed, costly, counted, order, shut, step = stop_cuts(
        kidx, cost, optional, block, weight, bound, units if units < NO_LIMIT else -1, max_bypass)
    if not usable:
        return top[:0], 0, np.zeros(len(kidx), np.int64), {}
    extra += int(end_bonus.max(initial=0)) + int(track_bonus[track_bonus > 0].sum()) \
        if track_bonus.any() or end_bonus.any() else 0
    reach = {"arm_extra": extra}
    if units > REACH_UNITS:
        # every stop takes a paid place (none costs nothing, none is optional) and earns only
        # where paid (no bonus counts it visited): a route is paid for its best ones only
        paid = int(pay_cap[N_SUBSETS - 1])
        if paid < NO_LIMIT and costed and counted and not bound.any():
            reach.update(reach_walk=paid, reach_extra=extra)
    if units >= NO_LIMIT:
        return top, 0, bound, reach
    extra += free
    # A stop a route may pass uncounted costs no unit on the way to another: where most stops
    # may be, the distances tell little, and the cut costs the walk more than it saves (1860's
    # halts beside its towns, 1861's 5+5E).
    passable = np.count_nonzero(optional)  # (0 for every node but a stop)
    if units <= REACH_UNITS and not costly and 2 * passable < np.count_nonzero(kidx >= 0):
        reach |= _reach_bound(graph, order, shut, np.where(optional != 0, 0, step) if passable
                              else step, extra, track_bonus, units,
                              kidx >= 0 if costed and counted and track_bonus.any() else None)
    return top, extra, bound, reach


def _reach_bound(graph: TrackGraph, order: np.ndarray, shut: np.ndarray, step: np.ndarray,
                 cut_extra: int, track_bonus: np.ndarray, units: int,
                 stops: np.ndarray | None = None) -> dict:
    """The walk's sharper cut (`TrainData.reach_order` ...), where it holds: with k units left
    a walk can add only stops it can still reach, and only one of them as far as k units, two
    within k - 1, ... from its ends (the current end and, while arm 1 runs, the anchor arm 2
    leaves from); a hex's track bonus only where it runs already or can still run, and no
    more than the best tour of those it can (`hex_tours`), nor, where every stop costs distance
    and counts (`stops`, per node), than the stretches of route ending at its stops to come
    can collect (`hex_trails`, `stretch_tours`). Distances
    count the units of the stops on the way and ignore every rule but the stops a train may
    never pass (`shut`), so they are never more than a walk spends. Sound where the plain cut
    is and every stop costing distance costs one unit (`step`, none for one a route may
    pass uncounted; those in `order` are worth something, worthiest first)."""
    from hexrail.search._kernels import REACH_FAR, TOUR_HEXES, hex_tours, reach_distances

    # the trains of a position mostly share their stops' costs and blocks: one search serves
    known = graph.__dict__.setdefault("_reach_distances", {})
    key = step.tobytes() + shut.tobytes()
    dist = known.get(key)
    if dist is None:
        if len(known) >= 16:
            known.clear()
        dist = known[key] = reach_distances(graph.adj_ptr, graph.adj_chain, graph.adj_end,
                                            graph.chain_ends, graph.n_nodes, step, shut)
    if not track_bonus.any():
        return {"reach_order": order, "reach_dist": dist, "reach_extra": cut_extra}
    hexes = np.flatnonzero(track_bonus > 0)
    hex_dist = np.full((dist.shape[0], len(hexes)), REACH_FAR, np.int16)
    chain_of = np.repeat(np.arange(len(graph.chain_ends)), np.diff(graph.chain_hex_ptr))
    ends_ptr = np.zeros(len(hexes) + 1, np.int64)
    all_ends = []
    for i, h in enumerate(hexes.tolist()):
        ends = np.unique(graph.chain_ends[chain_of[graph.chain_hexes == h]].ravel())
        if len(ends):  # (a hex's track bonus is reached at either end of a chain running there)
            hex_dist[:, i] = dist[:, ends].min(axis=1)
        all_ends.append(ends)
        ends_ptr[i + 1] = ends_ptr[i] + len(ends)
    tour = np.zeros((0, 0), np.int64)
    if 1 < len(hexes) <= TOUR_HEXES:
        tour = hex_tours(dist, hex_dist, ends_ptr, np.concatenate(all_ends).astype(np.int64),
                         track_bonus[hexes], units)
        if stops is not None:
            tour = np.minimum(tour, _stretch_bound(graph, dist, stops, step, chain_of, hexes,
                                                   track_bonus[hexes], units))
    return {"reach_order": order, "reach_dist": dist,
            "reach_extra": cut_extra - int(track_bonus[hexes].sum()),
            "reach_hexes": hexes.astype(np.int64), "reach_hex_amount": track_bonus[hexes],
            "reach_hex_dist": hex_dist, "reach_hex_tour": tour}


def _stretch_bound(graph: TrackGraph, dist: np.ndarray, stops: np.ndarray, step: np.ndarray,
                   chain_of: np.ndarray, hexes: np.ndarray, amount: np.ndarray,
                   units: int) -> np.ndarray:
    """Per vertex x and units k, no more track bonus than a route from x spending k more units
    collects: a route runs a hex's track on the stretch between two stops it counts, which,
    taken from the later stop, passes no stop; so no more than the most such a stretch from x
    collects (x a stop: the stretch into it, whose hexes the walk has not yet counted) and the
    most from each stop still to come (`stretch_tours`). Where the stretches are too many to
    search (`TRAIL_STEPS`), no bound."""
    from hexrail.search._kernels import TRAIL_STEPS, hex_trails, stretch_tours

    bits = np.zeros(len(graph.chain_ends), np.int64)
    at = np.minimum(np.searchsorted(hexes, graph.chain_hexes), len(hexes) - 1)
    held = hexes[at] == graph.chain_hexes
    np.bitwise_or.at(bits, chain_of[held], np.left_shift(1, at[held]))
    trail, whole = hex_trails(graph.adj_ptr, graph.adj_chain, graph.adj_end, graph.chain_ends,
                              stops, bits, amount, TRAIL_STEPS)
    if not whole:
        return np.full((dist.shape[0], units + 1), np.iinfo(np.int64).max, np.int64)
    ones = np.flatnonzero(stops & (step == 1) & (trail[:len(stops)] > 0))
    order = ones[np.argsort(-trail[ones], kind="mergesort")]
    return trail[:, None] + stretch_tours(dist, order, trail, units)


def _tag_bonuses(bonuses: tuple[RouteBonus, ...]) -> tuple[list[Bonus], dict[str, list[str]]]:
    """The bonuses the walk counts by stop tags: every `Bonus`; a `SetsBonus` as one bonus
    needing a tag per set (carried by that set's hexes); a `HexBonus` as one bonus per hex of
    its set (a tag of that hex alone). With the extra tags per hex id."""
    tagged: list[Bonus] = []
    extra: dict[str, list[str]] = {}
    for n, b in enumerate(bonuses):
        if isinstance(b, Bonus):
            tagged.append(b)
        elif isinstance(b, SetsBonus):
            tags = tuple(f"{b.name}#{n}/{k}" for k in range(len(b.sets)))
            for tag, hexes in zip(tags, b.sets):
                for hex_id in dict.fromkeys(hexes):
                    extra.setdefault(hex_id, []).append(tag)
            tagged.append(Bonus(b.name, b.amount, tuple((tag, 1) for tag in tags)))
        elif isinstance(b, HexBonus):
            for hex_id in dict.fromkeys(b.hexes):
                tag = f"{b.name}@{hex_id}"
                extra.setdefault(hex_id, []).append(tag)
                tagged.append(Bonus(b.name, b.amount, ((tag, 1),)))
    return tagged, extra


def name_bonuses(td: TrainData, graph: TrackGraph, stop_ids: list[int], paid_ids: list[int],
                 hexes: list[str]) -> tuple[tuple[str, int], ...]:
    """The bonuses a route earns, by name (mirrors the kernel's sum): `stop_ids` its visited
    stops in order, `paid_ids` the paid ones, `hexes` the hexes its track runs in."""
    if not td.bonuses:
        return ()
    counts: dict[int, int] = {}
    for s in (paid_ids if td.bonus_on_paid else stop_ids):
        t, bit = int(td.node_tags[s]), 0
        while t:
            if t & 1:
                counts[bit] = counts.get(bit, 0) + 1
            t >>= 1
            bit += 1
    tag_bit = {tag: bit for bit, tag in enumerate(td.tag_names)}
    best: dict[str, tuple[str, int]] = {}
    out: dict[str, int] = {}
    tagged, _ = _tag_bonuses(td.bonuses)
    for b in tagged:
        if not all(counts.get(tag_bit[tag], 0) >= at_least for tag, at_least in b.conditions):
            continue
        amount = b.amount * (counts[tag_bit[b.conditions[0][0]]] if b.per_count else 1)
        if not b.group:
            out[b.name] = out.get(b.name, 0) + amount
        elif amount > best.get(b.group, ("", 0))[1]:
            best[b.group] = (b.name, amount)
    for name, amount in best.values():
        out[name] = out.get(name, 0) + amount
    paid = set(paid_ids)
    for b in td.bonuses:
        if isinstance(b, EndBonus) and stop_ids:
            ends = {stop_ids[0], stop_ids[-1]} & paid
            amount = max((int(td.node_end_bonus[s]) for s in ends), default=0)
            if amount:
                out[b.name] = out.get(b.name, 0) + amount
    tracks = [b for b in td.bonuses if isinstance(b, TrackBonus)]
    if tracks:
        stop_hexes = {graph.hex_ids[graph.node_hex[s]] for s in stop_ids} if td.track_skip_stops \
            else set()
        for b in tracks:
            amounts = dict(b.amounts)
            amount = sum(amounts.get(h, 0) for h in set(hexes) - stop_hexes)
            if amount:
                out[b.name] = out.get(b.name, 0) + amount
    return tuple((name, amount) for name, amount in out.items() if amount)
