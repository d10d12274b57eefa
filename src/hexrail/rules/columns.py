"""Per-stop rules as columns: what `Profile.stop_rule` says of every node of a board for one
train, made for the whole board at once (`Profile.stop_columns`), for the compiler.

`Profile.stop_rule`, asked node by node, stays the definition: the validator and the oracle
read it, and `rules_columns` turns its answers into the same columns. A profile whose rules
change per-stop records says so in both hooks; the tests hold the two equal on every profile.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from itertools import chain

import numpy as np

from hexrail.model.memo import ByIdentity
from hexrail.model.position import Position, Train
from hexrail.model.trains import TrainSpec
from hexrail.model.tile import revenue_for

# How a visited stop counts (`StopRule.count`).
MANDATORY = "mandatory"  # counts whenever visited; the route is illegal if it does not fit
OPTIONAL = "optional"  # may be passed without counting (halts, skippable towns)
FIRST = "first"  # optional, but fills the train first: an optional stop counts only when every
#                  `first` stop the route visits counts (1860's towns before halts)

# How a node stops a train passing through it (`StopRule.block`).
PASSABLE = 0
BYPASS = 1  # passed through only by spending one of the round's bypasses (a full city)
BLOCKS = 2  # never passed through (offboards): a route may only end there

KIND_INDEX = {"city": 0, "town": 1, "offboard": 2, "halt": 3}
# `StopColumns.count` and `TrainData.node_optional`: the kernels' codes for `StopRule.count`
COUNT_CODE = {MANDATORY: 0, OPTIONAL: 1, FIRST: 2}


@dataclass(eq=False)
class StopColumns:
    """The `StopRule` fields of every node of the board, in the compiler's node order (the
    hexes in map order, each tile's nodes in order). A node that is no stop has only
    ``block`` and ``anchor``; its other entries are not read. ``tallies`` and ``groups`` (the
    rule's groups beside the tile's) hold only the nodes that have some."""

    stop: np.ndarray  # bool: a stop (`Node.is_stop`)
    kind: np.ndarray  # int8: `KIND_INDEX` of a stop, -1 otherwise
    value: np.ndarray  # int64
    subsidy: np.ndarray  # int64
    count: np.ndarray  # int8: `COUNT_CODE`
    cost: np.ndarray  # int64
    block: np.ndarray  # int8
    may_end: np.ndarray  # bool
    end_class: np.ndarray  # int64
    anchor: np.ndarray  # bool
    refs: tuple[str, ...]  # each node's reference, ``HEX-i``
    node_hex: np.ndarray  # int64: the node's hex, by its place in the map
    tallies: dict[int, tuple[tuple[str, int], ...]] = field(default_factory=dict)
    groups: dict[int, tuple[str, ...]] = field(default_factory=dict)

    def index(self, refs) -> np.ndarray:
        """Bool per node: is its reference among `refs`?"""
        wanted = set(refs)
        return np.fromiter((r in wanted for r in self.refs), np.bool_, len(self.refs))

    def hexes(self, hex_ids, pos: Position) -> np.ndarray:
        """Bool per node: does it lie in one of the hexes `hex_ids`?"""
        on = np.zeros(len(pos.hexes), np.bool_)
        for i, h in enumerate(pos.hexes):
            on[i] = h.id in hex_ids
        return on[self.node_hex]


@functools.lru_cache(maxsize=256)
def _factors(spec: TrainSpec) -> np.ndarray:
    """Per node kind (`KIND_INDEX`, then 0 for a node that is no stop) what the train
    multiplies its value by (read only: shared by every train of the spec)."""
    factor = np.array([spec.factor(k) for k in KIND_INDEX] + [0], np.int64)
    factor.setflags(write=False)
    return factor


def generic_columns(pos: Position, train: Train, lets_by: frozenset[str]) -> StopColumns:
    """The generic `Profile.stop_rule` of every node for `train` (`lets_by`: the token flags
    that let trains through a full city)."""
    stop, kind, count, cost, block, anchor, plain, refs, node_hex = pos.derived(
        ("stop columns", lets_by), _board, lets_by)
    value = plain * _factors(train.spec)[kind]  # (a node that is no stop has kind -1: the 0 last)
    if train.revenue_overrides:
        at = pos.derived(("node places",), _node_places, refs)
        for ref, amount in train.revenue_overrides.items():
            i = at.get(ref)
            if i is not None and stop[i]:
                value[i] = int(amount)
    n = len(refs)
    return StopColumns(stop=stop, kind=kind, value=value, subsidy=np.zeros(n, np.int64),
                       count=count.copy(), cost=cost.copy(), block=block.copy(),
                       may_end=stop.copy(), end_class=np.zeros(n, np.int64),
                       anchor=anchor.copy(), refs=refs, node_hex=node_hex)


def _node_places(pos: Position, refs: tuple[str, ...]) -> dict[str, int]:
    return {r: i for i, r in enumerate(refs)}


def _board(pos: Position, lets_by: frozenset[str]) -> tuple:
    """What the generic rule says of each node whatever the train, made once per position:
    stop, kind, count, cost, block, station, the value in the phase before the train's
    multipliers; with the nodes' references and hexes. Each hex's part is made once per hex
    (`_hex_facts`: readers share repeated hexes) and the parts joined."""
    company = pos.company
    closed = pos.closed_companies
    colors = pos.phase.colors
    parts: list[np.ndarray] = []
    refs: list[tuple[str, ...]] = []
    sizes: list[int] = []
    anchors: list[int] = []
    bypassed: list[int] = []
    groups: dict[int, tuple[str, ...]] = {}
    base = 0
    for h in pos.hexes:
        facts = _hex_facts(h)
        n = len(facts.refs)
        sizes.append(n)
        if not n:
            continue
        for k, names in facts.groups:
            groups[base + k] = names
        plain = facts.plain.get(colors)
        if plain is None:
            plain = facts.plain[colors] = _with_plain(facts, colors)
        parts.append(plain)
        refs.append(facts.refs)
        if facts.live:  # cities (and passes) with tokens, or of no slots
            for k, station, full in _stations(h, facts, company, lets_by, closed):
                if station:
                    anchors.append(base + k)
                elif full:
                    bypassed.append(base + k)
        base += n
    table = np.concatenate(parts) if parts else np.zeros((0, 6), np.int64)
    stop = table[:, 0].astype(np.bool_)
    kind = table[:, 1].astype(np.int8)
    count = table[:, 2].astype(np.int8)
    block = table[:, 4].astype(np.int8)
    block[bypassed] = BYPASS
    anchor = np.zeros(base, np.bool_)
    anchor[anchors] = True
    arrays = (stop, kind, count, np.ascontiguousarray(table[:, 3]), block, anchor,
              np.ascontiguousarray(table[:, 5]))
    node_at = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    for a in (*arrays, node_at):  # shared by every train's columns (which copy what a title may change)
        a.setflags(write=False)
    pos.derived(("tile groups",), lambda _: groups)  # (`node_groups`, from the same pass)
    return (*arrays, tuple(chain.from_iterable(refs)), node_at)


def _stations(h, facts: HexFacts, company: str, lets_by: frozenset[str],
              closed: frozenset[str]) -> list[tuple[int, bool, bool]]:
    """Per city (and pass) of the hex: its place, whether `company` has a station there, and
    whether it is full to the company; kept with the hex's facts, per company."""
    key = (company, lets_by, closed)
    found = facts.stations.get(key)
    if found is None:
        found = facts.stations[key] = []
        for k, index in facts.cities:
            station = h.tokened_by(index, company)
            found.append((k, station, not station and h.full_for(index, company, lets_by, closed)))
    return found


@dataclass(eq=False)
class HexFacts:
    """What the generic rule says of a hex's nodes in any position: per node stop, kind, count,
    cost and block before tokens (`table`, one row per node), its reference and its revenue
    table (None for no stop); the (place, index) of its cities and passes, and whether any
    can have a station or be full (`live`: some token, or a city of no slots). Filled as
    positions ask: the table with each phase's values as a sixth column, per phase colours
    (`plain`); the stations per company (`_stations`)."""

    table: np.ndarray
    refs: tuple[str, ...]
    revenue: tuple
    cities: tuple[tuple[int, int], ...]
    live: bool
    groups: tuple[tuple[int, tuple[str, ...]], ...]  # (place, the tile's groups) of nodes in some
    plain: dict = field(default_factory=dict)
    stations: dict = field(default_factory=dict)


def _with_plain(facts: HexFacts, colors: tuple[str, ...]) -> np.ndarray:
    out = np.empty((len(facts.refs), 6), np.int64)
    out[:, :5] = facts.table
    out[:, 5] = [revenue_for(t, colors) if t is not None else 0 for t in facts.revenue]
    return out


def _make_facts(h) -> HexFacts:
    rows = []
    cities = []
    for k, node in enumerate(h.tile.nodes):
        is_stop = node.is_stop
        rows.append((is_stop, KIND_INDEX[node.kind] if is_stop else -1,
                     COUNT_CODE[OPTIONAL if is_stop and node.route == "optional" else MANDATORY],
                     node.visit_cost if is_stop else 0,
                     BLOCKS if node.kind == "offboard" else PASSABLE))
        if node.kind in ("city", "pass"):
            cities.append((k, node.index))
    live = bool(h.tokens or h.extra_tokens) or any(
        h.tile.nodes[k].slots == 0 for k, _ in cities)
    return HexFacts(table=np.array(rows, np.int64).reshape(-1, 5),
                    refs=tuple(f"{h.id}-{node.index}" for node in h.tile.nodes),
                    revenue=tuple(node.revenue if node.is_stop else None for node in h.tile.nodes),
                    cities=tuple(cities), live=live,
                    groups=tuple((k, node.groups) for k, node in enumerate(h.tile.nodes)
                                 if node.groups))


# The facts of a hex's nodes that hold in any position (readers share repeated hexes).
FACTS = 16_384
_hex_facts = ByIdentity(_make_facts, FACTS)


def node_groups(pos: Position) -> dict[int, tuple[str, ...]]:
    """The stop groups each node's tile puts it in, by node place, for the nodes in some."""
    return pos.derived(("tile groups",), _node_groups)


def _node_groups(pos: Position) -> dict[int, tuple[str, ...]]:
    out = {}
    base = 0
    for h in pos.hexes:
        facts = _hex_facts(h)
        for k, groups in facts.groups:
            out[base + k] = groups
        base += len(facts.refs)
    return out


def rules_columns(pos: Position, train: Train, profile) -> StopColumns:
    """The columns from `profile.stop_rule`, asked node by node: the slow twin of
    `Profile.stop_columns`, and the way for a profile whose record has no column form."""
    rules = [(i, h, node, profile.stop_rule(pos, train, h, node))
             for i, h in enumerate(pos.hexes) for node in h.tile.nodes]
    n = len(rules)
    cols = StopColumns(
        stop=np.array([node.is_stop for _, _, node, _ in rules], np.bool_),
        kind=np.array([KIND_INDEX[node.kind] if node.is_stop else -1 for _, _, node, _ in rules],
                      np.int8),
        value=np.zeros(n, np.int64), subsidy=np.zeros(n, np.int64), count=np.zeros(n, np.int8),
        cost=np.zeros(n, np.int64), block=np.array([r.block for *_, r in rules], np.int8),
        may_end=np.zeros(n, np.bool_), end_class=np.zeros(n, np.int64),
        anchor=np.array([r.anchor for *_, r in rules], np.bool_),
        refs=tuple(f"{h.id}-{node.index}" for _, h, node, _ in rules),
        node_hex=np.array([i for i, *_ in rules], np.int64))
    for k, (_, _, node, r) in enumerate(rules):
        if not node.is_stop:
            continue
        cols.value[k] = r.value
        cols.subsidy[k] = r.subsidy
        cols.count[k] = COUNT_CODE[r.count]
        cols.cost[k] = r.cost
        cols.may_end[k] = r.may_end
        cols.end_class[k] = r.end_class
        if r.tallies:
            cols.tallies[k] = tuple(r.tallies)
        if r.groups:
            cols.groups[k] = tuple(r.groups)
    return cols
