"""The position as the rules see it, and how a route's paths join into a walk over the board."""

from __future__ import annotations

from dataclasses import dataclass, field

from hexrail.model.hexgrid import facing_lanes, opposite
from hexrail.model.position import Hex, Position, Train
from hexrail.model.tile import End, Node, Path
from hexrail.rules.base import PlanRules, Profile, StopRule
from hexrail.validate.refs import NodeRef, PathRef, _path_str


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

    def facing(self, hex_id: str, out: End) -> tuple[int, tuple[tuple[int, int], ...]]:
        """Track leaving `hex_id` by edge end `out`: the neighbour's side it enters and the
        lanes there it meets (`hexgrid.facing_lanes`; the neighbour is on the map)."""
        side = opposite(out.edge)
        nb = self.hex(self.neighbour(hex_id, out.edge))
        widths = {e.lane[0] for p in nb.tile.paths if not p.ignore
                  for e in p.ends if e.is_edge and e.edge == side}
        return side, facing_lanes(out.lane, widths, self.profile.single_joins_double)


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
    side, lanes = board.facing(hex_id, out)
    return next((k for k, e in enumerate(ends) if e.is_edge and e.edge == side and e.lane in lanes),
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
    """One hexside lane, named the same from both hexes (lane 0 of 0 for a whole side where
    single track joins double)."""
    nb = board.neighbour(hex_id, end.edge)
    side, lanes = board.facing(hex_id, end)
    if lanes[0][0] != end.lane[0]:
        here, there = (hex_id, end.edge, 0, 0), (nb, side, 0, 0)
    else:
        here, there = (hex_id, end.edge, *end.lane), (nb, side, *lanes[0])
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
