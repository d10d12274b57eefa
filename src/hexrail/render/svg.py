"""Draw a position, and optionally a plan's routes, as one SVG document.

Layers, bottom to top: hexes in their tile colours, borders, track (each path of each tile),
the plan's routes (one colour per train, over the track), cities with their slots and tokens,
towns, halts and offboards, the rings marking each route's stops (dashed when visited but not
paid), then text: revenues, labels, location names and hex ids. A title sits above the map and a
legend (train, stops, revenue, total and whether it is proven optimal) below it.

Every element that stands for a thing of the model says so in a ``data-*`` attribute
(``data-hex``, ``data-node``, ``data-path``, ``data-train``), so tests and scripts can find it.

>>> from hexrail.examples import example_path
>>> svg = render_svg(example_path("demo"))
>>> svg.startswith("<svg") and svg.count('class="hex"')
24
"""

from __future__ import annotations

import itertools
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import replace
from functools import cached_property
from typing import Any

import numpy as np

from hexrail.errors import HexrailError
from hexrail.io.native import load_position
from hexrail.model.position import Hex, Position
from hexrail.model.tile import ANY_COLOR, Node
from hexrail.plan import Plan, RoutePlan, RouteSet, plan_from_json
from hexrail.render import style
from hexrail.render.geometry import Curve, HexGeometry, Point, TileLayout, line

SVG_NS = "http://www.w3.org/2000/svg"

# Sizes as shares of the hex size (circumradius).
TRACK_WIDTH = 0.10
ROUTE_WIDTH = 0.13
SLOT_RADIUS = 0.25
TOWN_RADIUS = 0.11
BUBBLE_RADIUS = 0.17
RING_WIDTH = 0.06
# A long title is set no smaller than this before it is cut short.
TITLE_MIN_FONT = 0.16
# Illegal routes and what the validator says of them.
ILLEGAL = "#c00000"
# Text that finds no clear spot is tried at these shares of its font size, and, failing that,
# over track (but still clear of cities, tokens and other text).
TEXT_TRIES = ((1.0, False), (0.85, False), (1.0, True), (0.85, True), (0.7, True), (0.6, True))


def _num(value: float) -> str:
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else ("0" if text == "-0" else text)


def _el(parent: ET.Element, tag: str, text: str | None = None, **attrs: Any) -> ET.Element:
    """A child element; ``class_`` → ``class``, ``data_hex`` → ``data-hex``, floats rounded."""
    out = {}
    for key, value in attrs.items():
        if value is None:
            continue
        name = key.rstrip("_").replace("_", "-")
        out[name] = _num(value) if isinstance(value, float) else str(value)
    el = ET.SubElement(parent, tag, out)
    if text is not None:
        el.text = text
    return el


def _d(curve: Curve) -> str:
    p0, p1, p2, p3 = curve
    if p0 == p1 and p2 == p3:
        return f"M{_num(p0[0])} {_num(p0[1])}L{_num(p3[0])} {_num(p3[1])}"
    return (f"M{_num(p0[0])} {_num(p0[1])}C{_num(p1[0])} {_num(p1[1])} "
            f"{_num(p2[0])} {_num(p2[1])} {_num(p3[0])} {_num(p3[1])}")


def _points(points: Iterable[Point]) -> str:
    return " ".join(f"{_num(x)},{_num(y)}" for x, y in points)


def _bezier(curve: Curve, t: float) -> Point:
    p0, p1, p2, p3 = curve
    u = 1.0 - t
    a, b, c, d = u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t
    return (a * p0[0] + b * p1[0] + c * p2[0] + d * p3[0], a * p0[1] + b * p1[1] + c * p2[1] + d * p3[1])


Shape = list[tuple[float, float, float]]  # circles (dx, dy, radius) around a spot


def circle(radius: float) -> Shape:
    return [(0.0, 0.0, radius)]


def text_shape(text: str, font: float) -> Shape:
    """A line of centred text as a row of circles that together cover its box (DejaVu Sans:
    about 0.6 em per character, 0.9 em tall): the box cut into pieces at most half its height
    wide, each inside the circle through its corners, so text kept clear of what is drawn
    cannot reach it with a corner."""
    width, height = 0.6 * font * max(1, len(text)), 0.9 * font
    n = max(1, math.ceil(width / (0.5 * height)))
    piece = width / n
    radius = math.hypot(piece / 2, height / 2)
    return [(-width / 2 + (i + 0.5) * piece, 0.0, radius) for i in range(n)]


def lines_shape(lines: list[str], font: float) -> Shape:
    """Centred lines of text, one font size apart, as one shape."""
    middle = (len(lines) - 1) / 2
    return [(dx, (k - middle) * font, r) for k, text in enumerate(lines)
            for dx, _, r in text_shape(text, font)]


class _Spots:
    """Free places inside one hex for text and revenue bubbles, kept clear of what is drawn.

    A candidate's score is its clearance (from everything placed and from the hex's sides),
    capped at `enough`: the first candidate with enough room wins, so candidates are given in
    order of preference.
    """

    def __init__(self, geo: HexGeometry, centre: Point):
        self.geo = geo
        self.centre = centre
        self.dirs = np.array([geo.direction(k) for k in range(6)])
        self.enough = 0.04 * geo.size
        self.obstacles: list[tuple[float, float, float]] = []
        self.hard: list[bool] = []  # False for track, which text may cover when it must

    def block(self, point: Point, radius: float, hard: bool = True) -> None:
        self.obstacles.append((point[0], point[1], radius))
        self.hard.append(hard)

    def place(self, candidates: Iterable[Point], shape: Shape) -> Point:
        """The best candidate for `shape`; what it covers is then blocked."""
        point, _ = self.try_place(candidates, shape)
        return self._take(point, shape)

    def fit_text(self, preferred: list[Point], lines: list[str], font: float) -> tuple[Point, float]:
        """Where lines of text go and at what font size: a preferred spot at full size, else a
        spot anywhere in the hex (edges first), else smaller print; when nothing is clear,
        the smallest print where it overlaps least. What it covers is then blocked."""
        anywhere = preferred + self.grid
        best: tuple[float, Point, float] | None = None
        for scale, over_track in TEXT_TRIES:
            shape = lines_shape(lines, font * scale)
            for cands in (preferred, anywhere):
                spot, room = self.try_place(cands, shape, hard_only=over_track)
                if room >= 0:
                    return self._take(spot, shape), font * scale
                if best is None or room > best[0] + 1e-9:
                    best = (room, spot, scale)
        _, spot, scale = best
        return self._take(spot, lines_shape(lines, font * scale)), font * scale

    @cached_property
    def grid(self) -> list[Point]:
        """Spots all over the hex, the bottom and top edges first, then inwards."""
        rows = sorted((0.72, 0.58, 0.44, 0.3, 0.15, 0.0, -0.15, -0.3, -0.44, -0.58, -0.72),
                      key=lambda y: (-abs(y), -y))
        cols = (0.0, -0.15, 0.15, -0.3, 0.3, -0.45, 0.45, -0.6, 0.6)
        return _grid(self.centre, self.geo.size, rows, cols)

    def _take(self, point: Point, shape: Shape) -> Point:
        for dx, dy, r in shape:
            self.block((point[0] + dx, point[1] + dy), r)
        return point

    def try_place(self, candidates: Iterable[Point], shape: Shape,
                  hard_only: bool = False) -> tuple[Point, float]:
        """The best candidate for `shape` and its clearance (negative: it overlaps something);
        with `hard_only`, track does not count."""
        cands = np.asarray(list(candidates), dtype=np.float64)  # (n, 2)
        circles = np.asarray(shape, dtype=np.float64)  # (m, 3)
        q = cands[:, None, :] + circles[None, :, :2]  # (n, m, 2)
        radius = circles[None, :, 2]
        rel = q - np.asarray(self.centre)
        # inside the hex, give or take a little
        room = 1.06 * self.geo.apothem - (rel @ self.dirs.T).max(axis=2) - radius
        score = np.minimum(room.min(axis=1), self.enough)
        obs = np.asarray([o for o, hard in zip(self.obstacles, self.hard) if hard or not hard_only],
                         dtype=np.float64).reshape(-1, 3)  # (k, 3)
        if len(obs):
            gap = np.hypot(q[..., None, 0] - obs[:, 0], q[..., None, 1] - obs[:, 1]) - obs[:, 2]
            score = np.minimum(score, (gap.min(axis=2) - radius).min(axis=1))
        best = int(np.flatnonzero(score >= score.max() - 1e-9)[0])
        return (float(cands[best, 0]), float(cands[best, 1])), float(score[best])


class BoardDrawing:
    """One position laid out for drawing: hex centres, tile layouts, company colours."""

    def __init__(self, position: Position, size: float = 50.0, palette: str = "classic"):
        self.pos = position
        self.size = size
        self.palette = palette
        self.geo = HexGeometry(position.layout.orientation, size)
        raw = {h.id: self.geo.centre(*position.layout.xy(h.id)) for h in position.hexes}
        half_w, half_h = ((size, self.geo.apothem) if self.geo.orientation == "flat"
                          else (self.geo.apothem, size))
        margin = 0.3 * size
        if raw:
            min_x = min(x for x, _ in raw.values()) - half_w
            max_x = max(x for x, _ in raw.values()) + half_w
            min_y = min(y for _, y in raw.values()) - half_h
            max_y = max(y for _, y in raw.values()) + half_h
        else:
            min_x = min_y = 0.0
            max_x = max_y = size
        self.header = 0.8 * size
        self.width = max_x - min_x + 2 * margin
        self.map_height = max_y - min_y + 2 * margin
        dx, dy = margin - min_x, self.header + margin - min_y
        self.centres = {k: (x + dx, y + dy) for k, (x, y) in raw.items()}
        self.tiles = {h.id: TileLayout(self.geo, h, self.centres[h.id]) for h in position.hexes}
        order = [c.id for c in position.companies]
        self.company_fill = {c: style.COMPANY_COLOURS[k % len(style.COMPANY_COLOURS)]
                             for k, c in enumerate(order)}

    # -- look-ups -------------------------------------------------------------------------
    def path_curve(self, ref: str, where: str) -> tuple[Hex, Curve]:
        hex_id, sep, k = ref.rpartition(":")
        if not sep or not k.isdigit():
            raise HexrailError(f"track reference {ref!r} is not '<hex>:<path index>'", where=where)
        h = self.pos.hex_by_id.get(hex_id)
        if h is None:
            raise HexrailError(f"track {ref!r} is on hex {hex_id}, which is not on the map", where=where)
        if int(k) >= len(h.tile.paths):
            raise HexrailError(f"track {ref!r}: hex {hex_id} has {len(h.tile.paths)} paths", where=where)
        return h, self.tiles[hex_id].path_curve(h.tile.paths[int(k)])

    def node_point(self, ref: str, where: str) -> tuple[Hex, Node, Point]:
        hex_id, sep, k = ref.rpartition("-")
        h = self.pos.hex_by_id.get(hex_id)
        if not sep or h is None or not k.lstrip("-").isdigit():
            raise HexrailError(f"stop {ref!r} is not a node reference '<hex>-<index>' on the map",
                               where=where)
        try:
            node = h.tile.node(int(k))
        except KeyError:
            raise HexrailError(f"stop {ref!r}: hex {hex_id} has no node {k}", where=where) from None
        return h, node, self.tiles[hex_id].points[node.index]

    def slot_circles(self, h: Hex, node: Node) -> list[Point]:
        """Centres of a city's slot circles (one circle for a city without slots)."""
        p = self.tiles[h.id].points[node.index]
        r = self.slot_radius(node)
        n = max(1, node.slots)
        if n == 1:
            return [p]
        if n == 2:
            return [(p[0] - r, p[1]), (p[0] + r, p[1])]
        if n == 4:
            return [(p[0] - r, p[1] - r), (p[0] + r, p[1] - r), (p[0] - r, p[1] + r), (p[0] + r, p[1] + r)]
        ring = r / math.sin(math.pi / n)
        return [(p[0] + ring * math.cos(-math.pi / 2 + 2 * math.pi * i / n),
                 p[1] + ring * math.sin(-math.pi / 2 + 2 * math.pi * i / n)) for i in range(n)]

    def slot_radius(self, node: Node) -> float:
        n = max(1, node.slots)
        r = SLOT_RADIUS * self.size
        if n > 4:
            # keep the ring inside the hex
            r = min(r, 0.62 * self.geo.apothem / (1.0 + 1.0 / math.sin(math.pi / n)))
        return r

    def city_extent(self, h: Hex, node: Node) -> float:
        """Radius of a circle around the node that holds the whole city."""
        p = self.tiles[h.id].points[node.index]
        r = self.slot_radius(node)
        return max(math.hypot(c[0] - p[0], c[1] - p[1]) for c in self.slot_circles(h, node)) + r


def _revenue_table(pos: Position, node: Node) -> tuple[list[tuple[str, int]], int]:
    """(colour, value) boxes of a stop and its current value."""
    current = node.value(pos.phase.colors)
    table = node.extra.get("revenues") if node.extra else None
    if table and hasattr(table, "items"):
        return [(str(c), int(v)) for c, v in table.items() if isinstance(v, int)], current
    if len(node.revenue) > 1 or node.revenue[0][0] != ANY_COLOR:
        return [(c, v) for c, v in node.revenue], current
    return [], current


def _check(pos: Position, plan: Plan) -> Any:
    """The validator's report on a plan that needs one, else None. A plan the solver made for
    this drawing is legal by construction (its tests check that); any other plan, such as one
    drawn by hand, may not be, and a route given by its stops needs the track found for it."""
    if plan.position is not None and all(r.paths or not r.stops for r in plan.routes):
        return None
    from hexrail.validate import check_plan

    return check_plan(pos, plan)


def _as_priced(plan: Plan, report: Any) -> Plan:
    """A legal plan not made by the solver, with what the validator finds each route pays (a
    hand-drawn plan may claim anything, or nothing). A plan whose every figure the validator
    confirms (one the solver wrote out, say) keeps what it says of its proof; any other says
    nothing of one."""
    by_train = {rr.train: rr for rr in report.routes}
    if (plan.revenue, plan.subsidy) == (report.revenue, report.subsidy) and all(
            (r.revenue, r.subsidy) == (by_train[r.train].revenue, by_train[r.train].subsidy)
            for r in plan.routes if r.train in by_train):
        return plan
    routes = tuple(replace(r, paid=by_train[r.train].paid, revenue=by_train[r.train].revenue,
                           subsidy=by_train[r.train].subsidy, bonuses=by_train[r.train].bonuses)
                   if r.train in by_train else r for r in plan.routes)
    return replace(plan, routes=routes, revenue=report.revenue, subsidy=report.subsidy,
                   optimal=False, upper_bound=0)


def _resolve_routes(plan: Plan, report: Any) -> list[tuple[RoutePlan, tuple[str, ...]]]:
    """Each route with its track; a route given by its stops only gets the track the validator
    finds for it (none when it finds none: the route is then drawn stop to stop)."""
    found = {rr.train: rr.paths for rr in report.routes} if report is not None else {}
    return [(r, r.paths or found.get(r.train, ())) for r in plan.routes]


def _route_errors(plan: Plan, report: Any) -> list[tuple[str, ...]]:
    """Per route, the rules it breaks: its own, then those of the plan that name its train
    (two trains on one track, say); a plan error naming no train goes to every route."""
    if report is None or report.legal:
        return [() for _ in plan.routes]
    own = {rr.train: rr.errors for rr in report.routes}
    named = [[e for e in report.errors if _names_train(e, r.train)] for r in plan.routes]
    orphans = [e for e in report.errors if not any(e in n for n in named)]
    return [tuple(own.get(r.train, ())) + tuple(n) + tuple(orphans) for r, n in zip(plan.routes, named)]


def _names_train(message: str, train: str) -> bool:
    return re.search(rf"(?<![\w+-]){re.escape(train)}(?![\w+-])", message) is not None


def render_svg(position: Any = None, plan: Plan | dict | None = None, *, size: float = 50.0,
               title: str | None = None, legend: bool = True, palette: str = "classic") -> str:
    """The SVG text of a board and, when given, a plan's routes over it.

    Parameters
    ----------
    position : Position, dict, JSON text or file path, optional
        Native or 18xx.games position (anything `hexrail.load_position` reads). May be omitted
        when `plan` is a solved `Plan`, which carries its position.
    plan : Plan or plan document, optional
        Routes to draw, one colour per train, listed in a legend with their revenue. A route
        given only by its stops is drawn over the track the validator finds between them.
    size : float
        Hex circumradius in SVG units (the picture scales with it).
    title : str, optional
        Text above the map; by default the position's name, company and phase.
    legend : bool
        Draw the legend under the map (only with a plan).
    palette : str
        How routes are told apart (`hexrail.render.style.PALETTES`): ``"classic"`` (strong
        hues, solid lines) or ``"okabe-ito"`` (colours people with colour-vision deficiencies
        can tell apart, and a dash pattern per train).

    Raises
    ------
    HexrailError
        The position does not load, or the plan names track or stops the board does not have.
    """
    if palette not in style.PALETTES:
        raise HexrailError(f"unknown palette {palette!r}; expected one of {sorted(style.PALETTES)}",
                           where="palette")
    if isinstance(plan, dict):
        plan = plan_from_json(plan)
    if position is None:
        position = getattr(plan, "position", None)
        if position is None:
            raise HexrailError("nothing to draw: give a position (or a solved plan)", where="position")
    pos = load_position(position)
    board = BoardDrawing(pos, size, palette)
    report = _check(pos, plan) if plan is not None else None
    if report is not None and report.legal:
        plan = _as_priced(plan, report)
    routes = _resolve_routes(plan, report) if plan is not None else []
    errors = _route_errors(plan, report) if plan is not None else []
    title = _title_text(pos, title)
    width = board.width  # the title fits itself to the board, never the other way round
    key = (_Legend(plan, routes, errors, _plan_sets(plan, report), size, width, palette)
           if plan is not None and legend else None)
    width = key.width if key else width
    height = board.header + board.map_height + (key.height if key else 0.0)
    root = ET.Element("svg", {
        "xmlns": SVG_NS, "version": "1.1", "width": _num(width), "height": _num(height),
        "viewBox": f"0 0 {_num(width)} {_num(height)}", "font-family": style.FONT,
    })
    _el(root, "rect", class_="background", x=0.0, y=0.0, width=width, height=height, fill="#ffffff")
    _draw_title(root, board, title, width)
    spots = {h.id: _Spots(board.geo, board.centres[h.id]) for h in pos.hexes}
    _draw_hexes(root, board)
    _draw_borders(root, board)
    _draw_track(root, board, spots)
    _draw_routes(root, board, routes, errors)
    _draw_nodes(root, board, spots)
    _draw_stop_rings(root, board, routes)
    _draw_text(root, board, spots)
    if key is not None:
        key.draw(root, board.header + board.map_height)
    ET.indent(root, space=" ")
    return ET.tostring(root, encoding="unicode") + "\n"


# ------------------------------------------------------------------------------------------------
# Layers


def _title_text(pos: Position, title: str | None) -> str:
    if title is not None:
        return title
    name = str(pos.meta.get("name") or "").strip() if pos.meta else ""
    trains = ", ".join(t.name for t in pos.trains)
    if name:
        return f"{name} — {pos.company} ({trains or 'no trains'}), phase {pos.phase.name}"
    return f"{pos.company} to run {trains or 'no trains'}, phase {pos.phase.name}"


def _draw_title(root: ET.Element, board: BoardDrawing, title: str, width: float) -> None:
    """The title on one line across the picture: smaller print for a long one, and cut short
    with an ellipsis when even that does not fit (the whole text then in a tooltip)."""
    room = width - 0.6 * board.size
    font = max(TITLE_MIN_FONT * board.size, min(0.3 * board.size, room / (0.62 * max(1, len(title)))))
    fits = max(1, int(room / (0.62 * font)))
    shown = title if len(title) <= fits else title[:max(1, fits - 1)].rstrip() + "…"
    text = _el(root, "text", shown, class_="title", x=0.3 * board.size, y=0.45 * board.size + 0.35 * font,
               font_size=font, font_weight="bold", fill="#222222")
    if shown != title:
        _el(text, "title", title)


def _plan_sets(plan: Plan, report: Any) -> tuple[RouteSet, ...]:
    """The plan's freight sets worth telling: joined routes, or a route paid a bonus for its ends."""
    sets = plan.sets or (report.sets if report is not None else ())
    return tuple(x for x in sets if x.bonus or len(x.trains) > 1)


def _hex_title(h: Hex) -> str:
    parts = [h.id]
    if h.location:
        parts.append(h.location)
    if h.tile.name and h.tile.name != h.id:
        parts.append(f"tile {h.tile.name}")
    return " · ".join(parts)


def _draw_hexes(root: ET.Element, board: BoardDrawing) -> None:
    g = _el(root, "g", class_="hexes", stroke="#8a8a8a", stroke_width=0.02 * board.size)
    for h in board.pos.hexes:
        poly = _el(g, "polygon", class_="hex", data_hex=h.id, data_color=h.tile.color,
                   points=_points(board.geo.corners(board.centres[h.id])), fill=style.tile_fill(h.tile.color))
        _el(poly, "title", _hex_title(h))


def _draw_borders(root: ET.Element, board: BoardDrawing) -> None:
    g = _el(root, "g", class_="borders", stroke_linecap="round", stroke_width=0.08 * board.size)
    for h in board.pos.hexes:
        for border in h.tile.borders:
            a, b = board.geo.side_segment(board.centres[h.id], border.edge)
            _el(g, "line", class_="border", data_hex=h.id, data_type=border.type,
                x1=a[0], y1=a[1], x2=b[0], y2=b[1],
                stroke=style.BORDER_STROKE.get(border.type, "#707070"))


def _draw_track(root: ET.Element, board: BoardDrawing, spots: dict[str, _Spots]) -> None:
    width = TRACK_WIDTH * board.size
    g = _el(root, "g", class_="track", fill="none", stroke=style.TRACK, stroke_width=width)
    for h in board.pos.hexes:
        layout = board.tiles[h.id]
        for k, path in enumerate(h.tile.paths):
            if path.ignore:
                continue
            curve = layout.path_curve(path)
            attrs: dict[str, Any] = {}
            if path.track == "narrow":
                attrs = {"stroke_width": 0.6 * width, "stroke_dasharray": _num(0.12 * board.size)}
            _el(g, "path", class_="path", data_path=f"{h.id}:{k}", d=_d(curve), **attrs)
            if path.track == "dual":
                _el(g, "path", class_="path-dual", d=_d(curve), stroke="#ffffff",
                    stroke_width=0.3 * width, stroke_dasharray=_num(0.1 * board.size))
            for t in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
                spots[h.id].block(_bezier(curve, t), 0.5 * width, hard=False)


def _draw_routes(root: ET.Element, board: BoardDrawing, routes: list[tuple[RoutePlan, tuple[str, ...]]],
                 errors: list[tuple[str, ...]]) -> None:
    """Each route in its train's colour; an illegal one dashed, so it cannot pass for legal."""
    g = _el(root, "g", class_="routes", fill="none", stroke_linecap="round", stroke_linejoin="round",
            stroke_opacity="0.9")
    users: dict[str, list[int]] = {}
    for i, (_, paths) in enumerate(routes):
        for ref in paths:
            users.setdefault(ref, []).append(i)
    base = ROUTE_WIDTH * board.size
    for i, (route, paths) in enumerate(routes):
        colour = style.train_colour(i, board.palette)
        where = f"plan route of train {route.train}"
        illegal = bool(errors[i])
        dash = _num(0.2 * board.size) if illegal else style.train_dash(i, board.palette, board.size)
        rg = _el(g, "g", class_="route", data_train=route.train, stroke=colour, stroke_width=base,
                 data_legal="0" if illegal else None, stroke_dasharray=dash,
                 stroke_linecap="butt" if dash and not illegal else None)
        if paths:
            for ref in paths:
                _, curve = board.path_curve(ref, where)
                sharing = users[ref]
                attrs = {}
                if len(sharing) > 1:  # track shared by trains: nested widths show every colour
                    rank = sharing.index(i)
                    attrs["stroke_width"] = base * (1.0 + 1.2 * (len(sharing) - 1 - rank))
                _el(rg, "path", data_path=ref, d=_d(curve), **attrs)
        else:
            points = [board.node_point(s, where)[2] for s in route.stops]
            for a, b in itertools.pairwise(points):
                _el(rg, "path", class_="leg", d=_d(line(a, b)), stroke_dasharray=_num(0.15 * board.size))


def _draw_city(g: ET.Element, board: BoardDrawing, h: Hex, node: Node) -> None:
    r = board.slot_radius(node)
    centres = board.slot_circles(h, node)
    p = board.tiles[h.id].points[node.index]
    cg = _el(g, "g", class_=node.kind, data_node=f"{h.id}-{node.index}")
    fill = "#ffffff" if node.kind == "city" else "#d9d9d9"
    if len(centres) == 2:
        _el(cg, "rect", x=p[0] - r, y=p[1] - r, width=2 * r, height=2 * r, fill=fill, stroke="none")
        _el(cg, "line", x1=p[0] - r, y1=p[1] - r, x2=p[0] + r, y2=p[1] - r, stroke="#000000",
            stroke_width=0.03 * board.size)
        _el(cg, "line", x1=p[0] - r, y1=p[1] + r, x2=p[0] + r, y2=p[1] + r, stroke="#000000",
            stroke_width=0.03 * board.size)
    elif len(centres) > 2:
        _el(cg, "circle", cx=p[0], cy=p[1], r=board.city_extent(h, node) + 0.02 * board.size,
            fill=fill, stroke="#000000", stroke_width=0.03 * board.size)
    slots = h.slots(node.index)
    for s, (x, y) in enumerate(centres):
        _el(cg, "circle", class_="slot", cx=x, cy=y, r=r, fill=fill, stroke="#000000",
            stroke_width=0.03 * board.size)
        token = slots[s] if s < len(slots) else None
        if token is None:
            continue
        colour = board.company_fill.get(token.company, "#777777")
        dim = not token.blocks
        tg = _el(cg, "g", class_="token", data_company=token.company,
                 data_flag=token.flag or None, opacity="0.45" if dim else None)
        own = token.company == board.pos.company
        _el(tg, "circle", cx=x, cy=y, r=0.86 * r, fill=colour,
            stroke="#000000" if own else "#ffffff", stroke_width=(0.05 if own else 0.02) * board.size)
        text = token.company[:4]
        font = min(0.62 * r, 1.5 * r / max(1, len(text)) * 1.1)
        _el(tg, "text", text, x=x, y=y + 0.35 * font, font_size=font, font_weight="bold",
            text_anchor="middle", fill=style.text_on(colour))


def _draw_offboard(g: ET.Element, board: BoardDrawing, h: Hex, node: Node, spots: _Spots) -> None:
    table, current = _revenue_table(board.pos, node)
    p = board.tiles[h.id].points[node.index]
    og = _el(g, "g", class_="offboard", data_node=f"{h.id}-{node.index}")
    boxes = table or [("", current)]
    colours = board.pos.phase.colors
    now = None
    if table:
        names = [c for c, _ in table]
        now_colour = next((c for c in reversed(colours) if c in names), None)
        if now_colour is not None and dict(table)[now_colour] == current:
            now = names.index(now_colour)
        else:
            now = next((i for i, (_, v) in enumerate(table) if v == current), None)
    else:
        now = 0
    box_w = min(0.38 * board.size, 1.5 * board.size / len(boxes))
    box_h = 0.3 * board.size
    x0 = p[0] - box_w * len(boxes) / 2
    y0 = p[1] - box_h / 2
    for i, (colour, value) in enumerate(boxes):
        fill = style.PHASE_FILL.get(colour, "#ffffff")
        _el(og, "rect", class_="revenue", x=x0 + i * box_w, y=y0, width=box_w, height=box_h,
            fill=fill, stroke="#000000", stroke_width=(0.05 if i == now else 0.015) * board.size,
            data_current="1" if i == now else None)
        _el(og, "text", str(value), x=x0 + (i + 0.5) * box_w, y=y0 + 0.72 * box_h,
            font_size=min(0.2 * board.size, 1.6 * box_w / max(2, len(str(value)))),
            font_weight="bold" if i == now else None, text_anchor="middle", fill=style.text_on(fill))
    for i in range(len(boxes)):
        spots.block((x0 + (i + 0.5) * box_w, p[1]), 0.55 * box_w)


def _draw_nodes(root: ET.Element, board: BoardDrawing, spots: dict[str, _Spots]) -> None:
    g = _el(root, "g", class_="nodes")
    for h in board.pos.hexes:
        layout = board.tiles[h.id]
        for node in h.tile.nodes:
            if node.extra.get("hide") if node.extra else False:
                continue
            p = layout.points[node.index]
            if node.kind in ("city", "pass"):
                _draw_city(g, board, h, node)
                r = board.slot_radius(node)
                for c in board.slot_circles(h, node):
                    spots[h.id].block(c, r)
                if node.slots == 2:  # the band between the two circles
                    spots[h.id].block(p, r)
            elif node.kind == "town":
                r = TOWN_RADIUS * board.size
                _el(g, "circle", class_="town", data_node=f"{h.id}-{node.index}", cx=p[0], cy=p[1], r=r,
                    fill="#000000", stroke="#ffffff", stroke_width=0.025 * board.size)
                spots[h.id].block(p, r)
            elif node.kind == "halt":
                r = TOWN_RADIUS * board.size
                hg = _el(g, "g", class_="halt", data_node=f"{h.id}-{node.index}")
                _el(hg, "rect", x=p[0] - r, y=p[1] - r, width=2 * r, height=2 * r, fill="#ffffff",
                    stroke="#000000", stroke_width=0.03 * board.size)
                symbol = str(node.extra.get("symbol", "")) if node.extra else ""
                if symbol:
                    _el(hg, "text", symbol[:2], x=p[0], y=p[1] + 0.55 * r, font_size=1.4 * r,
                        text_anchor="middle", fill="#000000")
                spots[h.id].block(p, r * 1.2)
            elif node.kind == "offboard":
                _draw_offboard(g, board, h, node, spots[h.id])
            elif node.kind == "junction":
                spots[h.id].block(p, 0.05 * board.size)


def _draw_stop_rings(root: ET.Element, board: BoardDrawing,
                     routes: list[tuple[RoutePlan, tuple[str, ...]]]) -> None:
    g = _el(root, "g", class_="stops", fill="none", stroke_width=RING_WIDTH * board.size)
    seen: dict[str, int] = {}
    for i, (route, _) in enumerate(routes):
        paid = set(route.paid)
        colour = style.train_colour(i, board.palette)
        for ref in dict.fromkeys(route.stops):
            h, node, p = board.node_point(ref, f"plan route of train {route.train}")
            if node.kind in ("city", "pass"):
                extent = board.city_extent(h, node)
            elif node.kind == "offboard":
                extent = 0.3 * board.size
            else:
                extent = TOWN_RADIUS * board.size
            k = seen.get(ref, 0)
            seen[ref] = k + 1
            radius = extent + (0.06 + 0.07 * k) * board.size
            dashed = bool(route.paid) and ref not in paid
            _el(g, "circle", class_="stop", data_train=route.train, data_node=ref,
                data_paid="0" if dashed else "1", cx=p[0], cy=p[1], r=radius, stroke=colour,
                stroke_dasharray=_num(0.08 * board.size) if dashed else None)


def _ring(centre: Point, radius: float, n: int, phase: float = 0.0) -> list[Point]:
    return [(centre[0] + radius * math.cos(phase + 2 * math.pi * i / n),
             centre[1] + radius * math.sin(phase + 2 * math.pi * i / n)) for i in range(n)]


def _grid(c: Point, size: float, rows: Iterable[float], cols: Iterable[float]) -> list[Point]:
    return [(c[0] + dx * size, c[1] + dy * size) for dy in rows for dx in cols]


def _split_name(name: str) -> list[str]:
    """A long location name on two lines, split at the space nearest its middle."""
    if len(name) <= 12 or " " not in name:
        return [name]
    spaces = [i for i, ch in enumerate(name) if ch == " "]
    cut = min(spaces, key=lambda i: abs(i - len(name) / 2))
    return [name[:cut].strip(), name[cut:].strip()]


def _draw_text(root: ET.Element, board: BoardDrawing, spots: dict[str, _Spots]) -> None:
    """Text in each hex, in order of importance: whatever comes later makes room for what is
    already there (moving away, then shrinking), so it never covers a token or other text."""
    g = _el(root, "g", class_="labels", text_anchor="middle")
    for h in board.pos.hexes:
        free = spots[h.id]
        ink = style.text_on(style.tile_fill(h.tile.color))
        _draw_hex_id(g, board, h, free, ink)
        _draw_revenues(g, board, h, free)
        for label in h.tile.labels:
            _draw_label(g, board, h, free, ink, label)
        if h.location:
            _draw_location(g, board, h, free, ink)
        if h.tile.name and h.tile.name != h.id and h.tile.color in ("yellow", "green", "brown", "gray"):
            _draw_tile_name(g, board, h, free, ink)  # laid tiles only
        for icon in h.icons:
            _draw_icon(g, board, h, free, ink, icon[:8])


def _text_line(g: ET.Element, text: str, spot: Point, font: float, **attrs: Any) -> ET.Element:
    """One centred line whose box (`text_shape`) is centred on `spot`."""
    return _el(g, "text", text, x=spot[0], y=spot[1] + 0.35 * font, font_size=font, **attrs)


def _draw_hex_id(g: ET.Element, board: BoardDrawing, h: Hex, free: _Spots, ink: str) -> None:
    top = (-0.72, -0.6) if board.geo.orientation == "flat" else (-0.68, -0.55, -0.4)
    cands = _grid(board.centres[h.id], board.size, top, (0.0, -0.2, 0.2, -0.35, 0.35))
    spot, font = free.fit_text(cands, [h.id], 0.14 * board.size)
    _text_line(g, h.id, spot, font, class_="hex-id", fill=ink, fill_opacity="0.6")


def _draw_revenues(g: ET.Element, board: BoardDrawing, h: Hex, free: _Spots) -> None:
    """Revenue bubbles of cities, towns and passes, next to their node."""
    size, layout = board.size, board.tiles[h.id]
    bubble = BUBBLE_RADIUS * size
    for node in h.tile.nodes:
        if node.kind not in ("city", "town", "pass") or (node.extra and node.extra.get("hide")):
            continue
        value = node.value(board.pos.phase.colors)
        if value == 0:
            continue
        p = layout.points[node.index]
        near = (board.city_extent(h, node) if node.kind in ("city", "pass")
                else TOWN_RADIUS * size) + bubble + 0.03 * size
        spot = free.place(_ring(p, near, 12, -math.pi / 4) + _ring(p, near + 0.15 * size, 12, -math.pi / 4),
                          circle(bubble))
        rg = _el(g, "g", class_="revenue", data_node=f"{h.id}-{node.index}")
        _el(rg, "circle", cx=spot[0], cy=spot[1], r=bubble, fill="#ffffff", stroke="#000000",
            stroke_width=0.02 * size)
        text = str(value)
        _el(rg, "text", text, x=spot[0], y=spot[1] + 0.07 * size,
            font_size=min(0.19 * size, 2.6 * bubble / max(2, len(text))), fill="#000000")


def _draw_label(g: ET.Element, board: BoardDrawing, h: Hex, free: _Spots, ink: str, label: str) -> None:
    """A tile label (OO, Z, NY ...), towards a corner."""
    c, size = board.centres[h.id], board.size
    cands = _ring(c, 0.58 * size, 6, math.radians(board.geo.base + 30)) + _ring(c, 0.42 * size, 12)
    spot, font = free.fit_text(cands, [label], 0.26 * size)
    _text_line(g, label, spot, font, class_="label", font_weight="bold", fill=ink)


def _draw_location(g: ET.Element, board: BoardDrawing, h: Hex, free: _Spots, ink: str) -> None:
    """The location name: below the middle, else wherever there is room; long names on two lines."""
    lines = _split_name(h.location)
    rows = (0.58, 0.45, -0.5, 0.3, -0.3, 0.7, -0.65, 0.0)
    cands = _grid(board.centres[h.id], board.size, rows, (0.0, -0.15, 0.15, -0.3, 0.3))
    font = min(0.17 * board.size, 2.4 * board.size / max(len(x) for x in lines))
    spot, font = free.fit_text(cands, lines, font)
    loc = _el(g, "text", None, class_="location", font_size=font, fill=ink)
    for k, text in enumerate(lines):
        _el(loc, "tspan", text, x=spot[0], y=spot[1] + 0.35 * font + (k - (len(lines) - 1) / 2) * font)


def _draw_tile_name(g: ET.Element, board: BoardDrawing, h: Hex, free: _Spots, ink: str) -> None:
    """The tile's number, towards a corner."""
    c = board.centres[h.id]
    cands = [((2 * q[0] + 3 * c[0]) / 5, (2 * q[1] + 3 * c[1]) / 5) for q in board.geo.corners(c)]
    spot, font = free.fit_text(cands, [h.tile.name], 0.13 * board.size)
    _text_line(g, h.tile.name, spot, font, class_="tile-name", fill=ink, fill_opacity="0.7")


def _draw_icon(g: ET.Element, board: BoardDrawing, h: Hex, free: _Spots, ink: str, text: str) -> None:
    """An icon (port, mine, bonus marker) as a small tag."""
    c, size = board.centres[h.id], board.size
    spot, font = free.fit_text(_ring(c, 0.5 * size, 12, 0.1) + _ring(c, 0.3 * size, 8), [text], 0.12 * size)
    _text_line(g, text, spot, font, class_="icon", font_style="italic", fill=ink)


class _Legend:
    """The legend's rows, measured before drawing: train, revenue, then the stops, wrapped, and
    for an illegal route the rules it breaks; then the freight sets and the total."""

    def __init__(self, plan: Plan, routes: list[tuple[RoutePlan, tuple[str, ...]]],
                 errors: list[tuple[str, ...]], sets: tuple[RouteSet, ...], size: float, min_width: float,
                 palette: str = "classic"):
        self.size = size
        self.palette = palette
        self.font = 0.22 * size
        self.stop_font = 0.19 * size
        self.row = 0.42 * size
        self.names = [route.train if route.train_name in ("", route.train)
                      else f"{route.train} ({route.train_name})" for route, _ in routes]
        self.amounts = [_amount(route) if not bad else "illegal" for (route, _), bad in zip(routes, errors)]
        self.illegal = [bool(bad) for bad in errors]
        char = 0.6 * self.font
        self.x_name = 0.3 * size + 1.0 * size
        self.x_amount = self.x_name + char * max([len("train")] + [len(n) for n in self.names]) + 0.4 * size
        self.x_stops = self.x_amount + char * max([len("revenue")] + [len(a) for a in self.amounts]) + 0.4 * size
        self.width = max(min_width, self.x_stops + 0.6 * self.stop_font * 36 + 0.3 * size)
        per_line = max(12, int((self.width - self.x_stops - 0.3 * size) / (0.6 * self.stop_font)))
        self.lines = [[(text, False) for text in self._wrap(_stop_words(route), per_line)]
                      + [(text, True) for e in bad[:2] for text in self._wrap(f"illegal: {e}".split(), per_line)]
                      for (route, _), bad in zip(routes, errors)]
        across = max(12, int((self.width - 0.6 * size) / (0.6 * self.stop_font)))
        self.sets = [self._wrap(_set_text(x).split(), across) for x in sets]
        self.total = "illegal plan: the validator refuses it" if any(errors) else _total_text(plan)
        self.height = self.row * (2 + sum(len(x) for x in self.lines) + sum(len(x) for x in self.sets)) \
            + 0.5 * size

    @staticmethod
    def _wrap(words: list[str], per_line: int) -> list[str]:
        lines = [""]
        for w in words:
            if lines[-1] and len(lines[-1]) + 1 + len(w) > per_line:
                lines.append(w)
            else:
                lines[-1] = f"{lines[-1]} {w}".strip()
        return lines

    def draw(self, root: ET.Element, top: float) -> None:
        size, row = self.size, self.row
        g = _el(root, "g", class_="legend", font_size=self.font, fill="#000000")
        x = 0.3 * size
        y = top + 0.2 * size
        base = 0.72 * row
        _el(g, "text", "train", x=self.x_name, y=y + base, font_weight="bold")
        _el(g, "text", "revenue", x=self.x_amount, y=y + base, font_weight="bold")
        _el(g, "text", "stops (unpaid in brackets)", x=self.x_stops, y=y + base, font_weight="bold")
        y += row
        for i, (name, amount, lines) in enumerate(zip(self.names, self.amounts, self.lines)):
            bad = self.illegal[i]
            lg = _el(g, "g", class_="legend-row", data_train=name.split(" (")[0], data_legal="0" if bad else None)
            _el(lg, "line", x1=x, y1=y + 0.5 * row, x2=x + 0.8 * size, y2=y + 0.5 * row,
                stroke=style.train_colour(i, self.palette), stroke_width=ROUTE_WIDTH * size,
                stroke_linecap="round" if bad or not style.train_dash(i, self.palette, size) else "butt",
                stroke_dasharray=_num(0.2 * size) if bad else style.train_dash(i, self.palette, size))
            _el(lg, "text", name, x=self.x_name, y=y + base)
            _el(lg, "text", amount, x=self.x_amount, y=y + base, fill=ILLEGAL if bad else None,
                font_weight="bold" if bad else None)
            for k, (text, error) in enumerate(lines):
                _el(lg, "text", text, class_="legend-error" if error else None, x=self.x_stops,
                    y=y + base + k * row, font_size=self.stop_font, fill=ILLEGAL if error else None)
            y += row * len(lines)
        for lines in self.sets:
            for text in lines:
                _el(g, "text", text, class_="legend-set", x=x, y=y + base, font_size=self.stop_font)
                y += row
        _el(g, "text", self.total, class_="total", x=x, y=y + base + 0.1 * size, font_weight="bold",
            fill=ILLEGAL if any(self.illegal) else None)


def _amount(route: RoutePlan) -> str:
    amount = str(route.revenue)
    if route.subsidy:
        amount += f" + {route.subsidy} subsidy"
    if route.bonuses:
        amount += " incl. " + ", ".join(f"{n} {a}" for n, a in route.bonuses)
    return amount


def _stop_words(route: RoutePlan) -> list[str]:
    paid = set(route.paid)
    return [s if (not paid or s in paid) else f"({s})" for s in route.stops]


def _set_text(x: RouteSet) -> str:
    """``set 5F-0: B1-0 to C10-0, bonus 120``."""
    return f"set {' + '.join(x.trains)}: {x.ends[0]} to {x.ends[1]}, bonus {x.bonus}"


def _total_text(plan: Plan) -> str:
    total = f"total {plan.revenue}"
    if plan.subsidy:
        total += f" + {plan.subsidy} subsidy"
    if plan.optimal:
        total += " (proven optimal)"
    elif plan.upper_bound:
        total += f" (not proven optimal; no plan exceeds {plan.upper_bound})"
    return total
