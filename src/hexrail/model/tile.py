"""Tiles and their parts: nodes (revenue centres and junctions) and paths (track).

Parts are immutable values. A tile's edges are absolute hex sides: a tile placed with a
rotation is stored already rotated (`Tile.rotated`), so nothing downstream thinks about rotation.
Node ``index`` is the part's index in the tile definition, the same number the 18xx.games engine
uses in node references like ``"F2-1"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from hexrail.errors import HexrailError
from hexrail.io.limits import MAX_INT, MAX_SLOTS
from hexrail.model.frozen import FrozenMap
from hexrail.model.hexgrid import rotate

NODE_KINDS = ("city", "town", "offboard", "halt", "junction", "pass")
STOP_KINDS = ("city", "town", "offboard", "halt")
ROUTE_MODES = ("mandatory", "optional", "never")

# A plain (phase-independent) revenue is stored under this colour key.
ANY_COLOR = "*"


def revenue_for(revenue: tuple[tuple[str, int], ...], colors: tuple[str, ...]) -> int:
    """The value of a revenue table in a phase whose tile colours are `colors`.

    As in the 18xx.games engine, the last phase colour the table names wins; a plain revenue
    is the same in every phase; a table naming none of the phase's colours gives its first value.

    >>> revenue_for((("yellow", 30), ("brown", 60)), ("yellow", "green", "brown"))
    60
    >>> revenue_for((("yellow", 30), ("brown", 60)), ("yellow",))
    30
    """
    if not revenue:
        return 0
    table = dict(revenue)
    if ANY_COLOR in table:
        return table[ANY_COLOR]
    for color in reversed(colors):
        if color in table:
            return table[color]
    return revenue[0][1]


@dataclass(frozen=True, slots=True)
class Node:
    """A city, town, offboard, halt, junction or mountain pass on a tile."""

    index: int
    kind: str
    revenue: tuple[tuple[str, int], ...] = ((ANY_COLOR, 0),)
    slots: int = 0
    groups: tuple[str, ...] = ()
    visit_cost: int = 1
    route: str = "mandatory"
    loc: str | None = None
    extra: FrozenMap = field(default_factory=FrozenMap)

    def __post_init__(self) -> None:
        if self.kind not in NODE_KINDS:
            raise HexrailError(f"unknown node kind {self.kind!r}; expected one of {NODE_KINDS}")
        if self.route not in ROUTE_MODES:
            raise HexrailError(f"unknown route mode {self.route!r}; expected one of {ROUTE_MODES}")
        if self.slots < 0 or self.visit_cost < 0:
            raise HexrailError("slots and visit_cost must not be negative")
        if any(abs(amount) > MAX_INT for _, amount in self.revenue):
            raise HexrailError("a stop value beyond ±2^53")
        if self.slots > MAX_SLOTS:
            raise HexrailError(f"{self.slots} slots in one city, at most {MAX_SLOTS}")
        if len(set(self.groups)) < len(self.groups):  # a group named twice is one group
            object.__setattr__(self, "groups", tuple(dict.fromkeys(self.groups)))

    @property
    def is_stop(self) -> bool:
        return self.kind in STOP_KINDS and self.route != "never"

    def value(self, colors: tuple[str, ...]) -> int:
        return revenue_for(self.revenue, colors)


@dataclass(frozen=True, slots=True)
class End:
    """One end of a path: a hex side (with its lane) or a node of the same tile."""

    edge: int | None = None
    node: int | None = None
    lane: tuple[int, int] = (1, 0)  # (lane count, lane index) at a hex side

    @property
    def is_edge(self) -> bool:
        return self.edge is not None

    def rotated(self, ticks: int) -> End:
        return replace(self, edge=rotate(self.edge, ticks)) if self.is_edge else self

    def __str__(self) -> str:
        if self.is_edge:
            return f"e{self.edge}" if self.lane == (1, 0) else f"e{self.edge}.{self.lane[1]}/{self.lane[0]}"
        return f"n{self.node}"


@dataclass(frozen=True, slots=True)
class Path:
    """A piece of track on one tile between two ends."""

    a: End
    b: End
    terminal: bool = False
    track: str = "broad"
    ignore: bool = False  # kept for its index, never used for routing

    def rotated(self, ticks: int) -> Path:
        return replace(self, a=self.a.rotated(ticks), b=self.b.rotated(ticks))

    @property
    def ends(self) -> tuple[End, End]:
        return (self.a, self.b)

    def nodes(self) -> tuple[int, ...]:
        return tuple(e.node for e in self.ends if not e.is_edge)

    def edges(self) -> tuple[int, ...]:
        return tuple(e.edge for e in self.ends if e.is_edge)


@dataclass(frozen=True, slots=True)
class Border:
    """A marked hex side. Only ``impassable`` borders stop track."""

    edge: int
    type: str = "impassable"
    cost: int = 0


@dataclass(frozen=True, slots=True)
class Tile:
    """A tile as placed: parts with absolute hex sides."""

    name: str = ""
    color: str = "white"
    nodes: tuple[Node, ...] = ()
    paths: tuple[Path, ...] = ()
    labels: tuple[str, ...] = ()
    icons: tuple[str, ...] = ()
    borders: tuple[Border, ...] = ()
    code: str | None = None
    rotation: int = 0
    extra: FrozenMap = field(default_factory=FrozenMap)

    def __post_init__(self) -> None:
        seen: set[int] = set()
        for node in self.nodes:
            if node.index in seen:
                raise HexrailError(f"two nodes share index {node.index}", where=f"tile {self.name!r}")
            seen.add(node.index)
        for k, path in enumerate(self.paths):
            for end in path.ends:
                if end.is_edge:
                    if not 0 <= end.edge <= 5:
                        raise HexrailError(f"path {k} names hex side {end.edge}; sides are 0-5",
                                           where=f"tile {self.name!r}")
                    width, lane = end.lane
                    if width < 1 or not 0 <= lane < width:
                        raise HexrailError(f"path {k} has lane {lane} of {width}",
                                           where=f"tile {self.name!r}")
                elif end.node not in seen:
                    raise HexrailError(f"path {k} leads to missing node n{end.node}",
                                       where=f"tile {self.name!r}")
            if path.a == path.b:
                raise HexrailError(f"path {k} joins {path.a} to itself", where=f"tile {self.name!r}")

    def rotated(self, ticks: int) -> Tile:
        """The tile turned `ticks` sixths clockwise (borders are map features and stay)."""
        ticks %= 6
        if ticks == 0:
            return self
        return replace(self, paths=tuple(p.rotated(ticks) for p in self.paths),
                       rotation=(self.rotation + ticks) % 6)

    def town_side(self, node: Node) -> float | None:
        """The hex side (after rotation; maybe a half side such as 3.5) at which a town is
        drawn, from its ``loc``; None for a town at the centre, and for other nodes."""
        if node.kind not in ("town", "halt") or node.loc is None:
            return None
        try:
            loc = float(node.loc)
        except ValueError:
            return None  # a named place ("center") is not a side
        return (loc + self.rotation) % 6

    def stretches(self) -> dict[int, int]:
        """Paths that run along the stretch of track beside a town drawn at a hex side: per
        path index, the town's node index. They join the town from sides other than its own
        and are one piece of track: a route or plan uses at most one of them (docs/rules.md,
        generic: "Towns drawn at a hex side")."""
        sides = {n.index: self.town_side(n) for n in self.nodes}
        out: dict[int, int] = {}
        for k, path in enumerate(self.paths):
            for end, other in ((path.a, path.b), (path.b, path.a)):
                side = None if end.is_edge else sides.get(end.node)
                if side is not None and other.is_edge and other.edge != side:
                    out[k] = end.node
        return out

    def node(self, index: int) -> Node:
        for node in self.nodes:
            if node.index == index:
                return node
        raise KeyError(index)

    @property
    def cities(self) -> tuple[Node, ...]:
        return tuple(n for n in self.nodes if n.kind == "city")


@dataclass(frozen=True, slots=True)
class Token:
    """A station marker in a city slot.

    ``flag`` is ``""`` for a plain company token, ``"neutral"`` for tokens that never block,
    ``"flipped"`` for tokens of closed/insolvent companies that no longer block, or a title's own
    token type (``"station"``, ``"yard"``...), which rules profiles interpret.
    """

    company: str
    flag: str = ""

    @property
    def blocks(self) -> bool:
        return self.flag not in ("neutral", "flipped")


def as_revenue(value: Any, where: str) -> tuple[tuple[str, int], ...]:
    """Normalise a revenue given as an int, a ``{colour: value}`` dict or pairs."""
    if value is None:
        return ((ANY_COLOR, 0),)
    if isinstance(value, bool):
        raise HexrailError(f"revenue must be a number or a colour table, not {value!r}", where=where)
    if isinstance(value, int):
        return ((ANY_COLOR, value),)
    if isinstance(value, dict) or isinstance(value, FrozenMap):
        items = list(value.items())
    elif isinstance(value, (list, tuple)):
        items = [tuple(v) for v in value]
    else:
        raise HexrailError(f"revenue must be a number or a colour table, not {value!r}", where=where)
    out = []
    for color, amount in items:
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise HexrailError(f"revenue for {color!r} must be an integer, not {amount!r}", where=where)
        out.append((str(color), amount))
    if not out:
        raise HexrailError("revenue table is empty", where=where)
    return tuple(out)
