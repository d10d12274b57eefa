"""The native position format (``hexrail-position/1``): JSON in, `Position` out, and back.

The format is documented field by field in ``docs/position-format.md`` and checked with the JSON
Schema ``position.schema.json`` beside this module before any meaning is read from it, so a
misspelt key or a wrong type is reported with its place in the document.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path as FilePath
from typing import Any, NamedTuple

import jsonschema
import numpy as np
import orjson

from hexrail.errors import HexrailError
from hexrail.io.limits import (INT_DIGITS, MAX_BYTES, MAX_DEPTH, MAX_HEXES, MAX_STRING, MAX_TRAINS,
                               at_most, check_document, check_text, surely_within, walk_document)
from hexrail.model.frozen import FrozenMap, thaw
from hexrail.model.hexgrid import Layout
from hexrail.model.notation import parse_tile
from hexrail.model.position import Company, Hex, Phase, Position, Rules, Train
from hexrail.model.tile import ANY_COLOR, Border, End, Node, Path, Tile, Token, as_revenue
from hexrail.rules import get_profile

FORMAT = "hexrail-position/1"


@lru_cache(maxsize=1)
def position_schema() -> dict:
    text = resources.files("hexrail.io").joinpath("position.schema.json").read_text()
    return json.loads(text)


def read_json(source: str | bytes | FilePath, what: str = "position") -> Any:
    """Parse JSON text or a file, naming the line and column of a syntax error; the document
    must be within the reader's limits (`hexrail.io.limits`)."""
    text, where = _text(source, what)
    return _read(text, where, what)


def _text(source: str | bytes | FilePath, what: str) -> tuple[str | bytes, str]:
    """The text of `source` (a file's, read), within `MAX_BYTES`, and where it comes from."""
    where = what
    if isinstance(source, FilePath):
        where = str(source)
        try:
            if source.stat().st_size > MAX_BYTES:
                raise HexrailError(f"file of {source.stat().st_size} bytes, at most {MAX_BYTES}",
                                   where=where)
            source = source.read_bytes()
        except OSError as err:
            raise HexrailError(f"cannot read file: {err.strerror}", where=where) from None
        except ValueError as err:  # a NUL byte in the name
            raise HexrailError(f"cannot read file: {err}", where=repr(where)) from None
    return check_text(source, where), where


def _read(text: str, where: str, what: str) -> Any:
    try:
        # orjson reads twice as fast. Where it refuses (NaN, 1e999, lone surrogates, bad JSON),
        # json reads the text as before: it says where the JSON is malformed, and the walk
        # names a number JSON has not.
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        data = _parse(text, where)
    if not surely_within(data, text):
        # (orjson reads an integer past 2^64 as a float: json keeps it, for the walk to refuse)
        walk_document(_parse(text, where), what)
    return data


class Apart(NamedTuple):
    """The objects of an array member of a document, left unparsed (`read_json_apart`): the
    document's text (UTF-8), the spans of the array (row 0) and of each object in it."""

    text: bytes
    spans: np.ndarray
    where: str
    what: str

    def texts(self) -> list[bytes]:
        """Each object's text, in order."""
        return list(map(self.text.__getitem__, map(slice, *self.spans[1:].T.tolist())))

    def whole(self) -> list:
        """The array, parsed."""
        a, b = self.spans[0].tolist()
        return orjson.loads(self.text[a:b])

    def one(self, text: bytes) -> Any:
        """One object's text parsed; where it is no JSON, the error `read_json` gives the
        document (whose text then is none either)."""
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            _read(self.text.decode("utf-8", "surrogatepass"), self.where, self.what)
            raise HexrailError("malformed JSON", where=self.where) from None


def read_json_apart(source: str | bytes | FilePath, key: str, what: str = "position"
                    ) -> tuple[Any, Apart | None]:
    """`read_json`, leaving unparsed the objects of the member `key` of the outermost object
    where it is an array of them (and the text surely within the reader's limits: one compiled
    pass, `_scan_kernels.json_scan`, says both): ``(document, Apart)``, the document holding an
    empty array there; else ``(document, None)``. An 18xx.games position is nine tenths hexes,
    mostly the same as the position before's: read apart, each hex's text is looked up among
    those read before (`hexrail.io.g18xx.reader`)."""
    text, where = _text(source, what)
    split = split_json(text, key, where, what)
    return split if split is not None else (_read(text, where, what), None)


def split_json(text: str, key: str, where: str = "position", what: str = "position"
               ) -> tuple[Any, Apart] | None:
    """`read_json_apart`'s answer where it leaves the objects apart; else None (the text read
    whole says what it holds, or what is wrong with it)."""
    from hexrail.io._scan_kernels import json_scan

    raw = text.encode("utf-8", "surrogatepass")
    within, spans = json_scan(np.frombuffer(raw, np.uint8), MAX_DEPTH, INT_DIGITS, MAX_STRING,
                              np.frombuffer(key.encode(), np.uint8), raw.count(b"{"))
    if not (within and len(spans)):
        return None
    a, b = spans[0].tolist()
    try:
        return orjson.loads(b"".join((raw[:a], b"[]", raw[b:]))), Apart(raw, spans, where, what)
    except orjson.JSONDecodeError:
        return None


def _parse(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise HexrailError(f"malformed JSON at line {err.lineno} column {err.colno}: {err.msg}",
                           where=where) from None
    except RecursionError:
        raise HexrailError(f"nested more than {MAX_DEPTH} levels deep", where=where) from None
    except ValueError as err:  # an integer of more digits than Python converts
        raise HexrailError(f"unreadable number: {err}", where=where) from None


def _field_path(path: Any) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "position"


def check_schema(data: Any) -> None:
    """Raise `HexrailError` naming the first field that breaks the JSON Schema."""
    validator = jsonschema.Draft202012Validator(position_schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: (len(e.absolute_path), str(e.absolute_path)))
    if errors:
        err = jsonschema.exceptions.best_match(errors)
        raise HexrailError(_schema_message(err), where=_field_path(err.absolute_path))


def _schema_message(err: jsonschema.ValidationError) -> str:
    if err.validator == "additionalProperties":
        return err.message.replace("Additional properties are not allowed", "unknown field")
    if err.validator == "oneOf":
        return f"{json.dumps(err.instance)[:60]} is not a valid value here"
    return err.message


def parse_end(text: str, lane: Any, where: str) -> End:
    if text.startswith("e"):
        width, index = (lane if lane else (1, 0))
        return End(edge=int(text[1:]), lane=(int(width), int(index)))
    return End(node=int(text[1:]))


def _tile_from_parts(data: dict, name: str, color: str, where: str) -> Tile:
    nodes = []
    for k, raw in enumerate(data.get("nodes", [])):
        here = f"{where}.nodes[{k}]"
        default_route = "optional" if raw["kind"] == "halt" else "mandatory"
        nodes.append(Node(
            index=raw.get("index", k), kind=raw["kind"],
            revenue=as_revenue(raw.get("revenue"), here),
            slots=raw.get("slots", 1 if raw["kind"] == "city" else 0),
            groups=tuple(raw.get("groups", ())), visit_cost=raw.get("visit_cost", 1),
            route=raw.get("route", default_route), loc=raw.get("loc"),
        ))
    paths = []
    for k, raw in enumerate(data.get("paths", [])):
        lanes = raw.get("lanes") or [None, None]
        paths.append(Path(parse_end(raw["a"], lanes[0], where), parse_end(raw["b"], lanes[1], where),
                          terminal=bool(raw.get("terminal", False)), track=raw.get("track", "broad")))
    return Tile(name=name, color=color, nodes=tuple(nodes), paths=tuple(paths),
                labels=tuple(data.get("labels", ())))


def _token(raw: Any) -> Token | None:
    if raw is None:
        return None
    if isinstance(raw, str):
        return Token(raw)
    return Token(raw["company"], raw.get("flag", ""))


def _hex_from_json(hex_id: str, data: dict) -> Hex:
    where = f"hex {hex_id}"
    name = data.get("name", "")
    color = data.get("color", "white")
    if "tile" in data and ("nodes" in data or "paths" in data):
        raise HexrailError("give the tile either in notation ('tile') or as parts ('nodes'/'paths'), not both",
                           where=where)
    try:
        if "tile" in data:
            tile = parse_tile(data["tile"], name=name or hex_id, color=color,
                              rotation=data.get("rotation", 0))
        else:
            tile = _tile_from_parts(data, name or hex_id, color, where).rotated(data.get("rotation", 0))
    except HexrailError as err:
        raise HexrailError(str(err).removeprefix(f"tile {name or hex_id!r}: "), where=where) from None
    if data.get("labels") and "tile" in data:
        tile = Tile(**{**{f: getattr(tile, f) for f in tile.__dataclass_fields__},
                       "labels": tile.labels + tuple(data["labels"])})
    if data.get("borders"):
        borders = tile.borders + tuple(Border(e) for e in data["borders"])
        tile = Tile(**{**{f: getattr(tile, f) for f in tile.__dataclass_fields__}, "borders": borders})
    tokens_in = data.get("tokens")
    tokens: list[tuple[int, tuple[Token | None, ...]]] = []
    if tokens_in:
        cities = [n for n in tile.nodes if n.kind in ("city", "pass")]
        if isinstance(tokens_in, list):
            if not cities:
                raise HexrailError("tokens given but the tile has no city", where=where)
            slots = tuple(_token(t) for t in tokens_in)
            tokens.append((cities[0].index, slots + (None,) * max(0, cities[0].slots - len(slots))))
        else:
            for key, raw_slots in tokens_in.items():
                try:
                    index = int(key)
                except ValueError:
                    raise HexrailError(f"token key {key!r} must be a city node index", where=where) from None
                node = next((n for n in tile.nodes if n.index == index), None)
                if node is None:
                    raise HexrailError(f"tokens placed in missing node n{index}", where=where)
                slots = tuple(_token(t) for t in raw_slots)
                tokens.append((index, slots + (None,) * max(0, node.slots - len(slots))))
    extra_tokens: list[tuple[int, tuple[Token, ...]]] = []
    for key, companies in (data.get("extra_tokens") or {}).items():
        try:
            index = int(key)
        except ValueError:
            raise HexrailError(f"extra_tokens key {key!r} must be a city node index", where=where) from None
        if all(n.index != index for n in tile.nodes):
            raise HexrailError(f"extra tokens placed in missing node n{index}", where=where)
        extra_tokens.append((index, tuple(Token(c) for c in companies)))
    icons = tile.icons + tuple(data.get("icons", ()))
    neighbours = data.get("neighbours")
    return Hex(id=hex_id, tile=tile, tokens=tuple(tokens), icons=icons,
               neighbours=tuple(neighbours) if neighbours is not None else None,
               location=data.get("location"), extra_tokens=tuple(extra_tokens))


def position_from_json(data: Any) -> Position:
    """Build a `Position` from a parsed native JSON document."""
    check_schema(data)
    at_most(len(data["hexes"]), MAX_HEXES, "hexes", "hexes")
    at_most(len(data.get("trains") or ()), MAX_TRAINS, "trains", "trains")
    layout_in = data.get("layout", "flat")
    if isinstance(layout_in, str):
        layout = Layout(layout_in)
    else:
        axes = layout_in.get("axes", {})
        layout = Layout(layout_in["orientation"], axes.get("x", ""), axes.get("y", ""))
    rules_in = data.get("rules", {})
    rules = Rules(rules_in.get("profile", "generic"), FrozenMap(rules_in.get("options", {})))
    profile = get_profile(rules.profile)()
    phase_in = data.get("phase", {})
    phase = Phase(phase_in.get("name", "1"), tuple(phase_in.get("colors", ("yellow",))))
    hexes = tuple(_hex_from_json(hex_id, h) for hex_id, h in data["hexes"].items())
    companies_in = data.get("companies") or [{"id": data["company"]}]
    companies = []
    for c in companies_in:
        home = c.get("home", ())
        companies.append(Company(c["id"], (home,) if isinstance(home, str) else tuple(home),
                                 c.get("name", ""), c.get("closed", False)))
    trains = []
    counts: dict[str, int] = {}
    for k, raw in enumerate(data["trains"]):
        raw = {"spec": raw} if isinstance(raw, str) else raw
        spec = raw["spec"]
        name = raw.get("name") or (spec if isinstance(spec, str) else str(spec) if isinstance(spec, int) else "rows")
        serial = counts.get(name, 0)
        counts[name] = serial + 1
        train_id = raw.get("id") or f"{name}-{serial}"
        where = f"trains[{k}] ({train_id})"
        trains.append(Train(train_id, name, profile.parse_train(thaw(spec), where),
                            FrozenMap(raw.get("revenue", {}))))
    return Position(layout=layout, hexes=hexes, company=data["company"], companies=tuple(companies),
                    trains=tuple(trains), phase=phase, rules=rules, state=FrozenMap(data.get("state", {})),
                    meta=FrozenMap({"name": data.get("name", "")}))


def load_position(source: Any) -> Position:
    """A `Position` from a native or 18xx.games document, JSON text, or a file path."""
    if isinstance(source, Position):
        return source
    if isinstance(source, (bytes, bytearray)):
        source = check_text(bytes(source))
    if isinstance(source, str) and not source.lstrip().startswith("{"):
        source = FilePath(source)
    apart = None
    if isinstance(source, (str, FilePath)):
        data, apart = read_json_apart(source, "hexes")
    else:
        data = source
        check_document(data)
    if not isinstance(data, dict):
        raise HexrailError("a position must be a JSON object", where="position")
    if data.get("schema") == "18xx-route-position/1":
        from hexrail.io.g18xx import position_from_18xx  # the interop reader is optional weight

        return position_from_18xx(data, apart)
    if apart is not None:
        data["hexes"] = apart.whole()
    return position_from_json(data)


def _revenue_json(revenue: tuple[tuple[str, int], ...]) -> Any:
    if len(revenue) == 1 and revenue[0][0] == ANY_COLOR:
        return revenue[0][1]
    return dict(revenue)


def _end_json(end: End) -> str:
    return f"e{end.edge}" if end.is_edge else f"n{end.node}"


def _train_json(train: Train) -> dict:
    spec = train.spec
    rows = [{"nodes": sorted(r.kinds), "pay": r.pay, "visit": r.visit}
            | ({"multiplier": r.multiplier} if r.multiplier != 1 else {}) for r in spec.rows]
    out: dict[str, Any] = {"rows": rows}
    if spec.hexes:
        out["hexes"] = spec.hexes
    if spec.multiplier != 1:
        out["multiplier"] = spec.multiplier
    if spec.kind_multipliers:
        out["kind_multipliers"] = dict(spec.kind_multipliers)
    if spec.min_stops != 2:
        out["min_stops"] = spec.min_stops
    if not spec.requires_token:
        out["requires_token"] = False
    if spec.track != "broad":
        out["track"] = spec.track
    if spec.extra:
        out["extra"] = thaw(spec.extra)
    doc = {"id": train.id, "name": train.name, "spec": out}
    if train.revenue_overrides:
        doc["revenue"] = dict(train.revenue_overrides)
    return doc


def position_to_json(pos: Position) -> dict:
    """The native JSON document of a position, with tiles as explicit parts (exact round trip)."""
    hexes = {}
    for h in pos.hexes:
        t = h.tile
        doc: dict[str, Any] = {"name": t.name, "color": t.color}
        doc["nodes"] = [{"index": n.index, "kind": n.kind, "revenue": _revenue_json(n.revenue),
                         "slots": n.slots, "groups": list(n.groups), "visit_cost": n.visit_cost,
                         "route": n.route} | ({"loc": n.loc} if n.loc else {}) for n in t.nodes]
        doc["paths"] = []
        for p in t.paths:
            pd: dict[str, Any] = {"a": _end_json(p.a), "b": _end_json(p.b)}
            if p.a.lane != (1, 0) or p.b.lane != (1, 0):
                pd["lanes"] = [list(p.a.lane), list(p.b.lane)]
            if p.terminal:
                pd["terminal"] = True
            if p.track != "broad":
                pd["track"] = p.track
            doc["paths"].append(pd)
        if t.labels:
            doc["labels"] = list(t.labels)
        impassable = sorted(b.edge for b in t.borders if b.type == "impassable")
        if impassable:
            doc["borders"] = impassable
        if h.tokens:
            doc["tokens"] = {str(i): [None if tok is None else ({"company": tok.company, "flag": tok.flag}
                                                               if tok.flag else tok.company)
                                      for tok in slots] for i, slots in h.tokens}
        if h.extra_tokens:
            doc["extra_tokens"] = {str(i): [t.company for t in tokens] for i, tokens in h.extra_tokens}
        if h.icons:
            doc["icons"] = list(h.icons)
        if h.location:
            doc["location"] = h.location
        if h.neighbours is not None:
            doc["neighbours"] = list(h.neighbours)
        hexes[h.id] = doc
    return {
        "format": FORMAT,
        "layout": {"orientation": pos.layout.orientation,
                   "axes": {"x": pos.layout.x_from, "y": pos.layout.y_from}},
        "phase": {"name": pos.phase.name, "colors": list(pos.phase.colors)},
        "rules": {"profile": pos.rules.profile, "options": thaw(pos.rules.options)},
        "company": pos.company,
        "companies": [{"id": c.id, "name": c.name, "home": list(c.home), "closed": c.closed}
                      for c in pos.companies],
        "trains": [_train_json(t) for t in pos.trains],
        "hexes": hexes,
        "state": thaw(pos.state),
    }
