"""One route from its plan entry (paths or stops), checked and paid; cyclic runs."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from hexrail.model.position import Train
from hexrail.model.tile import End
from hexrail.plan import RoutePlan
from hexrail.rules.base import PASSABLE
from hexrail.validate.board import (_Board, _entry, _gauge_ok, _lane_key, _lane_str, _parse_node_ref,
                                    _parse_path_ref, _single_stop_walk, _trace, _Walk)
from hexrail.validate.pay import _Pay
from hexrail.validate.refs import MAX_WALKS, NodeRef, PathRef, _node_str, _path_str
from hexrail.validate.walk import _gauge_errors, _repeated, _stretch_errors, _walk_errors


@dataclass
class _Route:
    """A route being checked: its train, its walk once traced, and what is wrong with it."""

    plan: RoutePlan
    train: Train | None = None
    walk: _Walk | None = None
    errors: list[str] = field(default_factory=list)
    bypassed: list[str] = field(default_factory=list)
    cyclic: tuple[NodeRef, ...] = ()  # the visits, when the route is a cyclic run

    @property
    def legal(self) -> bool:
        return self.walk is not None and not self.errors


def _check_paths(board: _Board, train: Train, refs: list[PathRef]) -> tuple[_Walk | None, list[str], list[str]]:
    """Trace the track and check every per-route rule: (walk, errors, bypassed cities)."""
    errors = _gauge_errors(board, train, refs)
    walk, join_errors = _trace(board, refs)
    errors += join_errors
    if walk is None or errors:
        return None, errors, []
    more, bypassed = _walk_errors(board, train, walk)
    return walk, more, bypassed


def _walks_through(board: _Board, gauge: str, stops: list[NodeRef]) -> Iterator[list[PathRef]]:
    """Every walk from stops[0] through the given stops in order, passing no other stop and no
    path, hexside lane or node twice. Other rules are left to the route check."""
    used_paths: set[PathRef] = set()
    used_lanes: set[tuple] = set()
    seen: set[NodeRef] = {stops[0]}
    walk: list[PathRef] = []

    def usable(ref: PathRef) -> bool:
        path = board.path(ref)
        return ref not in used_paths and not path.ignore and _gauge_ok(path.track, gauge)

    def step(hex_id: str, out: End, target: int) -> Iterator[list[PathRef]]:
        if out.is_edge:
            nb = board.neighbour(hex_id, out.edge)
            if nb is None:
                return
            lane = _lane_key(board, hex_id, out)
            if lane in used_lanes:
                return
            candidates = [(nb, k) for k in range(len(board.hex(nb).tile.paths))]
        else:
            lane = None
            candidates = [(hex_id, k) for k in range(len(board.hex(hex_id).tile.paths))]
        for ref in candidates:
            entry = _entry(board, hex_id, out, ref) if usable(ref) else None
            if entry is None:
                continue
            nxt = board.path(ref).ends[1 - entry]
            node = (ref[0], nxt.node) if not nxt.is_edge else None
            if node is not None and node in seen and node != stops[target]:
                continue  # a stop the route comes back to (a revisit) is checked later
            is_stop = node is not None and board.node(node).is_stop
            if is_stop and node != stops[target]:
                continue
            walk.append(ref)
            used_paths.add(ref)
            if lane is not None:
                used_lanes.add(lane)
            fresh = node is not None and node not in seen
            if fresh:
                seen.add(node)
            if is_stop and target == len(stops) - 1:
                yield list(walk)
            else:
                yield from step(ref[0], nxt, target + 1 if is_stop else target)
            if fresh:
                seen.discard(node)
            if lane is not None:
                used_lanes.discard(lane)
            used_paths.discard(ref)
            walk.pop()

    yield from step(stops[0][0], End(node=stops[0][1]), 1)


def _resolve_stops(board: _Board, train: Train, stops: list[NodeRef],
                   taken: tuple[set[PathRef], set[tuple]]) -> tuple[_Walk | None, list[str], list[str]]:
    """Find the track of a route drawn by its stops: a legal walk through exactly those stops,
    preferring one that uses no track another route already uses."""
    if len(stops) == 1:
        walk = _single_stop_walk(stops[0])
        errors, bypassed = _walk_errors(board, train, walk)
        return (None if errors else walk), errors, bypassed
    shown = " → ".join(_node_str(s) for s in stops)
    best = None
    for n, paths in enumerate(_walks_through(board, train.spec.track, stops)):
        if n >= MAX_WALKS:
            break
        walk, errors, bypassed = _check_paths(board, train, paths)
        conflicts = 0
        if walk is not None and not board.rules.share_track:
            conflicts = len(set(walk.paths) & taken[0]) + len(set(walk.lanes) & taken[1])
        key = (bool(errors), conflicts, len(errors))
        if best is None or key < best[0]:
            best = (key, walk, errors, bypassed, paths)
        if key == (False, 0, 0):
            break
    if best is None:
        return None, [f"no track joins the stops {shown} without passing another stop"], []
    _key, walk, errors, bypassed, paths = best
    if errors:
        track = " ".join(_path_str(p) for p in paths)
        return None, [f"no legal track joins the stops {shown}; the nearest walk ({track}) "
                      f"breaks: {'; '.join(errors)}"], []
    return walk, [], bypassed


def _check_route(board: _Board, route: _Route, trains: dict[str, Train], busy: set[str],
                 taken: tuple[set[PathRef], set[tuple]]) -> None:
    """Fill in `route`'s walk and errors (rule 1 refs first: nothing else is checkable without)."""
    plan = route.plan
    train = trains.get(plan.train)
    if train is None:
        known = ", ".join(trains) or "none"
        route.errors.append(f"unknown train {plan.train} (the company's trains: {known})")
        return
    route.train = train
    if plan.train in busy:
        route.errors.append(f"train {plan.train} runs more than one route")
    busy.add(plan.train)
    barred = board.profile.may_run(board.pos, train)
    if barred:
        route.errors.append(f"train {plan.train} ({train.name}) may not run: {barred}")
    if plan.paths:
        parsed = [_parse_path_ref(board, p) for p in plan.paths]
        bad = [why for ref, why in parsed if ref is None]
        if bad:
            route.errors.extend(bad)
            return
        walk, errors, bypassed = _check_paths(board, train, [ref for ref, _ in parsed])
        if errors and board.profile.cyclic_runs(board.pos, train):
            cyclic_walk, visits, cyclic_errors = _check_cyclic(board, train, [r for r, _ in parsed])
            if cyclic_walk is not None and not cyclic_errors:
                walk, errors, bypassed = cyclic_walk, [], []
                route.cyclic = visits
    else:
        parsed_stops = [_parse_node_ref(board, s) for s in plan.stops]
        bad = [why for ref, why in parsed_stops if ref is None]
        bad += [f"{_node_str(ref)} is a {board.node(ref).kind}, not a stop"
                for ref, _ in parsed_stops if ref is not None and not board.node(ref).is_stop]
        if bad or not parsed_stops:
            route.errors.extend(bad or ["the route gives neither track nor stops"])
            return
        walk, errors, bypassed = _resolve_stops(board, train, [r for r, _ in parsed_stops], taken)
    route.walk = walk
    route.errors.extend(errors)
    route.bypassed = bypassed


def _check_cyclic(board: _Board, train: Train,
                  refs: list[PathRef]) -> tuple[_Walk | None, tuple[NodeRef, ...], list[str]]:
    """Check track as a run over one of the train's cyclic patterns (`Profile.cyclic_runs`):
    its visits are the stops on it where the train may end a route; they follow a pattern from
    an allowed start, ``min_visits`` to ``max_visits`` of them; no path or hex-side lane is used twice in the
    whole run, no node twice within a leg, and between visits the run passes nothing that
    blocks the train and no terminal track. Returns (walk, visits, errors)."""
    errors = _gauge_errors(board, train, refs)
    walk, join_errors = _trace(board, refs)
    if walk is None or errors or join_errors or walk.start.is_edge or walk.end.is_edge:
        return None, (), errors + join_errors + ["a cyclic run starts and ends at a stop"]

    def may_end(ref: NodeRef) -> bool:
        node = board.node(ref)
        return node.is_stop and board.rule(train, ref).may_end

    visits = tuple(n for n in walk.nodes if may_end(n))
    if not visits or walk.nodes[0] != visits[0] or walk.nodes[-1] != visits[-1]:
        return None, (), ["a cyclic run starts and ends at a visit"]
    shown = tuple(_node_str(v) for v in visits)
    match = _cyclic_matches(board, train, shown)
    if not match:
        errors.append(f"visits {' '.join(shown)}, no cyclic run of train {train.id}")
    for ref, n in _repeated(walk.paths):
        errors.append(f"uses track {_path_str(ref)} {n} times")
    for key, n in _repeated(walk.lanes):
        errors.append(f"crosses {_lane_str(key)} {n} times")
    errors += _stretch_errors(board, walk.paths)
    leg: list[NodeRef] = []
    for ref in walk.nodes:
        if ref in leg:
            errors.append(f"visits node {_node_str(ref)} twice in one leg")
        leg = [ref] if ref in visits else leg + [ref]
    for ref, before, after in walk.through:
        if ref in visits:
            continue
        if any(board.path(t).terminal for t in (before, after)):
            errors.append(f"passes through {_node_str(ref)} over terminal track")
        if board.rule(train, ref).block != PASSABLE:
            errors.append(f"passes through {_node_str(ref)}, which blocks the train")
    return walk, visits, errors


def _cyclic_matches(board: _Board, train: Train, shown: tuple[str, ...]) -> list:
    """The train's cyclic patterns (`Profile.cyclic_runs`) a run with visits `shown` follows."""
    return [run for run in board.profile.cyclic_runs(board.pos, train)
            if run.min_visits <= len(shown) <= run.max_visits
            and any(run.visits(s, len(shown)) == shown for s in run.starts)]


def _cyclic_pay(board: _Board, train: Train, visits: tuple[NodeRef, ...]) -> _Pay:
    """A cyclic run is paid what its pattern says each visit pays."""
    shown = tuple(_node_str(v) for v in visits)
    run = _cyclic_matches(board, train, shown)[0]
    revenue = sum(run.value_of(ref) for ref in shown)
    return _Pay(frozenset(visits), revenue, 0, (revenue, revenue))
