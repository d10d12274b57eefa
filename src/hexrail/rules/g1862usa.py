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
contains the company's home station and a stop in a bonus hex earns
``rate × d − 10 × h``, never below zero: d is the crow-fly hex distance from the home hex to the
bonus hex, h the hex-side crossings along the route between the two, the rate 20 while the phase
has no brown or grey tiles and 30 from then on. Each bonus station pays once per round, to one
train; a train containing two bonus stations may earn both. The home station is the city of the
company's home hex holding its token (every city of that hex while none does), or the node a
``home`` reference names (``"F9-1"``).

**Salt Lake City.** Its value is raised by 20 for CPR and UP when both can reach it from one of
their tokens over track that passes through no city full of other companies' tokens (a walk
over the board's track, computed here). The plan reports whether it applied
(``Plan.stats["facts"]["salt_lake_city"]``).

**State** (`Position.state`):

- ``bonus_stations``: ``{company: [hex id, ...]}``, the bonus stations of each company;
- ``salt_lake_city``: the hex of Salt Lake City (default: the hex whose ``location`` is
  ``"Salt Lake City"``; none, no raise).

>>> Game1862USA().parse_train("6E", "t").rows[0].pay
6
"""

from __future__ import annotations

import re
from collections import deque
from typing import Any, ClassVar

from hexrail.errors import HexrailError
from hexrail.model.hexgrid import opposite
from hexrail.model.position import Hex, Position, Train
from hexrail.model.tile import Node
from hexrail.model.trains import TrainSpec
from hexrail.rules.base import Profile, SpanBonus, StopRule, register

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
        for hex_id in dict.fromkeys(str(h) for h in raw):
            if hex_id not in pos.hex_by_id:
                raise HexrailError("bonus station is not on the map",
                                   where=f"state.bonus_stations.{pos.company}: {hex_id}")
            targets = tuple(f"{hex_id}-{n.index}" for n in pos.hex(hex_id).tile.nodes if n.is_stop)
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


def _full_for(pos: Position, hex_: Hex, node: Node, company: str) -> bool:
    """Is `node` a city `company` may not pass through (closed companies' markers block), or
    an offboard?"""
    if node.kind not in ("city", "pass"):
        return node.kind == "offboard"
    return hex_.full_for(node.index, company, Profile.tokens_letting_by, pos.closed_companies)


def reaches(pos: Position, company: str, target_hex: str) -> bool:
    """Can `company` reach a node of `target_hex` from one of its tokens over track that passes
    through no node closed to it (a full foreign city, an offboard)? A walk over the tiles'
    paths, joined across hex sides by matching lanes; track may be reached from both ways."""
    at_node: dict[tuple[str, int], list[tuple[str, int, int]]] = {}
    at_side: dict[tuple[str, int, tuple[int, int]], list[tuple[str, int, int]]] = {}
    for h in pos.hexes:
        for k, p in enumerate(h.tile.paths):
            if p.ignore:
                continue
            for end_no, end in enumerate(p.ends):
                if end.is_edge:
                    at_side.setdefault((h.id, end.edge, end.lane), []).append((h.id, k, end_no))
                else:
                    at_node.setdefault((h.id, end.node), []).append((h.id, k, end_no))
    tokens = [(h.id, n.index) for h in pos.hexes for n in h.tile.nodes
              if n.kind in ("city", "pass") and h.tokened_by(n.index, company)]
    seen_nodes = set(tokens)
    seen_runs: set[tuple[str, int, int]] = set()
    queue = deque(tokens)
    while queue:
        node = queue.popleft()
        hex_id = node[0]
        if hex_id == target_hex:
            return True
        hex_ = pos.hex(hex_id)
        if node not in tokens and _full_for(pos, hex_, hex_.tile.node(node[1]), company):
            continue  # reached, but not passed through
        stack = list(at_node.get(node, ()))
        while stack:
            run = stack.pop()
            if run in seen_runs:
                continue
            seen_runs.add(run)
            h, k, entry = run
            out = pos.hex(h).tile.paths[k].ends[1 - entry]
            if not out.is_edge:
                there = (h, out.node)
                if there not in seen_nodes:
                    seen_nodes.add(there)
                    queue.append(there)
                continue
            nb = pos.neighbour(h, out.edge)
            if nb is None or nb not in pos.hex_by_id:
                continue
            width, lane = out.lane
            stack.extend(at_side.get((nb, opposite(out.edge), (width, width - 1 - lane)), ()))
    return False
