"""The 18xx.games tile notation.

A tile is a ``;``-separated list of parts, each ``type=key:value,key:value``::

    city=revenue:20,slots:2;path=a:0,b:_0;path=a:_0,b:3;label=Z

Path ends are hex sides (``0``-``5``) or ``_N``, the N-th node defined so far (cities, towns,
offboards, halts, junctions and passes count, in order). Revenues are plain (``revenue:20``) or
per phase colour (``revenue:yellow_30|brown_60``). A path with ``lanes:k`` stands for k parallel
paths; ``a_lane:2.1`` means lane 1 of 2 at end a.

Documented rule for what this parser does not use: unknown part types (``frame``, ``stripes``,
``upgrade``, ``partition``, ``future_label``, ...) are kept verbatim in ``tile.extra["parts"]``
and unknown keys of node parts in ``node.extra``; neither affects routing. Malformed values of
keys that do affect routing raise `HexrailError` naming the part.

>>> t = parse_tile("city=revenue:20;path=a:0,b:_0;path=a:_0,b:3", rotation=1)
>>> [(str(p.a), str(p.b)) for p in t.paths]
[('e1', 'n0'), ('n0', 'e4')]
"""

from __future__ import annotations

from hexrail.errors import HexrailError
from hexrail.io.limits import MAX_INT, MAX_LANES, at_most
from hexrail.model.frozen import FrozenMap
from hexrail.model.tile import ANY_COLOR, Border, End, Node, Path, Tile

_NODE_PARTS = ("city", "town", "offboard", "halt", "junction", "pass")
_NODE_KEYS = {"revenue", "slots", "groups", "visit_cost", "route", "loc"}
_IGNORED_PARTS = ("upgrade", "frame", "stripes", "future_label", "partition", "stub", "blank")


def parse_revenue(text: str, where: str) -> tuple[tuple[str, int], ...]:
    """``"20"`` or ``"yellow_30|brown_60"`` → revenue pairs."""
    try:
        if "_" not in text:
            return ((ANY_COLOR, int(text)),)
        out = []
        for item in text.split("|"):
            color, _, amount = item.rpartition("_")
            out.append((color, int(amount)))
        return tuple(out)
    except ValueError:
        raise HexrailError(f"revenue {text!r} is not a number or colour_number list", where=where) from None


def _int(params: dict[str, str], key: str, default: int, where: str) -> int:
    if key not in params:
        return default
    try:
        value = int(params[key])
    except ValueError:
        raise HexrailError(f"{key} {params[key][:40]!r} is not an integer", where=where) from None
    if abs(value) > MAX_INT:
        raise HexrailError(f"{key} beyond ±2^53", where=where)
    return value


def _lane(text: str | None, where: str) -> tuple[int, int]:
    if text is None:
        return (1, 0)
    try:
        width, _, index = text.partition(".")
        lane = (int(width), int(index[:1] or 0))
    except ValueError:
        raise HexrailError(f"lane {text[:40]!r} is not of the form width.index", where=where) from None
    at_most(lane[0], MAX_LANES, "lanes", where)
    return lane


def _split_params(body: str, where: str) -> dict[str, str]:
    params: dict[str, str] = {}
    if not body:
        return params
    for item in body.split(","):
        key, sep, value = item.partition(":")
        if not sep:
            # A bare word (``label=Z``) is the part's single value.
            params["_"] = item
            continue
        params[key.strip()] = value.strip()
    return params


def parse_tile(code: str, *, name: str = "", color: str = "white", rotation: int = 0) -> Tile:
    """Parse tile notation into a `Tile`, turned `rotation` sixths clockwise."""
    where = f"tile {name!r}" if name else "tile"
    nodes: list[Node] = []
    node_refs: list[int] = []  # `_N` → part index of the N-th node
    paths: list[Path] = []
    labels: list[str] = []
    icons: list[str] = []
    borders: list[Border] = []
    other: list[str] = []
    part_index = 0
    for raw in (p for p in code.split(";") if p.strip()):
        kind, _, body = raw.strip().partition("=")
        params = _split_params(body, where)
        here = f"{where} part {raw.strip()!r}"
        if kind in _NODE_PARTS:
            extra = {k: v for k, v in params.items() if k not in _NODE_KEYS}
            revenue = parse_revenue(params["revenue"], here) if "revenue" in params else ((ANY_COLOR, 0),)
            route = params.get("route", "optional" if kind == "halt" else "mandatory")
            default_slots = 1 if kind in ("city", "pass") else 0
            groups = tuple(g for g in params.get("groups", "").split("|") if g)
            nodes.append(Node(
                index=part_index, kind=kind, revenue=revenue,
                slots=_int(params, "slots", default_slots, here), groups=groups,
                visit_cost=_int(params, "visit_cost", 1, here), route=route,
                loc=params.get("loc"), extra=FrozenMap(extra),
            ))
            node_refs.append(part_index)
            part_index += 1
        elif kind == "path":
            ends = []
            for key in ("a", "b"):
                ref = params.get(key)
                if ref is None:
                    raise HexrailError(f"path has no {key!r} end", where=here)
                if ref.startswith("_"):
                    try:
                        ends.append(End(node=node_refs[int(ref[1:])]))
                    except (ValueError, IndexError):
                        raise HexrailError(f"path end {key}:{ref} names a node not defined before it",
                                           where=here) from None
                else:
                    try:
                        edge = int(ref)
                    except ValueError:
                        raise HexrailError(f"path end {key}:{ref} is neither a side 0-5 nor _N",
                                           where=here) from None
                    if not 0 <= edge <= 5:
                        raise HexrailError(f"path end {key}:{ref} is not a side 0-5", where=here)
                    ends.append(End(edge=edge))
            a, b = ends
            terminal = params.get("terminal", "0") not in ("0", "", "false")
            track = params.get("track", "broad")
            ignore = params.get("ignore", "0") not in ("0", "", "false")
            lanes = _int(params, "lanes", 0, here)
            at_most(lanes, MAX_LANES, "lanes", here)
            if lanes:
                for i in range(lanes):
                    a_lane = (lanes, i)
                    b_lane = (lanes, lanes - i - 1) if a.is_edge and b.is_edge else a_lane
                    paths.append(Path(End(a.edge, a.node, a_lane if a.is_edge else (1, 0)),
                                      End(b.edge, b.node, b_lane if b.is_edge else (1, 0)),
                                      terminal, track, ignore))
                    part_index += 1
            else:
                a = End(a.edge, a.node, _lane(params.get("a_lane"), here)) if a.is_edge else a
                b = End(b.edge, b.node, _lane(params.get("b_lane"), here)) if b.is_edge else b
                paths.append(Path(a, b, terminal, track, ignore))
                part_index += 1
        elif kind == "label":
            labels.append(params.get("_", body))
            part_index += 1
        elif kind == "icon":
            icons.append(params.get("name") or params.get("image") or body)
            part_index += 1
        elif kind == "border":
            edge = _int(params, "edge", -1, here)
            if not 0 <= edge <= 5:
                raise HexrailError("border needs edge:0-5", where=here)
            borders.append(Border(edge, params.get("type") or "impassable", _int(params, "cost", 0, here)))
            part_index += 1
        else:
            # Unknown and display-only parts are kept, never used (see module docstring).
            other.append(raw.strip())
            part_index += 1
    tile = Tile(name=name, color=color, nodes=tuple(nodes), paths=tuple(paths),
                labels=tuple(labels), icons=tuple(icons), borders=tuple(borders), code=code,
                extra=FrozenMap({"parts": tuple(other)} if other else {}))
    return tile.rotated(rotation)
