"""Plans whose routes' pay depends on each other, priced as a whole: stops paying once, hex subsidies, sets, span bonuses."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass, replace
from itertools import permutations, product
from typing import Any

from hexrail.model.position import Position
from hexrail.oracle.board import _Board
from hexrail.oracle.pay import _choose_pay, _ref
from hexrail.oracle.result import NodeKey, ReferenceResult, ReferenceRoute
from hexrail.oracle.rules import _apart, _plan_ok, _side_uses
from hexrail.rules.base import SET_NONE, SET_TEMPORARY, EndsSubsidy, PayRule, PlanRules, Profile
from hexrail.validate import build_sets, set_ends


def _coupled(pos: Position, profile: Profile, rules: PlanRules) -> bool:
    """Does a route's pay depend on the other routes of the plan?"""
    return rules.stops_pay_once or any(
        profile.hex_subsidy(pos, t) > 0 or profile.set_role(pos, t) != SET_NONE
        or profile.span_bonuses(pos, t) for t in pos.trains)


def _stop_keys(route: ReferenceRoute) -> tuple[NodeKey, ...]:
    out = []
    for ref in route.stops:
        hex_id, _, index = ref.rpartition("-")
        out.append((hex_id, int(index)))
    return tuple(out)


def _path_hexes(route: ReferenceRoute) -> list[str]:
    """The hexes of the route's paths, in walk order (repeats kept)."""
    return [ref.rpartition(":")[0] for ref in route.paths]


@dataclass(frozen=True)
class _Priced:
    """A whole plan priced: the objective's value, revenue, subsidy, the routes rescored (paid
    stops, revenue and subsidy as the plan pays them) and the sets."""

    value: int
    revenue: int
    subsidy: int
    routes: tuple[ReferenceRoute, ...]
    sets: tuple = ()


def _solve_coupled(pos: Position, profile: Profile, rules: PlanRules,
                   per_train: list[list[ReferenceRoute]], objective: str,
                   home: frozenset[str] | None, candidates: dict) -> ReferenceResult:
    """The best plan when routes' pay depends on each other: every combination priced whole.

    Set trains are chosen first. Once they are, their sets (and what the sets can earn at
    most) are known, and the other trains are searched with the bound ``what the sets can earn
    + each chosen route's value + the best route of each remaining train``."""
    n = len(pos.trains)
    exclusive = _side_uses(pos, rules)
    apart = _apart(pos, rules)
    boards = {t: _Board(pos, profile, pos.trains[t]) for t in range(n) if per_train[t]}
    role = [profile.set_role(pos, train) for train in pos.trains]
    rate = [profile.hex_subsidy(pos, train) for train in pos.trains]
    income = objective == "income"
    order = ([t for t in range(n) if role[t] != SET_NONE]
             + [t for t in range(n) if role[t] == SET_NONE])
    n_set = sum(1 for t in range(n) if role[t] != SET_NONE)

    def upper(t: int, r: ReferenceRoute) -> tuple[int, int]:
        """What a route not in a set can add to any plan, at most: (value, revenue)."""
        hex_subsidy = rate[t] * len(set(_path_hexes(r))) if income else 0
        span = sum(a for _, a in r.span)
        return r.value(objective) + hex_subsidy + span, r.revenue + span

    suffix = [(0, 0)] * (n + 1)
    for i in range(n - 1, n_set - 1, -1):
        t = order[i]
        v, rev = max((upper(t, r) for r in per_train[t]), default=(0, 0))
        suffix[i] = (suffix[i + 1][0] + max(0, v), suffix[i + 1][1] + max(0, rev))
    best: list[Any] = [(-1, -1), None]
    choice: dict[int, ReferenceRoute] = {}
    layouts: list[Any] = [None]

    def search(i: int, used: frozenset, bypass: int, up_value: int, up_revenue: int) -> None:
        if i == n_set:
            # The sets are settled: what they can earn at most starts the bound.
            set_routes = [(t, choice[t]) for t in order[:n_set] if t in choice]
            layouts[0] = _set_layouts(pos, profile, boards, role, set_routes)
            if not layouts[0]:
                return  # the set trains break the rules on temporary trains
            up_value, up_revenue = _sets_upper(boards, rate, set_routes, layouts[0], objective)
        if i == n:
            chosen = sorted(choice.items())
            if not _plan_ok([r for _, r in chosen], home, rules.intersect,
                            frozenset(rules.connection), rules.regions, exclusive, apart):
                return
            priced = _price_plan(boards, rules, rate, chosen, layouts[0], objective)
            if (priced.value, priced.revenue) > best[0]:
                best[0] = (priced.value, priced.revenue)
                best[1] = priced
            return
        t = order[i]
        for r in per_train[t]:
            v, rev = upper(t, r) if i >= n_set else (0, 0)
            if i >= n_set and (up_value + v + suffix[i + 1][0],
                               up_revenue + rev + suffix[i + 1][1]) <= best[0]:
                continue
            if not rules.share_track and not used.isdisjoint(r.track):
                continue
            if bypass + r.bypass > rules.max_bypass:
                continue
            choice[t] = r
            search(i + 1, used | r.track, bypass + r.bypass, up_value + v, up_revenue + rev)
            del choice[t]
        search(i + 1, used, bypass, up_value, up_revenue)

    search(0, frozenset(), 0, 0, 0)
    priced: _Priced = best[1]
    return ReferenceResult(
        value=priced.value, revenue=priced.revenue, subsidy=priced.subsidy, routes=priced.routes,
        candidates=candidates, objective=objective, sets=priced.sets)


def _sets_upper(boards: dict[int, _Board], rate: list[int], set_routes: list[tuple[int, ReferenceRoute]],
                layouts: list, objective: str) -> tuple[int, int]:
    """What the set routes can earn at most, (value, revenue): their payable stops all paid,
    their bonuses, every hex subsidised."""
    income = objective == "income"
    fixed_value = fixed_revenue = 0
    for t, r in set_routes:
        span = sum(a for _, a in r.span)
        fixed_revenue += r.bonus + span
        fixed_value += r.bonus + span + (rate[t] * len(set(_path_hexes(r))) if income else 0)
    best_value = best_revenue = 0
    for payable, bonus, _, _ in layouts:
        revenue = sum(bonus.values()) + sum(boards[t].value[s] for t, refs in payable.items() for s in refs)
        subsidy = sum(boards[t].subsidy[s] for t, refs in payable.items() for s in refs)
        best_value = max(best_value, revenue + subsidy if income else revenue)
        best_revenue = max(best_revenue, revenue)
    return fixed_value + best_value, fixed_revenue + best_revenue


def _price_plan(boards: dict[int, _Board], rules: PlanRules, rate: list[int],
                chosen: list[tuple[int, ReferenceRoute]], layouts: list, objective: str) -> _Priced:
    """What the routes `chosen` ((train index, route), train order) earn together, their set
    routes forming sets in one of `layouts` (the best)."""
    income = objective == "income"
    stops = {t: _stop_keys(r) for t, r in chosen}
    # Hex subsidies: each hex to the covering route of the highest rate.
    hex_subsidy = {t: 0 for t, _ in chosen}
    covered: set[str] = set()
    for t, r in sorted(chosen, key=lambda tr: -rate[tr[0]]):
        if rate[t] > 0:
            hexes = set(_path_hexes(r))
            hex_subsidy[t] = rate[t] * len(hexes - covered)
            covered |= hexes
    # Span bonuses: each to the chosen route earning most from it (the first on ties); one
    # paying k routes (`EndsSubsidy.routes`) to the k earning most.
    span: dict[int, int] = {t: 0 for t, _ in chosen}
    earning: dict[str, list[tuple[int, int]]] = {}
    for t, r in chosen:
        for name, amount in r.span:
            if amount > 0:
                earning.setdefault(name, []).append((amount, t))
    paid_as_subsidy = {b.name for board in boards.values() for b in board.span_bonuses
                       if isinstance(b, EndsSubsidy)}
    paid_to = {b.name: getattr(b, "routes", 1) for board in boards.values()
               for b in board.span_bonuses}
    span_subsidy: dict[int, int] = {t: 0 for t, _ in chosen}
    for name, found in earning.items():
        for amount, t in sorted(found, key=lambda e: -e[0])[:paid_to[name]]:
            if name in paid_as_subsidy:
                span_subsidy[t] += amount
            else:
                span[t] += amount
    best = None
    for payable, set_bonus, sets, arrangement in layouts:
        pays = _joint_pay(boards, rules.stops_pay_once, chosen, stops, payable, objective)
        revenue = (sum(p[1] for p in pays.values()) + sum(r.bonus for _, r in chosen)
                   + sum(set_bonus.values()) + sum(span.values()))
        subsidy = (sum(p[2] for p in pays.values()) + sum(hex_subsidy.values())
                   + sum(span_subsidy.values()))
        value = revenue + subsidy if income else revenue
        if best is None or (value, revenue) > best[0]:
            best = ((value, revenue), subsidy, pays, set_bonus, sets, arrangement)
    (value, revenue), subsidy, pays, set_bonus, sets, (set_order, backwards) = best
    routes = {}
    for t, r in chosen:
        _, pay_revenue, pay_subsidy, counted, paid = pays[t]
        bonus = r.bonus + set_bonus.get(t, 0) + span[t]
        r = replace(
            r, paid=tuple(_ref(s) for s in stops[t] if s in paid),
            counted=r.counted if counted is None else tuple(_ref(s) for s in stops[t] if s in counted),
            revenue=pay_revenue + bonus, subsidy=pay_subsidy + hex_subsidy[t] + span_subsidy[t],
            bonus=bonus)
        routes[t] = _reversed(r) if t in backwards else r
    # A plan that earns this: train order, except that the set trains go in the order that
    # builds these sets, and routes with a hex subsidy by falling rate when rates differ.
    trains = [t for t, _ in chosen]
    placed = iter(set_order)
    trains = [next(placed) if t in set_order else t for t in trains]
    if len({rate[t] for t in trains if rate[t] > 0}) > 1:
        trains.sort(key=lambda t: -rate[t])
    return _Priced(value, revenue, subsidy, tuple(routes[t] for t in trains), sets)


def _reversed(route: ReferenceRoute) -> ReferenceRoute:
    """The same route run the other way."""
    return replace(route, paths=route.paths[::-1], stops=route.stops[::-1],
                   counted=route.counted[::-1], paid=route.paid[::-1], nodes=route.nodes[::-1])


def _set_layouts(pos: Position, profile: Profile, boards: dict[int, _Board], role: list[int],
                 set_routes: list[tuple[int, ReferenceRoute]]) -> list:
    """The ways the set routes ((train index, route), train order) can form sets under the
    rules, as ``(payable, bonus, sets, arrangement)``: per set train the stops it may be paid
    for, per set's first train its bonus, the sets for the result, and the order of the set
    trains with those running backwards that build them. Several when the routes' order and
    direction change the sets; none when every way breaks the rules on temporary trains."""
    if not set_routes:
        return [({}, {}, (), ((), frozenset()))]
    route = dict(set_routes)
    stops = {t: _stop_keys(r) for t, r in set_routes}
    payable: dict[int, tuple[NodeKey, ...]] = {t: () for t in route}  # no track: nothing
    tracked = [t for t in route if route[t].paths]
    ends = {t: (stops[t][0], stops[t][-1]) for t in tracked}
    temporary = {t for t in tracked if role[t] == SET_TEMPORARY}
    trials = [ends]
    meetings = Counter(node for pair in ends.values() for node in pair)
    loop = any(not any(meetings[n] == 1 for t in group for n in ends[t])
               for group in build_sets(ends, temporary))
    if loop or any(m >= 3 for m in meetings.values()):
        # The sets depend on the order and direction the routes are listed in: try them all.
        trials = [{t: ends[t][::-1] if flip else ends[t] for t, flip in zip(order, flips)}
                  for order in permutations(tracked)
                  for flips in product((False, True), repeat=len(tracked))]
    out: dict[tuple, tuple] = {}
    for trial in trials:
        groups = build_sets(trial, temporary)
        mixed = [g for g in groups if any(t in temporary for t in g)]
        if len(mixed) > 1 or (mixed and all(t in temporary for t in mixed[0]) and len(groups) > 1):
            continue
        pay = dict(payable)
        bonus: dict[int, int] = {}
        sets = []
        for group in groups:
            both = set_ends([trial[t] for t in group])
            if len(both) == 1:
                break
            for t in group:
                pay[t] = tuple(e for e in dict.fromkeys(both) if e in trial[t])
            a = _set_end(pos, route, stops, group, both[0])
            b = _set_end(pos, route, stops, group, both[-1])
            bonus[group[0]] = profile.set_bonus(pos, a, b)
            sets.append((tuple(route[t].train for t in group), (_ref(both[0]), _ref(both[-1])),
                         bonus[group[0]]))
        else:
            key = (tuple(sorted(pay.items())), sum(bonus.values()))
            arrangement = (tuple(trial), frozenset(t for t in trial if trial[t] != ends[t]))
            out.setdefault(key, (pay, bonus, tuple(sets), arrangement))
    return list(out.values())


def _set_end(pos: Position, route: dict[int, ReferenceRoute], stops: dict[int, tuple[NodeKey, ...]],
             group: list[int], end: NodeKey) -> tuple:
    """A set end for `Profile.set_bonus`: (its hex, its node, the hex its set's track enters it
    from, i.e. the next hex along the set's first route that stops there)."""
    hex_ = pos.hex(end[0])
    node = hex_.tile.node(end[1])
    for t in group:
        if end in stops[t]:
            hexes = _path_hexes(route[t])
            if end != stops[t][0]:
                hexes.reverse()
            return hex_, node, pos.hex(hexes[1] if len(hexes) > 1 else end[0])
    return hex_, node, hex_


def _joint_pay(boards: dict[int, _Board], pay_once: bool, chosen: list[tuple[int, ReferenceRoute]],
               stops: dict[int, tuple[NodeKey, ...]], payable: dict[int, tuple[NodeKey, ...]],
               objective: str) -> dict[int, tuple]:
    """Per train its route's (value, revenue, subsidy, counted or None, paid) in the best joint
    choice: with `pay_once`, every way of giving each location several routes may be paid for
    to one of them. A set route (in `payable`) is paid for its payable stops only."""
    income = objective == "income"

    def location(t: int, s: NodeKey) -> Hashable:
        groups = boards[t].node[s].groups
        return ("group", groups[0]) if groups else s

    candidates = {t: payable[t] if t in payable else stops[t] for t, _ in chosen}
    routes = dict(chosen)
    owners: dict[Hashable, list[int]] = {}
    if pay_once:
        for t, refs in candidates.items():
            for s in refs:
                owners.setdefault(location(t, s), []).append(t)
    shared = {loc: ts for loc, ts in owners.items() if len(ts) > 1}
    cache_: dict[tuple, tuple] = {}

    def pay(t: int, unpayable: frozenset) -> tuple:
        if (t, unpayable) not in cache_:
            board = boards[t]
            if t in payable:
                paid = [s for s in payable[t] if s not in unpayable]
                revenue = sum(board.value[s] for s in paid)
                subsidy = sum(board.subsidy[s] for s in paid)
                cache_[t, unpayable] = (revenue + subsidy if income else revenue, revenue, subsidy,
                                        None, paid)
            elif board.pay_rule != PayRule() and not unpayable:
                # paid stops chosen with the walk's bonuses (`PayRule`): the route's own choice
                r = routes[t]
                revenue = r.revenue - r.bonus
                keys = dict(zip(r.stops, stops[t]))
                cache_[t, unpayable] = (revenue + r.subsidy if income else revenue, revenue,
                                        r.subsidy, [keys[x] for x in r.counted], [keys[x] for x in r.paid])
            elif board.pay_rule != PayRule():
                raise NotImplementedError("the oracle prices a pay rule's choice of paid stops "
                                          "only where no other route shares them")
            else:
                cache_[t, unpayable] = _choose_pay(board, stops[t], unpayable, objective)
        return cache_[t, unpayable]

    best = None
    for pick in product(*shared.values()):
        given = dict(zip(shared, pick))
        pays = {t: pay(t, frozenset(s for s in candidates[t] if given.get(location(t, s), t) != t))
                for t in candidates}
        score = (sum(p[0] for p in pays.values()), sum(p[1] for p in pays.values()))
        if best is None or score > best[0]:
            best = (score, pays)
    return best[1]
