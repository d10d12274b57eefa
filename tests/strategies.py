"""Hypothesis strategies for small random boards, and board symmetries (rotate, mirror).

`positions()` draws a *native position document* (a JSON-ready dict), not a `Position`, so a
failing example prints as a board anyone can paste into ``hexrail solve``. Boards have at most
12 hexes on a flat or pointy grid; every hex gets a tile built from parts:

- cities (revenue 10-60, 1-3 slots), towns (now and then free to visit, ``visit_cost`` 0,
  unless ``free_stops=False``),
  halts (``route: optional``), junctions, and now and then an offboard with a colour table,
  sometimes two offboards sharing a group;
- track: each shared hex side carries 0, 1 or 2 lanes (parallel track, lanes matching across
  the side), each lane end is joined inside its hex to a node or to a lane of another side;
  some lane ends get a second path (a branch), some paths run to the map's edge and stop,
  some paths into offboards (and now and then into a city) are terminal, and now and then two
  nodes of one hex are joined directly;
- tokens of three companies: the operating company ``OP`` has 1-2, ``XX`` and ``YY`` fill
  random slots (a city full of them blocks), now and then a neutral token;
- a phase (a prefix of yellow, green, brown, gray) and 1-3 trains from
  ``2 3 4 2+1 3+1 2/3 3E 4H D`` (``3E`` and ``D`` only on boards of at most `max_big_hexes`).

With ``profile="test-extras"`` the board uses the test-only profile `ExtrasProfile` (halt
subsidies, icon bonuses, no hex re-entry, a bypass, shared track) so that every profile hook is
exercised; with ``profile="1860"`` the Isle of Wight rules (N+M trains, home route, intersecting
routes, a bypass, random options and state flags).

`rotate_position` and `mirror_position` map a document to the same board turned by 60° or
reflected: hexes are renamed through cube coordinates (shifted so every name stays valid),
every hex side ``s`` of every path becomes ``s + 1`` (or its mirror image); lanes, nodes and
tokens are kept.
"""

from __future__ import annotations

import copy
from fractions import Fraction

from hypothesis import strategies as st

from hexrail.model.hexgrid import DIRECTIONS, Layout
from hexrail.rules import Bonus, PlanRules, Profile, register
from hexrail.rules.base import EndBonus, HexBonus, PayRule, SetsBonus, TrackBonus

SPECS = ("2", "3", "4", "2+1", "3+1", "2/3", "4H")
# With `shared_rows`: 1867's trains as rows, cities, offboards and towns in a row paying all it
# visits and towns beyond them in a row paying none (short here, to keep the oracle's walks
# few). Rows sharing a kind: the walk's worth of a route may be more than it is paid.
TOWNS_FREE = {"spec": {"rows": [{"nodes": ["city", "offboard", "town"], "pay": 2, "visit": 2},
                                {"nodes": ["town"], "pay": 0, "visit": 3}]}}
# ... and rows sharing towns where each pays fewer than it visits: placed in the walk
# (`search._kernels.select_placed`)
TOWNS_SHARED = {"spec": {"rows": [{"nodes": ["city", "town"], "pay": 1, "visit": 2},
                                  {"nodes": ["town", "offboard"], "pay": 1, "visit": 2}]}}
SHARED_ROWS = {"2T": TOWNS_FREE, "2S": TOWNS_SHARED}
BIG_SPECS = ("3E", "D")  # routes of any length: only on small boards
SPECS_1860 = ("2+1", "3+1", "2+2", "3+2", "4+1")
PROFILES = ("generic", "test-extras", "1860")
COLORS = ("yellow", "green", "brown", "gray")
OPERATING = "OP"
OTHERS = ("XX", "YY")
# A start cell far enough from the letter/number origin that 11 steps never leave the map.
_START = {"flat": (12, 24), "pointy": (24, 12)}


# -- a profile that uses every hook -----------------------------------------------------------

@register
class ExtrasProfile(Profile):
    """Test-only rules: the generic ones plus every hook the generic profile leaves idle.

    Halts pay a subsidy of 10; hexes carry bonus icons (``N``/``S``: +40 for a route with both;
    ``M``: +20 for one mine stop or +50 for two, exclusive; ``P``: +10 per port stop; ``H``:
    +10 per distinct hex of stops (`HexBonus`), and +30 for stops in an ``H`` hex and a ``T``
    hex (`SetsBonus`); ``D``: a destination, an end stop there pays
    again (`EndBonus`, for trains paid for every stop they count, in hexes with no optional
    stop); ``T``: +20 per hex of the route's track (`TrackBonus`, skipping its stops' hexes
    with the option ``track_skips_stops``; with ``track_only``, the only bonus)); the option
    ``connection``: when a route runs, one runs from the home hex or a ``D`` hex to another (a
    connection run); ``one_stop_per_hex``:
    a route visits one stop of a hex (`StopRule.groups`); ``pay_rule``: bonuses count the paid
    stops and one paid stop must be a station (`PayRule`); ``region``: at most one route stops
    in the ``P`` hexes (`PlanRules.regions`); the options ``no_reentry`` (no route leaves a hex and comes back), ``no_red_to_red`` (no route
    runs from one offboard to another), ``bypass`` (how many full
    cities the company's trains may pass through per round) and ``share_track``.
    """

    name = "test-extras"
    description = "generic rules plus subsidies, icon bonuses, no hex re-entry and bypasses"
    BONUSES = (
        Bonus("north-south", 40, (("N", 1), ("S", 1))),
        Bonus("mine", 20, (("M", 1),), group="mines"),
        Bonus("mines", 50, (("M", 2),), group="mines"),
        Bonus("ports", 10, (("P", 1),), per_count=True),
    )

    def stop_rule(self, pos, train, hex_, node):
        rule = super().stop_rule(pos, train, hex_, node)
        if not node.is_stop:
            return rule
        # option no_red_to_red: offboards share an end class (no route joins two of them)
        red = node.kind == "offboard" and pos.option("no_red_to_red", False)
        # option one_stop_per_hex: the hex is a stop group of its own
        groups = (f"hex {hex_.id}",) if pos.option("one_stop_per_hex", False) else ()
        return rule._replace(subsidy=10 if node.kind == "halt" else 0, end_class=int(red),
                             groups=groups)

    def reentry_forbidden(self, pos, hex_):
        return bool(pos.option("no_reentry", False))

    def pay_rule(self, pos, train):
        # option pay_rule: bonuses count the paid stops, and one paid stop is a station
        return PayRule(bonuses_on_paid=bool(pos.option("pay_rule", False)),
                       paid_station=bool(pos.option("pay_rule", False)))

    def bonuses(self, pos, train):
        def icon(mark):
            return tuple(h.id for h in pos.hexes if mark in h.icons)
        track = TrackBonus("track", tuple((h, 20) for h in icon("T")),
                           bool(pos.option("track_skips_stops", False)))
        if pos.option("track_only", False):
            return (track,)  # (no other bonus at its most loosens the walk's bounds)
        out = self.BONUSES + (HexBonus("hexes", 10, icon("H")),
                              SetsBonus("H and T", 30, (icon("H"), icon("T"))), track)
        if all(r.pay >= r.visit for r in train.spec.rows):
            ends = tuple(h for h in icon("D")
                         if not any(n.is_stop and n.route == "optional"
                                    for n in pos.hex(h).tile.nodes))
            out += (EndBonus("destination", ends),)
        return out

    def plan_rules(self, pos):
        connection = ()
        if pos.option("connection", False):  # a route from home or a ``D`` hex to another
            connection = tuple(dict.fromkeys(
                (*(h.split("-")[0] for h in pos.operating().home),
                 *(h.id for h in pos.hexes if "D" in h.icons))))
        # option region: at most one route stops in the ``P`` hexes
        regions = (((*(h.id for h in pos.hexes if "P" in h.icons),), 1),) \
            if pos.option("region", False) else ()
        return PlanRules(max_bypass=int(pos.option("bypass", 0)),
                         share_track=bool(pos.option("share_track", False)),
                         connection=connection, regions=regions)


# -- geometry ---------------------------------------------------------------------------------

def _linear_map(orientation: str, image: list[int]) -> tuple[tuple[Fraction, Fraction], ...]:
    """The 2x2 matrix on doubled coordinates sending direction s to direction image[s]."""
    d = DIRECTIONS[orientation]
    (a, c), (b, e) = d[0], d[1]  # columns: dir 0 and dir 1
    det = Fraction(a * e - b * c)
    inv = ((e / det, -b / det), (-c / det, a / det))
    (p, r), (q, s) = d[image[0]], d[image[1]]  # images as columns
    m = ((p * inv[0][0] + q * inv[1][0], p * inv[0][1] + q * inv[1][1]),
         (r * inv[0][0] + s * inv[1][0], r * inv[0][1] + s * inv[1][1]))
    for k in range(6):  # a symmetry of the grid must send every direction where `image` says
        x, y = d[k]
        assert (m[0][0] * x + m[0][1] * y, m[1][0] * x + m[1][1] * y) == d[image[k]], (orientation, image)
    return m


def _rename(names: list[str], layout: Layout, image: list[int]) -> dict[str, str]:
    """New names of hexes moved by the grid symmetry sending side s to side image[s], turning
    about the first hex and shifted so that letters start at A and numbers at 1."""
    m = _linear_map(layout.orientation, image)
    cx, cy = layout.xy(names[0])
    moved = {}
    for name in names:
        x, y = layout.xy(name)
        dx, dy = x - cx, y - cy
        nx, ny = m[0][0] * dx + m[0][1] * dy, m[1][0] * dx + m[1][1] * dy
        assert nx.denominator == 1 and ny.denominator == 1
        moved[name] = (int(nx), int(ny))
    return _normalise(moved, layout)


def _normalise(cells: dict[str, tuple[int, int]], layout: Layout) -> dict[str, str]:
    """Names for doubled coordinates shifted (by a lattice vector) into the valid name range."""
    sx = -min(x for x, _ in cells.values())
    sy = -min(y for _, y in cells.values())
    if (sx + sy) % 2:
        sy += 1  # keep every hex on its parity class of the doubled grid
    return {key: layout.name(x + sx, y + sy) for key, (x, y) in cells.items()}


def _map_sides(doc: dict, image: list[int]) -> dict:
    layout_in = doc.get("layout", "flat")
    orientation = layout_in if isinstance(layout_in, str) else layout_in["orientation"]
    axes = {} if isinstance(layout_in, str) else layout_in.get("axes", {})
    layout = Layout(orientation, axes.get("x", ""), axes.get("y", ""))
    names = list(doc["hexes"])
    new_name = _rename(names, layout, image)
    out = copy.deepcopy(doc)
    hexes = {}
    for name, h in doc["hexes"].items():
        h = copy.deepcopy(h)
        if "neighbours" in h:
            raise ValueError("boards with explicit neighbours cannot be turned")
        if "tile" in h:
            if image[0] != (image[1] - 1) % 6:
                raise ValueError("tiles in notation can be turned but not mirrored")
            h["rotation"] = (h.get("rotation", 0) + image[0]) % 6
        for p in h.get("paths", ()):
            for key in ("a", "b"):
                if p[key].startswith("e"):
                    p[key] = f"e{image[int(p[key][1:])]}"
        if "borders" in h:
            h["borders"] = sorted(image[e] for e in h["borders"])
        hexes[new_name[name]] = h
    out["hexes"] = hexes
    for c in out.get("companies", ()):
        if "home" in c:
            homes = [c["home"]] if isinstance(c["home"], str) else c["home"]
            moved = [new_name[x.split("-")[0]] + x[len(x.split("-")[0]):] for x in homes]
            c["home"] = moved[0] if isinstance(c["home"], str) else moved
    return out


def rotate_position(doc: dict, steps: int = 1) -> dict:
    """The same board turned `steps` sixths: side s of every tile becomes side s + steps."""
    return _map_sides(doc, [(s + steps) % 6 for s in range(6)])


def mirror_position(doc: dict) -> dict:
    """The same board reflected: side s of every tile becomes side -s (mod 6)."""
    return _map_sides(doc, [(-s) % 6 for s in range(6)])


# -- random boards ----------------------------------------------------------------------------

@st.composite
def _cells(draw, orientation: str, n: int) -> list[str]:
    """A connected set of `n` hex names, grown one neighbour at a time."""
    layout = Layout(orientation)
    start = layout.name(*_START[orientation])
    cells = [start]
    while len(cells) < n:
        i = draw(st.integers(0, len(cells) - 1))
        s = draw(st.integers(0, 5))
        for k in range(len(cells)):
            base = cells[(i + k) % len(cells)]
            free = [layout.neighbour(base, (s + j) % 6) for j in range(6)]
            free = [f for f in free if f not in cells]
            if free:
                cells.append(free[0])
                break
    renamed = _normalise({c: layout.xy(c) for c in cells}, layout)
    return [renamed[c] for c in cells]


def _revenue(draw, low: int, high: int) -> int:
    return 10 * draw(st.integers(low // 10, high // 10))


@st.composite
def _hex_nodes(draw, offboard: bool, free_stops: bool = True) -> list[dict]:
    if offboard:
        table = {"yellow": _revenue(draw, 20, 40)}
        if draw(st.booleans()):
            table["green"] = _revenue(draw, 30, 50)
        table["brown"] = _revenue(draw, 40, 80)
        node = {"kind": "offboard", "revenue": table}
        return [node]
    nodes: list[dict] = []
    for _ in range(draw(st.sampled_from([0, 1, 1, 1, 2]))):
        nodes.append({"kind": "city", "revenue": _revenue(draw, 10, 60),
                      "slots": draw(st.integers(1, 3))})
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 1, 2]))):
        town = {"kind": "town", "revenue": _revenue(draw, 10, 30)}
        if free_stops and draw(st.integers(0, 19)) == 0:
            town["visit_cost"] = 0
        nodes.append(town)
    if draw(st.integers(0, 9)) == 0:
        nodes.append({"kind": "halt", "revenue": _revenue(draw, 0, 20), "route": "optional"})
    if draw(st.integers(0, 9)) == 0:
        nodes.append({"kind": "junction"})
    return nodes[:3]


@st.composite
def positions(draw, min_hexes: int = 2, max_hexes: int = 12, max_big_hexes: int = 8,
              max_trains: int = 3, free_stops: bool = True, profile: str = "generic",
              single_double: bool = False, town_sides: bool = False,
              shared_rows: bool = False) -> dict:
    """A random small valid native position document (see the module docstring).

    With `town_sides`, some towns are drawn at a hex side (``loc``). With `single_double`,
    some shared sides carry single track on one side and double track on
    the other (which only a profile joining them, 1831, connects).

    `profile` is ``"generic"``, ``"test-extras"`` (`ExtrasProfile`) or ``"1860"`` (N+M trains,
    home route, intersecting routes, one bypass; random options and state flags). With
    `shared_rows`, a train may have rows sharing a kind (`TOWNS_FREE`, `TOWNS_SHARED`).
    """
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {PROFILES}")
    extras = profile == ExtrasProfile.name
    orientation = draw(st.sampled_from(["flat", "pointy"]))
    layout = Layout(orientation)
    n = draw(st.integers(min_hexes, max_hexes))
    names = draw(_cells(orientation, n))
    on_map = set(names)

    # Track across shared sides: ports[hex] = [(side, (width, lane))].
    ports: dict[str, list[tuple[int, tuple[int, int]]]] = {h: [] for h in names}
    for h in names:
        for side in range(3):  # each shared side once, from the hex whose side is 0, 1 or 2
            nb = layout.neighbour(h, side)
            if nb not in on_map:
                continue
            width = draw(st.sampled_from([0, 1, 1, 1, 1, 1, 1, 2]))
            facing = width
            if single_double and width and draw(st.integers(0, 2)) == 0:
                facing = 3 - width  # single track here, double there, or the other way round
            for i in range(width):
                ports[h].append((side, (width, i)))
            for i in range(facing):
                ports[nb].append(((side + 3) % 6, (facing, facing - 1 - i)))

    offboards = {h for h in names if len(ports[h]) <= 2 and draw(st.integers(0, 5)) == 0}
    group_offboards = len(offboards) >= 2 and draw(st.booleans())
    hexes: dict[str, dict] = {}
    cities: list[tuple[str, int, int]] = []  # (hex, node index, slots)
    for h in names:
        nodes = draw(_hex_nodes(h in offboards, free_stops))
        for k, node in enumerate(nodes):
            node["index"] = k
            if node["kind"] == "city":
                cities.append((h, k, node["slots"]))
            if node["kind"] == "offboard" and group_offboards:
                node["groups"] = ["OFF"]
        paths = _hex_paths(draw, h, nodes, ports[h], layout, on_map)
        doc: dict = {"color": "red" if h in offboards else draw(st.sampled_from(COLORS[:3]))}
        if extras and draw(st.integers(0, 2)) == 0:
            doc["icons"] = draw(st.lists(st.sampled_from("NSMPHDT"), min_size=1, max_size=2))
        if nodes:
            doc["nodes"] = nodes
        if paths:
            doc["paths"] = paths
        hexes[h] = doc

    # Tokens: OP in 1-2 cities, other companies in random slots.
    tokens: dict[tuple[str, int], list] = {}
    if cities:
        own = draw(st.lists(st.integers(0, len(cities) - 1), min_size=1, max_size=2, unique=True))
        for i in own:
            h, k, _ = cities[i]
            tokens[(h, k)] = [OPERATING]
    for h, k, slots in cities:
        slot_list = tokens.setdefault((h, k), [])
        while len(slot_list) < slots:
            pick = draw(st.sampled_from(["", "", "XX", "YY", "XX", "YY", "neutral"]))
            if not pick:
                break
            slot_list.append({"company": "XX", "flag": "neutral"} if pick == "neutral" else pick)
    for (h, k), slot_list in tokens.items():
        if slot_list:
            hexes[h].setdefault("tokens", {})[str(k)] = list(draw(st.permutations(slot_list)))

    n_colors = draw(st.integers(1, 4))
    specs = SPECS + (BIG_SPECS if n <= max_big_hexes else ()) + (tuple(SHARED_ROWS) if shared_rows else ())
    if profile == "1860":
        specs = SPECS_1860
    trains = [SHARED_ROWS.get(t, t)
              for t in draw(st.lists(st.sampled_from(specs), min_size=1, max_size=max_trains))]
    home = next((h for (h, _), s in tokens.items() if OPERATING in s), None)
    companies = [{"id": OPERATING} | ({"home": home} if home else {})] + [{"id": c} for c in OTHERS]
    rules: dict = {"profile": "generic"}
    state: dict = {}
    if extras:
        options = {"no_reentry": draw(st.booleans()), "no_red_to_red": draw(st.booleans()),
                   "bypass": draw(st.integers(0, 1)),
                   "share_track": draw(st.integers(0, 4)) == 0,
                   "track_skips_stops": draw(st.booleans()),
                   "track_only": draw(st.integers(0, 2)) == 0,
                   "connection": draw(st.integers(0, 3)) == 0,
                   "one_stop_per_hex": draw(st.booleans()),
                   # (refused with rows sharing a kind: `hexrail.search.rows`)
                   "pay_rule": draw(st.booleans()) and not any(
                       t in SHARED_ROWS.values() for t in trains),
                   "region": draw(st.booleans())}
        rules = {"profile": ExtrasProfile.name, "options": options}
    if profile == "1860":
        options = {k: True for k in ("no_skip_towns", "re_enter_hexes", "original_insolvency")
                   if draw(st.integers(0, 3)) == 0}
        rules = {"profile": "1860", "options": options}
        state = {k: True for k in ("ignore_halts", "nationalization", "insolvent")
                 if draw(st.integers(0, 5)) == 0}
    doc = {
        "format": "hexrail-position/1",
        "layout": orientation,
        "phase": {"name": str(n_colors), "colors": list(COLORS[:n_colors])},
        "rules": rules,
        "company": OPERATING,
        "companies": companies,
        "trains": trains,
        "hexes": hexes,
    }
    if state:
        doc["state"] = state
    if town_sides:  # some towns drawn at a hex side (or half side): their stretch is shared
        for spec in hexes.values():
            for node in spec.get("nodes", ()):
                if node["kind"] in ("town", "halt") and draw(st.booleans()):
                    node["loc"] = draw(st.sampled_from(["0", "1", "2", "3", "4", "5", "2.5"]))
    return doc


def _hex_paths(draw, h: str, nodes: list[dict], ports: list, layout: Layout, on_map: set) -> list[dict]:
    """Join the hex's lane ends (`ports`) to its nodes or to each other, with a few extras."""
    paths: list[dict] = []
    seen: set = set()

    def add(a: str, a_lane: tuple[int, int], b: str, b_lane: tuple[int, int],
            terminal: bool = False) -> None:
        key = frozenset({(a, a_lane), (b, b_lane)})
        if key in seen:
            return
        seen.add(key)
        path: dict = {"a": a, "b": b}
        if a_lane != (1, 0) or b_lane != (1, 0):
            path["lanes"] = [list(a_lane), list(b_lane)]
        if terminal:
            path["terminal"] = True
        paths.append(path)

    offboard = bool(nodes) and nodes[0]["kind"] == "offboard"
    joined: set[int] = set()
    for i in draw(st.permutations(range(len(ports)))):
        side, lane = ports[i]
        branch = draw(st.integers(0, 6)) == 0  # now and then a second path from this lane end
        if i in joined and not branch:
            continue
        for _ in range(2 if branch else 1):
            if offboard:
                target = ("node", 0)
            else:
                options = [("node", k) for k in range(len(nodes))]
                options += [("port", j) for j, (s2, _) in enumerate(ports) if s2 != side]
                if not options:
                    break
                target = draw(st.sampled_from(options))
            if target[0] == "node":
                k = target[1]
                kind = nodes[k]["kind"]
                terminal = ((kind == "offboard" and draw(st.booleans()))
                            or (kind == "city" and draw(st.integers(0, 14)) == 0))
                add(f"e{side}", lane, f"n{k}", (1, 0), terminal)
            else:
                j = target[1]
                add(f"e{side}", lane, f"e{ports[j][0]}", ports[j][1])
                joined.add(j)
            joined.add(i)
    # Nodes with fewer than two paths get more, to lane ends already used (branches).
    for k, node in enumerate(nodes):
        degree = sum(1 for p in paths if f"n{k}" in (p["a"], p["b"]))
        want = 1 if node["kind"] in ("offboard", "junction") and degree else 2
        free = [(s, lane) for s, lane in ports
                if frozenset({(f"e{s}", lane), (f"n{k}", (1, 0))}) not in seen]
        for _ in range(max(0, want - degree)):
            if not free or draw(st.integers(0, 3)) == 0:
                break
            side, lane = free.pop(draw(st.integers(0, len(free) - 1)))
            add(f"e{side}", lane, f"n{k}", (1, 0))
    if len(nodes) >= 2 and not offboard and draw(st.integers(0, 7)) == 0:
        add("n0", (1, 0), "n1", (1, 0))  # two nodes of one hex joined inside it
    if nodes and not offboard and draw(st.integers(0, 7)) == 0:
        # a stub to a side with no track beyond it
        free = [s for s in range(6) if layout.neighbour(h, s) not in on_map]
        if free:
            add(f"n{draw(st.integers(0, len(nodes) - 1))}", (1, 0), f"e{draw(st.sampled_from(free))}", (1, 0))
    return paths
