"""The ways routes can be joined end to end into sets (1862's freight sets), as data.

Each set train runs one route with two end *slots*: ``(t, 0)`` and ``(t, 1)``. A `Layout` says
which trains run and which slots of different trains are the same stop; the trains then form
chains (a slot meets at most one other, and no chain closes on itself, so every set has two
ends). The combiner asks each layout's equalities of its chosen routes and pays each set's two
free slots; the rules on temporary trains filter the layouts up front.

>>> len(layouts([0], {0: 1}))  # one train: idle, or running alone
2
>>> sorted(len(l.joins) for l in layouts([0, 1], {0: 1, 1: 1}))  # 2 trains, 4 ways to join
[0, 0, 0, 0, 1, 1, 1, 1]
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from hexrail.rules.base import SET_TEMPORARY

Slot = tuple[int, int]  # (train, end 0 or 1)


@dataclass(frozen=True)
class Layout:
    running: tuple[int, ...]
    joins: tuple[tuple[Slot, Slot], ...]  # slots that are the same stop
    sets: tuple[tuple[tuple[int, ...], Slot, Slot], ...]  # (trains, free end, free end)

    def apart(self) -> list[tuple[Slot, Slot]]:
        """Slots of different running trains that must be different stops (else they would
        join, and the engine would make other sets)."""
        joined = {frozenset(j) for j in self.joins}
        slots = [(t, e) for t in self.running for e in (0, 1)]
        return [(p, q) for p, q in combinations(slots, 2)
                if p[0] != q[0] and frozenset((p, q)) not in joined]


def layouts(trains: list[int], role: dict[int, int]) -> list[Layout]:
    """Every legal layout of the set trains `trains` (each `role` SET_PERMANENT or
    SET_TEMPORARY), idle trains included."""
    out: list[Layout] = []
    for r in range(len(trains) + 1):
        for running in combinations(trains, r):
            for joins in _matchings([(t, e) for t in running for e in (0, 1)]):
                layout = _layout(running, joins)
                if layout is not None and _temporaries_ok(layout, role):
                    out.append(layout)
    return out


def _matchings(slots: list[Slot]):
    """Every set of disjoint slot pairs, each pair from two different trains."""
    if not slots:
        yield ()
        return
    first, rest = slots[0], slots[1:]
    yield from _matchings(rest)  # first stays free
    for k, other in enumerate(rest):
        if other[0] != first[0]:
            for more in _matchings(rest[:k] + rest[k + 1:]):
                yield ((first, other),) + more


def _layout(running: tuple[int, ...], joins: tuple[tuple[Slot, Slot], ...]) -> Layout | None:
    """The sets of a matching, or None when the joins close a loop."""
    parent: dict = {}

    def find(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for p, q in joins:
        parent[find(p)] = find(q)
    for t in running:  # a train joins its two ends' points; meeting itself is a loop
        a, b = find((t, 0)), find((t, 1))
        if a == b:
            return None
        parent[a] = b
    matched = {s for j in joins for s in j}
    sets: dict = {}
    for t in running:
        sets.setdefault(find((t, 0)), [[], []])[0].append(t)
        for e in (0, 1):
            if (t, e) not in matched:
                sets[find((t, 0))][1].append((t, e))
    return Layout(running, joins, tuple((tuple(ts), ends[0], ends[1]) for ts, ends in sets.values()))


def _temporaries_ok(layout: Layout, role: dict[int, int]) -> bool:
    """All temporary trains in one set, which holds a permanent one if there are more sets."""
    with_temp = [s for s in layout.sets if any(role[t] == SET_TEMPORARY for t in s[0])]
    if len(with_temp) > 1:
        return False
    if with_temp and len(layout.sets) > 1:
        return any(role[t] != SET_TEMPORARY for t in with_temp[0][0])
    return True


# -- sets as 18xx.games forms them from the routes, in plan order -------------------------------

def build_sets(ends: list[tuple[int, int]], temporary: list[bool]) -> list[list[int]]:
    """The sets of routes with these (first, last) stops, as the 18xx.games engine builds them:
    start from the first temporary route, then from the first route left; follow routes that
    share an end; where several do, take the branch holding a temporary train, else the
    longest. Returns route indices per set, the set's first route first."""
    stops = dict(enumerate(ends))
    sets = []
    first_temp = next((r for r in stops if temporary[r]), None)
    if first_temp is not None:
        sets.append(_create(first_temp, stops, temporary))
    while stops:
        sets.append(_create(next(iter(stops)), stops, temporary))
    return sets


def set_ends(members: list[int], ends: list[tuple[int, int]]) -> tuple[int, int]:
    """The stops that end only one route of the set (a loop: its first stop twice)."""
    count: dict[int, int] = {}
    for r in members:
        for s in ends[r]:
            count[s] = count.get(s, 0) + 1
    free = [s for s, c in count.items() if c == 1]
    if not free:
        first = next(iter(count))
        return first, first
    return free[0], free[-1]


def _uniq(items: list[int]) -> list[int]:
    return list(dict.fromkeys(items))


def _create(route: int, stops: dict, temporary: list[bool]) -> list[int]:
    a, b = stops[route]
    out = [route] + _follow(a, route, stops, temporary)
    return _uniq(out + _follow(b, route, stops, temporary))


def _one_way(came: int, route: int, out: list[int], stops: dict, temporary: list[bool]) -> list[int]:
    out.append(route)
    a, b = stops[route]
    if a != came:
        out += _follow(a, route, stops, temporary)
    if b != came:
        out += _follow(b, route, stops, temporary)
    return _uniq(out)


def _follow(node: int, route: int, stops: dict, temporary: list[bool]) -> list[int]:
    stops.pop(route, None)
    if not stops:
        return []
    routes = [r for r in stops if node in stops[r]]
    if len(routes) == 1:
        return _one_way(node, routes[0], [routes[0]], stops, temporary)
    if not routes:
        return []
    branches = [_one_way(node, r, [], dict(stops), temporary) for r in routes]
    branch = next((b for b in branches if any(temporary[r] for r in b)), None) \
        or max(branches, key=len)
    for r in branch:
        stops.pop(r, None)
    return branch


def sets_legal(sets: list[list[int]], temporary: list[bool]) -> bool:
    """All temporary routes in one set, which holds a permanent one if there are more sets."""
    with_temp = [s for s in sets if any(temporary[r] for r in s)]
    if len(with_temp) > 1:
        return False
    return not (with_temp and len(sets) > 1 and all(temporary[r] for r in with_temp[0]))
