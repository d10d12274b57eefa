"""What one route is paid: its stops placed in the train's rows by brute force, and its bonuses."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations, product
from dataclasses import dataclass

from hexrail.model.position import Train
from hexrail.model.trains import ALL_KINDS, UNLIMITED, Row
from hexrail.rules.base import FIRST, MANDATORY, OPTIONAL, EndBonus, HexBonus, SetsBonus, TrackBonus
from hexrail.validate.board import _Board
from hexrail.validate.refs import NodeRef


@dataclass(frozen=True)
class _Stop:
    ref: NodeRef
    kind: str
    cost: int
    count: str  # MANDATORY, OPTIONAL or FIRST
    value: int
    subsidy: int

    @property
    def optional(self) -> bool:
        return self.count != MANDATORY


@dataclass(frozen=True)
class _Pay:
    """The paid stops a route chose, what they earn, and the objective's score for the choice."""

    paid: frozenset[NodeRef]
    revenue: int
    subsidy: int
    score: tuple[int, int]


def _stop_info(board: _Board, train: Train, ref: NodeRef) -> _Stop:
    rule = board.rule(train, ref)
    return _Stop(ref, board.node(ref).kind, rule.cost, rule.count, rule.value, rule.subsidy)


def _row_assignments(stops: list[_Stop], rows: tuple[Row, ...]) -> Iterator[list[list[int]]]:
    """Every way to put the counted stops into rows that list their kind, within each row's
    visit units. Mandatory stops must be placed; optional ones may stay uncounted (tried first,
    so a stop worth nothing is left out)."""
    load = [0] * len(rows)
    members: list[list[int]] = [[] for _ in rows]

    def place(i: int) -> Iterator[list[list[int]]]:
        if i == len(stops):
            if _first_respected(stops, members):
                yield [list(m) for m in members]
            return
        stop = stops[i]
        if stop.optional:
            yield from place(i + 1)
        for r, row in enumerate(rows):
            if stop.kind in row.kinds and (row.visit >= UNLIMITED or load[r] + stop.cost <= row.visit):
                load[r] += stop.cost
                members[r].append(i)
                yield from place(i + 1)
                members[r].pop()
                load[r] -= stop.cost

    yield from place(0)


def _first_respected(stops: list[_Stop], members: list[list[int]]) -> bool:
    """An OPTIONAL stop may count only when every FIRST stop visited counts (1860's towns
    fill the train before its halts)."""
    counted = {i for m in members for i in m}
    if any(s.count == FIRST and i not in counted for i, s in enumerate(stops)):
        return not any(s.count == OPTIONAL and i in counted for i, s in enumerate(stops))
    return True


def _pay_rows(board: _Board, stops: list[_Stop], rows: tuple[Row, ...], members: list[list[int]],
              unpayable: frozenset[NodeRef]) -> _Pay:
    """With stops placed in rows, each row pays its best `row.pay` stops. (Row multipliers are
    part of the profile's stop value: a kind is paid by rows of one multiplier only.)"""
    income = board.objective == "income"
    paid: set[NodeRef] = set()
    revenue = subsidy = 0
    for row, placed in zip(rows, members):
        payable = [stops[i] for i in placed if stops[i].ref not in unpayable]
        payable.sort(key=lambda s: (s.value + (s.subsidy if income else 0), s.value), reverse=True)
        for stop in payable[:row.pay]:
            paid.add(stop.ref)
            revenue += stop.value
            subsidy += stop.subsidy
    score = revenue + subsidy if income else revenue
    return _Pay(frozenset(paid), revenue, subsidy, (score, revenue))


def _best_pay(board: _Board, train: Train, refs: list[NodeRef],
              unpayable: frozenset[NodeRef] = frozenset()) -> _Pay | None:
    """The best choice of counted and paid stops for the objective, by brute force over the
    stops' rows; None if the mandatory stops do not fit the train (rule 9). Stops in
    `unpayable` still use distance but pay nothing (they pay another route)."""
    stops = [_stop_info(board, train, ref) for ref in refs]
    rows = train.spec.rows
    rule = board.profile.pay_rule(board.pos, train)
    if rule.bonuses_on_paid or rule.paid_station:
        return _best_pay_with_bonus(board, train, refs, stops, rows, unpayable, rule.paid_station)
    best: _Pay | None = None
    for members in _row_assignments(stops, rows):
        pay = _pay_rows(board, stops, rows, members, unpayable)
        if best is None or pay.score > best.score:
            best = pay
    return best


def _best_pay_with_bonus(board: _Board, train: Train, refs: list[NodeRef], stops: list[_Stop],
                         rows: tuple[Row, ...], unpayable: frozenset[NodeRef],
                         paid_station: bool) -> _Pay | None:
    """`_best_pay` under a `PayRule`: every choice of paid stops in every row (any `row.pay`
    of its stops), weighed with the route's bonuses on them; with `paid_station` only choices
    paying a station of the company. None when no choice is allowed."""
    income = board.objective == "income"
    best: _Pay | None = None
    best_key = None
    for members in _row_assignments(stops, rows):
        payable = [[i for i in placed if stops[i].ref not in unpayable] for placed in members]
        per_row = [list(combinations(p, min(len(p), row.pay))) for p, row in zip(payable, rows)]
        for pick in product(*per_row):
            chosen = [stops[i] for part in pick for i in part]
            paid = frozenset(s.ref for s in chosen)
            if paid_station and not any(board.rule(train, ref).anchor for ref in paid):
                continue
            revenue = sum(s.value for s in chosen)
            subsidy = sum(s.subsidy for s in chosen)
            bonus = sum(a for _, a in _bonuses(board, train, refs, paid, ()))
            score = revenue + subsidy if income else revenue
            if best_key is None or (score + bonus, revenue + bonus) > best_key:
                best_key = (score + bonus, revenue + bonus)
                best = _Pay(paid, revenue, subsidy, (score, revenue))
    return best


def _declared_pay(board: _Board, train: Train, refs: list[NodeRef],
                  declared: frozenset[NodeRef]) -> _Pay | None:
    """What the route earns when it is paid for exactly the `declared` stops (a player may
    take less than the best, e.g. a halt's subsidy instead of a town); None if no placing of
    the stops in the train's rows pays exactly those."""
    stops = [_stop_info(board, train, ref) for ref in refs]
    rows = train.spec.rows
    if board.profile.pay_rule(board.pos, train).paid_station and not any(
            board.rule(train, ref).anchor for ref in declared):
        return None  # one paid stop must be the company's station
    for members in _row_assignments(stops, rows):
        placed = {stops[i].ref: r for r, m in enumerate(members) for i in m}
        if not declared <= placed.keys():
            continue
        if any(s.optional and s.ref in placed and s.ref not in declared for s in stops):
            continue  # an optional stop counted must be one the route is paid for
        per_row = [sum(1 for ref in declared if placed[ref] == r) for r in range(len(rows))]
        if all(n <= row.pay for n, row in zip(per_row, rows)):
            chosen = [s for s in stops if s.ref in declared]
            revenue = sum(s.value for s in chosen)
            subsidy = sum(s.subsidy for s in chosen)
            score = revenue + subsidy if board.objective == "income" else revenue
            return _Pay(declared, revenue, subsidy, (score, revenue))
    return None


def _describe_rows(rows: tuple[Row, ...]) -> str:
    parts = []
    for row in rows:
        count = "any number" if row.visit >= UNLIMITED else str(row.visit)
        kinds = "" if row.kinds == ALL_KINDS else " " + "/".join(sorted(row.kinds))
        parts.append(count + kinds)
    return " + ".join(parts)


def _plural(kind: str, n: int) -> str:
    return kind if n == 1 else ("cities" if kind == "city" else kind + "s")


def _distance_error(board: _Board, train: Train, refs: list[NodeRef]) -> str:
    """Rule 9's message: how many stops count, and what the train may visit."""
    counted = [s for s in (_stop_info(board, train, r) for r in refs) if not s.optional]
    units = sum(s.cost for s in counted)
    rows = train.spec.rows
    if len(rows) == 1:
        return (f"visits {units} stops that count, a {train.name} train may visit "
                f"{_describe_rows(rows)}")
    by_kind: dict[str, int] = {}
    for s in counted:
        by_kind[s.kind] = by_kind.get(s.kind, 0) + s.cost
    kinds = ", ".join(f"{n} {_plural(kind, n)}" for kind, n in by_kind.items())
    return f"visits {kinds}, more than a {train.name} train may visit ({_describe_rows(rows)})"


def _bonuses(board: _Board, train: Train, refs: list[NodeRef], paid: frozenset[NodeRef],
             track_hexes: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """The route's bonuses, by name: tag bonuses counted over the stops' hexes (exclusive
    groups pay their largest member), a sets bonus when every set holds a stop's hex, a hex
    bonus per distinct stop hex in its set (the stops: the visited ones, or the paid ones under
    `PayRule.bonuses_on_paid`), an end bonus for the better paid end in its hexes, a track bonus
    per distinct hex of the route's track (less its visited stops' hexes, if it says so)."""
    bonuses = board.profile.bonuses(board.pos, train)
    if not bonuses:
        return ()
    on_paid = board.profile.pay_rule(board.pos, train).bonuses_on_paid
    scored = [ref for ref in refs if ref in paid] if on_paid else refs  # the stops bonuses count
    counts: dict[str, int] = {}
    for ref in scored:
        for tag in set(board.profile.hex_tags(board.pos, train, board.hex(ref[0]))):
            counts[tag] = counts.get(tag, 0) + 1
    earned: dict[str, int] = {}
    best: dict[str, tuple[str, int]] = {}
    stop_hexes = {ref[0] for ref in scored}
    for b in bonuses:
        if isinstance(b, SetsBonus):
            amount = b.amount if all(stop_hexes & set(hexes) for hexes in b.sets) else 0
        elif isinstance(b, HexBonus):
            amount = b.amount * len(stop_hexes & set(b.hexes))
        elif isinstance(b, EndBonus):
            ends = {refs[0], refs[-1]} & paid if refs else set()
            amount = max((board.rule(train, ref).value for ref in ends if ref[0] in b.hexes),
                         default=0)
        elif isinstance(b, TrackBonus):
            amounts = dict(b.amounts)
            hexes = set(track_hexes) - ({ref[0] for ref in refs} if b.skip_stop_hexes else set())
            amount = sum(amounts.get(h, 0) for h in hexes)
        else:
            if not all(counts.get(tag, 0) >= at_least for tag, at_least in b.conditions):
                continue
            amount = b.amount * (counts.get(b.conditions[0][0], 0) if b.per_count and b.conditions
                                 else 1)
            if b.group:
                if b.group not in best or amount > best[b.group][1]:
                    best[b.group] = (b.name, amount)
                continue
        earned[b.name] = earned.get(b.name, 0) + amount
    for name, amount in best.values():
        earned[name] = earned.get(name, 0) + amount
    return tuple((name, amount) for name, amount in earned.items() if amount)
