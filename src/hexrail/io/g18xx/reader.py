"""Read an 18xx.games route position (its position export) into a `Position`."""

from __future__ import annotations

import json
from dataclasses import replace
from itertools import chain, compress
from operator import attrgetter, itemgetter
from typing import Any

import orjson

from hexrail.errors import HexrailError
from hexrail.io.limits import MAX_HEXES, MAX_TRAINS, at_most
from hexrail.io.native import Apart
from hexrail.model.frozen import FrozenMap
from hexrail.model.hexgrid import Layout
from hexrail.model.memo import ByIdentity
from hexrail.model.position import Company, Hex, Phase, Position, Rules, Train
from hexrail.model.tile import ANY_COLOR, NODE_KINDS, ROUTE_MODES, Border, End, Node, Path, Tile, Token
from hexrail.model.trains import ALL_KINDS, UNLIMITED, Row, TrainSpec

SCHEMA = "18xx-route-position/1"

# Titles whose route rules are exactly the generic profile's (docs/rules.md (generic)).
GENERIC_TITLES = frozenset({"1830", "1889"})


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
    return "generic", False, f"{title} has no rules profile; its own rules may differ: solved under the generic rules"


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
    key = (orientation, axes.get("x", ""), axes.get("y", ""))
    if not all(isinstance(part, str) for part in key):
        return Layout(*key)  # refused by Layout, naming the field
    layout = _LAYOUTS.get(key)
    if layout is None:
        layout = _LAYOUTS.setdefault(key, Layout(*key)) if len(_LAYOUTS) < 256 else Layout(*key)
    return layout


# Hexes and layouts read before, by their JSON text. The positions of one game repeat most of
# their hexes, and those of one title their unchanged ones (the shared corpus holds 13,416
# 1830/1889 hexes, 432 of them different); a `Hex` is an immutable value, so one read serves
# every repeat. Sharing the objects also lets `hexrail.solve.cached_track` find a board it
# compiled before by identity, without hashing it.
_HEXES: dict[bytes, Hex] = {}
_LAYOUTS: dict[tuple, Layout] = {}
HEX_MEMO = 16_384  # hexes kept (about 6 KB each; a whole game has a few thousand); then it starts again


def _hex_memo(raw: Any, k: int) -> Hex:
    # orjson writes a hex ten times faster than json. It writes a float that is not finite as
    # null, but JSON has no such floats: the text readers refuse them (`limits.loads`).
    try:
        key = orjson.dumps(raw)
    except (TypeError, ValueError, RecursionError):
        return _hex(raw, k)  # not JSON data: `_hex` says what is wrong with it
    found = _HEXES.get(key)
    if found is None:
        found = _hex(raw, k)
        if len(_HEXES) >= HEX_MEMO:
            _HEXES.clear()
        _HEXES[key] = found
    return found


def _hexes(hexes_in: list) -> tuple[Hex, ...]:
    """The hexes read (`_hex_memo`); where every hex was read before, with no Python call
    per hex."""
    try:
        keys = list(map(orjson.dumps, hexes_in))
    except (TypeError, ValueError, RecursionError):
        keys = ()  # (`_hex` names the hex that is no JSON data)
    if keys and all(map(_HEXES.__contains__, keys)):
        return tuple(map(_HEXES.__getitem__, keys))
    return tuple(_hex_memo(h, k) for k, h in enumerate(hexes_in))


def _texts_apart(apart: Apart) -> tuple[list[bytes], dict[int, Any]]:
    """The hexes' texts, and those not read before parsed, by place (a text that is no JSON is
    the document's fault, said before any other, as reading it whole says it)."""
    texts = apart.texts()
    if all(map(_HEXES.__contains__, texts)):  # (mostly: no Python call per hex)
        return texts, {}
    return texts, {k: apart.one(t) for k, t in enumerate(texts) if t not in _HEXES}


def _hexes_apart(apart: Apart, texts: list[bytes], parsed: dict[int, Any]
                 ) -> tuple[tuple[Hex, ...], dict[str, Any]]:
    """The hexes of their texts (`_texts_apart`) as `_hexes` reads them, each text looked up
    among those read before (an 18xx.games position's text is written by orjson too, as the
    keys of `_HEXES` are), then kept by its text; and per hex id its ``assignments``, where it
    has some."""
    at_most(len(texts), MAX_HEXES, "hexes", "hexes")
    hexes = tuple(map(_HEXES.get, texts))
    if not all(hexes):
        hexes = tuple(h or _hex_text(apart, t, k, parsed) for k, (h, t) in enumerate(zip(hexes, texts)))
    assignments = {}
    a, b = apart.spans[0].tolist()
    # (rare: a few titles' hexes hold them; a text with an escape may name them otherwise)
    if apart.text.find(b'"assignments"', a, b) >= 0 or apart.text.find(b"\\", a, b) >= 0:
        for k, (h, text) in enumerate(zip(hexes, texts)):
            if b'"assignments"' in text or b"\\" in text:
                found = (parsed[k] if k in parsed else apart.one(text)).get("assignments")
                if found:
                    assignments[h.id] = found
    return hexes, assignments


def _hex_text(apart: Apart, text: bytes, k: int, parsed: dict[int, Any]) -> Hex:
    """The hex of a text not read before: by its value (`_hex_memo`), then kept by its text."""
    found = _hex_memo(parsed[k] if k in parsed else apart.one(text), k)
    if len(_HEXES) >= HEX_MEMO:
        _HEXES.clear()
    _HEXES[text] = found
    return found


def _hex_extras(h: Hex) -> tuple[tuple[str, ...], bool]:
    """The companies of the hex's tokens, in order, and whether a node has revenues by train."""
    companies = dict.fromkeys(t.company for _, slots in h.tokens + h.extra_tokens
                              for t in slots if t is not None)
    return tuple(companies), any("train_revenue" in n.extra for n in h.tile.nodes)


_EXTRAS = ByIdentity(_hex_extras, HEX_MEMO)
_ID, _FIRST, _SECOND = attrgetter("id"), itemgetter(0), itemgetter(1)


def _extra_tokens(raw: dict, kind: str, where: str) -> tuple[Token, ...]:
    extras = raw.get("extra_tokens") or []
    if not isinstance(extras, list) or not all(isinstance(t, str) for t in extras):
        raise HexrailError("extra_tokens must be a list of company ids", where=where)
    if extras and kind not in ("city", "pass"):
        raise HexrailError(f"extra tokens placed on a {kind}", where=where)
    return tuple(Token(company) for company in extras)


def _loc(side: float) -> str:
    """A side as tile notation writes it: ``"2"``, ``"3.5"``."""
    return str(int(side)) if side == int(side) else str(side)


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
                                       "boom", "style", "to_city", "pass_color",
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
    extra_tokens: list[tuple[int, tuple[Token, ...]]] = []
    nodes_in = raw.get("nodes", [])
    if not isinstance(nodes_in, list):
        raise HexrailError("nodes must be a list", where=where)
    sides: dict[int, float] = {}  # towns drawn at a hex side
    for j, node_raw in enumerate(nodes_in):
        node, slots = _node(node_raw, hex_id, j)
        if isinstance(node_raw.get("edge"), (int, float)) and not isinstance(node_raw["edge"], bool) \
                and node.kind in ("town", "halt"):
            sides[node.index] = float(node_raw["edge"])
        if any(n.index == node.index for n in nodes):
            raise HexrailError(f"two nodes share index {node.index}", where=where)
        nodes.append(node)
        if slots is not None:
            tokens.append((node.index, slots))
        extras = _extra_tokens(node_raw, node.kind, f"hex {hex_id} node {hex_id}-{node.index}")
        if extras:
            extra_tokens.append((node.index, extras))
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
        cost = _int(b.get("cost") or 0, "cost", f"{where} borders[{j}]")
        borders.append(Border(edge, str(b.get("type") or "impassable"), cost))
    rot = raw.get("rot", 0)
    _int(rot, "rot", where)
    if raw.get("code") is not None and not isinstance(raw["code"], str):
        raise HexrailError(f"code must be tile notation text, not {json.dumps(raw['code'])[:40]}",
                           where=f"{where} code")
    # a town drawn at a hex side: its side, given after rotation, kept as the tile code's
    # ``loc`` (before rotation), which `Tile.town_side` turns back
    nodes = [replace(n, loc=_loc((sides[n.index] - rot) % 6)) if n.index in sides else n
             for n in nodes]
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
               location=location if isinstance(location, str) else None, extra_tokens=tuple(extra_tokens))


def _rows(distance: Any, where: str) -> tuple[Row, ...]:
    if isinstance(distance, int) and not isinstance(distance, bool):
        n = _int(distance, "distance", where, minimum=1)
        n = UNLIMITED if n >= UNLIMITED else n
        # an integer distance limits visit units only: every stop visited pays
        return (Row(ALL_KINDS, UNLIMITED, n),)
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
        # pay may exceed visit (1822's pullman: pay 99, visit 3): stops of visit cost 0 use
        # no visit units but still pay, as in the engine
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


def position_from_18xx(data: dict, apart: Apart | None = None) -> Position:
    """A `Position` from one 18xx.games route position (schema ``18xx-route-position/1``).
    `apart`: its hexes' texts, where `hexrail.io.native.read_json_apart` left them unparsed.

    Only the trains the engine says can run (``runnable``) are kept. The rules profile is the
    registered one named like the title, else ``generic``; ``meta`` records the title, fixture,
    action index and whether the title's own rules are covered (`rules_for_title`).

    `data` is parsed JSON: floats are finite (`hexrail.io.limits.loads` parses text so).

    Raises `HexrailError` naming the hex, node, path, train or field at fault.
    """
    if not isinstance(data, dict):
        raise HexrailError("a position must be a JSON object", where="position")
    if apart is not None:
        texts, parsed = _texts_apart(apart)
    schema = data.get("schema")
    if schema != SCHEMA:
        raise HexrailError(f"schema is {schema!r}, expected {SCHEMA!r}", where="schema")
    title = str(_need(data, "title", (str, int), "position"))
    layout = _layout(data)
    if apart is None:
        hexes_in = _need(data, "hexes", list, "position")
        at_most(len(hexes_in), MAX_HEXES, "hexes", "hexes")
        hexes = _hexes(hexes_in)
        assignments = {h["id"]: h["assignments"] for h in hexes_in if h.get("assignments")}
    else:
        hexes, assignments = _hexes_apart(apart, texts, parsed)

    entity = _need(data, "entity", dict, "position")
    company = _need(entity, "id", str, "entity")
    home_in = entity.get("home")
    if home_in is not None and not isinstance(home_in, (str, list)):
        raise HexrailError(f"home must be a hex id or a list of them, not {json.dumps(home_in)[:40]}",
                           where="entity.home")
    homes = (home_in,) if isinstance(home_in, str) else tuple(
        h for h in (home_in or ()) if isinstance(h, str))
    on_map = set(map(_ID, hexes))
    companies = [Company(company, tuple(h for h in homes if h in on_map), str(entity.get("name") or ""))]
    extras = _EXTRAS.many(hexes)
    companies += [Company(c) for c in dict.fromkeys(chain.from_iterable(map(_FIRST, extras)))
                  if c != company]

    overrides: dict[str, dict[str, int]] = {}
    for h in compress(hexes, map(_SECOND, extras)):
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
    at_most(len(trains_in), MAX_TRAINS, "trains", "trains")
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

    state_in = data.get("title_state") or {}
    if not isinstance(state_in, dict):
        raise HexrailError(f"title_state must be an object, not {json.dumps(state_in)[:40]}",
                           where="title_state")
    state = dict(state_in)
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


