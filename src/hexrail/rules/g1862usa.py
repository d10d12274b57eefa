"""1862 USA & Canada (Ohley): N and E trains, one tile once, bonus routes, Salt Lake City.

The rules, as docs/rules.md states them, seen through the profile hooks.

**Trains.** ``2`` … ``8`` and ``10`` count every stop they pass (a train may pass no more stops
than its number); ``5E``, ``6E``, ``8E`` and ``10E`` visit any number of stops and are paid for the
best N. Every route contains a city with the company's token — for an E train counted or not (the
generic anchor rule: a token city visited anchors the route whether it is paid or not).

**Track.** A route may not include the same tile twice (`reentry_forbidden`), except a tile with
two or more separate stations (New York): the route may come back to it, and since no route
visits a node twice, each station is visited once. Decision: on such a tile any coming back is
allowed (its yellow and green tiles join every track to a station, so each pass visits one).
Routes of different trains share no track (the generic rule); full cities block passing through
but may be route ends; offboards are route ends, valued by phase (the left value in yellow and
green, the right one in brown and grey: tile notation ``offboard=revenue:yellow_30|brown_50``).

**Bonus routes** (`span_bonuses`). Per company a list of bonus stations (hexes). A route that
starts at the company's home station (home is one of its two end stops) and contains a stop in
a bonus hex anywhere earns ``rate × d − 10 × h``, never below zero: d is the distance printed on
the charter when the input gives it, else the crow-fly hex distance from the home hex to the
bonus hex; h the hex-side crossings along the route between the two; the rate 20 while the phase
has no brown or grey tiles and 30 from then on. Each bonus station pays once per round, to one
train; a train containing two bonus stations may earn both. The home station is the city of the
company's home hex holding its token (every city of that hex while none does), or the node a
``home`` reference names (``"F9-1"``).

**Salt Lake City.** Its value is raised by 20 for CPR and UP when both could run a train to it:
for each, a legal route of any length from a city holding one of its tokens to Salt Lake City
(`reaches`: no tile twice except tiles with two or more cities, no passing through a full city
or an offboard, no reversing at a junction or switch). Plain track connectivity is not enough.
The plan reports whether it applied (``Plan.stats["facts"]["salt_lake_city"]``). Closed
companies' markers keep blocking (the generic `Profile.tokens_letting_by`).

**State** (`Position.state`):

- ``bonus_stations``: ``{company: [hex id or {"hex": hex id, "d": charter distance}, ...]}``,
  the bonus stations of each company;
- ``salt_lake_city``: the hex of Salt Lake City (default: the hex whose ``location`` is
  ``"Salt Lake City"``; none, no raise).

>>> Game1862USA().parse_train("6E", "t").rows[0].pay
6
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Mapping
from typing import Any, ClassVar

from hexrail.errors import HexrailError
from hexrail.graph.track import compile_track, may_pass
from hexrail.model.position import Hex, Position, Train
from hexrail.model.tile import Node
from hexrail.model.trains import TrainSpec
from hexrail.rules.base import Profile, SpanBonus, StopRule, register
from hexrail.rules.base import OBJECT, TEXT
from hexrail.rules.columns import StopColumns

TRAIN_SHAPE = re.compile(r"^\d+E?$")  # N trains and NE express trains
EARLY_RATE = 20  # bonus per hex of distance in the yellow and green phases
LATE_RATE = 30  # from the first brown tiles on
LATE_COLORS = ("brown", "gray", "grey")
PER_CROSSING = 10  # bonus lost per hex-side crossing between home and bonus station

SALT_LAKE = "Salt Lake City"  # location name that marks the hex
SALT_LAKE_COMPANIES = ("CPR", "UP")
SALT_LAKE_PLUS = 20


@register
class Game1862USA(Profile):
    """1862 USA & Canada routes, docs/rules.md (1862USA)."""

    state_types: ClassVar[dict[str, tuple[type, ...]]] = {
        "bonus_stations": OBJECT, "salt_lake_city": TEXT,
    }

    name: ClassVar[str] = "1862USA"
    description: ClassVar[str] = ("1862 USA & Canada: N and NE trains, one tile once except "
                                  "two-station tiles, bonus routes paid once per round, "
                                  "Salt Lake City +20 for CPR and UP")
    train_types: ClassVar[tuple[str, ...]] = ("N", "NE")

    def __init__(self, position: Position | None = None):
        super().__init__(position)
        self._salt_lake: tuple[Position, dict[str, Any]] | None = None

    # -- trains ---------------------------------------------------------------------------
    def parse_train(self, spec: Any, where: str) -> TrainSpec:
        if isinstance(spec, (str, int)) and not TRAIN_SHAPE.match(str(spec).strip()):
            raise HexrailError(f"1862USA trains are N (2-8, 10) or NE (5E, 6E, 8E, 10E), not "
                               f"{spec!r}", where=where)
        return super().parse_train(spec, where)

    # -- stops ----------------------------------------------------------------------------
    def stop_rule(self, pos: Position, train: Train, hex_: Hex, node: Node) -> StopRule:
        """Salt Lake City pays 20 more to CPR and UP when both reach it."""
        rule = super().stop_rule(pos, train, hex_, node)
        salt_lake = self.salt_lake(pos)
        if (node.is_stop and salt_lake.get("applies") and hex_.id == salt_lake["hex"]
                and pos.company in SALT_LAKE_COMPANIES):
            rule = rule._replace(value=rule.value + SALT_LAKE_PLUS)
        return rule

    def stop_columns(self, pos: Position, train: Train) -> StopColumns:
        cols = super().stop_columns(pos, train)
        salt_lake = self.salt_lake(pos)
        if salt_lake.get("applies") and pos.company in SALT_LAKE_COMPANIES:
            cols.value[cols.stop & cols.hexes({salt_lake["hex"]}, pos)] += SALT_LAKE_PLUS
        return cols

    # -- routes ---------------------------------------------------------------------------
    def reentry_forbidden(self, pos: Position, hex_: Hex) -> bool:
        return sum(1 for n in hex_.tile.nodes if n.kind == "city") < 2

    def span_bonuses(self, pos: Position, train: Train) -> tuple[SpanBonus, ...]:
        raw = (pos.state.get("bonus_stations") or {}).get(pos.company) or ()
        if isinstance(raw, str):
            raw = (raw,)
        home = pos.home_stops()
        if not home:
            return ()
        home_hex = home[0].rpartition("-")[0]
        rate = LATE_RATE if any(c in LATE_COLORS for c in pos.phase.colors) else EARLY_RATE
        out = []
        seen: set[str] = set()
        for k, entry in enumerate(raw):
            where = f"state.bonus_stations.{pos.company}[{k}]"
            hex_id, distance = bonus_station(entry, where)
            if hex_id in seen:
                continue
            seen.add(hex_id)
            if hex_id not in pos.hex_by_id:
                raise HexrailError(f"bonus station {hex_id} is not on the map", where=where)
            targets = tuple(f"{hex_id}-{n.index}" for n in pos.hex(hex_id).tile.nodes if n.is_stop)
            if not targets:
                raise HexrailError(f"bonus station {hex_id} has no station", where=where)
            if distance is None:  # the crow-fly distance when the charter's is not given
                distance = pos.layout.distance(home_hex, hex_id)
            out.append(SpanBonus(f"bonus {hex_id}", home, targets, rate * distance, PER_CROSSING))
        return tuple(out)

    # -- facts ----------------------------------------------------------------------------
    def salt_lake(self, pos: Position) -> dict[str, Any]:
        """Whether Salt Lake City's +20 applies: ``{"hex", "reached_by", "applies"}`` (empty
        when the map has no Salt Lake City)."""
        if self._salt_lake is not None and self._salt_lake[0] is pos:
            return self._salt_lake[1]
        hex_id = pos.state.get("salt_lake_city") or next(
            (h.id for h in pos.hexes if h.location == SALT_LAKE), None)
        fact: dict[str, Any] = {}
        if hex_id:
            if hex_id not in pos.hex_by_id:
                raise HexrailError("Salt Lake City is not on the map",
                                   where=f"state.salt_lake_city: {hex_id}")
            reached = {c: reaches(pos, c, hex_id) for c in SALT_LAKE_COMPANIES}
            fact = {"hex": hex_id, "reached_by": sorted(c for c, ok in reached.items() if ok),
                    "applies": all(reached.values()), "plus": SALT_LAKE_PLUS,
                    "for": list(SALT_LAKE_COMPANIES)}
        self._salt_lake = (pos, fact)
        return fact

    def facts(self, pos: Position) -> dict[str, Any]:
        fact = self.salt_lake(pos)
        return {"salt_lake_city": fact} if fact else {}


def bonus_station(entry: Any, where: str) -> tuple[str, int | None]:
    """A bonus station of ``state.bonus_stations``: a hex id, or ``{"hex": H, "d": distance}``
    with the distance printed on the charter. (hex, distance or None)."""
    if isinstance(entry, str):
        return entry, None
    if isinstance(entry, Mapping) and isinstance(entry.get("hex"), str):
        d = entry.get("d")
        if d is not None and (isinstance(d, bool) or not isinstance(d, int) or d < 1):
            raise HexrailError(f"charter distance d must be a whole number of hexes, 1 or more, "
                               f"not {d!r}", where=where)
        return entry["hex"], d
    raise HexrailError(f"a bonus station is a hex id or {{\"hex\": ..., \"d\": ...}}, not {entry!r}",
                       where=where)


def reaches(pos: Position, company: str, target_hex: str) -> bool:
    """Could `company` run a train to `target_hex`: is there a legal route, of any length, from
    a city holding one of its tokens to a stop of that hex? Legal as this profile's routes are:
    a walk over the compiled track (`hexrail.graph.track`) that visits no vertex twice and
    crosses each branch point (no reversing at a junction or switch), enters no tile twice
    except tiles with two or more cities, runs over no terminal track, and passes through no
    city full for the company (closed companies' markers block) and no offboard.

    A depth-first search that stops at the first such route; it tries first the ways that lie
    fewest chains from the target (what plain connectivity says), and gives up on a vertex the
    target cannot be reached from at all."""
    profile = Game1862USA(pos)
    graph = compile_track(pos, single_joins_double=profile.single_joins_double)
    noreenter = [profile.reentry_forbidden(pos, h) for h in pos.hexes]
    hexes = pos.hexes
    target = {v for v in range(graph.n_nodes)
              if graph.node_ref[v].rpartition("-")[0] == target_hex
              and hexes[int(graph.node_hex[v])].tile.node(int(graph.node_ref[v].rpartition("-")[2])).is_stop}
    closed = [False] * graph.n_vertices  # may not be passed through
    starts = []
    for v in range(graph.n_nodes):
        hex_ = hexes[int(graph.node_hex[v])]
        node = hex_.tile.node(int(graph.node_ref[v].rpartition("-")[2]))
        own = node.kind in ("city", "pass") and hex_.tokened_by(node.index, company)
        if own:
            starts.append(v)
        elif node.kind == "offboard" or (node.kind in ("city", "pass") and hex_.full_for(
                node.index, company, Profile.tokens_letting_by, pos.closed_companies)):
            closed[v] = True
    # Chains from the target (plain connectivity through passable vertices): the search order,
    # and its pruning — a vertex the target is not connected to leads nowhere.
    far = _distances(graph, target, closed)
    for v0 in starts:
        if v0 in target:
            return True
        if far.get(v0) is None:
            continue
        if _legal_route(graph, v0, target, closed, noreenter, far):
            return True
    return False


def _distances(graph, target: set[int], closed: list[bool]) -> dict[int, int]:
    """Chains from each vertex to the nearest target vertex, over vertices that may be passed."""
    far = {v: 0 for v in target}
    queue = deque(target)
    while queue:
        v = queue.popleft()
        for slot in range(int(graph.adj_ptr[v]), int(graph.adj_ptr[v + 1])):
            c, end = int(graph.adj_chain[slot]), int(graph.adj_end[slot])
            u = int(graph.chain_ends[c, 1 - end])
            if u not in far:
                far[u] = far[v] + 1
                if not closed[u]:  # a closed vertex is reached, but nothing lies beyond it
                    queue.append(u)
    return far


def _legal_route(graph, v0: int, target: set[int], closed: list[bool], noreenter: list[bool],
                 far: dict[int, int]) -> bool:
    """Is there a legal walk from node `v0` to a vertex of `target` (`reaches`)?"""
    n_nodes = graph.n_nodes
    marks = [0] * len(noreenter)  # times each hex was entered by the walk
    visited = {v0}
    marks[int(graph.node_hex[v0])] = 1

    def hexes_of(c: int, fwd: bool, cur: int) -> list[int] | None:
        """The hexes chain c enters, leaving hex `cur` (None: it enters a closed tile again)."""
        run = graph.chain_hexes[graph.chain_hex_ptr[c]:graph.chain_hex_ptr[c + 1]].tolist()
        if not fwd:
            run.reverse()
        entered = run[1:] if run and run[0] == cur else run
        seen: set[int] = set()
        for h in entered:
            if noreenter[h] and (marks[h] or h in seen):
                return None
            seen.add(h)
        return entered

    def options(v: int, arrived: tuple[int, bool] | None, cur: int):
        """The ways on from vertex v: (chain, forward, next vertex), nearest the target first."""
        out = []
        for slot in range(int(graph.adj_ptr[v]), int(graph.adj_ptr[v + 1])):
            c, end = int(graph.adj_chain[slot]), int(graph.adj_end[slot])
            u = int(graph.chain_ends[c, 1 - end])
            if u in visited or far.get(u) is None:
                continue
            if arrived is not None:
                a, afwd = arrived
                if v >= n_nodes:
                    if graph.chain_side[c, end] == graph.chain_side[a, 1 if afwd else 0]:
                        continue  # a branch point is crossed, never turned back at
                elif not may_pass(graph.chain_terminal[a, 1 if afwd else 0],
                                  graph.chain_terminal[c, end]):
                    continue  # terminal track ends the route; a town's stretch is not passed
            out.append((far[u], c, end == 0, u))
        out.sort()
        return [(c, fwd, u) for _, c, fwd, u in out]

    # Depth-first, with an explicit stack of (vertex, arrival, hex, remaining options, entered).
    stack = [(v0, None, int(graph.node_hex[v0]), options(v0, None, int(graph.node_hex[v0])), [])]
    while stack:
        v, arrived, cur, ways, entered = stack[-1]
        if not ways:
            stack.pop()
            visited.discard(v)
            for h in entered:
                marks[h] -= 1
            continue
        c, fwd, u = ways.pop(0)
        new = hexes_of(c, fwd, cur)
        if new is None:
            continue
        if u in target:
            return True
        if closed[u]:
            continue  # reached, but not passed through
        visited.add(u)
        for h in new:
            marks[h] += 1
        here = new[-1] if new else cur
        stack.append((u, (c, fwd), here, options(u, (c, fwd), here), new))
    return False
