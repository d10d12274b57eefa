"""Our routes in the 18xx.games route form (``connections``), and theirs as our plans."""

from __future__ import annotations

from typing import Any

from hexrail.errors import HexrailError
from hexrail.model.position import Hex, Position
from hexrail.model.tile import Path, Tile
from hexrail.plan import Plan, RoutePlan

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
    out = {
        "train": route.train, "train_name": route.train_name, "connections": connections,
        "hexes": hexes, "visits": visits, "nodes": visits, "track": list(route.paths),
        "revenue": route.revenue, "subsidy": route.subsidy, "stops": list(route.paid),
        "revenue_str": "-".join(hexes),
    }
    # A route past halts says how many it counts: without it the engine counts as many as fit
    # (1860), which may pay a different revenue and subsidy than ours
    if any(_kind(pos, v) == "halt" for v in visits):
        out["halts"] = sum(1 for v in route.paid if _kind(pos, v) == "halt")
    return out


def _kind(pos: Position, ref: str) -> str:
    hex_id, _, index = ref.rpartition("-")
    return pos.hex(hex_id).node(int(index)).kind


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


