"""The board state one company runs its trains on: the value everything else starts from."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from functools import cached_property
from operator import attrgetter, itemgetter
from typing import Any, Callable

from hexrail.errors import HexrailError
from hexrail.model.frozen import FrozenMap
from hexrail.model.hexgrid import Layout, name_parts
from hexrail.model.memo import ByIdentity
from hexrail.model.tile import Node, Tile, Token
from hexrail.model.trains import TrainSpec


@dataclass(frozen=True, slots=True)
class Hex:
    """One map hex with its tile (already rotated) and the tokens in its cities.

    ``extra_tokens`` are tokens in a city outside its slots (1870's destination tokens): they
    count as their company's station there but never fill the city.
    """

    id: str
    tile: Tile = field(default_factory=Tile)
    tokens: tuple[tuple[int, tuple[Token | None, ...]], ...] = ()  # (city node index, slots)
    icons: tuple[str, ...] = ()  # map icons and markers on the hex (tile icons included)
    neighbours: tuple[str | None, ...] | None = None  # explicit routing neighbours per side
    location: str | None = None
    extra_tokens: tuple[tuple[int, tuple[Token, ...]], ...] = ()  # (city node index, tokens)

    def slots(self, node_index: int) -> tuple[Token | None, ...]:
        for index, slots in self.tokens:
            if index == node_index:
                return slots
        return ()

    def extras(self, node_index: int) -> tuple[Token, ...]:
        for index, tokens in self.extra_tokens:
            if index == node_index:
                return tokens
        return ()

    def full_for(self, node_index: int, company: str, lets_by: frozenset[str] = frozenset({"neutral"}),
                 closed: frozenset[str] = frozenset()) -> bool:
        """Is this city closed to `company` passing through: no free slot (a city of no slots
        has none), no station of `company`, and no token that lets trains by? A token lets
        trains by when its flag is in `lets_by` (by default only ``neutral``, as the
        18xx.games engine's ``City#blocks?``); a token of a company in `closed` counts as
        ``flipped``."""
        slots = self.slots(node_index)
        if len(slots) < self.node(node_index).slots or self.tokened_by(node_index, company):
            return False
        return all(t is not None and ("flipped" if t.company in closed else t.flag) not in lets_by
                   for t in slots)

    def tokened_by(self, node_index: int, company: str) -> bool:
        """Does `company` have a station in this city, in a slot or as an extra token?"""
        return any(t is not None and t.company == company
                   for t in self.slots(node_index) + self.extras(node_index))

    def node(self, index: int) -> Node:
        try:
            return self.tile.node(index)
        except KeyError:
            raise HexrailError(f"no node n{index}", where=f"hex {self.id}") from None

    @property
    def impassable(self) -> frozenset[int]:
        return frozenset(b.edge for b in self.tile.borders if b.type == "impassable")


@dataclass(frozen=True, slots=True)
class Company:
    id: str
    home: tuple[str, ...] = ()  # hex ids or node references ("E5-0")
    name: str = ""
    closed: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.home, str):  # one home, as a Python caller writes it
            object.__setattr__(self, "home", (self.home,))


@dataclass(frozen=True, slots=True)
class Train:
    id: str
    name: str
    spec: TrainSpec
    # Stop values that differ for this train, by node reference ("E5-0" → 80).
    revenue_overrides: FrozenMap = field(default_factory=FrozenMap)


@dataclass(frozen=True, slots=True)
class Phase:
    name: str = "1"
    colors: tuple[str, ...] = ("yellow",)


@dataclass(frozen=True, slots=True)
class Rules:
    profile: str = "generic"
    options: FrozenMap = field(default_factory=FrozenMap)


def _hex_alone(h: Hex) -> tuple[frozenset[str], frozenset[str]]:
    """Checks what a hex says on its own (its name parses; it lists six neighbours, if any; its
    tokens sit on cities with room for them); returns the neighbours it names and the
    companies of its tokens, for the checks against the rest of the position."""
    name_parts(h.id)
    if h.neighbours is not None and len(h.neighbours) != 6:
        raise HexrailError("neighbours must list six entries", where=f"hex {h.id}")
    companies = set()
    for label, placed in (("tokens", h.tokens), ("extra tokens", h.extra_tokens)):
        for index, slots in placed:
            node = h.node(index)
            if node.kind not in ("city", "pass"):
                raise HexrailError(f"{label} placed on a {node.kind}", where=f"hex {h.id} city n{index}")
            if label == "tokens" and len(slots) > node.slots:
                raise HexrailError(f"{len([s for s in slots if s])} tokens in {node.slots} slots",
                                   where=f"hex {h.id} city n{index}")
            companies.update(t.company for t in slots if t is not None)
    return frozenset(nb for nb in h.neighbours or () if nb is not None), frozenset(companies)


# readers share repeated hexes (`hexrail.io.g18xx.reader`): each is checked once
_ALONE = ByIdentity(_hex_alone, limit=20_000)
_ID, _FIRST, _SECOND = attrgetter("id"), itemgetter(0), itemgetter(1)


def _unknown_token(h: Hex, known: set[str]) -> None:
    for label, placed in (("token", h.tokens), ("extra token", h.extra_tokens)):
        for index, slots in placed:
            for token in slots:
                if token is not None and token.company not in known:
                    raise HexrailError(f"{label} of unknown company {token.company!r}",
                                       where=f"hex {h.id} city n{index}")


@dataclass(frozen=True, repr=False)
class Position:
    """A board, the operating company and its trains, the phase and the rules profile.

    Validated on construction: every token names a known company and fits its city, every
    explicit neighbour is on the map, train ids are unique.
    """

    layout: Layout
    hexes: tuple[Hex, ...]
    company: str
    companies: tuple[Company, ...]
    trains: tuple[Train, ...]
    phase: Phase = field(default_factory=Phase)
    rules: Rules = field(default_factory=Rules)
    state: FrozenMap = field(default_factory=FrozenMap)  # title-specific facts (profiles read them)
    meta: FrozenMap = field(default_factory=FrozenMap, compare=False, hash=False)

    def __repr__(self) -> str:
        trains = " ".join(t.name for t in self.trains) or "none"
        return (f"Position({self.rules.profile}: {self.company}, {len(self.hexes)} hexes, "
                f"trains {trains})")

    def __post_init__(self) -> None:
        ids = list(map(_ID, self.hexes))
        by_id = dict(zip(ids, self.hexes))
        if len(by_id) != len(ids):
            dup = next(i for i in ids if ids.count(i) > 1)
            raise HexrailError("hex listed twice", where=f"hex {dup}")
        self.__dict__["hex_by_id"] = by_id  # (`hex_by_id`, made here already)
        alone = _ALONE.many(self.hexes)
        known = {c.id for c in self.companies}
        if self.company not in known:
            raise HexrailError(f"operating company {self.company!r} is not among the companies",
                               where="company")
        train_ids = [t.id for t in self.trains]
        if len(set(train_ids)) != len(train_ids):
            raise HexrailError("two trains share an id", where="trains")
        # all hexes at once; hex by hex only to name a fault
        if not (frozenset().union(*map(_FIRST, alone)) <= by_id.keys()
                and frozenset().union(*map(_SECOND, alone)) <= known):
            for h, (neighbours, companies) in zip(self.hexes, alone):
                if not neighbours <= by_id.keys():
                    nb = next(nb for nb in h.neighbours if nb is not None and nb not in by_id)
                    raise HexrailError(f"neighbour {nb} is not on the map", where=f"hex {h.id}")
                if not companies <= known:
                    _unknown_token(h, known)
        for c in self.companies:
            for home in c.home:
                hex_id, sep, index = home.rpartition("-")
                if not sep:
                    hex_id = home
                if hex_id not in by_id:
                    raise HexrailError(f"home {home} is not on the map", where=f"company {c.id}")
                if sep and not (index.isdigit() and any(
                        n.index == int(index) and n.kind == "city" for n in by_id[hex_id].tile.nodes)):
                    raise HexrailError(f"home {home} names no city of {hex_id} (a hex id, or "
                                       f"HEX-i for its city node i)", where=f"company {c.id}")

    def derived(self, key: tuple, make: Callable[..., Any], *args: Any) -> Any:
        """``make(self, *args)``, made once per `key` for this position (a rules profile asks
        the same facts of the state for every node and train: `hexrail.rules.base.per_position`).
        A failure is not kept: it is raised again on the next call."""
        memo = self.__dict__.get("_derived")
        if memo is None:
            memo = self.__dict__["_derived"] = {}
        try:
            return memo[key]
        except KeyError:
            value = memo[key] = make(self, *args)
            return value

    @cached_property
    def hex_by_id(self) -> dict[str, Hex]:
        return {h.id: h for h in self.hexes}

    def hex(self, hex_id: str) -> Hex:
        try:
            return self.hex_by_id[hex_id]
        except KeyError:
            raise HexrailError("no such hex on the map", where=f"hex {hex_id}") from None

    @property
    def closed_companies(self) -> frozenset[str]:
        """Companies marked closed (their tokens are flipped markers)."""
        return frozenset(c.id for c in self.companies if c.closed)

    def operating(self) -> Company:
        return next(c for c in self.companies if c.id == self.company)

    def home_stops(self) -> tuple[str, ...]:
        """The operating company's home station as node references: the nodes its ``home``
        names, or in each home hex the cities holding its token (every city of the hex while
        none does)."""
        out: list[str] = []
        for home in self.operating().home:
            if "-" in home:
                out.append(home)
                continue
            hex_ = self.hex(home)
            cities = [n for n in hex_.tile.nodes if n.kind == "city"]
            own = [n for n in cities if hex_.tokened_by(n.index, self.company)]
            out.extend(f"{home}-{n.index}" for n in own or cities)
        return tuple(dict.fromkeys(out))

    def neighbour(self, hex_id: str, edge: int) -> str | None:
        """The hex track leaving side `edge` of `hex_id` continues into, or None."""
        h = self.hex(hex_id)
        if h.neighbours is not None:
            return h.neighbours[edge]
        if edge in h.impassable:
            return None
        nb = self.layout.neighbour(hex_id, edge)
        other = self.hex_by_id.get(nb)
        if other is None or (edge + 3) % 6 in other.impassable:
            return None
        return nb

    def with_tile(self, hex_id: str, tile: Tile) -> Position:
        """A copy with `tile` placed on `hex_id` (tokens kept)."""
        self.hex(hex_id)
        hexes = tuple(replace(h, tile=tile) if h.id == hex_id else h for h in self.hexes)
        return replace(self, hexes=hexes)

    def with_trains(self, trains: tuple[Train, ...]) -> Position:
        trains = tuple(trains)
        if len({t.id for t in trains}) != len(trains):
            raise HexrailError("two trains share an id", where="trains")
        return self.unchecked(trains=trains)

    def unchecked(self, **changes: Any) -> Position:
        """A copy with `changes` made, not validated again: for changes that keep what the
        validation checks (the trains' specs, the track's flags; `hexrail.rules.base.ruled`).
        Validating a board again costs more than many a solve."""
        new = copy.copy(self)
        for cached in ("hex_by_id", "_derived") if "hexes" in changes else ("_derived",):
            new.__dict__.pop(cached, None)
        for name, value in changes.items():
            object.__setattr__(new, name, value)
        return new

    def option(self, name: str, default: Any = None) -> Any:
        return self.rules.options.get(name, default)

    def _repr_svg_(self) -> str:
        """Jupyter shows a position as its board (`hexrail.render`)."""
        from hexrail.render import render_svg

        return render_svg(self)
