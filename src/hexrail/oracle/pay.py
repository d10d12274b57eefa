"""What one route is paid: every choice of counted stops and every placing in the train's rows."""

from __future__ import annotations

from functools import cache
from collections.abc import Iterator
from itertools import combinations, product

from hexrail.model.trains import UNLIMITED
from hexrail.oracle.board import _Board, _Walk
from hexrail.oracle.result import NodeKey, ReferenceRoute
from hexrail.rules.base import (FIRST, OPTIONAL, EndBonus, EndsSubsidy, HexBonus, SetsBonus, TrackBonus,
                                VisitAllBonus, VisitBonus)


def _fit_checker(spec):
    """``fits(stops)``: can stops given as (kind, visit cost) pairs be assigned to the rows?"""
    rows = spec.rows

    @cache
    def fits(stops: tuple[tuple[str, int], ...]) -> bool:
        return _assignment(rows, stops) is not None

    return fits


def _assignment(rows, stops) -> tuple[int, ...] | None:
    """Any assignment of the stops to rows listing their kind within each row's visit units."""
    options = [[r for r, row in enumerate(rows) if kind in row.kinds] for kind, _ in stops]
    for assign in product(*options):
        used = [0] * len(rows)
        for (_, cost), r in zip(stops, assign):
            used[r] += cost
        if all(u <= row.visit or row.visit >= UNLIMITED for u, row in zip(used, rows)):
            return assign
    return None


def _score_route(board: _Board, walk: _Walk, objective: str) -> ReferenceRoute | None:
    """The best way to count and pay the route's stops; None if its mandatory stops don't fit."""
    # a city passed by a bypass uses distance; under `PayRule.passed_unpaid` it earns nothing
    passed = frozenset(walk.passed) if board.pay_rule.passed_unpaid else frozenset()
    best = _choose_pay(board, walk.stops, passed, objective, walk)
    if best is None:
        return None
    _, revenue, subsidy, counted, paid = best
    bonus = _bonus(board, walk, paid)
    return ReferenceRoute(
        train=board.train.id,
        paths=tuple(f"{h}:{k}" for h, k in walk.paths),
        stops=tuple(_ref(s) for s in walk.stops),
        counted=tuple(_ref(s) for s in walk.stops if s in counted),
        paid=tuple(_ref(s) for s in walk.stops if s in paid),
        revenue=revenue + bonus, subsidy=subsidy, bonus=bonus, bypass=walk.bypass,
        crossings=len(walk.lanes), track=board.track(walk.paths, walk.lanes),
        nodes=tuple(_ref(n) for n in walk.nodes), span=_span(board, walk))


def _span(board: _Board, walk: _Walk) -> tuple[tuple[str, int], ...]:
    """The once-per-round bonuses the walk could earn: for each span bonus whose start is one of
    its end stops and whose target it contains, the amount less the price of the hex-side
    lanes crossed between them (the fewest); for each visit bonus, its amount per visited
    stop."""
    lanes_at = dict(zip(walk.nodes, walk.node_lanes))
    ends = {walk.stops[0], walk.stops[-1]}
    out = []
    for b in board.span_bonuses:
        if isinstance(b, VisitBonus):
            out.append((b.name, b.earned(len(walk.stops))))
            continue
        if isinstance(b, (VisitAllBonus, EndsSubsidy)):
            amount = b.earned(tuple(_ref(s) for s in walk.stops))
            if amount > 0:
                out.append((b.name, amount))
            continue
        gaps = [abs(lanes_at[x] - lanes_at[y]) for x in map(_key, b.start) if x in ends
                for y in map(_key, b.target) if y in lanes_at and y != x]
        if gaps:
            amount = b.earned(min(gaps))
            if amount > 0:
                out.append((b.name, amount))
    return tuple(out)


def _key(ref: str) -> NodeKey:
    hex_id, _, index = ref.rpartition("-")
    return hex_id, int(index)


def _choose_pay(board: _Board, stops: list[NodeKey] | tuple[NodeKey, ...],
                unpayable: frozenset[NodeKey], objective: str, walk: _Walk | None = None
                ) -> tuple | None:
    """(objective value, revenue, subsidy, counted, paid) of the best way to count and pay
    `stops`; stops in `unpayable` use distance but earn nothing (another route is paid for
    them). None if the mandatory stops don't fit the rows. Under a `PayRule` (bonuses on the
    paid stops, a paid station) every choice of paid stops in every row is tried, with the
    walk's bonuses; values and revenue then include them."""
    rows = board.train.spec.rows
    rule = board.pay_rule
    by_choice = walk is not None and (rule.bonuses_on_paid or rule.paid_station)
    mandatory = [s for s in stops if not board.optional[s]]
    optional = [s for s in stops if board.optional[s]]
    best = None  # (objective value, revenue, subsidy, counted, paid)
    for mask in range(1 << len(optional)):
        counted = mandatory + [s for j, s in enumerate(optional) if (mask >> j) & 1]
        if any(board.count[s] == FIRST and s not in counted for s in optional) and any(
                board.count[s] == OPTIONAL and s in counted for s in optional):
            continue  # an optional stop counts only when every FIRST stop visited counts
        options = [[r for r, row in enumerate(rows) if board.node[s].kind in row.kinds] for s in counted]
        for assign in product(*options):
            used = [0] * len(rows)
            members: list[list[NodeKey]] = [[] for _ in rows]
            for s, r in zip(counted, assign):
                used[r] += board.cost[s]
                members[r].append(s)
            if any(u > row.visit and row.visit < UNLIMITED for u, row in zip(used, rows)):
                continue
            for paid in (_every_pay(board, rows, members, unpayable) if by_choice else
                         [_best_rows(board, rows, members, unpayable, objective)]):
                if by_choice and rule.paid_station and not any(board.anchor[s] for s in paid):
                    continue
                revenue = sum(board.value[s] for s in paid)
                subsidy = sum(board.subsidy[s] for s in paid)
                bonus = _bonus(board, walk, paid) if by_choice else 0
                value = revenue + subsidy if objective == "income" else revenue
                if best is None or (value + bonus, revenue + bonus) > (best[0], best[1]):
                    best = (value + bonus, revenue + bonus, subsidy, counted, paid)
    if best is not None and by_choice:  # the bonus is added by the caller
        bonus = _bonus(board, walk, best[4])
        best = (best[0] - bonus, best[1] - bonus, *best[2:])
    return best


def _best_rows(board: _Board, rows, members: list[list[NodeKey]], unpayable: frozenset[NodeKey],
               objective: str) -> list[NodeKey]:
    """Each row pays its best `row.pay` stops. Ranking by (worth to the objective, revenue)
    and taking the top of each row maximises that pair (pairs ordered lexicographically add
    up consistently); a stop worth nothing is not paid."""
    paid: list[NodeKey] = []
    for row, ms in zip(rows, members):
        worth = {s: (0, 0) if s in unpayable else _worth(board, s, objective) for s in ms}
        ranked = sorted(ms, key=lambda s: worth[s], reverse=True)
        paid += [s for s in ranked[:row.pay] if worth[s] > (0, 0)]
    return paid


def _every_pay(board: _Board, rows, members: list[list[NodeKey]],
               unpayable: frozenset[NodeKey]) -> Iterator[list[NodeKey]]:
    """Every choice of paid stops: per row any `row.pay` of its payable stops (all, if fewer)."""
    payable = [[s for s in ms if s not in unpayable] for ms in members]
    per_row = [list(combinations(ms, min(len(ms), row.pay))) for row, ms in zip(rows, payable)]
    for pick in product(*per_row):
        yield [s for chosen in pick for s in chosen]


def _worth(board: _Board, stop: NodeKey, objective: str) -> tuple[int, int]:
    """What paying `stop` adds: (objective value, revenue). Row multipliers are already in the
    profile's stop value (a kind is paid by rows of one multiplier only)."""
    revenue = board.value[stop]
    return (revenue + board.subsidy[stop] if objective == "income" else revenue, revenue)


def _ref(node: NodeKey) -> str:
    return f"{node[0]}-{node[1]}"


def _bonus(board: _Board, walk: _Walk, paid: list[NodeKey]) -> int:
    """What the walk's bonuses add: tag bonuses by counts of stops per hex tag (exclusive
    groups pay their best), sets bonuses when every set holds a stop, hex bonuses per distinct
    stop hex in the set (the stops: the visited ones, or the paid ones under
    `PayRule.bonuses_on_paid`), an end bonus for the better paid end, track bonuses per
    distinct hex of the walk's paths."""
    if not board.bonuses:
        return 0
    stops = walk.stops
    scored = paid if board.pay_rule.bonuses_on_paid else stops  # the stops bonuses count
    counts: dict[str, int] = {}
    for h, _ in scored:
        for tag in set(board.tags[h]):  # a stop counts once per tag its hex carries
            counts[tag] = counts.get(tag, 0) + 1
    total = 0
    best_in_group: dict[str, int] = {}
    stop_hexes = {h for h, _ in scored}
    for b in board.bonuses:
        if isinstance(b, SetsBonus):
            total += b.amount if all(any(h in stop_hexes for h in hs) for hs in b.sets) else 0
            continue
        if isinstance(b, HexBonus):
            total += b.amount * sum(1 for h in set(b.hexes) if h in stop_hexes)
            continue
        if isinstance(b, EndBonus):
            total += max((board.value[s] for s in {stops[0], stops[-1]}
                          if s in paid and s[0] in b.hexes), default=0)
            continue
        if isinstance(b, TrackBonus):
            track = {h for h, _ in walk.paths}
            if b.skip_stop_hexes:
                track -= {h for h, _ in stops}  # (the visited stops, paid or not)
            total += sum(a for h, a in b.amounts if h in track)
            continue
        if not all(counts.get(tag, 0) >= at_least for tag, at_least in b.conditions):
            continue
        amount = b.amount * (counts.get(b.conditions[0][0], 0) if b.per_count else 1)
        if b.group:
            best_in_group[b.group] = max(best_in_group.get(b.group, amount), amount)
        else:
            total += amount
    return total + sum(best_in_group.values())
