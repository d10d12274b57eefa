"""The rules of one route's walk: ends, repeats, what it passes through, token, groups, re-entry, limits."""

from __future__ import annotations

from typing import Any

from hexrail.model.position import Train
from hexrail.rules.base import BYPASS, PASSABLE
from hexrail.validate.board import _Board, _gauge_ok, _lane_str, _Walk
from hexrail.validate.pay import _best_pay, _distance_error
from hexrail.validate.refs import NodeRef, PathRef, _node_str, _path_str


def _stops(board: _Board, walk: _Walk) -> list[NodeRef]:
    return [n for n in walk.nodes if board.node(n).is_stop]


def _gauge_errors(board: _Board, train: Train, paths: list[PathRef]) -> list[str]:
    """Rule 1: the train runs only on track of its gauge (and never on ignored track)."""
    gauge = train.spec.track
    errors = []
    for ref in paths:
        path = board.path(ref)
        if path.ignore:
            errors.append(f"track {_path_str(ref)} is not usable for routes (marked ignore)")
        elif not _gauge_ok(path.track, gauge):
            errors.append(f"track {_path_str(ref)} is {path.track} gauge, train {train.id} runs on "
                          f"{gauge} track")
    return errors


def _end_errors(board: _Board, train: Train, walk: _Walk) -> list[str]:
    """Rule 3: both ends are stops the train may end at, and enough stops are visited."""
    errors = []
    ends = (("starts", walk.start, walk.paths[0] if walk.paths else None),
            ("ends", walk.end, walk.paths[-1] if walk.paths else None))
    for verb, end, ref in ends:
        if end.is_edge:
            errors.append(f"route {verb} at side {end.edge} of {ref[0]} (track {_path_str(ref)}), "
                          "not at a stop")
            continue
        node_ref = (walk.hexes[0] if verb == "starts" else walk.hexes[-1], end.node)
        node = board.node(node_ref)
        if not node.is_stop:
            errors.append(f"route {verb} at {_node_str(node_ref)}, a {node.kind}, not at a stop")
        elif not board.rule(train, node_ref).may_end:
            errors.append(f"route {verb} at {_node_str(node_ref)}, a {node.kind} where a "
                          f"{train.name} train may not start or end")
    if not walk.start.is_edge and not walk.end.is_edge:
        first = (walk.hexes[0], walk.start.node)
        last = (walk.hexes[-1], walk.end.node)
        classes = [board.rule(train, r).end_class for r in (first, last)]
        if first != last and classes[0] and classes[0] == classes[1]:
            errors.append(f"route runs from {_node_str(first)} to {_node_str(last)}, two ends of "
                          f"a kind no route may join")
    count = len(_stops(board, walk))
    if count < train.spec.min_stops:
        errors.append(f"visits {count} stop{'s' * (count != 1)}, a route needs at least "
                      f"{train.spec.min_stops}")
    return errors


def _repeat_errors(board: _Board, train: Train, walk: _Walk) -> list[str]:
    """Rule 4: no path, hexside lane or node twice, except a stop the profile lets a route run
    to twice (`Profile.revisits`, 1831's Delaware), on its condition, and junctions where the
    profile lets routes pass them again (`Profile.junctions_pass_twice`)."""
    errors = []
    for ref, n in _repeated(walk.paths):
        errors.append(f"uses track {_path_str(ref)} {n} times")
    for key, n in _repeated(walk.lanes):
        errors.append(f"crosses {_lane_str(key)} {n} times")
    errors += _stretch_errors(board, walk.paths)
    revisits = {r.stop: r.between for r in board.profile.revisits(board.pos)}
    for ref, n in _repeated(walk.nodes):
        name = _node_str(ref)
        if board.node(ref).kind == "junction" and board.profile.junctions_pass_twice:
            continue  # (by other track: paths and lanes are checked above)
        if n == 2 and name in revisits:
            why = _revisit_error(board, train, walk, ref, revisits[name])
            if why:
                errors.append(why)
            continue
        errors.append(f"visits node {name} {n} times")
    return errors


def _stretches(board: _Board, paths) -> dict[NodeRef, list[PathRef]]:
    """Per town drawn at a hex side, the paths of `paths` that run along the stretch of track
    beside it (`Tile.stretches`)."""
    out: dict[NodeRef, list[PathRef]] = {}
    for ref in paths:
        town = board.hex(ref[0]).tile.stretches().get(ref[1])
        if town is not None:
            out.setdefault((ref[0], town), []).append(ref)
    return out


def _stretch_errors(board: _Board, paths) -> list[str]:
    """The track beside a town drawn at a hex side is one piece: one path along it at most."""
    return [f"runs along the track beside {_node_str(town)} twice "
            f"({', '.join(_path_str(r) for r in refs)}: the town is drawn at a hex side)"
            for town, refs in _stretches(board, dict.fromkeys(paths)).items() if len(refs) > 1]


def _revisit_error(board: _Board, train: Train, walk: _Walk, ref: NodeRef,
                   between: tuple[str, ...]) -> str:
    """Why a route may not run to revisit stop `ref` twice, or "" when it may."""
    def runs_to(node: NodeRef) -> bool:
        return board.node(node).is_stop and board.rule(train, node).may_end

    name = _node_str(ref)
    if not runs_to(ref):
        return f"visits node {name} twice; only a train running to it may come back to it"
    first = walk.nodes.index(ref)
    second = walk.nodes.index(ref, first + 1)
    missing = [h for h in between
               if not any(node[0] == h and runs_to(node) for node in walk.nodes[first + 1:second])]
    if missing:
        return (f"runs to {name} twice without running to {' and '.join(missing)} between "
                f"the two visits")
    return ""


def _repeated(items: tuple) -> list[tuple[Any, int]]:
    counts: dict[Any, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return [(item, n) for item, n in counts.items() if n > 1]


def _through_errors(board: _Board, train: Train, walk: _Walk) -> tuple[list[str], list[str]]:
    """Rule 5: what the walk may pass through. Returns (errors, blocked cities bypassed).

    A blocking city (or mountain pass) costs one of the round's bypasses; any other blocking
    node (an offboard) is a route end only. Terminal track ends the route at its node.
    """
    errors: list[str] = []
    bypassed: list[str] = []
    for ref, before, after in walk.through:
        node, name = board.node(ref), _node_str(ref)
        for track in (before, after):
            if board.path(track).terminal:
                errors.append(f"passes through {name} over terminal track {_path_str(track)}; "
                              "terminal track ends the route there")
        block = board.rule(train, ref).block
        if block == PASSABLE:
            continue
        if block == BYPASS:
            bypassed.append(name)
        elif node.kind == "offboard":
            errors.append(f"passes through {name}, an offboard; offboards are route ends")
        else:
            errors.append(f"passes through {name}, a {node.kind} that blocks this train")
    limit = board.rules.max_bypass
    if bypassed and limit == 0:
        errors.extend(f"passes through {name}, a city full of other companies' tokens"
                      for name in bypassed)
    elif len(bypassed) > limit:
        errors.append(f"passes through {len(bypassed)} cities full of other companies' tokens "
                      f"({', '.join(bypassed)}); the rules allow {limit} bypass per round")
    return errors, bypassed


def _passed_unpaid(board: _Board, train: Train, walk: _Walk) -> frozenset[NodeRef]:
    """The cities the walk passes by a bypass when its train is never paid for them
    (`PayRule.passed_unpaid`)."""
    if not board.profile.pay_rule(board.pos, train).passed_unpaid:
        return frozenset()
    return frozenset(ref for ref, _, _ in walk.through if board.rule(train, ref).block == BYPASS)


def _token_errors(board: _Board, train: Train, walk: _Walk) -> list[str]:
    """Rule 6: a train that needs a token visits a node where the company counts as tokened."""
    if not train.spec.requires_token:
        return []
    if any(board.rule(train, n).anchor for n in walk.nodes):
        return []
    return [f"visits no city with a {board.pos.company} token"]


def _group_errors(board: _Board, train: Train, walk: _Walk) -> list[str]:
    """Rule 7: at most one stop of each group (e.g. the hexes of one off-board area; the
    profile may add groups, `StopRule.groups`)."""
    members: dict[str, list[str]] = {}
    for ref in _stops(board, walk):
        for group in dict.fromkeys((*board.node(ref).groups, *board.rule(train, ref).groups)):
            members.setdefault(group, []).append(_node_str(ref))
    return [f"visits {len(refs)} stops of group {group} ({', '.join(refs)}); at most one may be "
            "visited" for group, refs in members.items() if len(refs) > 1]


def _reentry_errors(board: _Board, walk: _Walk) -> list[str]:
    """Rule 8: in hexes the profile protects, a route may not leave and come back."""
    errors = []
    for hex_id, runs in _repeated(walk.hexes):
        if board.profile.reentry_forbidden(board.pos, board.hex(hex_id)):
            errors.append(f"leaves {hex_id} and enters it again ({runs} times in all); "
                          "re-entering this hex is forbidden")
    return errors


def _hex_limit_errors(train: Train, walk: _Walk) -> list[str]:
    """Rule 9 for hex trains: hex-side crossings within the train's hexes."""
    limit = train.spec.hexes
    crossings = len(walk.lanes)
    if limit > 0 and crossings > limit:
        return [f"crosses {crossings} hex sides, a {train.name} train may cross {limit}"]
    return []


def _tally_errors(board: _Board, train: Train, walk: _Walk) -> list[str]:
    """Rule 10: the visited stops' tallies (e.g. tokens of each type) lie within the train's
    limits (`Profile.tally_limits`)."""
    pos, profile = board.pos, board.profile
    limits = profile.tally_limits(pos, train)
    if not limits:
        return []
    counts: dict[str, int] = {}
    for ref in _stops(board, walk):
        for name, count in board.rule(train, ref).tallies:
            counts[name] = counts.get(name, 0) + count
    errors = []
    for name, at_least, at_most in limits:
        have = counts.get(name, 0)
        if have < at_least:
            errors.append(f"counts {have} {name}, a {train.name} train needs at least {at_least}")
        elif have > at_most:
            errors.append(f"counts {have} {name}, a {train.name} train may count at most {at_most}")
    return errors


def _walk_errors(board: _Board, train: Train, walk: _Walk) -> tuple[list[str], list[str]]:
    """Every per-route rule on a connected walk. Returns (errors, bypassed cities)."""
    through, bypassed = _through_errors(board, train, walk)
    errors = (_end_errors(board, train, walk) + _repeat_errors(board, train, walk) + through
              + _token_errors(board, train, walk) + _group_errors(board, train, walk)
              + _reentry_errors(board, walk) + _hex_limit_errors(train, walk)
              + _tally_errors(board, train, walk))
    if _best_pay(board, train, _stops(board, walk)) is None:
        errors.append(_distance_error(board, train, _stops(board, walk)))
    return errors, bypassed
