"""Routes joined end to end into sets (1862's freight sets), formed as 18xx.games forms them.

>>> ends = [(1, 2), (2, 3), (5, 6), (3, 4)]  # (first stop, last stop) per route, plan order
>>> sets = build_sets(ends, [False] * 4)
>>> sets, [set_ends(members, ends) for members in sets]
([[0, 1, 3], [2]], [(1, 4), (5, 6)])
"""

from __future__ import annotations


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


def set_ends(members: list[int], ends: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The stops that end only one route of the set (a loop: its first stop twice); None for
    a set with one such stop only, which 18xx.games refuses ("freight set with only one
    end")."""
    count: dict[int, int] = {}
    for r in members:
        for s in ends[r]:
            count[s] = count.get(s, 0) + 1
    free = [s for s, c in count.items() if c == 1]
    if not free:
        first = next(iter(count))
        return first, first
    if len(free) == 1:
        return None
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
