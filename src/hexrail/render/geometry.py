"""Where things go on the drawing: hex centres, corners, side midpoints, nodes and track curves.

Everything is in drawing units with y growing downwards, for hexes of circumradius `size`.
Hex centres come from the layout's doubled coordinates (`Layout.xy`): on a flat map a column
step is ``1.5 * size`` across and a doubled-row step ``sqrt(3)/2 * size`` down; on a pointy map
the other way round. Side ``k`` faces the direction ``base + 60k`` degrees (clockwise from east;
``base`` is 90° flat, 120° pointy), matching the side numbering of `hexrail.model.hexgrid`.

Track is drawn as cubic Bézier curves, each given as four points: a path between two hex sides
is an arc-like curve perpendicular to both sides (straight when they are opposite); a path to a
node leaves its side straight inwards and bends to the node. A town sitting on a single curve
between two sides is placed on the curve's midpoint, and its two paths are the curve's halves.

>>> geo = HexGeometry("flat", 10.0)
>>> [round(v, 2) for v in geo.centre(2, 2)]
[30.0, 17.32]
>>> [round(v, 2) for v in geo.side_point((0.0, 0.0), 0)]  # flat side 0 is south
[0.0, 8.66]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

from hexrail.errors import HexrailError
from hexrail.model.position import Hex
from hexrail.model.tile import Path

SQRT3 = math.sqrt(3.0)
Point = tuple[float, float]
Curve = tuple[Point, Point, Point, Point]  # cubic Bézier: start, control, control, end

# How far the Bézier controls reach towards the centre, as a share of the apothem: the values
# that make the curve a close fit of the circular arcs of printed tiles (sharp: radius size/2
# around the corner; gentle: radius 1.5 size around the far edge crossing).
_CONTROL = {1: 0.444, 2: 0.619, 3: 1.0 / 3.0}
# Off-centre nodes (several stops on one tile, or a `loc`) sit this share of the apothem out.
NODE_OFFSET = 0.55
# Lanes of multi-lane track are this share of `size` apart at a hex side.
LANE_GAP = 0.22


def _add(p: Point, q: Point, k: float = 1.0) -> Point:
    return (p[0] + k * q[0], p[1] + k * q[1])


def _lerp(p: Point, q: Point, t: float) -> Point:
    return (p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t)


def _dist(p: Point, q: Point) -> float:
    return math.hypot(q[0] - p[0], q[1] - p[1])


def split_curve(curve: Curve, t: float = 0.5) -> tuple[Curve, Curve]:
    """De Casteljau: the two halves of a cubic at `t`."""
    p0, p1, p2, p3 = curve
    a, b, c = _lerp(p0, p1, t), _lerp(p1, p2, t), _lerp(p2, p3, t)
    d, e = _lerp(a, b, t), _lerp(b, c, t)
    m = _lerp(d, e, t)
    return (p0, a, d, m), (m, e, c, p3)


def reverse(curve: Curve) -> Curve:
    return (curve[3], curve[2], curve[1], curve[0])


def line(p: Point, q: Point) -> Curve:
    """A straight segment as a cubic (controls on the ends)."""
    return (p, p, q, q)


@dataclass(frozen=True)
class HexGeometry:
    """Positions of one layout's hexes, for hexes of circumradius `size`."""

    orientation: str
    size: float

    @property
    def apothem(self) -> float:
        return self.size * SQRT3 / 2.0

    @property
    def base(self) -> float:
        """Angle (degrees, clockwise from east) of side 0."""
        return 90.0 if self.orientation == "flat" else 120.0

    def centre(self, x: int, y: int) -> Point:
        """Centre of the hex at doubled coordinates (x, y), before any translation."""
        if self.orientation == "flat":
            return (x * 1.5 * self.size, y * self.apothem)
        return (x * self.apothem, y * 1.5 * self.size)

    def direction(self, side: float) -> Point:
        """Unit vector from a hex centre towards side `side` (fractions allowed)."""
        angle = math.radians(self.base + 60.0 * side)
        return (math.cos(angle), math.sin(angle))

    def side_point(self, centre: Point, side: int, lane: tuple[int, int] = (1, 0)) -> Point:
        """Midpoint of side `side`, moved along the side for lane `lane` = (count, index).

        Lane i of one hex meets lane count-1-i of its neighbour at the same point, as in routing.
        """
        d = self.direction(side)
        p = _add(centre, d, self.apothem)
        width, index = lane
        if width > 1:
            tangent = (-d[1], d[0])
            p = _add(p, tangent, (index - (width - 1) / 2.0) * LANE_GAP * self.size)
        return p

    def corners(self, centre: Point) -> list[Point]:
        """The six corners, the one between sides k and k+1 at position k."""
        out = []
        for k in range(6):
            angle = math.radians(self.base + 30.0 + 60.0 * k)
            out.append((centre[0] + self.size * math.cos(angle), centre[1] + self.size * math.sin(angle)))
        return out

    def side_segment(self, centre: Point, side: int) -> tuple[Point, Point]:
        """The two corners bounding side `side`."""
        corners = self.corners(centre)
        return corners[(side - 1) % 6], corners[side]

    def edge_curve(self, centre: Point, a: int, b: int, lane_a=(1, 0), lane_b=(1, 0)) -> Curve:
        """Track between two sides of one hex."""
        p0, p3 = self.side_point(centre, a, lane_a), self.side_point(centre, b, lane_b)
        turn = min((a - b) % 6, (b - a) % 6)
        if turn == 3:
            return line(p0, p3)
        k = _CONTROL[turn] * self.apothem
        da, db = self.direction(a), self.direction(b)
        return (p0, _add(p0, da, -k), _add(p3, db, -k), p3)

    def side_to_point(self, centre: Point, side: int, target: Point, lane=(1, 0)) -> Curve:
        """Track from a side to a node: straight in from the side, bending to the node."""
        p0 = self.side_point(centre, side, lane)
        d = self.direction(side)
        reach = _dist(p0, target)
        q = _add(p0, d, -0.5 * reach)  # quadratic control, raised to a cubic
        return (p0, _lerp(p0, q, 2.0 / 3.0), _lerp(target, q, 2.0 / 3.0), target)


class TileLayout:
    """Node positions and path curves of one placed hex.

    Node positions, in order of precedence: a node's ``loc`` (a side number, possibly fractional,
    or ``center``; from the node itself or the tile code of an 18xx.games export); the centre
    when the tile has one node (junctions aside); a town or halt alone on a two-sided path pair
    sits on the curve between those sides; otherwise each node moves out towards the sides its
    track leaves by, one side per node.
    """

    def __init__(self, geo: HexGeometry, hex_: Hex, centre: Point):
        self.geo = geo
        self.hex = hex_
        self.centre = centre
        self.through: dict[int, tuple[int, int, Curve]] = {}  # node → (side a, side b, full curve)
        self.points: dict[int, Point] = self._place_nodes()

    # -- nodes --------------------------------------------------------------------------
    @cached_property
    def locs(self) -> dict[int, str]:
        """``loc`` per node index, from the nodes or, failing that, from the tile code."""
        tile = self.hex.tile
        out = {n.index: n.loc for n in tile.nodes if n.loc}
        if not out and tile.code and "loc:" in tile.code:
            from hexrail.model.notation import parse_tile

            try:
                parsed = parse_tile(tile.code)
            except HexrailError:
                return {}
            kinds = {n.index: n.kind for n in tile.nodes}
            out = {n.index: n.loc for n in parsed.nodes if n.loc and kinds.get(n.index) == n.kind}
        return out

    def _node_sides(self) -> dict[int, list[tuple[int, tuple[int, int]]]]:
        sides: dict[int, list[tuple[int, tuple[int, int]]]] = {n.index: [] for n in self.hex.tile.nodes}
        for path in self.hex.tile.paths:
            ends = path.ends
            for end, other in (ends, ends[::-1]):
                if end.is_edge and not other.is_edge and other.node in sides:
                    sides[other.node].append((end.edge, end.lane))
        return sides

    def _loc_point(self, loc: str) -> Point | None:
        if loc in ("center", "centre"):
            return self.centre
        try:
            side = float(loc)
        except ValueError:
            return None
        return _add(self.centre, self.geo.direction(side), NODE_OFFSET * self.geo.apothem)

    def _place_nodes(self) -> dict[int, Point]:
        tile = self.hex.tile
        nodes = [n for n in tile.nodes if n.kind != "junction"]
        points: dict[int, Point] = {n.index: self.centre for n in tile.nodes}
        sides = self._node_sides()
        placed: set[int] = set()
        taken: set[float] = set()
        for n in tile.nodes:
            loc = self.locs.get(n.index)
            point = self._loc_point(loc) if loc else None
            if point is not None:
                points[n.index] = point
                placed.add(n.index)
                if loc not in ("center", "centre"):
                    taken.add(float(loc) % 6)
        free = [n for n in nodes if n.index not in placed]
        if len(nodes) == 1 and free:
            node = free[0]
            ends = sides[node.index]
            if node.kind in ("town", "halt") and len(ends) == 2 and ends[0][0] != ends[1][0]:
                (a, lane_a), (b, lane_b) = ends
                curve = self.geo.edge_curve(self.centre, a, b, lane_a, lane_b)
                self.through[node.index] = (a, b, curve)
                points[node.index] = split_curve(curve)[0][3]
            return points
        used = {e for path in tile.paths for e in path.edges()}
        for node in free:
            ends = [e for e, _ in sides[node.index]]
            side = self._pick_side(ends, taken, used)
            taken.add(side)
            points[node.index] = _add(self.centre, self.geo.direction(side),
                                      NODE_OFFSET * self.geo.apothem)
        return points

    def _pick_side(self, ends: list[int], taken: set[float], used: set[int]) -> float:
        """The side a node moves towards: the middle of its sides when they are bunched, else
        its first side no other node took; with no side of its own, a side without track."""
        if ends:
            vx = sum(self.geo.direction(e)[0] for e in ends)
            vy = sum(self.geo.direction(e)[1] for e in ends)
            if math.hypot(vx, vy) > 0.6 * len(ends):
                angle = (math.degrees(math.atan2(vy, vx)) - self.geo.base) / 60.0 % 6
                side = round(angle * 2) / 2 % 6
                if side not in taken:
                    return side
            for e in sorted(ends):
                if e not in taken:
                    return float(e)
        for e in [k for k in range(6) if k not in used] + list(range(6)):
            if e not in taken:
                return float(e)
        return 0.0

    # -- track --------------------------------------------------------------------------
    def path_curve(self, path: Path) -> Curve:
        """The curve of one path, from its end a to its end b."""
        a, b = path.a, path.b
        if a.is_edge and b.is_edge:
            return self.geo.edge_curve(self.centre, a.edge, b.edge, a.lane, b.lane)
        if not a.is_edge and not b.is_edge:
            return line(self.points[a.node], self.points[b.node])
        if a.is_edge:
            return self._side_to_node(a.edge, a.lane, b.node)
        return reverse(self._side_to_node(b.edge, b.lane, a.node))

    def _side_to_node(self, side: int, lane: tuple[int, int], node: int) -> Curve:
        through = self.through.get(node)
        if through is not None:
            first, second = split_curve(through[2])
            if side == through[0]:
                return first
            if side == through[1]:
                return reverse(second)
        return self.geo.side_to_point(self.centre, side, self.points[node], lane)
