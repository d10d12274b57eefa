"""The rules that couple a plan's routes: shared track, the round's bypass, home route, meeting routes."""

from __future__ import annotations

import itertools

from hexrail.plan import Plan
from hexrail.validate.board import _Board, _lane_str, _parse_node_ref
from hexrail.validate.refs import NodeRef, PathRef, _node_str, _path_str
from hexrail.validate.route import _check_route, _Route
from hexrail.validate.walk import _stops, _stretches


def _trace_routes(board: _Board, plan: Plan) -> list[_Route]:
    """Check each route; routes given by track first, so routes drawn by their stops can keep
    off the track those use."""
    trains = {t.id: t for t in board.pos.trains}
    routes = [_Route(r) for r in plan.routes]
    busy: set[str] = set()
    taken: tuple[set[PathRef], set[tuple]] = (set(), set())
    for route in sorted(routes, key=lambda r: not r.plan.paths):
        _check_route(board, route, trains, busy, taken)
        if route.walk is not None:
            taken[0].update(route.walk.paths)
            taken[1].update(route.walk.lanes)
    return routes


def _exclusive_side_errors(board: _Board, routes: list[_Route]) -> list[str]:
    """`PlanRules.exclusive_sides`: the plan's track uses one of the listed sides of the hex
    at most."""
    errors = []
    for hex_id, sides in board.rules.exclusive_sides:
        used: dict[int, list[str]] = {}
        for r in routes:
            for ref in r.walk.paths if r.walk is not None else ():
                if ref[0] != hex_id:
                    continue
                for e in board.path(ref).ends:
                    if e.is_edge and e.edge in sides:
                        used.setdefault(e.edge, []).append(r.plan.train)
        if len(used) > 1:
            who = "; ".join(f"side {k} by {', '.join(dict.fromkeys(v))}" for k, v in sorted(used.items()))
            errors.append(f"the plan uses track at more than one of sides {list(sides)} of {hex_id} "
                          f"({who}); one of them at most")
    return errors


def _apart_city_errors(board: _Board, routes: list[_Route]) -> list[str]:
    """`PlanRules.apart_cities`: routes of those trains that run track visit no city another
    of them visits."""
    apart = board.rules.apart_cities
    seen: dict[NodeRef, str] = {}
    errors = []
    for r in routes:
        if r.plan.train not in apart or r.walk is None or not r.walk.paths:
            continue
        for stop in dict.fromkeys(_stops(board, r.walk)):
            if board.node(stop).kind != "city":
                continue
            if stop in seen:
                errors.append(f"trains {seen[stop]} and {r.plan.train} both visit the city "
                              f"{_node_str(stop)}; each such city once per plan")
            else:
                seen[stop] = r.plan.train
    return errors


def _shared_track_errors(board: _Board, routes: list[_Route]) -> list[str]:
    """No two routes share a path or a hexside lane (unless the rules let trains share track,
    or the trains are of different track groups)."""
    if board.rules.share_track:
        return []
    errors = []
    walked = [r for r in routes if r.walk is not None]
    group = {id(r): board.profile.track_group(board.pos, r.train) if r.train else "" for r in walked}
    for a, b in itertools.combinations(walked, 2):
        if group[id(a)] != group[id(b)]:
            continue  # trains of different track groups may share track
        names = f"trains {a.plan.train} and {b.plan.train}"
        for ref in sorted(set(a.walk.paths) & set(b.walk.paths)):
            errors.append(f"{names} both use track {_path_str(ref)}")
        for key in sorted(set(a.walk.lanes) & set(b.walk.lanes)):
            errors.append(f"{names} both cross {_lane_str(key)}")
        for town in sorted(set(_stretches(board, a.walk.paths)) & set(_stretches(board, b.walk.paths))):
            errors.append(f"{names} both run along the track beside {_node_str(town)} (the town "
                          "is drawn at a hex side)")
    return errors


def _bypass_errors(board: _Board, routes: list[_Route]) -> list[str]:
    """Bypasses of blocked cities are a budget for the whole round, not per train."""
    limit = board.rules.max_bypass
    used = [(r.plan.train, name) for r in routes if r.legal for name in r.bypassed]
    if len(used) <= limit:
        return []
    where = ", ".join(f"{train} at {name}" for train, name in used)
    return [f"the trains pass through {len(used)} cities full of other companies' tokens "
            f"({where}); the rules allow {limit} bypass per round"]


def _home_cities(board: _Board) -> set[NodeRef]:
    """The company's home token: its home node references, or the cities of its home hexes
    holding its token (every city of the hex while none does)."""
    out: set[NodeRef] = set()
    for home in board.pos.home_stops():
        ref, _ = _parse_node_ref(board, home)
        if ref is not None:
            out.add(ref)
    return out


def _home_errors(board: _Board, routes: list[_Route]) -> list[str]:
    """With home-route rules, one route includes the company's home token."""
    home = board.pos.operating().home
    walked = [r for r in routes if r.walk is not None]
    if not board.rules.home_route or not walked:
        return []
    cities = _home_cities(board)
    for route in walked:
        if cities & set(route.walk.nodes):
            return []
    shown = ", ".join(home) or "none given"
    return [f"no route includes the home of {board.pos.company} ({shown})"]


def _connection_errors(board: _Board, routes: list[_Route]) -> list[str]:
    """With a connection run, one route has both end stops in the connection hexes."""
    hexes = board.rules.connection
    walked = [r for r in routes if r.walk is not None]
    if not hexes or not walked:
        return []
    for route in walked:
        stops = _stops(board, route.walk)
        if len(stops) >= 2 and stops[0][0] in hexes and stops[-1][0] in hexes:
            return []
    return [f"no route runs from one of {', '.join(hexes)} to another (the connection run)"]


def _region_errors(board: _Board, routes: list[_Route]) -> list[str]:
    """At most k routes have a stop in each region (`PlanRules.regions`)."""
    walked = [r for r in routes if r.walk is not None]
    errors = []
    for hexes, limit in board.rules.regions:
        inside = [r.plan.train for r in walked if any(s[0] in hexes for s in _stops(board, r.walk))]
        if len(inside) > limit:
            errors.append(f"{len(inside)} routes ({', '.join(inside)}) stop in {', '.join(hexes)}; "
                          f"at most {limit} may")
    return errors


def _intersect_errors(board: _Board, routes: list[_Route]) -> list[str]:
    """With intersect rules, routes sharing stops (transitively) must form one network."""
    walked = [r for r in routes if r.walk is not None]
    if not board.rules.intersect or len(walked) < 2:
        return []
    stop_sets = [set(_stops(board, r.walk)) for r in walked]
    network = {0}
    grown = True
    while grown:
        grown = False
        for i, stops in enumerate(stop_sets):
            if i not in network and any(stops & stop_sets[j] for j in network):
                network.add(i)
                grown = True
    apart = [walked[i].plan.train for i in range(len(walked)) if i not in network]
    if not apart:
        return []
    return [f"the routes do not form one network: trains {', '.join(apart)} share no stop with "
            f"the route of train {walked[0].plan.train} and those joined to it"]
