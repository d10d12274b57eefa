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
    multipliers; with the nodes' references and hexes. Gathered from the hexes' parts in the
    store of `hexrail.graph.hexrows` by one kernel call; only the hexes whose cities may hold
    a station or be full are asked of their tokens."""
    from hexrail.graph import _track_kernels as K
    from hexrail.graph.hexrows import _STORE, slots_of

    slots = slots_of(pos)
    store = _STORE
    node_at, stop, kind, count, cost, offboard, plain, node_base = K.stop_facts(
        slots, store.slot_t, store.node_t, store.values(pos.phase.colors, slots))
    block = np.where(offboard, BLOCKS, PASSABLE).astype(np.int8)
    anchor = np.zeros(len(stop), np.bool_)
    hexes, company, closed = pos.hexes, pos.company, pos.closed_companies
    for i in np.flatnonzero(store.slot_t[slots, K.S_LIVE]).tolist():
        h = hexes[i]
        for k, station, full in _stations(h, company, lets_by, closed):
            if station:
                anchor[node_base[i] + k] = True
            elif full:
                block[node_base[i] + k] = BYPASS
    refs = tuple(chain.from_iterable(map(store.refs.__getitem__, slots.tolist())))
    groups = _groups(pos, slots, node_base)
    arrays = (stop, kind, count, cost, block, anchor, plain)
    # shared by every train's columns (which copy what a title may change)
    for a in (*arrays, node_at):
        a.setflags(write=False)
    pos.derived(("tile groups",), lambda _: groups)  # (`node_groups`, from the same slots)
    return (*arrays, refs, node_at)


def _groups(pos: Position, slots: np.ndarray, node_base: np.ndarray) -> dict[int, tuple[str, ...]]:
    """The stop groups each node's tile puts it in, by node place, for the nodes in some."""
    from hexrail.graph import _track_kernels as K
    from hexrail.graph.hexrows import _STORE

    out = {}
    for i in np.flatnonzero(_STORE.slot_t[slots, K.S_GROUPS]).tolist():
        for k, node in enumerate(pos.hexes[i].tile.nodes):
            if node.groups:
                out[int(node_base[i]) + k] = node.groups
    return out


def _stations(h, company: str, lets_by: frozenset[str],
              closed: frozenset[str]) -> list[tuple[int, bool, bool]]:
    """Per city (and pass) of the hex: its place, whether `company` has a station there, and
    whether it is full to the company; kept per hex and company."""
    found = _cities(h)
    key = (company, lets_by, closed)
    stations = found[1].get(key)
    if stations is None:
        stations = found[1][key] = [
            (k, station, not station and h.full_for(index, company, lets_by, closed))
            for k, index in found[0] for station in (h.tokened_by(index, company),)]
    return stations


def _make_cities(h) -> tuple[tuple[tuple[int, int], ...], dict]:
    """The (place, index) of the hex's cities and passes, and room for their stations per
    company (`_stations`)."""
    return tuple((k, n.index) for k, n in enumerate(h.tile.nodes)
                 if n.kind in ("city", "pass")), {}


# Hexes' cities (readers share repeated hexes).
CITIES = 16_384
_cities = ByIdentity(_make_cities, CITIES)


def node_groups(pos: Position) -> dict[int, tuple[str, ...]]:
    """The stop groups each node's tile puts it in, by node place, for the nodes in some."""
    return pos.derived(("tile groups",), _node_groups)


def _node_groups(pos: Position) -> dict[int, tuple[str, ...]]:
    from hexrail.graph import _track_kernels as K
    from hexrail.graph.hexrows import _STORE, slots_of

    slots = slots_of(pos)
    counts = _STORE.slot_t[slots, K.S_NODES]
    return _groups(pos, slots, np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64))


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
