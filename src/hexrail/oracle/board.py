"""The position as one train sees it: tile paths by hex side and node, and the profile's record of every node."""

from __future__ import annotations

from dataclasses import dataclass, field

from hexrail.model.hexgrid import facing_lanes
from hexrail.model.position import Hex, Position, Train
from hexrail.model.tile import Node, Path
from hexrail.oracle.result import LaneKey, NodeKey, PathKey
from hexrail.rules.base import BYPASS, MANDATORY, PASSABLE, Profile


def _gauge_ok(path: Path, gauge: str) -> bool:
    return path.track == gauge or (path.track == "dual" and gauge in ("broad", "narrow"))


class _Board:
    """Per train: which paths meet at each node and at each hex side lane, and the hooks' answers."""

    def __init__(self, pos: Position, profile: Profile, train: Train):
        self.pos = pos
        self.train = train
        gauge = train.spec.track
        self.at_node: dict[NodeKey, list[tuple[PathKey, int]]] = {}
        self.at_side: dict[tuple[str, int, tuple[int, int]], list[tuple[PathKey, int]]] = {}
        self.path: dict[PathKey, Path] = {}
        self.node: dict[NodeKey, Node] = {}
        self.hex: dict[str, Hex] = {}
        for h in pos.hexes:
            self.hex[h.id] = h
            for n in h.tile.nodes:
                self.node[(h.id, n.index)] = n
            for k, p in enumerate(h.tile.paths):
                if p.ignore or not _gauge_ok(p, gauge):
                    continue
                self.path[(h.id, k)] = p
                for end_no, end in enumerate(p.ends):
                    if end.is_edge:
                        self.at_side.setdefault((h.id, end.edge, end.lane), []).append(((h.id, k), end_no))
                    else:
                        self.at_node.setdefault((h.id, end.node), []).append(((h.id, k), end_no))
        # paths along the stretch beside a town drawn at a hex side: one piece of track
        self.stretch: dict[PathKey, NodeKey] = {
            (h.id, k): (h.id, town) for h in pos.hexes for k, town in h.tile.stretches().items()
            if (h.id, k) in self.path}
        self.widths: dict[tuple[str, int], set[int]] = {}  # track widths at each hex side
        for h_id, edge, (width, _) in self.at_side:
            self.widths.setdefault((h_id, edge), set()).add(width)
        self.single_joins_double = profile.single_joins_double
        self.junctions_twice = profile.junctions_pass_twice
        self.track_group = profile.track_group(pos, train)
        # The profile's record of each node for this train, asked once per node.
        rule = {key: profile.stop_rule(pos, train, self.hex[key[0]], n) for key, n in self.node.items()}
        self.rule = rule
        self.is_stop = {key: n.is_stop for key, n in self.node.items()}
        self.blocks = {key: rule[key].block != PASSABLE for key in self.node}
        self.can_end = {key: n.is_stop and rule[key].may_end for key, n in self.node.items()}
        self.end_class = {key: rule[key].end_class for key in self.node}
        self.anchor = {key: rule[key].anchor for key in self.node}
        stops = [key for key, n in self.node.items() if n.is_stop]
        self.count = {key: rule[key].count for key in stops}
        self.optional = {key: rule[key].count != MANDATORY for key in stops}
        self.value = {key: rule[key].value for key in stops}
        self.cost = {key: rule[key].cost for key in stops}
        self.tallies = {key: rule[key].tallies for key in stops}
        # a route visits one stop per group: the tile's groups and the profile's
        self.groups = {key: frozenset((*self.node[key].groups, *rule[key].groups)) for key in stops}
        self.subsidy = {key: rule[key].subsidy for key in stops}
        self.tally_limits = profile.tally_limits(pos, train)
        self.no_reentry = {h.id for h in pos.hexes if profile.reentry_forbidden(pos, h)}
        self.tags = {h.id: tuple(profile.hex_tags(pos, train, h)) for h in pos.hexes}
        self.bonuses = profile.bonuses(pos, train)
        self.pay_rule = profile.pay_rule(pos, train)
        self.span_bonuses = profile.span_bonuses(pos, train)
        # stops a route may run to twice: the hexes it must run to in between
        self.revisit: dict[NodeKey, tuple[str, ...]] = {}
        for r in profile.revisits(pos):
            hex_id, _, index = r.stop.rpartition("-")
            self.revisit[(hex_id, int(index))] = r.between

    def across(self, hex_id: str, end) -> tuple[frozenset, list[tuple[PathKey, int]]] | None:
        """Track leaving `hex_id` by edge end `end`: the hexside lane it crosses (a resource:
        the whole side where single track joins double) and the (path, end) it may continue
        into; None at the map's edge."""
        nb = self.pos.neighbour(hex_id, end.edge)
        if nb is None:
            return None
        side = (end.edge + 3) % 6
        lanes = facing_lanes(end.lane, self.widths.get((nb, side), set()), self.single_joins_double)
        if lanes[0][0] != end.lane[0]:
            key = frozenset({(hex_id, end.edge, 0, 0), (nb, side, 0, 0)})
        else:
            key = frozenset({(hex_id, end.edge, *end.lane), (nb, side, *lanes[0])})
        return key, [q for lane in lanes for q in self.at_side.get((nb, side, lane), ())]

    def track(self, paths, lanes) -> frozenset:
        """What a walk over `paths` and hex-side `lanes` holds that no other route may: those,
        and the stretch beside each town its paths run along."""
        held = (frozenset(paths) | frozenset(lanes)
                | frozenset(("stretch", self.stretch[p]) for p in paths if p in self.stretch))
        # routes of another track group may share it (`Profile.track_group`)
        return frozenset((self.track_group, x) for x in held) if self.track_group else held

    def soft_block(self, key: NodeKey) -> bool:
        """Blocked, but a bypass lets a train through (a city or pass full of other tokens)."""
        return self.rule[key].block == BYPASS


@dataclass
class _Walk:
    """The mutable state of the depth-first walk (everything is undone on the way back)."""

    start: NodeKey
    paths: list[PathKey] = field(default_factory=list)
    lanes: list[LaneKey] = field(default_factory=list)
    nodes: list[NodeKey] = field(default_factory=list)
    stops: list[NodeKey] = field(default_factory=list)
    hex_runs: list[str] = field(default_factory=list)  # hexes of the paths, runs collapsed
    bypass: int = 0
    node_lanes: list[int] = field(default_factory=list)  # per node: hexside lanes crossed before
    passed: list[NodeKey] = field(default_factory=list)  # the blocked cities passed by a bypass
