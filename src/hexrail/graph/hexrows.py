"""Each hex's part of a board's track arrays, made once per hex and kept in one growing store,
so that a board's arrays are gathered by one kernel call (`board`) rather than hex by hex.

A hex's part (`HexRows`) is the same in every position the hex is part of: its nodes' kinds
and indices, one row per path (the columns of `_track_kernels`), the sides its track reaches,
its impassable sides and its explicit neighbours. Readers share repeated hexes, so a new
position mostly finds its hexes' parts made; what is left per position is a list of store
slots, the map's names (kept per tuple of hex ids) and the gather.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter

import numpy as np

from hexrail.graph import _track_kernels as K
from hexrail.graph.track import KIND_CODES
from hexrail.model.position import Position
from hexrail.model.tile import revenue_for

# Track kinds as codes for the gather (`gauge_matches`: dual carries broad and narrow trains).
DUAL, BROAD, NARROW = 0, 1, 2
_TRACK_CODES = {"dual": DUAL, "broad": BROAD, "narrow": NARROW}
# Names and track kinds are numbered for good; past these many (a service fed ever new names),
# every number, the store and the maps' names start again (`slots_of`).
NAME_LIMIT = 200_000
TRACK_LIMIT = 1_000


def track_code(track: str) -> int:
    return _TRACK_CODES.setdefault(track, len(_TRACK_CODES))


# Every hex id seen, numbered: neighbours are named by number in the store.
_NAME_IDS: dict[str, int] = {}


def name_id(hex_id: str) -> int:
    return _NAME_IDS.setdefault(hex_id, len(_NAME_IDS))


class HexRows:
    """One hex's nodes and paths as rows: what the hex adds to the arrays the stitching kernel
    reads. ``rows[k]`` of path k: node place in the tile or -1, side, lane width and index, per
    end; terminal; the town of its stretch, numbered within the hex, or -1. ``slot``: its
    place in the store (`_Store`)."""

    __slots__ = ("node_at", "rows", "slot")

    def __init__(self, h) -> None:
        tile = h.tile
        self.node_at = {n.index: k for k, n in enumerate(tile.nodes)}
        rows = np.zeros((len(tile.paths), K.COLUMNS), np.int64)
        towns: dict[int, int] = {}
        stretches = tile.stretches()
        edges = 0
        for k, path in enumerate(tile.paths):
            for e, end in enumerate(path.ends):
                if end.is_edge:
                    rows[k, K.NODE + e] = -1
                    rows[k, K.EDGE + e] = end.edge
                    rows[k, K.WIDTH + e], rows[k, K.LANE + e] = end.lane
                    edges |= 1 << end.edge
                else:
                    rows[k, K.NODE + e] = self.node_at[end.node]
                    rows[k, K.WIDTH + e] = 1
            rows[k, K.TERMINAL_COL] = path.terminal
            rows[k, K.STRETCH_COL] = towns.setdefault(stretches[k], len(towns)) \
                if k in stretches else -1
        self.rows = rows
        self.slot = _STORE.add(h, self, len(towns), edges)


def _grown(a: np.ndarray, need: int) -> np.ndarray:
    if need <= len(a):
        return a
    out = np.zeros((max(need, 2 * len(a)), *a.shape[1:]), a.dtype)
    out[:len(a)] = a
    return out


class _Store:
    """Every `HexRows` made, flat, in three tables (`_track_kernels`' columns): per slot
    (``slot_t``), per node (``node_t``) and per row (``row_t``). Kept by hex identity (each
    entry holds its hex, so no id is reused while it lives); past `LIMIT` hexes it starts
    again, and `generation` counts the restarts."""

    LIMIT = 16_384  # (about 2 KB per hex)

    def __init__(self) -> None:
        self.generation = 0
        self._reset()

    def _reset(self) -> None:
        self.table: dict[int, tuple[object, HexRows]] = {}
        self.slot_of: dict[int, int] = {}  # by the same ids as `table`, which holds the hexes
        self.n_slots = self.n_nodes = self.n_rows = 0
        self.slot_t = np.zeros((256, K.SLOT_COLUMNS), np.int64)
        self.node_t = np.zeros((1024, K.NODE_COLUMNS), np.int64)
        self.row_t = np.zeros((1024, K.ROW_COLUMNS), np.int64)
        self.hexes: list = []  # per slot its hex
        self.refs: list[tuple[str, ...]] = []  # per slot its nodes' references
        self.plain: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray]] = {}

    def restart(self) -> None:
        self.generation += 1
        self._reset()

    def __call__(self, h) -> HexRows:
        found = self.table.get(id(h))
        if found is None:
            if len(self.table) >= self.LIMIT:
                self.restart()
            found = self.table[id(h)] = (h, HexRows(h))
            self.slot_of[id(h)] = found[1].slot
        return found[1]

    def add(self, h, r: HexRows, n_stretches: int, edges: int) -> int:
        """Put hex `h` (its rows `r`, the towns of its stretches, the sides its track reaches
        as bits) in the next slot; its number."""
        s, n0, r0 = self.n_slots, self.n_nodes, self.n_rows
        nodes, paths = h.tile.nodes, h.tile.paths
        self.slot_t = _grown(self.slot_t, s + 1)
        self.node_t = _grown(self.node_t, n0 + len(nodes))
        self.row_t = _grown(self.row_t, r0 + len(paths))
        nb = [name_id(n) if n is not None else -1 for n in h.neighbours] \
            if h.neighbours is not None else [-1] * 6
        # a city (or pass) may hold a station or be full: some token, or a city of no slots
        live = bool(h.tokens or h.extra_tokens) or any(
            n.kind in ("city", "pass") and n.slots == 0 for n in nodes)
        self.slot_t[s] = (n0, len(nodes), r0, len(paths), n_stretches, edges,
                          sum(1 << e for e in h.impassable), h.neighbours is not None, live,
                          any(n.groups for n in nodes), *nb)
        for k, n in enumerate(nodes):
            stop = n.is_stop
            self.node_t[n0 + k] = (KIND_CODES[n.kind], n.index, stop,
                                   stop and n.route == "optional", n.visit_cost if stop else 0)
        self.hexes.append(h)
        self.refs.append(tuple(f"{h.id}-{n.index}" for n in nodes))
        self.row_t[r0:r0 + len(paths), :K.COLUMNS] = r.rows
        self.row_t[r0:r0 + len(paths), K.R_TRACK] = [track_code(p.track) for p in paths]
        self.row_t[r0:r0 + len(paths), K.R_IGNORE] = [p.ignore for p in paths]
        self.n_slots, self.n_nodes, self.n_rows = s + 1, n0 + len(nodes), r0 + len(paths)
        return s

    def values(self, colors: tuple[str, ...], slots: np.ndarray) -> np.ndarray:
        """Per node of the store, its stop's revenue in a phase of `colors` (0 for no stop),
        made for the nodes of `slots` where not made before."""
        found = self.plain.get(colors)
        if found is None and len(self.plain) >= 16:
            self.plain.clear()  # (phases are few in a game; ever new colours are no game)
        if found is None or len(found[0]) < self.n_nodes or len(found[1]) < self.n_slots:
            old = found
            found = self.plain[colors] = (np.zeros(len(self.node_t), np.int64),
                                          np.zeros(len(self.slot_t), np.bool_))
            if old is not None:
                found[0][:len(old[0])], found[1][:len(old[1])] = old
        value, made = found
        if made[slots].all():
            return value
        for s in np.unique(slots[~made[slots]]).tolist():
            start = self.slot_t[s, K.S_NODE]
            for k, n in enumerate(self.hexes[s].tile.nodes):
                value[start + k] = revenue_for(n.revenue, colors) if n.is_stop else 0
            made[s] = True
        return value

    def slots(self, hexes) -> np.ndarray:
        """The slots of `hexes`, all of one generation."""
        try:  # (no Python call per hex)
            return np.fromiter(map(self.slot_of.__getitem__, map(id, hexes)), np.int64,
                               len(hexes))
        except KeyError:  # some hex is new
            pass
        generation = self.generation
        slots = [self(h).slot for h in hexes]
        if self.generation != generation:  # the store started again midway: once more
            slots = [self(h).slot for h in hexes]
        return np.array(slots, np.int64)


_STORE = _Store()
_ID = attrgetter("id")
# the last position asked of `slots_of`: it, the store and its generation, the slots
_LAST: list = [None, None, -1, None]


def slots_of(pos: Position) -> np.ndarray:
    """The store's slots of `pos`'s hexes (`_Store.slots`), kept for the last position asked:
    its track and its stop columns are made one after the other. (Kept here, not with the
    position: slots hold only in this process.)"""
    if len(_NAME_IDS) > NAME_LIMIT or len(_TRACK_CODES) > TRACK_LIMIT:
        _NAME_IDS.clear()
        _NAMES.clear()
        _TRACK_CODES.clear()
        _TRACK_CODES.update(dual=DUAL, broad=BROAD, narrow=NARROW)
        _STORE.restart()
    if _LAST[0] is not pos or _LAST[1] is not _STORE or _LAST[2] != _STORE.generation:
        slots = _STORE.slots(pos.hexes)
        _LAST[:] = pos, _STORE, _STORE.generation, slots
    return _LAST[3]


def hex_rows(h) -> HexRows:
    """The part of hex `h` (made once, kept in the store)."""
    return _STORE(h)


@dataclass(eq=False)
class Names:
    """A map's hex ids, as a position lists them: their places, their places in text order
    (`hex_rank`), their name ids and, per name id, its place (`where`, -1 off the map); the
    names across each side by layout, asked of the layout once (`across`)."""

    hex_ids: tuple[str, ...]
    hex_pos: dict[str, int]
    hex_rank: np.ndarray
    where: np.ndarray
    across: dict

    def names_across(self, layout) -> np.ndarray:
        """Per hex and side, the name id of the hex across it in `layout` (-1: none)."""
        key = id(layout)
        found = self.across.get(key)
        if found is None:
            nb = np.array([[name_id(n) if (n := layout.neighbour(h, e)) is not None else -1
                            for e in range(6)] for h in self.hex_ids], np.int64).reshape(-1, 6)
            found = self.across[key] = (layout, nb)
        return found[1]


_NAMES: dict[tuple[str, ...], Names] = {}
NAMES = 64


def names(hex_ids: tuple[str, ...]) -> Names:
    found = _NAMES.get(hex_ids)
    if found is None:
        order = sorted(range(len(hex_ids)), key=hex_ids.__getitem__)
        rank = np.empty(len(hex_ids), np.int64)
        rank[order] = np.arange(len(hex_ids))
        ids = [name_id(h) for h in hex_ids]
        where = np.full(len(_NAME_IDS), -1, np.int64)
        where[ids] = np.arange(len(hex_ids))
        if len(_NAMES) >= NAMES:
            del _NAMES[next(iter(_NAMES))]  # the oldest
        found = _NAMES[hex_ids] = Names(hex_ids, {h: i for i, h in enumerate(hex_ids)}, rank,
                                        where, {})
    return found


def board(pos: Position, gauge: str, single_joins_double: bool, extra_resources: int,
          twins: tuple[str, ...]) -> tuple[Names, tuple]:
    """The map's names, and the arrays of `pos`'s track for trains of `gauge`
    (`_track_kernels.compile_board`, whose arguments these are)."""
    hexes = pos.hexes
    slots = slots_of(pos)  # (first: it may start every number again)
    found = names(tuple(map(_ID, hexes)))
    t = _STORE.slot_t
    across = found.names_across(pos.layout) if not t[slots, K.S_EXPLICIT].all() \
        else np.zeros((0, 6), np.int64)
    twin_hex, twin_index = [], []
    for ref in dict.fromkeys(twins):
        hex_id, _, index = ref.rpartition("-")
        i = found.hex_pos[hex_id]
        if int(index) not in hex_rows(hexes[i]).node_at:
            raise KeyError(ref)
        twin_hex.append(i)
        twin_index.append(int(index))
    g = track_code(gauge)
    return found, K.compile_board(slots, t, _STORE.node_t, _STORE.row_t, found.where, across, g,
                                  g in (BROAD, NARROW), found.hex_rank,
                                  np.array(twin_hex, np.int64), np.array(twin_index, np.int64),
                                  single_joins_double, extra_resources)
