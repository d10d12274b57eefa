"""Every route of one train, by depth-first walks over the tiles' paths (and runs over cyclic patterns)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from itertools import chain
from typing import Any

from hexrail.errors import HexrailError
from hexrail.io.native import load_position
from hexrail.model.position import Train
from hexrail.model.tile import Path
from hexrail.oracle.board import _Board, _Walk
from hexrail.oracle.pay import _fit_checker, _key, _ref, _score_route
from hexrail.oracle.result import LaneKey, NodeKey, PathKey, ReferenceRoute
from hexrail.rules import ruled
from hexrail.rules.base import Profile


def reference_routes(position: Any, train: Train | str, *, objective: str = "income",
                     max_routes: int = 200_000, profile: Profile | None = None) -> list[ReferenceRoute]:
    """Every legal route of one train (by id or object), each with its best scoring."""
    pos, own_profile = ruled(load_position(position))
    train_id = train if isinstance(train, str) else train.id
    train = next((t for t in pos.trains if t.id == train_id), None)
    if train is None:
        raise HexrailError("no such train", where=f"train {train_id!r}")
    profile = profile or own_profile
    if profile.may_run(pos, train):
        return []  # e.g. no permit for its kind: the train stays idle
    rules = profile.plan_rules(pos)
    board = _Board(pos, profile, train)
    spec = train.spec
    fits = _fit_checker(spec)
    by_key: dict[frozenset, ReferenceRoute] = {}

    for start in sorted(board.node):
        if not board.can_end[start]:
            continue
        for walk in _walks(board, start, rules.max_bypass, spec.hexes, fits):
            key = frozenset(walk.paths) if walk.paths else frozenset({("stop", start)})
            if key in by_key:
                continue
            if len(walk.stops) < spec.min_stops:
                continue
            if spec.requires_token and not any(board.anchor[n] for n in walk.nodes):
                continue
            if not _tallies_ok(board, walk.stops):
                continue
            route = _score_route(board, walk, objective)
            if route is None:
                continue
            by_key[key] = route
            if len(by_key) > max_routes:
                raise HexrailError(f"more than {max_routes} routes: the board is too big for the "
                                   "reference solver", where=f"train {train.id}")
    for route in _cyclic_routes(board, profile.cyclic_runs(pos, train)):
        by_key.setdefault(("cyclic", route.stops, route.track), route)
    return list(by_key.values())


def _cyclic_routes(board: _Board, runs) -> Iterator[ReferenceRoute]:
    """Every run over the train's cyclic patterns (`Profile.cyclic_runs`), ``min_visits`` to
    ``max_visits`` visits: leg after leg, each a walk over tile paths from one visit to the next that uses no
    path or hex-side lane of the run twice, no node twice within the leg, and passes through no
    blocking node, no terminal path and no stop where the train may end. Every visit pays what
    the run says a visit of that stop pays."""
    for run in runs:
        cycle = [_key(ref) for ref in run.cycle]
        if any(key not in board.node for key in cycle):
            continue
        for start in run.starts:
            visits = [cycle[start]]
            used_paths: list[PathKey] = []
            used_lanes: list[LaneKey] = []
            nodes: list[NodeKey] = [cycle[start]]
            yield from _extend_run(board, run, start, cycle, visits, used_paths, used_lanes, nodes)


def _extend_run(board: _Board, run, start: int, cycle: list[NodeKey], visits: list[NodeKey],
                paths: list[PathKey], lanes: list, nodes: list[NodeKey]) -> Iterator[ReferenceRoute]:
    if len(visits) >= run.min_visits:
        revenue = sum(run.value_of(_ref(v)) for v in visits)
        yield ReferenceRoute(
            train=board.train.id, paths=tuple(f"{h}:{k}" for h, k in paths),
            stops=tuple(_ref(v) for v in visits), counted=tuple(_ref(v) for v in visits),
            paid=tuple(_ref(v) for v in visits), revenue=revenue, subsidy=0, bonus=0, bypass=0,
            crossings=len(lanes), track=board.track(paths, lanes),
            nodes=tuple(_ref(n) for n in nodes))
    if len(visits) >= run.max_visits:
        return
    target = cycle[(start + len(visits)) % len(cycle)]
    for leg_paths, leg_lanes, leg_nodes in _legs(board, visits[-1], target, set(paths), set(lanes)):
        visits.append(target)
        yield from _extend_run(board, run, start, cycle, visits, paths + leg_paths,
                               lanes + leg_lanes, nodes + leg_nodes)
        visits.pop()


def _legs(board: _Board, a: NodeKey, b: NodeKey, used_paths: set, used_lanes: set):
    """Every leg of a cyclic run from node a to node b over unused track: (paths, lanes, nodes
    after a)."""
    leg_paths: list[PathKey] = []
    leg_lanes: list = []
    leg_nodes: list[NodeKey] = []

    def from_node(v: NodeKey, arrived: Path | None):
        for pkey, end_no in board.at_node.get(v, ()):
            if pkey in used_paths or pkey in leg_paths:
                continue
            if arrived is not None and (arrived.terminal or board.path[pkey].terminal):
                continue
            town = board.stretch.get(pkey)
            if town is not None and any(board.stretch.get(q) == town
                                        for q in chain(used_paths, leg_paths)):
                continue  # a town's stretch of track once per run
            yield from run_path(pkey, 1 - end_no)

    def run_path(pkey: PathKey, out_end: int):
        leg_paths.append(pkey)
        path = board.path[pkey]
        end = path.ends[out_end]
        hex_id = pkey[0]
        if not end.is_edge:
            u = (hex_id, end.node)
            if u == b:
                yield list(leg_paths), list(leg_lanes), leg_nodes + [u]
            elif u != a and u not in leg_nodes and not board.blocks[u] and not board.can_end[u]:
                leg_nodes.append(u)
                yield from from_node(u, path)
                leg_nodes.pop()
        else:
            crossing = board.across(hex_id, end)
            if crossing is not None:
                key, onward = crossing
                if key not in used_lanes and key not in leg_lanes:
                    leg_lanes.append(key)
                    for qkey, q_end in onward:
                        if qkey not in used_paths and qkey not in leg_paths:
                            yield from run_path(qkey, 1 - q_end)
                    leg_lanes.pop()
        leg_paths.pop()

    yield from from_node(a, None)


def _tallies_ok(board: _Board, stops: list[NodeKey]) -> bool:
    """Do the stops' tallies (`StopRule.tallies`) lie within the train's tally limits?"""
    if not board.tally_limits:
        return True
    counts: Counter = Counter()
    for s in stops:
        for name, count in board.tallies[s]:
            counts[name] += count
    return all(lo <= counts[name] <= hi for name, lo, hi in board.tally_limits)


def _walks(board: _Board, start: NodeKey, max_bypass: int, hex_limit: int,
           fits: Any) -> Iterator[_Walk]:
    """Every simple walk from `start` that ends at a stop where a route may end (a snapshot
    of the state is yielded, so callers may keep it)."""
    walk = _Walk(start=start)
    walk.nodes.append(start)
    walk.node_lanes.append(0)
    walk.stops.append(start)
    walk.hex_runs.append(start[0])
    if not fits(_mandatory(board, walk.stops)):
        return
    groups = set(board.groups[start])
    yield _snapshot(walk)  # the one-stop route, if the train allows it (min_stops decides)
    yield from _leave_node(board, walk, start, None, groups, max_bypass, hex_limit, fits)


def _snapshot(walk: _Walk) -> _Walk:
    return _Walk(walk.start, list(walk.paths), list(walk.lanes), list(walk.nodes), list(walk.stops),
                 list(walk.hex_runs), walk.bypass, list(walk.node_lanes), list(walk.passed))


def _mandatory(board: _Board, stops: list[NodeKey]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted((board.node[s].kind, board.cost[s])
                        for s in stops if not board.optional[s]))


def _leave_node(board: _Board, walk: _Walk, v: NodeKey, arrived: Path | None, groups: set,
                max_bypass: int, hex_limit: int, fits: Any) -> Iterator[_Walk]:
    """Continue the walk from node `v` (reached by path `arrived`, None at the start)."""
    spend = 0
    if arrived is not None:
        # v becomes a node the route passes through.
        if arrived.terminal:
            return
        if board.blocks[v]:
            if not board.soft_block(v) or walk.bypass >= max_bypass:
                return
            spend = 1
            walk.passed.append(v)
    walk.bypass += spend
    for pkey, end_no in board.at_node.get(v, ()):
        if pkey in walk.paths:
            continue
        path = board.path[pkey]
        if arrived is not None and path.terminal:
            continue  # passing through v by a terminal path
        if walk.paths and board.stretch.get(walk.paths[-1]) == v == board.stretch.get(pkey):
            continue  # in by one path along a town's stretch and out by another: the same track
        yield from _run_path(board, walk, pkey, 1 - end_no, groups, max_bypass, hex_limit, fits)
    walk.bypass -= spend
    if spend:
        walk.passed.pop()


def _enter_hex(walk: _Walk, board: _Board, hex_id: str) -> bool:
    """Add a path of `hex_id` to the walk's hex runs; False if that re-enters a hex illegally."""
    if walk.hex_runs[-1] == hex_id:
        walk.hex_runs.append(hex_id)
        return True
    if hex_id in board.no_reentry and hex_id in walk.hex_runs:
        return False
    walk.hex_runs.append(hex_id)
    return True


def _run_path(board: _Board, walk: _Walk, pkey: PathKey, out_end: int, groups: set,
              max_bypass: int, hex_limit: int, fits: Any) -> Iterator[_Walk]:
    """Take path `pkey` (not yet used) and follow it out of its end `out_end`."""
    hex_id = pkey[0]
    if not _enter_hex(walk, board, hex_id):
        return
    walk.paths.append(pkey)
    path = board.path[pkey]
    end = path.ends[out_end]
    if not end.is_edge:
        u = (hex_id, end.node)
        yield from _arrive_node(board, walk, u, path, groups, max_bypass, hex_limit, fits)
    else:
        crossing = board.across(hex_id, end)
        if crossing is not None and (hex_limit <= 0 or len(walk.lanes) < hex_limit):
            lane_key, onward = crossing
            if lane_key not in walk.lanes:
                walk.lanes.append(lane_key)
                for qkey, q_end in onward:
                    if qkey in walk.paths:
                        continue
                    yield from _run_path(board, walk, qkey, 1 - q_end, groups, max_bypass,
                                         hex_limit, fits)
                walk.lanes.pop()
    walk.paths.pop()
    walk.hex_runs.pop()


def _may_return(board: _Board, walk: _Walk, u: NodeKey) -> bool:
    """May the walk run to `u` again? A junction where the profile lets routes pass junctions
    again (`Profile.junctions_pass_twice`); else (`Profile.revisits`) only a revisit stop where
    the train may end, run to once so far, when since then the walk ran to a stop where it may
    end in each of the revisit's hexes."""
    if board.junctions_twice and board.node[u].kind == "junction":
        return True  # (by other track: the walk never runs a path or lane twice)
    if u not in board.revisit or not board.can_end[u] or walk.nodes.count(u) != 1:
        return False
    since = walk.stops[walk.stops.index(u) + 1:]
    return all(any(s[0] == h and board.can_end[s] for s in since) for h in board.revisit[u])


def _arrive_node(board: _Board, walk: _Walk, u: NodeKey, path: Path, groups: set,
                 max_bypass: int, hex_limit: int, fits: Any) -> Iterator[_Walk]:
    again = u in walk.nodes
    if again and not _may_return(board, walk, u):
        return
    is_stop = board.is_stop[u]
    new_groups = set(board.groups[u]) if is_stop and not again else set()
    if new_groups & groups:
        return
    walk.nodes.append(u)
    walk.node_lanes.append(len(walk.lanes))
    if is_stop:
        walk.stops.append(u)
    # Distance is monotone: if the mandatory stops no longer fit, no longer walk will.
    if not is_stop or fits(_mandatory(board, walk.stops)):
        start = walk.nodes[0]
        cls = board.end_class[start]
        joins_same_class = start != u and cls and board.end_class[u] == cls
        if is_stop and board.can_end[u] and not joins_same_class:
            yield _snapshot(walk)
        yield from _leave_node(board, walk, u, path, groups | new_groups, max_bypass, hex_limit, fits)
    if is_stop:
        walk.stops.pop()
    walk.nodes.pop()
    walk.node_lanes.pop()
