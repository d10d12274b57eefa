"""The rules that couple a plan's routes: a route through the home station, routes that meet."""

from __future__ import annotations

from hexrail.model.position import Position
from hexrail.oracle.result import ReferenceRoute


def _home_nodes(pos: Position) -> frozenset[str]:
    """The company's home token as node refs (`Position.home_stops`)."""
    return frozenset(pos.home_stops())


def _side_uses(pos: Position, rules) -> tuple[dict[str, frozenset[int]], ...]:
    """Per rule of `PlanRules.exclusive_sides`: path reference -> the rule's sides it ends at."""
    out = []
    for hex_id, sides in rules.exclusive_sides:
        h = pos.hex_by_id.get(hex_id)
        out.append({f"{hex_id}:{k}": frozenset(e.edge for e in p.ends if e.is_edge and e.edge in sides)
                    for k, p in enumerate(h.tile.paths if h else ())})
    return tuple(out)


def _apart(pos: Position, rules) -> tuple[frozenset[str], frozenset[str]]:
    """`PlanRules.apart_cities`: the trains, and every city of the map (node refs)."""
    if not rules.apart_cities:
        return frozenset(), frozenset()
    return frozenset(rules.apart_cities), frozenset(
        f"{h.id}-{n.index}" for h in pos.hexes for n in h.tile.nodes if n.kind == "city")


def _plan_ok(routes: list[ReferenceRoute], home: frozenset[str] | None, intersect: bool,
             connection: frozenset[str] = frozenset(), regions: tuple = (),
             exclusive: tuple = (), apart: tuple = (frozenset(), frozenset())) -> bool:
    """The rules that couple routes (docs/rules.md (generic)): with `home` (node refs), one route passes
    through or stops at the home token; with `intersect`, the routes' stop sets form one network;
    with `connection` (hex ids), one route of two stops or more starts and ends in those hexes;
    per ``(hexes, k)`` of `regions` at most k routes stop in those hexes; per rule of
    `exclusive` the routes use track at one of its sides at most; with `apart` (`_apart`: train
    ids, cities) those trains' routes of two stops or more share no city."""
    if not routes:
        return True
    trains, cities = apart
    if trains:
        visited = [s for r in routes if r.train in trains and len(r.stops) >= 2
                   for s in dict.fromkeys(r.stops) if s in cities]
        if len(visited) != len(set(visited)):
            return False
    if home is not None and not any(n in home for r in routes for n in r.nodes):
        return False
    if connection and not any(len(r.stops) >= 2 and r.stops[0].rpartition("-")[0] in connection
                              and r.stops[-1].rpartition("-")[0] in connection for r in routes):
        return False
    for sides_of in exclusive:  # (`_side_uses`) one side of each such rule at most
        if len({x for r in routes for p in r.paths for x in sides_of.get(p, ())}) > 1:
            return False
    for hexes, limit in regions:
        if sum(1 for r in routes if any(s.rpartition("-")[0] in hexes for s in r.stops)) > limit:
            return False
    if intersect:
        network = [set(routes[0].stops)]
        rest = [set(r.stops) for r in routes[1:]]
        while rest:
            joined = [s for s in rest if any(s & t for t in network)]
            if not joined:
                return False
            network += joined
            rest = [s for s in rest if not any(s is j for j in joined)]
    return True
