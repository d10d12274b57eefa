"""Check a plan against the route rules from first principles: the slow, obvious twin of the solver.

The solver compiles track into chains and enumerates routes in numba kernels; this module uses
none of that (nothing from ``hexrail.graph``, ``hexrail.search`` or ``hexrail.combine``). It
walks the model itself — tiles, paths, hex sides and lanes, tokens — and asks the rules profile's
hooks, so a bug in the fast path shows up as a disagreement here. Revenue is chosen by brute
force, which is exact and fast enough for one company's routes.

Every broken rule becomes a message naming the rule and the hex, node or track at fault; nothing
a plan says makes it raise (a malformed position or plan document still raises `HexrailError`).

>>> from hexrail.examples import example_path
>>> report = check_plan(example_path("demo"),
...                     {"routes": [{"train": "4-0", "stops": ["A1-0", "B2-0", "D4-0", "E5-0"]}]})
>>> report.legal, report.revenue
(True, 150)
>>> report.routes[0].paths
('A1:0', 'B2:0', 'B2:1', 'C3:0', 'D4:0', 'D4:2', 'E5:0')
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hexrail.errors import HexrailError
from hexrail.io.native import load_position
from hexrail.model.hexgrid import opposite
from hexrail.model.position import Hex, Position, Train
from hexrail.model.tile import End, Node, Path
from hexrail.model.trains import ALL_KINDS, UNLIMITED, Row
from hexrail.plan import Plan, RoutePlan, RouteSet, plan_from_json
from hexrail.rules.base import (BYPASS, FIRST, MANDATORY, OPTIONAL, PASSABLE, SET_NONE, SET_TEMPORARY, PlanRules,
                                Profile, StopRule, ruled)

OBJECTIVES = ("income", "revenue")

# A stops-only route tries at most this many walks through its stops before giving up.
MAX_WALKS = 5000

PathRef = tuple[str, int]  # (hex id, index in the tile's paths): "E5:2"
NodeRef = tuple[str, int]  # (hex id, node index): "E5-0"


def _path_str(ref: PathRef) -> str:
    return f"{ref[0]}:{ref[1]}"


def _node_str(ref: NodeRef) -> str:
    return f"{ref[0]}-{ref[1]}"


# -- reports ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RouteReport:
    """What one route visits and earns, or the rules it breaks.

    ``stops`` are the visited stops in route order and ``paid`` the ones paid (``"E5-0"`` refs);
    ``paths`` the track in order (given, or found for a route drawn by its stops); ``revenue``
    includes ``bonuses``. An illegal route earns nothing.
    """

    train: str
    errors: tuple[str, ...] = ()
    stops: tuple[str, ...] = ()
    paid: tuple[str, ...] = ()
    revenue: int = 0
    subsidy: int = 0
    bonuses: tuple[tuple[str, int], ...] = ()
    hexes: tuple[str, ...] = ()
    crossings: int = 0
    paths: tuple[str, ...] = ()

    @property
    def legal(self) -> bool:
        return not self.errors

    def to_json(self) -> dict[str, Any]:
        return {
            "train": self.train, "legal": self.legal, "errors": list(self.errors),
            "revenue": self.revenue, "subsidy": self.subsidy, "stops": list(self.stops),
            "paid": list(self.paid), "hexes": list(self.hexes), "paths": list(self.paths),
            "bonuses": [{"name": n, "amount": a} for n, a in self.bonuses],
            "crossings": self.crossings,
        }


@dataclass(frozen=True)
class PlanReport:
    """The verdict on a whole plan: each route's report plus the rules that couple routes."""

    routes: tuple[RouteReport, ...]
    errors: tuple[str, ...] = ()
    revenue: int = 0
    subsidy: int = 0
    sets: tuple[RouteSet, ...] = ()  # routes joined end to end and paid as one (`set_role`)

    @property
    def legal(self) -> bool:
        return not self.errors and all(r.legal for r in self.routes)

    @property
    def total(self) -> int:
        return self.revenue + self.subsidy

    def route(self, train: str) -> RouteReport | None:
        return next((r for r in self.routes if r.train == train), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "legal": self.legal, "errors": list(self.errors), "revenue": self.revenue,
            "subsidy": self.subsidy, "total": self.total,
            "routes": [r.to_json() for r in self.routes],
            **({"sets": [x.to_json() for x in self.sets]} if self.sets else {}),
        }

    def table(self) -> str:
        """Plain text: per route the train, its stops (unpaid ones in brackets) and revenue or
        the rules it breaks; then the plan's errors and the total, or "illegal"."""
        rows = [("train", "stops", "revenue")]
        for r in self.routes:
            paid = set(r.paid) if r.legal else set(r.stops)
            stops = " ".join(s if s in paid else f"({s})" for s in r.stops)
            if r.legal:
                amount = str(r.revenue)
                if r.subsidy:
                    amount += f" +{r.subsidy} subsidy"
                if r.bonuses:
                    amount += " incl. " + ", ".join(f"{n} {a}" for n, a in r.bonuses)
            else:
                amount = "illegal: " + "; ".join(r.errors)
            rows.append((r.train, stops, amount))
        widths = [max(len(row[k]) for row in rows) for k in range(2)]
        lines = [f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c}".rstrip() for a, b, c in rows]
        lines.insert(1, "-" * max(len(x) for x in lines))
        lines.extend(f"plan: {e}" for e in self.errors)
        if self.legal:
            total = f"total {self.revenue}"
            if self.subsidy:
                total += f" + {self.subsidy} subsidy"
            lines.append(total)
        else:
            lines.append("illegal")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


# -- the board as the rules see it --------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Board:
    """The position with its profile, so helpers need one argument instead of four."""

    pos: Position
    profile: Profile
    rules: PlanRules
    objective: str
    _rules: dict = field(default_factory=dict, repr=False)

    def rule(self, train: Train, ref: NodeRef) -> StopRule:
        """The profile's record of node `ref` for `train` (`Profile.stop_rule`), asked once."""
        key = (train.id, ref)
        if key not in self._rules:
            self._rules[key] = self.profile.stop_rule(self.pos, train, self.hex(ref[0]), self.node(ref))
        return self._rules[key]

    def hex(self, hex_id: str) -> Hex:
        return self.pos.hex_by_id[hex_id]

    def path(self, ref: PathRef) -> Path:
        return self.hex(ref[0]).tile.paths[ref[1]]

    def node(self, ref: NodeRef) -> Node:
        return self.hex(ref[0]).tile.node(ref[1])

    def neighbour(self, hex_id: str, edge: int) -> str | None:
        """The hex across a side, only if it is on the map (explicit neighbours included)."""
        nb = self.pos.neighbour(hex_id, edge)
        return nb if nb in self.pos.hex_by_id else None


def _gauge_ok(track: str, gauge: str) -> bool:
    """Dual track carries both broad and narrow trains; otherwise the gauges must match."""
    return track == gauge or (track == "dual" and gauge in ("broad", "narrow"))


def _parse_path_ref(board: _Board, text: str) -> tuple[PathRef | None, str]:
    """``"E5:2"`` → (("E5", 2), "") or (None, why it names no track)."""
    hex_id, sep, index = text.rpartition(":")
    if not sep or not index.isdigit():
        return None, f"track ref {text!r} is not of the form HEX:k"
    if hex_id not in board.pos.hex_by_id:
        return None, f"track {text}: no hex {hex_id} on the map"
    count = len(board.hex(hex_id).tile.paths)
    if int(index) >= count:
        return None, f"track {text}: hex {hex_id} has no track {index} (it has {count} paths)"
    return (hex_id, int(index)), ""


def _parse_node_ref(board: _Board, text: str) -> tuple[NodeRef | None, str]:
    """``"E5-0"`` → (("E5", 0), "") or (None, why it names no node)."""
    hex_id, sep, index = text.rpartition("-")
    if not sep or not index.isdigit():
        return None, f"stop ref {text!r} is not of the form HEX-i"
    if hex_id not in board.pos.hex_by_id:
        return None, f"stop {text}: no hex {hex_id} on the map"
    if all(n.index != int(index) for n in board.hex(hex_id).tile.nodes):
        return None, f"stop {text}: hex {hex_id} has no node {index}"
    return (hex_id, int(index)), ""


# -- track: how paths join ----------------------------------------------------------------------


def _mirror(lane: tuple[int, int]) -> tuple[int, int]:
    """Lane i of w seen from the other side of the hex side is lane w-1-i."""
    width, index = lane
    return (width, width - 1 - index)


def _entry(board: _Board, hex_id: str, out: End, ref: PathRef) -> int | None:
    """Which end of path `ref` continues the walk that leaves `hex_id` by `out`, if any.

    At a node any two paths of that hex join; across a hex side the walk must enter the
    neighbour at the facing side in the mirrored lane. Two paths of one hex that both reach a
    side do not join each other: track there only continues into the neighbour.
    """
    ends = board.path(ref).ends
    if not out.is_edge:
        if ref[0] != hex_id:
            return None
        return next((k for k, e in enumerate(ends) if not e.is_edge and e.node == out.node), None)
    if board.neighbour(hex_id, out.edge) != ref[0]:
        return None
    side, lane = opposite(out.edge), _mirror(out.lane)
    return next((k for k, e in enumerate(ends) if e.is_edge and e.edge == side and e.lane == lane),
                None)


def _no_join(board: _Board, a: PathRef, b: PathRef) -> str:
    """Why track `a` does not lead into track `b` (as specific as the model lets us be)."""
    msg = f"track {_path_str(a)} does not connect to {_path_str(b)}"
    pa, pb = board.path(a), board.path(b)
    if a[0] == b[0]:
        shared = sorted(set(pa.edges()) & set(pb.edges()))
        if shared:
            return (msg + f": paths of one hex that meet at side {shared[0]} of {a[0]} are not "
                    "joined (track there only continues into the neighbour)")
        return msg + f": they share no node of {a[0]}"
    for end in (e for e in pa.ends if e.is_edge):
        if board.pos.layout.neighbour(a[0], end.edge) != b[0]:
            continue
        if board.neighbour(a[0], end.edge) is None:
            return msg + f": side {end.edge} of {a[0]} is impassable"
        facing = [e for e in pb.ends if e.is_edge and e.edge == opposite(end.edge)]
        if facing and all(e.lane != _mirror(end.lane) for e in facing):
            width, index = end.lane
            return (msg + f": lane {index} of {width} at side {end.edge} of {a[0]} continues into "
                    f"lane {width - 1 - index} at side {opposite(end.edge)} of {b[0]}, but "
                    f"{_path_str(b)} uses lane {facing[0].lane[1]} of {facing[0].lane[0]}")
    return msg


def _lane_key(board: _Board, hex_id: str, end: End) -> tuple:
    """One hexside lane, named the same from both hexes."""
    nb = board.neighbour(hex_id, end.edge)
    here = (hex_id, end.edge, *end.lane)
    there = (nb, opposite(end.edge), *_mirror(end.lane))
    return min(here, there), max(here, there)


def _lane_str(key: tuple) -> str:
    (h1, e1, w, i), (h2, _e2, _w, _i) = key
    lane = f" lane {i} of {w}" if w > 1 else ""
    return f"the {h1}/{h2} hex side (side {e1} of {h1}{lane})"


@dataclass(frozen=True)
class _Walk:
    """A route's track, oriented: what it passes, in order."""

    paths: tuple[PathRef, ...]
    start: End  # where the walk starts and ends (a node end, or a hex side for a bad route)
    end: End
    nodes: tuple[NodeRef, ...]  # every node on the walk, ends included
    through: tuple[tuple[NodeRef, PathRef, PathRef], ...]  # passed nodes, track in and out
    lanes: tuple[tuple, ...]  # hexside lanes crossed
    hexes: tuple[str, ...]  # hexes in order, runs collapsed
    node_lanes: tuple[int, ...] = ()  # per entry of `nodes`: hexside lanes crossed before it


def _free_entry(board: _Board, paths: list[PathRef], i: int) -> int:
    """The entry end of path i when nothing before it fixes one: the end whose other end leads
    into the next path, else the node end (routes start at stops)."""
    ends = board.path(paths[i]).ends
    if i + 1 < len(paths):
        for k in (0, 1):
            if _entry(board, paths[i][0], ends[1 - k], paths[i + 1]) is not None:
                return k
    return 1 if ends[0].is_edge and not ends[1].is_edge else 0


def _trace(board: _Board, paths: list[PathRef]) -> tuple[_Walk | None, list[str]]:
    """Orient the track and list what the walk passes, or say where it falls apart."""
    entries: list[int] = []
    errors: list[str] = []
    for i, ref in enumerate(paths):
        if i > 0:
            prev = paths[i - 1]
            out = board.path(prev).ends[1 - entries[-1]]
            entry = _entry(board, prev[0], out, ref)
            if entry is not None:
                entries.append(entry)
                continue
            errors.append(_no_join(board, prev, ref))
        entries.append(_free_entry(board, paths, i))
    if errors:
        return None, errors
    nodes: list[NodeRef] = []
    node_lanes: list[int] = []
    through: list[tuple[NodeRef, PathRef, PathRef]] = []
    lanes: list[tuple] = []
    hexes: list[str] = []
    start = board.path(paths[0]).ends[entries[0]]
    if not start.is_edge:
        nodes.append((paths[0][0], start.node))
        node_lanes.append(0)
    for i, ref in enumerate(paths):
        if not hexes or hexes[-1] != ref[0]:
            hexes.append(ref[0])
        out = board.path(ref).ends[1 - entries[i]]
        last = i == len(paths) - 1
        if not out.is_edge:
            nodes.append((ref[0], out.node))
            node_lanes.append(len(lanes))
            if not last:
                through.append(((ref[0], out.node), ref, paths[i + 1]))
        elif not last:
            lanes.append(_lane_key(board, ref[0], out))
    end = board.path(paths[-1]).ends[1 - entries[-1]]
    return _Walk(tuple(paths), start, end, tuple(nodes), tuple(through), tuple(lanes),
                 tuple(hexes), tuple(node_lanes)), []


def _single_stop_walk(stop: NodeRef) -> _Walk:
    """A route that stays at one stop (only trains with min_stops 1 may run it)."""
    end = End(node=stop[1])
    return _Walk((), end, end, (stop,), (), (), (stop[0],), (0,))


# -- the rules of one route -----------------------------------------------------------------------


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


def _repeat_errors(walk: _Walk) -> list[str]:
    """Rule 4: no path, hexside lane or node twice."""
    errors = []
    for ref, n in _repeated(walk.paths):
        errors.append(f"uses track {_path_str(ref)} {n} times")
    for key, n in _repeated(walk.lanes):
        errors.append(f"crosses {_lane_str(key)} {n} times")
    for ref, n in _repeated(walk.nodes):
        errors.append(f"visits node {_node_str(ref)} {n} times")
    return errors


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


def _token_errors(board: _Board, train: Train, walk: _Walk) -> list[str]:
    """Rule 6: a train that needs a token visits a node where the company counts as tokened."""
    if not train.spec.requires_token:
        return []
    pos, profile = board.pos, board.profile
    if any(board.rule(train, n).anchor for n in walk.nodes):
        return []
    return [f"visits no city with a {pos.company} token"]


def _group_errors(board: _Board, walk: _Walk) -> list[str]:
    """Rule 7: at most one stop of each group (e.g. the hexes of one off-board area)."""
    members: dict[str, list[str]] = {}
    for ref in _stops(board, walk):
        for group in board.node(ref).groups:
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
    errors = (_end_errors(board, train, walk) + _repeat_errors(walk) + through
              + _token_errors(board, train, walk) + _group_errors(board, walk)
              + _reentry_errors(board, walk) + _hex_limit_errors(train, walk)
              + _tally_errors(board, train, walk))
    if _best_pay(board, train, _stops(board, walk)) is None:
        errors.append(_distance_error(board, train, _stops(board, walk)))
    return errors, bypassed


# -- distance and pay -------------------------------------------------------------------------------


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
    best: _Pay | None = None
    for members in _row_assignments(stops, rows):
        pay = _pay_rows(board, stops, rows, members, unpayable)
        if best is None or pay.score > best.score:
            best = pay
    return best


def _declared_pay(board: _Board, train: Train, refs: list[NodeRef],
                  declared: frozenset[NodeRef]) -> _Pay | None:
    """What the route earns when it is paid for exactly the `declared` stops (a player may
    take less than the best, e.g. a halt's subsidy instead of a town); None if no placing of
    the stops in the train's rows pays exactly those."""
    stops = [_stop_info(board, train, ref) for ref in refs]
    rows = train.spec.rows
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


def _bonuses(board: _Board, train: Train, refs: list[NodeRef]) -> tuple[tuple[str, int], ...]:
    """The route's bonuses: tags counted over the visited stops' hexes; exclusive groups pay
    their largest member."""
    bonuses = board.profile.bonuses(board.pos, train)
    if not bonuses:
        return ()
    counts: dict[str, int] = {}
    for ref in refs:
        for tag in set(board.profile.hex_tags(board.pos, train, board.hex(ref[0]))):
            counts[tag] = counts.get(tag, 0) + 1
    alone: list[tuple[str, int]] = []
    best: dict[str, tuple[str, int]] = {}
    for b in bonuses:
        if not all(counts.get(tag, 0) >= at_least for tag, at_least in b.conditions):
            continue
        amount = b.amount * (counts.get(b.conditions[0][0], 0) if b.per_count and b.conditions else 1)
        if not b.group:
            alone.append((b.name, amount))
        elif b.group not in best or amount > best[b.group][1]:
            best[b.group] = (b.name, amount)
    return tuple(b for b in alone + list(best.values()) if b[1])


# -- one route, from its plan entry -----------------------------------------------------------------


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
            if node is not None and node in seen:
                continue
            is_stop = node is not None and board.node(node).is_stop
            if is_stop and node != stops[target]:
                continue
            walk.append(ref)
            used_paths.add(ref)
            if lane is not None:
                used_lanes.add(lane)
            if node is not None:
                seen.add(node)
            if is_stop and target == len(stops) - 1:
                yield list(walk)
            else:
                yield from step(ref[0], nxt, target + 1 if is_stop else target)
            if node is not None:
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
    an allowed start, 2 to ``max_visits`` of them; no path or hex-side lane is used twice in the
    whole run, no node twice within a leg, and between visits the run passes nothing that
    blocks the train and no terminal track. Returns (walk, visits, errors)."""
    pos, profile = board.pos, board.profile
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
    match = [run for run in profile.cyclic_runs(pos, train)
             if 2 <= len(visits) <= run.max_visits
             and any(run.visits(s, len(visits)) == shown for s in run.starts)]
    if not match:
        errors.append(f"visits {' '.join(shown)}, no cyclic run of train {train.id}")
    for ref, n in _repeated(walk.paths):
        errors.append(f"uses track {_path_str(ref)} {n} times")
    for key, n in _repeated(walk.lanes):
        errors.append(f"crosses {_lane_str(key)} {n} times")
    leg: list[NodeRef] = []
    for ref in walk.nodes:
        if ref in leg:
            errors.append(f"visits node {_node_str(ref)} twice in one leg")
        leg = [ref] if ref in visits else leg + [ref]
    for ref, before, after in walk.through:
        if ref in visits:
            continue
        node = board.node(ref)
        if any(board.path(t).terminal for t in (before, after)):
            errors.append(f"passes through {_node_str(ref)} over terminal track")
        if board.rule(train, ref).block != PASSABLE:
            errors.append(f"passes through {_node_str(ref)}, which blocks the train")
    return walk, visits, errors


def _cyclic_pay(board: _Board, train: Train, visits: tuple[NodeRef, ...]) -> _Pay:
    """A cyclic run is paid every visit's stop value."""
    revenue = sum(_stop_info(board, train, ref).value for ref in visits)
    return _Pay(frozenset(visits), revenue, 0, (revenue, revenue))


# -- the plan --------------------------------------------------------------------------------------


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


def _shared_track_errors(board: _Board, routes: list[_Route]) -> list[str]:
    """No two routes share a path or a hexside lane (unless the rules let trains share track)."""
    if board.rules.share_track:
        return []
    errors = []
    walked = [r for r in routes if r.walk is not None]
    for a, b in itertools.combinations(walked, 2):
        names = f"trains {a.plan.train} and {b.plan.train}"
        for ref in sorted(set(a.walk.paths) & set(b.walk.paths)):
            errors.append(f"{names} both use track {_path_str(ref)}")
        for key in sorted(set(a.walk.lanes) & set(b.walk.lanes)):
            errors.append(f"{names} both cross {_lane_str(key)}")
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
    pos = board.pos
    out: set[NodeRef] = set()
    for home in pos.operating().home:
        if "-" in home:
            ref, _ = _parse_node_ref(board, home)
            if ref is not None:
                out.add(ref)
            continue
        cities = [n for n in pos.hex(home).tile.nodes if n.kind == "city"]
        own = [n for n in cities if any(t is not None and t.company == pos.company
                                        for t in pos.hex(home).slots(n.index))]
        out.update((home, n.index) for n in own or cities)
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


# -- routes joined end to end: sets (`Profile.set_role`) ------------------------------------------

K = TypeVar("K", bound=Hashable)
N = TypeVar("N", bound=Hashable)


def build_sets(ends: dict[K, tuple[N, N]], temporary: set[K] | frozenset[K]) -> list[list[K]]:
    """Group the routes of set trains into sets joined end to end, as 18xx.games does.

    `ends` maps each route (any key), in plan order, to its first and last stop; `temporary`
    holds the routes of `SET_TEMPORARY` trains. The first set grows from the first temporary
    route, the next ones from the first route left. A set grows from both ends of its first
    route along routes that end where it ends; where several routes end at one stop, it takes
    the branch holding a temporary route if any, else the longest (the first on ties), and the
    other branches are left for later sets. Every route lands in exactly one set; each set lists
    the route it grew from first. This follows the engine's ``build_freight_sets`` step by step.

    >>> build_sets({"a": ("A", "B"), "b": ("C", "B"), "c": ("D", "E")}, set())
    [['a', 'b'], ['c']]
    """
    stops = dict(ends)
    sets: list[list[K]] = []
    first = next((k for k in stops if k in temporary), None)
    if first is not None:
        sets.append(_create_set(first, stops, temporary))
    while stops:
        sets.append(_create_set(next(iter(stops)), stops, temporary))
    return sets


def _unique(items: list) -> list:
    return list(dict.fromkeys(items))


def _create_set(route: K, stops: dict, temporary: Any) -> list[K]:
    a, b = stops[route]
    out = [route]
    out += _set_from_node(a, route, stops, temporary)
    out += _set_from_node(b, route, stops, temporary)
    return _unique(out)


def _set_from_node(node: N, route: K, stops: dict, temporary: Any) -> list[K]:
    """The routes continuing the set from `node`, the end of `route` (taken out of `stops`)."""
    stops.pop(route, None)
    if not stops:
        return []
    meeting = [r for r in stops if node in stops[r]]
    if len(meeting) == 1:
        return _one_way_set(node, meeting[0], [meeting[0]], stops, temporary)
    if not meeting:
        return []
    branches = [_one_way_set(node, r, [], dict(stops), temporary) for r in meeting]
    branch = next((br for br in branches if any(r in temporary for r in br)), None)
    if branch is None:
        branch = max(branches, key=len)  # the first of the longest
    for r in branch:
        stops.pop(r, None)
    return branch


def _one_way_set(came_from: N, route: K, out: list[K], stops: dict, temporary: Any) -> list[K]:
    out.append(route)
    a, b = stops[route]
    if a != came_from:
        out += _set_from_node(a, route, stops, temporary)
    if b != came_from:
        out += _set_from_node(b, route, stops, temporary)
    return _unique(out)


def set_ends(ends: Sequence[tuple[N, N]]) -> list[N]:
    """The ends of a set whose routes (in set order) start and end at these stops: the stops
    that end exactly one of them, in order of appearance; a loop (no such stop) ends twice at
    the first stop. (One end only is a broken set; the caller says so.)

    >>> set_ends([("A", "B"), ("C", "B")]), set_ends([("A", "B"), ("B", "A")])
    (['A', 'C'], ['A', 'A'])
    """
    count: dict[N, int] = {}
    for a, b in ends:
        count[a] = count.get(a, 0) + 1
        count[b] = count.get(b, 0) + 1
    once = [n for n, k in count.items() if k == 1]
    if not once and count:
        first = next(iter(count))
        return [first, first]
    return once


@dataclass(frozen=True)
class _Set:
    """One set: its routes (indices, the first earns the bonus), its ends and its bonus."""

    members: tuple[int, ...]
    ends: tuple[NodeRef, ...]
    bonus: int


def _set_end(board: _Board, routes: list[_Route], group: list[int],
             end: NodeRef) -> tuple[Hex, Node, Hex]:
    """A set's end for `Profile.set_bonus`: its hex, its node, and the hex the set's track
    enters it from (the next hex along the first route of the set that stops there; the end's
    own hex for a route without track)."""
    hex_ = board.hex(end[0])
    for i in group:
        walk = routes[i].walk
        stops = _stops(board, walk)
        if end not in stops:
            continue
        hexes = [ref[0] for ref in walk.paths]
        if end != stops[0]:
            hexes.reverse()
        return hex_, board.node(end), board.hex(hexes[1] if len(hexes) > 1 else end[0])
    return hex_, board.node(end), hex_


def _route_sets(board: _Board,
                routes: list[_Route]) -> tuple[list[_Set], list[str], dict[int, list[NodeRef]]]:
    """The sets the legal routes of set trains form, the rules they break, and per such route
    the stops it may be paid for: the ends of its set that are its own ends."""
    pos, profile = board.pos, board.profile
    role = {i: profile.set_role(pos, r.train) for i, r in enumerate(routes) if r.legal}
    members = [i for i, k in role.items() if k != SET_NONE]
    payable: dict[int, list[NodeRef]] = {i: [] for i in members}  # a route without track: nothing
    ends = {}
    for i in members:
        if routes[i].walk.paths:
            stops = _stops(board, routes[i].walk)
            ends[i] = (stops[0], stops[-1])
    temporary = {i for i in ends if role[i] == SET_TEMPORARY}
    sets: list[_Set] = []
    errors: list[str] = []
    for group in build_sets(ends, temporary):
        stops = set_ends([ends[i] for i in group])
        names = ", ".join(routes[i].plan.train for i in group)
        bonus = 0
        if len(stops) == 1:
            errors.append(f"the routes of trains {names} join end to end with one end only "
                          f"({_node_str(stops[0])})")
        else:
            bonus = profile.set_bonus(pos, _set_end(board, routes, group, stops[0]),
                                      _set_end(board, routes, group, stops[-1]))
        for i in group:
            payable[i] = [e for e in _unique(stops) if e in ends[i]]
        sets.append(_Set(tuple(group), tuple(stops), bonus))

    def shown(s: _Set) -> str:
        return "+".join(routes[i].plan.train for i in s.members)

    mixed = [s for s in sets if any(i in temporary for i in s.members)]
    if len(mixed) > 1:
        errors.append("all non-permanent set trains need to connect end to end, into one set; "
                      f"they are in {len(mixed)} sets ({'; '.join(map(shown, mixed))})")
    elif mixed and all(i in temporary for i in mixed[0].members) and len(sets) > 1:
        errors.append(f"non-permanent set trains must connect to a permanent one: the set "
                      f"{shown(mixed[0])} holds none while {len(sets)} sets run")
    return sets, errors, payable


def _hex_subsidies(board: _Board, routes: list[_Route]) -> dict[int, int]:
    """Per legal route of a train with a hex subsidy: the subsidy times the hexes its track
    passes that no earlier such route (plan order) passed."""
    out: dict[int, int] = {}
    covered: set[str] = set()
    for i, route in enumerate(routes):
        if not route.legal:
            continue
        rate = board.profile.hex_subsidy(board.pos, route.train)
        if rate <= 0:
            continue
        hexes = {ref[0] for ref in route.walk.paths}
        out[i] = rate * len(hexes - covered)
        covered |= hexes
    return out


def _span_bonuses(board: _Board, routes: list[_Route]) -> dict[int, tuple[tuple[str, int], ...]]:
    """Per legal route, the span bonuses it is paid (`Profile.span_bonuses`): a route containing
    a bonus's start and target earns its amount less the price of the hex-side crossings
    between them along the route; each bonus (by name) is paid once, to the route earning most
    from it (the first in plan order on ties)."""
    best: dict[str, tuple[int, int]] = {}  # name -> (amount, route index)
    for i, route in enumerate(routes):
        if not route.legal:
            continue
        lanes_at: dict[NodeRef, int] = dict(zip(route.walk.nodes, route.walk.node_lanes))
        for bonus in board.profile.span_bonuses(board.pos, route.train):
            starts = [lanes_at[ref] for ref in map(_node_key, bonus.start) if ref in lanes_at]
            targets = [lanes_at[ref] for ref in map(_node_key, bonus.target) if ref in lanes_at]
            if not starts or not targets:
                continue
            amount = bonus.earned(min(abs(a - b) for a in starts for b in targets))
            if amount > best.get(bonus.name, (0, -1))[0]:
                best[bonus.name] = (amount, i)
    out: dict[int, tuple[tuple[str, int], ...]] = {}
    for name, (amount, i) in sorted(best.items()):
        out[i] = out.get(i, ()) + ((name, amount),)
    return out


def _node_key(text: str) -> NodeRef:
    hex_id, _, index = text.rpartition("-")
    return hex_id, int(index)


# -- pay ---------------------------------------------------------------------------------------------


def _location(board: _Board, ref: NodeRef) -> Hashable:
    """Where a stop pays once (with `PlanRules.stops_pay_once`): its first group (all the hexes
    of one offboard area are one location), else the stop itself."""
    groups = board.node(ref).groups
    return ("group", groups[0]) if groups else ref


def _pay_of(board: _Board, train: Train, paid: frozenset[NodeRef]) -> _Pay:
    """What a route earns when paid for exactly `paid`."""
    stops = [_stop_info(board, train, ref) for ref in paid]
    revenue = sum(s.value for s in stops)
    subsidy = sum(s.subsidy for s in stops)
    score = revenue + subsidy if board.objective == "income" else revenue
    return _Pay(frozenset(paid), revenue, subsidy, (score, revenue))


def _set_pay(board: _Board, train: Train, refs: list[NodeRef],
             unpayable: frozenset[NodeRef] = frozenset()) -> _Pay:
    """A set route is paid for each of `refs` (its set's ends among its own) not in `unpayable`;
    its other stops pay nothing."""
    return _pay_of(board, train, frozenset(r for r in refs if r not in unpayable))


def _settle_declared(board: _Board, routes: list[_Route],
                     payable: dict[int, list[NodeRef]]) -> dict[int, _Pay]:
    """Each legal route paid for the stops its plan declares; a declared choice the train
    cannot be paid for makes the route illegal. A set route is paid for its set's ends among
    its own ends, whatever it declares (18xx.games derives them from the sets)."""
    pays: dict[int, _Pay] = {}
    for i, route in enumerate(routes):
        if not route.legal:
            continue
        stops = _stops(board, route.walk)
        declared = []
        for text in route.plan.paid:
            ref, error = _parse_node_ref(board, text)
            if ref is None or ref not in stops:
                route.errors.append(error or f"paid stop {text} is not a stop of the route")
            declared.append(ref)
        if not route.legal:
            continue
        if i in payable:
            pays[i] = _set_pay(board, route.train, payable[i])
            continue
        pay = _declared_pay(board, route.train, stops, frozenset(declared))
        if pay is None:
            route.errors.append(f"the train cannot be paid for exactly {', '.join(route.plan.paid)}")
            continue
        pays[i] = pay
    return pays


def _settle_pay(board: _Board, routes: list[_Route],
                payable: dict[int, list[NodeRef]]) -> dict[int, _Pay]:
    """Each legal route's best pay. When a location pays once across all routes, try every way
    of giving each shared location to one of the routes that may be paid for it, and keep the
    best total (so best-of trains choose their paid stops jointly). A set route may be paid only
    for the stops in `payable`.

    When the plan says which stops each route is paid for, that choice is checked; it is what
    the routes earn unless locations pay once. Then the rules, not the plan, choose every
    route's paid stops, jointly (18xx.games recomputes them from the routes and pays a stop
    listed by two routes once), so the lists are only checked and the best choice is paid.
    """
    legal = [i for i, r in enumerate(routes) if r.legal]
    if any(routes[i].plan.paid for i in legal) and all(routes[i].plan.paid or i in payable
                                                       for i in legal):
        pays = _settle_declared(board, routes, payable)
        if not board.rules.stops_pay_once:
            return pays
        legal = [i for i in legal if routes[i].legal]
    stops = {i: _stops(board, routes[i].walk) for i in legal}
    candidates = {i: payable.get(i, stops[i]) for i in legal}
    where = {ref: _location(board, ref) for i in legal for ref in candidates[i]}
    shared: dict[Hashable, list[int]] = {}
    if board.rules.stops_pay_once:
        for i in legal:
            for ref in candidates[i]:
                shared.setdefault(where[ref], []).append(i)
        shared = {loc: owners for loc, owners in shared.items() if len(owners) > 1}
    best: dict[int, _Pay] | None = None
    best_score = None
    cache: dict[tuple[int, frozenset[NodeRef]], _Pay | None] = {}
    for owners in itertools.product(*shared.values()):
        given = dict(zip(shared, owners))
        pays = {}
        for i in legal:
            unpayable = frozenset(ref for ref in candidates[i] if given.get(where[ref], i) != i)
            if (i, unpayable) not in cache:
                train = routes[i].train
                cache[i, unpayable] = (_set_pay(board, train, candidates[i], unpayable)
                                       if i in payable else
                                       _best_pay(board, train, stops[i], unpayable))
            pays[i] = cache[i, unpayable]
        score = tuple(map(sum, zip(*(p.score for p in pays.values())))) or (0, 0)
        if best_score is None or score > best_score:
            best, best_score = pays, score
    return best or {}


def _report(board: _Board, route: _Route, pay: _Pay | None, hex_subsidy: int = 0,
            set_bonus: int = 0, span: tuple[tuple[str, int], ...] = ()) -> RouteReport:
    walk = route.walk
    if walk is None:
        return RouteReport(route.plan.train, tuple(route.errors))
    stops = _stops(board, walk)
    common = dict(
        stops=tuple(_node_str(s) for s in stops), hexes=walk.hexes, crossings=len(walk.lanes),
        paths=tuple(_path_str(p) for p in walk.paths),
    )
    if pay is None:
        return RouteReport(route.plan.train, tuple(route.errors), **common)
    bonuses = _bonuses(board, route.train, stops)
    if set_bonus:
        bonuses += (("set", set_bonus),)
    bonuses += span
    return RouteReport(
        route.plan.train, (), paid=tuple(_node_str(s) for s in stops if s in pay.paid),
        revenue=pay.revenue + sum(a for _, a in bonuses), subsidy=pay.subsidy + hex_subsidy,
        bonuses=bonuses, **common,
    )


def check_plan(position: Any, plan: Plan | dict, *, objective: str = "income") -> PlanReport:
    """Check every route of `plan` and the rules that couple them; recompute what each earns.

    Parameters
    ----------
    position : Position, dict, JSON text or file path
        Anything `hexrail.io.native.load_position` accepts.
    plan : Plan or dict
        A solved plan, or a plan document (`hexrail.plan.plan_from_json`); a route gives its
        track (``paths``) or only its stops, whose track is then found. Plan order matters
        where the rules say "earlier route" (hex subsidies) and to how sets form.
    objective : {"income", "revenue"}
        Which paid stops a route chooses: best revenue + subsidy (default) or revenue alone.

    Returns
    -------
    PlanReport
        ``legal`` is true when no rule is broken; messages name the hex, node or track at fault.
    """
    if objective not in OBJECTIVES:
        raise HexrailError(f"objective must be one of {OBJECTIVES}, not {objective!r}",
                           where="objective")
    pos, profile = ruled(load_position(position))
    if not isinstance(plan, Plan):
        plan = plan_from_json(plan)
    board = _Board(pos, profile, profile.plan_rules(pos), objective)
    routes = _trace_routes(board, plan)
    errors = (_shared_track_errors(board, routes) + _bypass_errors(board, routes)
              + _home_errors(board, routes) + _intersect_errors(board, routes))
    sets, set_errors, payable = _route_sets(board, routes)
    errors += set_errors
    cyclic = {i: r for i, r in enumerate(routes) if r.legal and r.cyclic}
    for i, route in cyclic.items():  # priced below; kept out of the ordinary pay rules
        payable[i] = list(dict.fromkeys(route.cyclic))
    pays = _settle_pay(board, routes, payable)
    for i, route in cyclic.items():
        pays[i] = _cyclic_pay(board, route.train, route.cyclic)
    hex_subsidy = _hex_subsidies(board, routes)
    set_bonus = {s.members[0]: s.bonus for s in sets}
    span = _span_bonuses(board, routes)
    reports = tuple(_report(board, r, pays.get(i), hex_subsidy.get(i, 0), set_bonus.get(i, 0),
                            span.get(i, ())) for i, r in enumerate(routes))
    route_sets = tuple(RouteSet(tuple(routes[i].plan.train for i in s.members),
                                (_node_str(s.ends[0]), _node_str(s.ends[-1])), s.bonus)
                       for s in sets)
    return PlanReport(reports, tuple(errors), revenue=sum(r.revenue for r in reports),
                      subsidy=sum(r.subsidy for r in reports), sets=route_sets)


def validate(position: Any, plan: Plan | dict, *, objective: str = "income") -> PlanReport:
    """Check a plan against the rules (the public name of `check_plan`)."""
    return check_plan(position, plan, objective=objective)
