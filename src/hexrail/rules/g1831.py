"""1831: typed tokens (stations and rail yards), S, YD and MX trains, runs from token to token.

The rules are docs/rules.md (1831), from the rule book (sections 5.2.7 and 5.6); this module
states them as the profile hooks see them.

**Tokens.** City sites are typed, station (round) or rail yard (square), and a token is of its
site's type. A token's type is its flag (``{"company": "B&O", "flag": "yard"}``); an unflagged
token takes the type of its site, listed per city in the tile notation (``sites:station|yard``,
one per slot, in slot order), and is a station when the city lists none. Track rights bought
this round (``state.track_rights``) count as the company's own tokens.

**Trains.** ``N-S`` runs to stations only, ``N-YD`` to rail yards only, ``N-MX`` to both, at
least one of each (tallies `tally_limits` check), with optional caps per type:
``5-MX(3S,2YD)`` runs to at most 3 stations and 2 rail yards. Every train counts each token it
uses toward N (a stop's visit cost is the number of own tokens there of the train's types).

**Stops.** A route begins and ends at own tokens of a type the train may use (``StopRule.may_end``) and
is paid only there: per token used, the city's value plus the token's value — station
10/20/30, rail yard 20/30/50, from the start / after the first 5-train / after the first
9-train (the phase name is the largest train number bought so far; ``state.token_values``
overrides them). Every such token the route reaches counts and pays (mandatory stops); any
other city — a vacancy, or own tokens of the wrong type — is passed without pay or count (an
optional stop worth 0 where no route may end). A city full of other companies' tokens blocks
(the generic rule; a track right there makes it the company's own).

**Track.** A route may not use the same city hex twice (`reentry_forbidden` for every hex with a
city), except hexes flagged ``revisit`` (``state.revisit`` or a ``revisit`` icon: used twice, no
condition). Other hexes may be used again over different track. A single track at a hex side
joins every track of a double track facing it (5.6.2.4, `single_joins_double`). No two trains
share track (generic); trains may use the same tokens.

**Delaware** (`revisits`). The large city of ``state.delaware`` may be run to twice by one train
when it runs to both cities south of it between the two visits; each visit counts toward N and
pays city + token value. Decision: "run to" is reached as a token the train uses — the two
visits and the two south cities alike — and the second visit comes over track the route has
not used.

**City extensions.** A red hex of ``state.city_extensions`` (NYC, Cleveland, Buffalo) is part
of the city it extends: its stations and rail yards are that city's (a route reaching the city
uses them), the two are visited once (one stop group), and the city is full only when the
extension is full too.

**Track rights must be used** (`plan_rules`: `PlanRules.must_use`). Every right bought this
round must be used by some route or commuter run of the plan: run to by a train of its token's
type. When no plan uses them all, the plan uses as many as any plan can, then earns most
(decision), and names the rights left unused (``Plan.unused``, JSON ``"unused"``).

**Commuter runs** (`cyclic_runs`). A station train of size 5 or more may instead run a pattern
of ``state.commuter_runs`` whose every city holds an own station: it starts at the pattern's
first city (``start: "first"``, White Plains) or any (``"any"``, Baltimore ↔ Washington), visits
the cities in cycle order, each leg on track no earlier leg used, 3 to N visits (two would be
an ordinary route), each paying city + station value once, also in a city where the company has
two stations (`hexrail.rules.base.CyclicRun`). Decision: a leg passes through no city where the
train could end a route (an own station) and nothing that blocks. The solver weighs each run
against the train's routes; its track is closed to the other trains.

**State** (`Position.state`):

- ``track_rights``: the tokens bought as track rights this round, each of which the plan must
  use, ``[{"stop": "E5-0", "type": "yard"}]`` (a plain ``"E5-0"`` when every foreign token there
  is of one type);
- ``delaware``: ``{"hex": "H3", "south": ["G4", "H5"]}``, the Delaware large city's hex (one
  city) and the two city hexes south of it;
- ``city_extensions``: ``{"I1": "H2"}``, red hex → the city hex it extends (``"H2-1"`` names the
  city of a hex with several);
- ``revisit``: hexes a route may use twice, on no condition (``["H3"]``);
- ``token_values``: ``{"station": 20, "yard": 30}`` to override the values by phase;
- ``commuter_runs``: ``[{"name": "New York", "cycle": ["F2", "G3", "H4", "I5", "H4", "G3"],
  "start": "first"}, {"name": "Baltimore-Washington", "cycle": ["C9", "C11"], "start": "any"}]``
  (hex ids; the city holding the company's station in each).

>>> Game1831().parse_train("3-MX", "t").extra["tokens"]
('station', 'yard')
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from hexrail.errors import HexrailError
from hexrail.model.frozen import FrozenMap
from hexrail.model.position import Hex, Position, Train
from hexrail.model.tile import Node
from hexrail.model.trains import ALL_KINDS, UNLIMITED, Row, TrainSpec
from hexrail.rules.base import (ARRAY, MANDATORY, OBJECT, OPTIONAL, PASSABLE, CyclicRun, PlanRules,
                               Profile, Revisit, StopRule, register)

STATION, YARD = "station", "yard"
TOKEN_TYPES = (STATION, YARD)
TRAIN_TYPES = {"S": (STATION,), "YD": (YARD,), "MX": (STATION, YARD)}
COMMUTER_MIN = 5  # commuter runs: station trains of this size or more
COMMUTER_MIN_VISITS = 3  # two visits would be an ordinary route
TRAIN_SHAPE = re.compile(r"^(\d+)-(S|YD|MX)(?:\((\d+)S,(\d+)YD\))?$")

# Token values (station, yard) from the start, after the first 5-train, after the first 9-train.
TOKEN_VALUES = ((0, 10, 20), (5, 20, 30), (9, 30, 50))


def token_values(pos: Position) -> dict[str, int]:
    """The value of each token type in `pos`: by phase (the largest train number bought), or
    ``state.token_values``."""
    given = pos.state.get("token_values")
    if given:
        return {t: int(given.get(t, 0)) for t in TOKEN_TYPES}
    digits = re.match(r"\d+", str(pos.phase.name))
    bought = int(digits.group()) if digits else 2
    station = yard = 0
    for at_least, s, y in TOKEN_VALUES:
        if bought >= at_least:
            station, yard = s, y
    return {STATION: station, YARD: yard}


@register
class Game1831(Profile):
    """1831 routes, docs/rules.md (1831)."""

    state_types: ClassVar[dict[str, tuple[type, ...]]] = {
        "token_values": OBJECT, "track_rights": ARRAY, "city_extensions": OBJECT,
        "commuter_runs": ARRAY, "revisit": ARRAY, "delaware": OBJECT,
    }

    name: ClassVar[str] = "1831"
    description: ClassVar[str] = ("1831: stations and rail yards, N-S, N-YD and N-MX trains running "
                                  "token to token (city + token value per token used), track "
                                  "rights, one city hex once")
    train_types: ClassVar[tuple[str, ...]] = ("N-S", "N-YD", "N-MX")
    single_joins_double: ClassVar[bool] = True  # 5.6.2.4: single track meets both tracks

    def __init__(self, position: Position | None = None):
        super().__init__(position)
        self._own: tuple[Position, dict[tuple[str, int], tuple[str, ...]]] | None = None
        self._rights: list[tuple[tuple[str, int], str, str]] = []

    # -- trains ---------------------------------------------------------------------------
    def parse_train(self, spec: Any, where: str) -> TrainSpec:
        """``N-S``, ``N-YD``, ``N-MX`` or ``N-MX(aS,bYD)``; a rows object must carry its token
        types in ``extra.tokens``."""
        if isinstance(spec, (str, int)):
            m = TRAIN_SHAPE.match(str(spec).strip())
            if not m:
                raise HexrailError(f"1831 trains are N-S, N-YD or N-MX (caps as N-MX(aS,bYD)), "
                                   f"not {spec!r}", where=where)
            n, kind, cap_s, cap_y = m.groups()
            extra: dict[str, Any] = {"tokens": TRAIN_TYPES[kind]}
            if cap_s is not None:
                if kind != "MX":
                    raise HexrailError("only mixed trains have caps per token type", where=where)
                extra["caps"] = {STATION: int(cap_s), YARD: int(cap_y)}
            return TrainSpec(rows=(Row(ALL_KINDS, UNLIMITED, int(n)),), extra=FrozenMap(extra))
        parsed = super().parse_train(spec, where)
        tokens = parsed.extra.get("tokens")
        if not tokens or any(t not in TOKEN_TYPES for t in tokens):
            raise HexrailError(f"an 1831 train's extra.tokens lists the token types it runs to "
                               f"({', '.join(TOKEN_TYPES)})", where=where)
        return parsed

    @staticmethod
    def train_tokens(train: Train) -> tuple[str, ...]:
        """The token types `train` may run to."""
        return tuple(train.spec.extra.get("tokens") or TOKEN_TYPES)

    # -- tokens ---------------------------------------------------------------------------
    def own_tokens(self, pos: Position) -> dict[tuple[str, int], tuple[str, ...]]:
        """Per city ``(hex, node index)``, the types of the company's own tokens there (track
        rights included), one entry per token."""
        if self._own is not None and self._own[0] is pos:
            return self._own[1]
        own: dict[tuple[str, int], list[str]] = {}
        for h in pos.hexes:
            for index, slots in h.tokens:
                node = h.tile.node(index)
                for k, token in enumerate(slots):
                    if token is not None and token.company == pos.company:
                        own.setdefault((h.id, index), []).append(token_type(h, node, k, token.flag))
        self._rights = []
        for k, raw in enumerate(pos.state.get("track_rights") or ()):
            where = f"state.track_rights[{k}]"
            ref = raw if isinstance(raw, str) else raw.get("stop")
            hex_id, _, index = str(ref).rpartition("-")
            if hex_id not in pos.hex_by_id or not index.isdigit():
                raise HexrailError(f"track right at {ref!r}: not a city on the map", where=where)
            h = pos.hex(hex_id)
            node = h.node(int(index))
            foreign = {token_type(h, node, s, t.flag) for s, t in enumerate(h.slots(node.index))
                       if t is not None and t.company != pos.company}
            kind = None if isinstance(raw, str) else raw.get("type")
            if kind is None:
                if len(foreign) != 1:
                    raise HexrailError(f"track right at {ref}: say which token type "
                                       f"(the city holds {sorted(foreign) or 'no foreign tokens'})",
                                       where=where)
                kind = foreign.pop()
            elif kind not in foreign:
                raise HexrailError(f"track right at {ref}: no other company's {kind} there",
                                   where=where)
            own.setdefault((hex_id, node.index), []).append(kind)
            name = f"track right {hex_id}-{node.index} ({kind})"
            taken = sum(1 for _, _, n in self._rights if n.startswith(name))
            self._rights.append(((hex_id, node.index), kind, name + (f" #{taken + 1}" if taken else "")))
        # an extension's tokens are its city's (the red NYC, Cleveland and Buffalo hexes)
        ext = self.extensions(pos)
        merged: dict[tuple[str, int], list[str]] = {}
        for key, types in own.items():
            merged.setdefault(ext.get(key, key), []).extend(types)
        self._rights = [(ext.get(at, at), kind, name) for at, kind, name in self._rights]
        out = {key: tuple(types) for key, types in merged.items()}
        self._own = (pos, out)
        return out

    def extensions(self, pos: Position) -> dict[tuple[str, int], tuple[str, int]]:
        """``state.city_extensions``: per city of an extension hex, the city it is part of."""
        raw = pos.state.get("city_extensions") or {}
        if not isinstance(raw, Mapping):
            raise HexrailError("give {red hex: city hex}", where="state.city_extensions")
        out: dict[tuple[str, int], tuple[str, int]] = {}
        for red, target in raw.items():
            where = f"state.city_extensions.{red}"
            if red not in pos.hex_by_id or not pos.hex(red).tile.cities:
                raise HexrailError(f"extension {red} is not a hex with a city on the map",
                                   where=where)
            main_hex, _, index = str(target).partition("-")
            if main_hex not in pos.hex_by_id or main_hex == red:
                raise HexrailError(f"{target!r} is not another hex on the map", where=where)
            cities = pos.hex(main_hex).tile.cities
            if index:
                if not index.isdigit() or all(c.index != int(index) for c in cities):
                    raise HexrailError(f"{target} is not a city", where=where)
                main = (main_hex, int(index))
            elif len(cities) == 1:
                main = (main_hex, cities[0].index)
            else:
                raise HexrailError(f"{main_hex} holds {len(cities)} cities; name one "
                                   f"({main_hex}-i)", where=where)
            for c in pos.hex(red).tile.cities:
                out[(red, c.index)] = main
        return out

    def rights(self, pos: Position) -> list[tuple[tuple[str, int], str, str]]:
        """The track rights bought this round: (city, token type, name), in input order."""
        self.own_tokens(pos)
        return self._rights

    def plan_rules(self, pos: Position) -> PlanRules:
        """Every track right bought this round must be used by a route or commuter run."""
        return PlanRules(must_use=tuple(name for _, _, name in self.rights(pos)))

    def usable(self, pos: Position, train: Train, hex_: Hex, node: Node) -> tuple[str, ...]:
        """The own tokens at `node` the train may run to (one entry per token)."""
        if node.kind != "city":
            return ()
        types = self.train_tokens(train)
        return tuple(t for t in self.own_tokens(pos).get((hex_.id, node.index), ()) if t in types)

    # -- stops ----------------------------------------------------------------------------
    def stop_rule(self, pos: Position, train: Train, hex_: Hex, node: Node) -> StopRule:
        """A city with own tokens the train may use is a route end that must count: per token,
        the city's value plus the token's, one visit unit and one tally of its type; any other
        stop is passed without pay or count. Own tokens, track rights included, never block."""
        rule = super().stop_rule(pos, train, hex_, node)
        key = (hex_.id, node.index)
        ext = self.extensions(pos)
        parts = [key] + [k for k, main in ext.items() if main == key]  # one city over hexes
        if key in self.own_tokens(pos) or (len(parts) > 1 and not all(
                pos.hex(h).full_for(i, pos.company, self.tokens_letting_by, pos.closed_companies)
                for h, i in parts)):
            rule = rule._replace(block=PASSABLE)
        if len(parts) > 1 or key in ext:  # one visit for the city and its extensions
            rule = rule._replace(groups=(f"city {ext.get(key, key)[0]}",))
        if not node.is_stop:
            return rule
        used = self.usable(pos, train, hex_, node)
        values = token_values(pos)
        uses = tuple(name for at, kind, name in self.rights(pos)
                     if at == (hex_.id, node.index) and kind in used)
        return rule._replace(
            uses=uses,
            value=sum(node.value(pos.phase.colors) + values[t] for t in used),
            count=MANDATORY if used else OPTIONAL, cost=len(used) or node.visit_cost,
            may_end=bool(used), anchor=bool(used),
            tallies=tuple((t, used.count(t)) for t in TOKEN_TYPES if t in used))

    def tally_limits(self, pos: Position, train: Train) -> tuple[tuple[str, int, int], ...]:
        types = self.train_tokens(train)
        if len(types) < 2:
            return ()
        caps = train.spec.extra.get("caps") or {}
        return tuple((t, 1, int(caps.get(t, UNLIMITED))) for t in types)

    # -- routes ---------------------------------------------------------------------------
    def cyclic_runs(self, pos: Position, train: Train) -> tuple[CyclicRun, ...]:
        """Commuter runs: for station trains of size 5 or more, each pattern of
        ``state.commuter_runs`` whose every city holds an own station."""
        if self.train_tokens(train) != (STATION,) or train.spec.rows[0].visit < COMMUTER_MIN:
            return ()
        stations = {key for key, types in self.own_tokens(pos).items() if STATION in types}
        out = []
        for k, raw in enumerate(pos.state.get("commuter_runs") or ()):
            where = f"state.commuter_runs[{k}]"
            cycle = raw.get("cycle") or ()
            start = raw.get("start", "first")
            if len(cycle) < 2 or start not in ("first", "any"):
                raise HexrailError("a commuter run needs a cycle of 2+ hexes and start 'first' or "
                                   "'any'", where=where)
            refs = []
            for hex_id in cycle:
                if hex_id not in pos.hex_by_id:
                    raise HexrailError(f"commuter run city {hex_id} is not on the map", where=where)
                own = [i for (h, i) in sorted(stations) if h == hex_id]
                if own:
                    refs.append(f"{hex_id}-{own[0]}")
            if len(refs) < len(cycle):
                continue  # a station in every city of the pattern is needed
            starts = (0,) if start == "first" else tuple(range(len(cycle)))
            # each visit uses one station token, also where the company has two
            station = token_values(pos)[STATION]
            values = tuple(pos.hex(h).tile.node(int(i)).value(pos.phase.colors) + station
                           for h, _, i in (ref.rpartition("-") for ref in refs))
            out.append(CyclicRun(str(raw.get("name", f"commuter run {k}")), tuple(refs), starts,
                                 train.spec.rows[0].visit, values, COMMUTER_MIN_VISITS))
        return tuple(out)

    def reentry_forbidden(self, pos: Position, hex_: Hex) -> bool:
        if not hex_.tile.cities:
            return False
        delaware = self.delaware(pos)
        if delaware and hex_.id == delaware.stop.rpartition("-")[0]:
            return False  # entered again only to run to the large city a second time
        return hex_.id not in (pos.state.get("revisit") or ()) and "revisit" not in hex_.icons

    def revisits(self, pos: Position) -> tuple[Revisit, ...]:
        delaware = self.delaware(pos)
        return (delaware,) if delaware else ()

    def delaware(self, pos: Position) -> Revisit | None:
        """The Delaware large city (``state.delaware``): run to twice by one train when both
        cities south of it are run to between the two visits."""
        raw = pos.state.get("delaware")
        if not raw:
            return None
        where = "state.delaware"
        if not isinstance(raw, Mapping) or not isinstance(raw.get("hex"), str):
            raise HexrailError('give {"hex": H, "south": [A, B]}', where=where)
        hex_id = raw["hex"]
        if hex_id not in pos.hex_by_id:
            raise HexrailError(f"{hex_id} is not on the map", where=f"{where}.hex")
        cities = pos.hex(hex_id).tile.cities
        if len(cities) != 1:
            raise HexrailError(f"{hex_id} must hold one city, the large city (it holds "
                               f"{len(cities)})", where=f"{where}.hex")
        south = raw.get("south")
        if (not isinstance(south, (list, tuple)) or len(south) != 2
                or not all(isinstance(h, str) for h in south)):
            raise HexrailError("south lists the two city hexes south of Delaware",
                               where=f"{where}.south")
        for h in south:
            if h not in pos.hex_by_id or not pos.hex(h).tile.cities or h == hex_id:
                raise HexrailError(f"{h} is not a city hex on the map (other than Delaware)",
                                   where=f"{where}.south")
        return Revisit(f"{hex_id}-{cities[0].index}", tuple(south))


def token_type(hex_: Hex, node: Node, slot: int, flag: str) -> str:
    """The type of the token in `slot` of `node`: its flag, else its site's type (station when
    the city lists no sites)."""
    if flag in TOKEN_TYPES:
        return flag
    sites = [s for s in str(node.extra.get("sites", "")).split("|") if s]
    if slot < len(sites):
        if sites[slot] not in TOKEN_TYPES:
            raise HexrailError(f"site type {sites[slot]!r} is not one of {TOKEN_TYPES}",
                               where=f"hex {hex_.id} city n{node.index}")
        return sites[slot]
    return STATION
