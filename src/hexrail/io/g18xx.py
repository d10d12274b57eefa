"""18xx.games interop: read its route positions, write our plans in its route form, and stream.

Three parts:

- `position_from_18xx` reads one object of schema ``18xx-route-position/1`` (the position export
  of the 18xx.games engine, documented in the corpus's SCHEMA.md) into a `Position`. Tiles are
  built directly from the exported ``nodes`` and ``paths``, so node indices and path indices are
  exactly those of the engine's references ``"F2-1"`` and ``"B11:0"``; neighbours come from ``nb``
  (the engine's routing neighbours), stop values are the exported current-phase revenues.
- `route_to_18xx` writes one of our routes in the engine's own route form: ``connections`` (one
  list of hex ids per node-to-node segment, the encoding fixtures store and ``run_routes``
  accepts), ``hexes``, ``visits``/``nodes``, ``track``, ``revenue`` and ``stops``.
- `solve_stream` and `score_stream` run the CLI's ``solve --from 18xx`` and ``score`` over a file
  of JSON lines, one output line per input line, in input order; a line that cannot be read or
  solved yields an ``error`` line and the stream goes on.

Titles map to rules profiles by name (`rules_for_title`); a title without a profile of its own
runs under ``generic`` and every result says whether the title's own rules are covered.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path as FilePath
from typing import IO, Any

from hexrail.errors import HexrailError
from hexrail.model.frozen import FrozenMap
from hexrail.model.hexgrid import Layout
from hexrail.model.position import Company, Hex, Phase, Position, Rules, Train
from hexrail.model.tile import ANY_COLOR, NODE_KINDS, ROUTE_MODES, Border, End, Node, Path, Tile, Token
from hexrail.model.trains import ALL_KINDS, UNLIMITED, Row, TrainSpec
from hexrail.plan import Plan, RoutePlan

SCHEMA = "18xx-route-position/1"

# Titles whose route rules are exactly the generic profile's (ROUTE_RULES.md §1).
GENERIC_TITLES = frozenset({"1830", "1889"})

# What the generic profile leaves out for titles known to have rules of their own.
_OWN_RULES = {
    "1860": "1860 rules (N+M towns sharing the city allowance, halts with subsidy, one bypass per "
            "round, no hex re-entry, home route, intersect, insolvency and nationalization) are "
            "not implemented",
    "1862": "1862 rules (freight/local/express variants and permits, stops pay once, freight sets, "
            "local subsidies, London link) are not implemented",
    "18SJ": "18SJ rules (E trains, N/S, east-west, Bergslagen and ore bonuses, port marker and "
            "bonus tokens) are not implemented",
}


# ------------------------------------------------------------------------------------------------
# Title → rules profile


def rules_for_title(title: str) -> tuple[str, bool, str]:
    """``(profile, covered, note)`` for a game title.

    The registered profile named like the title wins; otherwise ``generic``, which covers the
    titles in `GENERIC_TITLES` and is only an approximation for every other title.

    >>> rules_for_title("1830")
    ('generic', True, '1830 uses the generic rules')
    >>> rules_for_title("18ZZ")
    ('generic', False, '18ZZ has no rules profile; its own rules may differ: solved under the generic rules')
    """
    from hexrail.rules import profiles

    if title in profiles():
        return title, True, f"{title} rules profile"
    if title in GENERIC_TITLES:
        return "generic", True, f"{title} uses the generic rules"
    own = _OWN_RULES.get(title, f"{title} has no rules profile; its own rules may differ")
    return "generic", False, f"{own}: solved under the generic rules"


# ------------------------------------------------------------------------------------------------
# Reading a position


def _need(data: Any, key: str, kind: type | tuple, where: str) -> Any:
    if not isinstance(data, dict):
        raise HexrailError("expected an object", where=where)
    if key not in data:
        raise HexrailError(f"missing field {key!r}", where=where)
    value = data[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise HexrailError(f"field {key!r} must be {names}, not {json.dumps(value)[:40]}", where=where)
    return value


def _int(value: Any, what: str, where: str, *, minimum: int = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise HexrailError(f"{what} must be an integer >= {minimum}, not {json.dumps(value)[:40]}",
                           where=where)
    return value


def _truthy(value: Any) -> bool:
    """The engine writes flags as ``true``, ``1`` or ``"1"``."""
    return value not in (None, False, 0, "0", "", "false")


def _layout(data: dict) -> Layout:
    raw = _need(data, "layout", dict, "position")
    orientation = _need(raw, "orientation", str, "layout")
    axes = raw.get("axes") or {}
    if not isinstance(axes, dict):
        raise HexrailError("axes must be an object", where="layout.axes")
    return Layout(orientation, axes.get("x", ""), axes.get("y", ""))


def _node(raw: Any, hex_id: str, k: int) -> tuple[Node, tuple[Token | None, ...] | None]:
    where = f"hex {hex_id} nodes[{k}]"
    if not isinstance(raw, dict):
        raise HexrailError("a node must be an object", where=where)
    index = _int(_need(raw, "i", int, where), "i", where)
    where = f"hex {hex_id} node {hex_id}-{index}"
    kind = _need(raw, "kind", str, where)
    if kind not in NODE_KINDS:
        raise HexrailError(f"unknown node kind {kind!r}; expected one of {NODE_KINDS}", where=where)
    revenue = raw.get("revenue", 0)
    if not isinstance(revenue, int) or isinstance(revenue, bool):
        raise HexrailError(f"revenue must be an integer, not {json.dumps(revenue)[:40]}", where=where)
    route = raw.get("route", "mandatory")
    if route not in ROUTE_MODES:
        raise HexrailError(f"route must be one of {ROUTE_MODES}, not {route!r}", where=where)
    groups = raw.get("groups", [])
    if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
        raise HexrailError("groups must be a list of strings", where=where)
    tokens_in = raw.get("tokens")
    default_slots = len(tokens_in) if isinstance(tokens_in, list) else (1 if kind in ("city", "pass") else 0)
    slots = _int(raw.get("slots", default_slots), "slots", where)
    visit_cost = _int(raw.get("visit_cost", 1), "visit_cost", where)
    extra = {key: raw[key] for key in ("revenues", "hide", "symbol", "blocks_entity", "reservations",
                                       "extra_tokens", "boom", "style", "to_city", "pass_color",
                                       "pass_size", "train_revenue")
             if key in raw}
    node = Node(index=index, kind=kind, revenue=((ANY_COLOR, revenue),), slots=slots,
                groups=tuple(groups), visit_cost=visit_cost, route=route, extra=FrozenMap(extra))
    tokens = None
    if tokens_in is not None:
        if not isinstance(tokens_in, list) or not all(t is None or isinstance(t, str) for t in tokens_in):
            raise HexrailError("tokens must be a list of company ids or nulls", where=where)
        if kind not in ("city", "pass"):
            raise HexrailError(f"tokens placed on a {kind}", where=where)
        if len(tokens_in) > slots:
            raise HexrailError(f"{len(tokens_in)} token slots listed for {slots} slots", where=where)
        flags = raw.get("token_flags") or {}
        if not isinstance(flags, dict):
            raise HexrailError("token_flags must be an object", where=where)
        out: list[Token | None] = []
        for s, company in enumerate(tokens_in):
            flag = flags.get(str(s))
            if flag is not None and not isinstance(flag, dict):
                raise HexrailError(f"token_flags[{s}] must be an object", where=where)
            if company is None:
                out.append(None)
                continue
            mark = ""
            if flag:
                mark = "flipped" if flag.get("status") == "flipped" else str(flag.get("type") or "")
            out.append(Token(company, mark))
        for key in flags:
            if not str(key).isdigit() or int(key) >= len(tokens_in) or tokens_in[int(key)] is None:
                raise HexrailError(f"token_flags names slot {key!r}, which holds no token", where=where)
        tokens = tuple(out) + (None,) * (slots - len(out))
    return node, tokens


def _end(text: Any, lane: Any, nodes: set[int], where: str) -> End:
    if not isinstance(text, str) or len(text) < 2 or text[0] not in "en" or not text[1:].isdigit():
        raise HexrailError(f"path end {json.dumps(text)[:20]} must be 'e<side>' or 'n<node>'", where=where)
    number = int(text[1:])
    if text[0] == "n":
        if number not in nodes:
            raise HexrailError(f"path end {text} names a node the hex does not have", where=where)
        return End(node=number)
    if not 0 <= number <= 5:
        raise HexrailError(f"path end {text}: hex sides are 0-5", where=where)
    if lane is None:
        return End(edge=number)
    if (not isinstance(lane, list) or len(lane) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in lane)
            or lane[0] < 1 or not 0 <= lane[1] < lane[0]):
        raise HexrailError(f"lanes entry {json.dumps(lane)} must be [count, index] with "
                           "0 <= index < count", where=where)
    return End(edge=number, lane=(lane[0], lane[1]))


def _path(raw: Any, hex_id: str, k: int, nodes: set[int]) -> Path:
    where = f"hex {hex_id} path {hex_id}:{k}"
    if not isinstance(raw, dict):
        raise HexrailError("a path must be an object", where=where)
    lanes = raw.get("lanes") or [None, None]
    if not isinstance(lanes, list) or len(lanes) != 2:
        raise HexrailError("lanes must be [[count, index], [count, index]]", where=where)
    a = _end(_need(raw, "a", str, where), lanes[0], nodes, where)
    b = _end(_need(raw, "b", str, where), lanes[1], nodes, where)
    if a == b:
        raise HexrailError(f"path joins {raw['a']} to itself", where=where)
    track = raw.get("track", "broad")
    if not isinstance(track, str):
        raise HexrailError("track must be a string", where=where)
    return Path(a, b, terminal=_truthy(raw.get("terminal")), track=track,
                ignore=_truthy(raw.get("ignore")))


def _hex(raw: Any, k: int) -> Hex:
    if not isinstance(raw, dict):
        raise HexrailError("a hex must be an object", where=f"hexes[{k}]")
    hex_id = _need(raw, "id", str, f"hexes[{k}]")
    where = f"hex {hex_id}"
    nodes: list[Node] = []
    tokens: list[tuple[int, tuple[Token | None, ...]]] = []
    nodes_in = raw.get("nodes", [])
    if not isinstance(nodes_in, list):
        raise HexrailError("nodes must be a list", where=where)
    for j, node_raw in enumerate(nodes_in):
        node, slots = _node(node_raw, hex_id, j)
        if any(n.index == node.index for n in nodes):
            raise HexrailError(f"two nodes share index {node.index}", where=where)
        nodes.append(node)
        if slots is not None:
            tokens.append((node.index, slots))
    indices = {n.index for n in nodes}
    paths_in = raw.get("paths", [])
    if not isinstance(paths_in, list):
        raise HexrailError("paths must be a list", where=where)
    paths = tuple(_path(p, hex_id, j, indices) for j, p in enumerate(paths_in))
    borders = []
    for j, b in enumerate(raw.get("borders") or ()):
        if not isinstance(b, dict):
            raise HexrailError("a border must be an object", where=f"{where} borders[{j}]")
        edge = _int(_need(b, "edge", int, f"{where} borders[{j}]"), "edge", f"{where} borders[{j}]")
        if edge > 5:
            raise HexrailError("border edge must be 0-5", where=f"{where} borders[{j}]")
        borders.append(Border(edge, str(b.get("type") or "impassable"), int(b.get("cost") or 0)))
    rot = raw.get("rot", 0)
    _int(rot, "rot", where)
    label = raw.get("label")
    extra = {key: raw[key] for key in ("preprinted", "stubs", "partitions", "reservations", "blockers",
                                       "hex_tokens") if key in raw}
    tile = Tile(name=str(raw.get("tile", hex_id)), color=str(raw.get("color", "white")),
                nodes=tuple(nodes), paths=paths, labels=(label,) if label else (),
                borders=tuple(borders), code=raw.get("code"), rotation=rot % 6, extra=FrozenMap(extra))
    nb = _need(raw, "nb", list, where)
    if len(nb) != 6 or not all(n is None or isinstance(n, str) for n in nb):
        raise HexrailError("nb must list six hex ids or nulls (one per side)", where=where)
    icons = []
    for j, icon in enumerate(raw.get("icons") or ()):
        if not isinstance(icon, dict) or not isinstance(icon.get("name"), str):
            raise HexrailError("an icon must be an object with a 'name'", where=f"{where} icons[{j}]")
        icons.append(icon["name"])
    location = raw.get("location")
    return Hex(id=hex_id, tile=tile, tokens=tuple(tokens), icons=tuple(icons), neighbours=tuple(nb),
               location=location if isinstance(location, str) else None)


def _rows(distance: Any, where: str) -> tuple[Row, ...]:
    if isinstance(distance, int) and not isinstance(distance, bool):
        n = _int(distance, "distance", where, minimum=1)
        n = UNLIMITED if n >= UNLIMITED else n
        return (Row(ALL_KINDS, n, n),)
    if not isinstance(distance, list) or not distance:
        raise HexrailError("distance must be an integer or a non-empty list of rows", where=where)
    rows = []
    for k, raw in enumerate(distance):
        here = f"{where} distance[{k}]"
        if not isinstance(raw, dict):
            raise HexrailError("a distance row must be an object", where=here)
        kinds = _need(raw, "nodes", list, here)
        if not kinds or not all(isinstance(x, str) and x in ALL_KINDS for x in kinds):
            raise HexrailError(f"nodes must list stop kinds among {sorted(ALL_KINDS)}", where=here)
        pay = _int(_need(raw, "pay", int, here), "pay", here)
        visit = _int(raw.get("visit", pay), "visit", here)
        if visit < pay:
            raise HexrailError(f"visit {visit} is less than pay {pay}", where=here)
        mult = _int(raw.get("multiplier", 1), "multiplier", here)
        rows.append(Row(frozenset(kinds), min(pay, UNLIMITED), min(visit, UNLIMITED), mult))
    # The engine fills rows with the fewest kinds first; our rows are an unordered capacity set.
    return tuple(sorted(rows, key=lambda r: len(r.kinds)))


def _train(raw: Any, k: int, overrides: dict[str, dict[str, int]]) -> Train | None:
    if not isinstance(raw, dict):
        raise HexrailError("a train must be an object", where=f"trains[{k}]")
    train_id = _need(raw, "id", str, f"trains[{k}]")
    where = f"train {train_id}"
    if not _need(raw, "runnable", bool, where):
        return None
    name = raw.get("name", train_id)
    try:
        spec = TrainSpec(
            rows=_rows(_need(raw, "distance", (int, list), where), where),
            multiplier=_int(raw.get("multiplier", 1), "multiplier", where, minimum=1),
            min_stops=1 if _truthy(raw.get("local")) else 2,
            requires_token=bool(raw.get("requires_token", True)),
            track=str(raw.get("track_type", "broad")),
        )
    except HexrailError as err:
        if err.where:
            raise
        raise HexrailError(str(err), where=where) from None
    return Train(train_id, str(name), spec, FrozenMap(overrides.get(train_id, {})))


def position_from_18xx(data: dict) -> Position:
    """A `Position` from one 18xx.games route position (schema ``18xx-route-position/1``).

    Only the trains the engine says can run (``runnable``) are kept. The rules profile is the
    registered one named like the title, else ``generic``; ``meta`` records the title, fixture,
    action index and whether the title's own rules are covered (`rules_for_title`).

    Raises `HexrailError` naming the hex, node, path, train or field at fault.
    """
    if not isinstance(data, dict):
        raise HexrailError("a position must be a JSON object", where="position")
    schema = data.get("schema")
    if schema != SCHEMA:
        raise HexrailError(f"schema is {schema!r}, expected {SCHEMA!r}", where="schema")
    title = str(_need(data, "title", (str, int), "position"))
    layout = _layout(data)
    hexes_in = _need(data, "hexes", list, "position")
    hexes = tuple(_hex(h, k) for k, h in enumerate(hexes_in))

    entity = _need(data, "entity", dict, "position")
    company = _need(entity, "id", str, "entity")
    home_in = entity.get("home")
    homes = (home_in,) if isinstance(home_in, str) else tuple(
        h for h in (home_in or ()) if isinstance(h, str))
    on_map = {h.id for h in hexes}
    companies = [Company(company, tuple(h for h in homes if h in on_map), str(entity.get("name") or ""))]
    seen = {company}
    for h in hexes:
        for _, slots in h.tokens:
            for token in slots:
                if token is not None and token.company not in seen:
                    seen.add(token.company)
                    companies.append(Company(token.company))

    overrides: dict[str, dict[str, int]] = {}
    for h in hexes:
        for node in h.tile.nodes:
            by_train = node.extra.get("train_revenue")
            if by_train is None:
                continue
            where = f"hex {h.id} node {h.id}-{node.index}"
            if not hasattr(by_train, "items"):
                raise HexrailError("train_revenue must be an object {train id: revenue}", where=where)
            for train_id, value in by_train.items():
                _int(value, f"train_revenue[{train_id!r}]", where)
                overrides.setdefault(train_id, {})[f"{h.id}-{node.index}"] = value
    trains_in = _need(data, "trains", list, "position")
    trains = tuple(t for k, raw in enumerate(trains_in) if (t := _train(raw, k, overrides)) is not None)
    known = {t.get("id") for t in trains_in if isinstance(t, dict)}
    for train_id in overrides:
        if train_id not in known:
            raise HexrailError(f"train_revenue names train {train_id!r}, which the position lacks",
                               where="hexes")

    phase_in = _need(data, "phase", dict, "position")
    colors = _need(phase_in, "tiles", list, "phase")
    phase = Phase(str(_need(phase_in, "name", (str, int), "phase")), tuple(str(c) for c in colors))

    profile, covered, note = rules_for_title(title)
    optional = data.get("optional_rules") or []
    if not isinstance(optional, list):
        raise HexrailError("optional_rules must be a list", where="optional_rules")
    rules = Rules(profile, FrozenMap({str(o): True for o in optional}))

    state = dict(data.get("title_state") or {})
    assignments = {h["id"]: h["assignments"] for h in hexes_in if h.get("assignments")}
    if assignments:
        state["assignments"] = assignments
    if data.get("train_autoroute_groups") is not None:
        state["train_autoroute_groups"] = data["train_autoroute_groups"]
    train_info = {t["id"]: {k: t[k] for k in ("variant", "title_train_type", "title_mn_train", "no_local",
                                               "owner") if k in t}
                  for t in trains_in if isinstance(t, dict) and t.get("runnable")}
    train_info = {k: v for k, v in train_info.items()
                  if any(key != "owner" or v[key] != company for key in v)}
    if train_info:
        state["train_info"] = train_info

    meta = {"title": title, "fixture": data.get("fixture"), "game_id": data.get("game_id"),
            "action_index": data.get("action_index"), "action_id": data.get("action_id"),
            "rules_covered": covered, "rules_note": note,
            "name": f"{title} {data.get('fixture', '')} action {data.get('action_index', '')}"}
    return Position(layout=layout, hexes=hexes, company=company, companies=tuple(companies),
                    trains=trains, phase=phase, rules=rules, state=FrozenMap(state),
                    meta=FrozenMap(meta))


# ------------------------------------------------------------------------------------------------
# Writing routes in the engine's form


def _path_at(pos: Position, ref: str) -> tuple[Hex, int, Path]:
    hex_id, sep, k = ref.rpartition(":")
    if not sep or not k.isdigit():
        raise HexrailError("a track reference is '<hex>:<path index>'", where=f"track {ref!r}")
    h = pos.hex(hex_id)
    if int(k) >= len(h.tile.paths):
        raise HexrailError(f"hex {hex_id} has {len(h.tile.paths)} paths", where=f"track {ref!r}")
    return h, int(k), h.tile.paths[int(k)]


def _stop_ends(h: Hex, path: Path) -> list[str]:
    """Node references at the ends of `path`, junctions left out (the engine walks through them)."""
    return [f"{h.id}-{n}" for n in path.nodes() if h.node(n).kind != "junction"]


def route_segments(pos: Position, track: tuple[str, ...] | list[str],
                   start: str | None = None) -> list[tuple[str, str, list[tuple[Hex, Path]]]]:
    """Split a route's ordered track into node-to-node segments ``(from, to, [(hex, path)...])``.

    `start` is the route's first node; without it, it is read from the first path.
    """
    segments: list[tuple[str, str, list[tuple[Hex, Path]]]] = []
    current: list[tuple[Hex, Path]] = []
    refs = list(track)
    if start is None and refs:
        h, _, path = _path_at(pos, refs[0])
        ends = _stop_ends(h, path)
        if not ends:
            raise HexrailError("the route's first track does not start at a node", where=f"track {refs[0]!r}")
        if len(ends) == 2 and len(refs) > 1:
            h2, _, p2 = _path_at(pos, refs[1])
            ends.sort(key=lambda n: n in _stop_ends(h2, p2))
        start = ends[0]
    for ref in refs:
        h, _, path = _path_at(pos, ref)
        ends = _stop_ends(h, path)
        if not current:
            if start not in ends:
                raise HexrailError(f"track does not continue from node {start}", where=f"track {ref!r}")
            ends.remove(start)
        current.append((h, path))
        if ends:
            segments.append((start, ends[-1], current))
            start, current = ends[-1], []
    if current:
        raise HexrailError("the route's track does not end at a node", where=f"track {refs[-1]!r}")
    return segments


def _ambiguous(tile: Tile) -> bool:
    """Several node-to-node paths on one tile: a hex id alone cannot say which one a segment uses."""
    return sum(1 for p in tile.paths if len(p.nodes()) > 1) > 1


def chain_id(segment: list[tuple[Hex, Path]]) -> list[str]:
    """The engine's id of one segment: its hexes in order, or ``"F2 1.2"`` for one ambiguous path.

    As the engine's ``Route#chain_id``: one hex id per path, except paths leaving a junction
    already passed; a single node-to-node path on a tile with several such paths is named by the
    hex and its two node indices, sorted.
    """
    if len(segment) == 1 and _ambiguous(segment[0][0].tile) and len(segment[0][1].nodes()) == 2:
        h, path = segment[0]
        low, high = sorted(path.nodes())
        return [f"{h.id} {low}.{high}"]
    seen: set[tuple[str, int]] = set()
    out = []
    for h, path in segment:
        junctions = {(h.id, n) for n in path.nodes() if h.node(n).kind == "junction"}
        if not junctions & seen:
            out.append(h.id)
        seen |= junctions
    return out


def connections_from_track(pos: Position, track: tuple[str, ...] | list[str],
                           start: str | None = None) -> list[list[str]]:
    """The engine's ``connections`` for a route run over `track` (in route order), from `start`.

    Each segment is written from its first node to its second in route order, as the engine's
    auto-router writes them. (A player's click order can store some segments the other way
    round; the engine reads both.)
    """
    return [chain_id(seg) for _, _, seg in route_segments(pos, track, start)]


def route_to_18xx(pos: Position, route: RoutePlan) -> dict[str, Any]:
    """One of our routes in the 18xx.games route form (as in the corpus and fixture actions).

    Keys: ``train``, ``train_name``, ``connections``, ``hexes`` (hexes of the visited nodes),
    ``visits`` and ``nodes`` (every node visited, in order), ``track``, ``revenue``, ``stops``
    (the scored ones), ``subsidy``, ``revenue_str``.
    """
    if route.paths:
        start = route.stops[0] if route.stops else None
        segments = route_segments(pos, route.paths, start)
        visits = [segments[0][0]] + [end for _, end, _ in segments]
        connections = [chain_id(seg) for _, _, seg in segments]
    elif len(route.stops) == 1:
        visits = list(route.stops)
        connections = [["local", route.stops[0].rpartition("-")[0]]]
    else:
        raise HexrailError("a route needs its track (paths) to be written in the 18xx.games form",
                           where=f"route of train {route.train}")
    hexes = [v.rpartition("-")[0] for v in visits]
    return {
        "train": route.train, "train_name": route.train_name, "connections": connections,
        "hexes": hexes, "visits": visits, "nodes": visits, "track": list(route.paths),
        "revenue": route.revenue, "subsidy": route.subsidy, "stops": list(route.paid),
        "revenue_str": "-".join(hexes),
    }


def plan_from_18xx_routes(routes: list[dict], *, where: str = "routes") -> Plan:
    """A plan of the routes stored in a position (``submitted`` / ``auto_router``), for checking.

    Each route keeps its track and, as ``paid``, the stops the engine scored (a player may count
    fewer halts than the best choice, 1860). Routes the engine rejected without track (``error``
    and no ``track``) are left out.
    """
    out = []
    for k, r in enumerate(routes or ()):
        if not isinstance(r, dict) or not isinstance(r.get("train"), str):
            raise HexrailError("each route needs a 'train' id", where=f"{where}[{k}]")
        track = r.get("track") or []
        if not isinstance(track, list) or not all(isinstance(t, str) for t in track):
            raise HexrailError("'track' must be a list of track references", where=f"{where}[{k}]")
        if not track and not r.get("visits"):
            continue
        out.append(RoutePlan(train=r["train"], train_name=str(r.get("train_name", "")),
                             stops=tuple(r.get("visits") or ()) if not track else (),
                             paid=tuple(r.get("stops") or ()), paths=tuple(track)))
    return Plan(routes=tuple(out), revenue=0)


# ------------------------------------------------------------------------------------------------
# Streams


def read_positions(path: str | FilePath) -> Iterator[tuple[int, Any]]:
    """``(line number, parsed object or HexrailError)`` for every position in a file or stdin.

    A file holds JSON lines, or one JSON document over several lines. Blank lines are skipped.
    """
    stream: IO[str]
    if str(path) == "-":
        stream = sys.stdin
    else:
        try:
            stream = open(path, encoding="utf-8")  # noqa: SIM115 - closed below
        except OSError as err:
            raise HexrailError(f"cannot read file: {err.strerror}", where=str(path)) from None
    try:
        first = True
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as err:
                if first:
                    # not JSON lines: one document spread over several lines
                    text = line + stream.read()
                    try:
                        yield number, json.loads(text)
                    except json.JSONDecodeError as err2:
                        yield number, HexrailError(
                            f"malformed JSON at line {err2.lineno + number - 1} column {err2.colno}: "
                            f"{err2.msg}", where=str(path))
                    return
                yield number, HexrailError(f"malformed JSON at column {err.colno}: {err.msg}",
                                           where=f"line {number}")
            first = False
    finally:
        if stream is not sys.stdin:
            stream.close()


def _ids(data: Any) -> dict[str, Any]:
    data = data if isinstance(data, dict) else {}
    return {"title": data.get("title"), "fixture": data.get("fixture"),
            "action_index": data.get("action_index")}


def recorded_figures(data: dict) -> dict[str, Any]:
    """The figures 18xx.games recorded for a position: players' and auto-router's."""
    sub = data.get("submitted") or {}
    ar = data.get("auto_router") or {}
    out: dict[str, Any] = {
        "submitted_revenue": sub.get("revenue"),
        "submitted_subsidy": sub.get("subsidy", 0) if "revenue" in sub else None,
        "auto_router_revenue": ar.get("revenue"),
        "auto_router_revenue_rescored": ar.get("revenue_rescored"),
        "auto_router_subsidy": ar.get("subsidy", 0) if "revenue" in ar else None,
        "auto_router_time_s": ar.get("time_s"),
    }
    if sub.get("error"):
        out["submitted_error"] = sub["error"]
    if ar.get("error"):
        out["auto_router_error"] = ar["error"]
    if ar.get("rescore_error"):
        out["auto_router_rescore_error"] = ar["rescore_error"]
    if ar.get("path_timed_out") or ar.get("route_timed_out"):
        out["auto_router_timed_out"] = True
    return out


def best_recorded(figures: dict[str, Any], objective: str = "income") -> int | None:
    """The larger of the players' and the auto-router's figure (income: revenue + subsidy)."""
    values = []
    for who, revenue_key in (("submitted", "submitted_revenue"),
                             ("auto_router", "auto_router_revenue_rescored")):
        revenue = figures.get(revenue_key)
        if revenue is None or figures.get(f"{who}_rescore_error"):
            continue
        subsidy = (figures.get(f"{who}_subsidy") or 0) if objective == "income" else 0
        values.append(revenue + subsidy)
    return max(values) if values else None


def solve_record(data: Any, *, time_limit: float | None = None, objective: str = "income") -> dict:
    """Solve one parsed position and describe the result as one output line (a dict).

    Bad input or a failed solve gives ``{"title", "fixture", "action_index", "error"}``.
    """
    from hexrail.solve import solve

    ids = _ids(data)
    try:
        pos = position_from_18xx(data)
        start = time.perf_counter()
        plan = solve(pos, time_limit=time_limit, objective=objective)
        seconds = time.perf_counter() - start
        routes = []
        for r in plan.routes:
            doc = r.to_json()
            doc["g18xx"] = route_to_18xx(pos, r)
            routes.append(doc)
    except HexrailError as err:
        return {**ids, "error": str(err)}
    except Exception as err:  # an engine failure must not stop the stream; say what it was
        return {**ids, "error": f"internal error: {type(err).__name__}: {err}"}
    figures = recorded_figures(data)
    value = plan.total if objective == "income" else plan.revenue
    best = best_recorded(figures, objective)
    return {
        **ids, "game_id": data.get("game_id"), "entity": pos.company,
        "profile": plan.profile, "rules_covered": pos.meta["rules_covered"],
        "rules_note": pos.meta["rules_note"], "objective": objective,
        "revenue": plan.revenue, "subsidy": plan.subsidy, "total": plan.total,
        "optimal": plan.optimal, "upper_bound": plan.upper_bound, "seconds": round(seconds, 6),
        "routes": routes, **figures, "best_recorded": best,
        "vs_best_recorded": None if best is None else value - best,
    }


def warm_up() -> float:
    """Load the solver's compiled kernels (numba's disk cache) on a tiny board; the seconds it took.

    Done once before the first position, so that position's ``seconds`` measure the solve alone.
    """
    from hexrail.examples import example_path
    from hexrail.solve import solve

    start = time.perf_counter()
    solve(example_path("demo"))
    return time.perf_counter() - start


def solve_stream(path: str, out: IO[str], *, time_limit: float | None = None,
                 objective: str = "income") -> int:
    """Solve every position of `path` (a file or ``-`` for stdin); one JSON line each, in order.

    The first solved line also carries ``warm_up_seconds``, the one-off cost of loading the
    compiled kernels. Returns 0 when every line was solved, 2 when some line gave an error (the
    others are still written).
    """
    status = 0
    cold: float | None = None
    for number, data in read_positions(path):
        if isinstance(data, HexrailError):
            record = {**_ids(None), "line": number, "error": str(data)}
        else:
            first = cold is None
            if first:
                cold = warm_up()
            record = {**solve_record(data, time_limit=time_limit, objective=objective), "line": number}
            if first:
                record["warm_up_seconds"] = round(cold, 6)
        if "error" in record:
            status = 2
        out.write(json.dumps(record) + "\n")
        out.flush()
    return status


# ------------------------------------------------------------------------------------------------
# Scoring the recorded routes


def score_routes(pos: Position, data: dict, source: str, *, objective: str = "income") -> dict | None:
    """Check the routes stored under `source` (``submitted``/``auto_router``) with our validator.

    Returns None when the position has no such routes. Otherwise a dict with the engine's and our
    verdicts: ``engine_legal``, ``engine_revenue``, ``engine_subsidy``, ``legal``, ``revenue``,
    ``subsidy``, ``agree`` and per-route ``errors``.
    """
    from hexrail.validate import check_plan

    rec = data.get(source)
    if not isinstance(rec, dict) or "routes" not in rec:
        return None
    routes = rec.get("routes") or []
    if source == "auto_router":
        engine_revenue = rec.get("revenue_rescored", rec.get("revenue"))
        engine_legal = not rec.get("error") and not rec.get("rescore_error")
    else:
        engine_revenue = rec.get("revenue")
        engine_legal = not rec.get("error")
    engine_legal = engine_legal and not any(r.get("error") for r in routes)
    out: dict[str, Any] = {"engine_legal": engine_legal, "engine_revenue": engine_revenue,
                           "engine_subsidy": rec.get("subsidy", 0)}
    if any(not r.get("track") for r in routes):
        out.update(checkable=False, note="the engine could not rebuild these routes (no track)",
                   agree=None)
        return out
    plan = plan_from_18xx_routes(routes, where=f"{source}.routes")
    report = check_plan(pos, plan, objective=objective)
    errors = {}
    for r, rr in zip(plan.routes, report.routes):
        if rr.errors:
            errors[r.train] = [str(e) for e in rr.errors]
    agree_legal = bool(report.legal) == bool(engine_legal)
    agree_revenue = (not engine_legal) or (report.revenue == engine_revenue
                                           and report.subsidy == out["engine_subsidy"])
    out.update(checkable=True, legal=bool(report.legal), revenue=report.revenue,
               subsidy=report.subsidy, agree=agree_legal and agree_revenue, errors=errors)
    return out


def score_record(data: Any) -> dict:
    """One output line of ``hexrail score``: our verdict on a position's recorded routes."""
    ids = _ids(data)
    try:
        pos = position_from_18xx(data)
        record = {**ids, "profile": pos.rules.profile, "rules_covered": pos.meta["rules_covered"]}
        for source in ("submitted", "auto_router"):
            scored = score_routes(pos, data, source)
            if scored is not None:
                record[source] = scored
    except HexrailError as err:
        return {**ids, "error": str(err)}
    except Exception as err:
        return {**ids, "error": f"internal error: {type(err).__name__}: {err}"}
    verdicts = [record[s]["agree"] for s in ("submitted", "auto_router") if s in record]
    record["agree"] = all(v is not False for v in verdicts)
    return record


def _verdict_cell(scored: dict | None) -> str:
    if scored is None:
        return "-"
    engine = f"{scored['engine_revenue']}" if scored["engine_legal"] else "illegal"
    if not scored.get("checkable"):
        return f"{engine} / unchecked"
    ours = f"{scored['revenue']}" if scored["legal"] else "illegal"
    return f"{engine} / {ours} {'ok' if scored['agree'] else 'DIFFER'}"


def score_stream(path: str, out: IO[str], *, fmt: str = "json") -> int:
    """Score the recorded routes of every position of `path`: do we agree with 18xx.games?

    ``fmt="json"`` writes one JSON line per position (`score_record`); ``"table"`` one table row
    per position (18xx.games figure / ours). Returns 0 when we agree on every position whose rules
    we cover, 1 otherwise, 2 when a line could not be read.
    """
    status = 0
    header = f"{'line':>5}  {'title':<6} {'fixture':<28} {'action':>6}  {'players: 18xx / ours':<26}  " \
             f"{'auto-router: 18xx / ours':<26}  rules"
    if fmt == "table":
        out.write(header + "\n" + "-" * len(header) + "\n")
    for number, data in read_positions(path):
        record = ({**_ids(None), "error": str(data)} if isinstance(data, HexrailError)
                  else score_record(data))
        record["line"] = number
        if "error" in record:
            status = 2
        elif not record["agree"] and record["rules_covered"]:
            status = max(status, 1)
        if fmt == "table":
            if "error" in record:
                out.write(f"{number:>5}  error: {record['error']}\n")
            else:
                rules = "covered" if record["rules_covered"] else "not covered"
                out.write(f"{number:>5}  {record['title'] or '':<6} {str(record['fixture'] or ''):<28} "
                          f"{record['action_index'] if record['action_index'] is not None else '':>6}  "
                          f"{_verdict_cell(record.get('submitted')):<26}  "
                          f"{_verdict_cell(record.get('auto_router')):<26}  {rules}\n")
        else:
            out.write(json.dumps(record) + "\n")
        out.flush()
    return status
