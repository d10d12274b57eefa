"""Train distance specs: rows of stop kinds a train may visit and is paid for.

A spec is a tuple of `Row`s. A route may *visit* up to ``row.visit`` stops of the row's kinds and
is *paid* for the best ``row.pay`` of them; a stop may use any row that lists its kind (the
assignment of stops to rows is chosen in the route's favour). Shorthands (docs/rules.md (generic)):

========  ==========================================================
``N``     visit N stops of any kind, all pay
``N+M``   N cities/offboards plus M towns/halts
``D``     unlimited
``x/y``   visit y, pay the best x
``NE``    express: visit any number, pay the best N
``NH``    hex train: at most N hex-side crossings, every stop pays
========  ==========================================================

>>> [(sorted(r.kinds), r.pay, r.visit) for r in parse_spec("3+1").rows]
[(['city', 'offboard'], 999, 3), (['halt', 'town'], 999, 1)]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from hexrail.errors import HexrailError
from hexrail.model.frozen import FrozenMap
from hexrail.model.tile import STOP_KINDS

UNLIMITED = 999
ALL_KINDS = frozenset(STOP_KINDS)


@dataclass(frozen=True, slots=True)
class Row:
    kinds: frozenset[str]
    pay: int
    visit: int
    multiplier: int = 1


@dataclass(frozen=True, slots=True)
class TrainSpec:
    """What a train may visit and what it is paid for."""

    rows: tuple[Row, ...]
    hexes: int = 0  # > 0: a hex train limited to this many hex-side crossings
    multiplier: int = 1
    kind_multipliers: FrozenMap = field(default_factory=FrozenMap)
    min_stops: int = 2
    requires_token: bool = True
    track: str = "broad"
    # Title-specific facts about the train that a rules profile reads (e.g. the token types it
    # may run to); plain JSON values.
    extra: FrozenMap = field(default_factory=FrozenMap)

    def __post_init__(self) -> None:
        if not self.rows:
            raise HexrailError("a train needs at least one distance row")
        for kind in ALL_KINDS:
            # A kind paid in rows of different multipliers would make the row choice a pricing
            # decision; no title needs it, so it is refused rather than guessed.
            if len({r.multiplier for r in self.rows if kind in r.kinds}) > 1:
                raise HexrailError(f"rows paying {kind}s have different multipliers")
        for row in self.rows:
            if not row.kinds or not row.kinds <= ALL_KINDS:
                raise HexrailError(f"row kinds {sorted(row.kinds)} must be among {sorted(ALL_KINDS)}")
            if row.pay < 0 or row.visit < 0:
                raise HexrailError(f"row pays {row.pay} of {row.visit}: need non-negative numbers")

    def factor(self, kind: str) -> int:
        """What a paid stop of `kind` is multiplied by: the whole-train multiplier, the kind's
        multiplier and the multiplier of the rows that pay that kind."""
        rows = {row.multiplier for row in self.rows if kind in row.kinds}
        row_factor = rows.pop() if len(rows) == 1 else 1
        return self.multiplier * int(self.kind_multipliers.get(kind, 1)) * row_factor

    @property
    def unlimited(self) -> bool:
        return all(r.visit >= UNLIMITED for r in self.rows)

    @property
    def rows_share_kinds(self) -> bool:
        """Do two rows hold one kind while one of them pays fewer than it visits? Then a
        route's paid stops depend on how its stops are placed in the rows
        (`hexrail.search.rows`)."""
        if not any(r.pay < r.visit for r in self.rows):
            return False
        kinds = [k for r in self.rows for k in r.kinds]
        return len(kinds) > len(set(kinds))


# Trains that pay every stop they visit have no pay limit: only visit units limit them, so a
# stop with visit cost 0 (some mines and ports) rides free and still pays, as on 18xx.games.
_SHORTHANDS: list[tuple[re.Pattern, Any]] = [
    (re.compile(r"^(\d+)$"), lambda n: (Row(ALL_KINDS, UNLIMITED, int(n)),)),
    (re.compile(r"^(\d+)\+(\d+)$"), lambda n, m: (
        Row(frozenset({"city", "offboard"}), UNLIMITED, int(n)),
        Row(frozenset({"town", "halt"}), UNLIMITED, int(m)),
    )),
    (re.compile(r"^(\d+)/(\d+)$"), lambda x, y: (Row(ALL_KINDS, int(x), int(y)),)),
    (re.compile(r"^(\d+)E$"), lambda n: (Row(ALL_KINDS, int(n), UNLIMITED),)),
    (re.compile(r"^D$"), lambda: (Row(ALL_KINDS, UNLIMITED, UNLIMITED),)),
]
_HEX_TRAIN = re.compile(r"^(\d+)H$")


def parse_spec(spec: Any, *, where: str = "train") -> TrainSpec:
    """Parse a shorthand string or a ``{"rows": [...], ...}`` object into a `TrainSpec`."""
    if isinstance(spec, TrainSpec):
        return spec
    if isinstance(spec, int) and not isinstance(spec, bool):
        spec = str(spec)
    if isinstance(spec, str):
        text = spec.strip()
        if m := _HEX_TRAIN.match(text):
            return TrainSpec(rows=(Row(ALL_KINDS, UNLIMITED, UNLIMITED),), hexes=int(m.group(1)))
        for pattern, build in _SHORTHANDS:
            if m := pattern.match(text):
                rows = build(*m.groups())
                _check_rows(rows, where)
                return TrainSpec(rows=rows)
        raise HexrailError(
            f"train spec {spec!r} does not parse; expected N, N+M, D, x/y, NE, NH or a rows object",
            where=where)
    if isinstance(spec, dict) or isinstance(spec, FrozenMap):
        return _parse_rows_object(spec, where)
    raise HexrailError(f"train spec must be a string or an object, not {spec!r}", where=where)


def _check_rows(rows: tuple[Row, ...], where: str) -> None:
    for row in rows:
        if row.visit == 0 and row.pay == 0 and len(rows) == 1:
            raise HexrailError("a train must be able to visit at least one stop", where=where)


def _as_int(value: Any, field_name: str, where: str, default: int) -> int:
    if value is None:
        return default
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise HexrailError(f"{field_name} must be a non-negative integer, not {value!r}", where=where)
    return value


def _parse_rows_object(obj: Any, where: str) -> TrainSpec:
    rows_in = obj.get("rows")
    if not isinstance(rows_in, (list, tuple)) or not rows_in:
        raise HexrailError("a rows object needs a non-empty 'rows' list", where=where)
    rows = []
    for k, row in enumerate(rows_in):
        here = f"{where}.rows[{k}]"
        if not isinstance(row, (dict, FrozenMap)):
            raise HexrailError("each row must be an object", where=here)
        kinds = row.get("nodes", sorted(ALL_KINDS))
        if isinstance(kinds, str) or not all(k in ALL_KINDS for k in kinds):
            raise HexrailError(f"nodes must list stop kinds among {sorted(ALL_KINDS)}", where=here)
        # pay may exceed visit: stops with visit cost 0 use no visit units but still pay
        pay = _as_int(row.get("pay"), "pay", here, UNLIMITED)
        visit = _as_int(row.get("visit"), "visit", here, pay)
        rows.append(Row(frozenset(kinds), min(pay, UNLIMITED), min(visit, UNLIMITED),
                        _as_int(row.get("multiplier"), "multiplier", here, 1)))
    kind_mult = obj.get("kind_multipliers") or {}
    for kind, mult in dict(kind_mult).items():
        if kind not in ALL_KINDS:
            raise HexrailError(f"kind_multipliers names unknown kind {kind!r}", where=where)
        _as_int(mult, f"kind_multipliers.{kind}", where, 1)
    try:
        return TrainSpec(
            rows=tuple(rows),
            hexes=_as_int(obj.get("hexes"), "hexes", where, 0),
            multiplier=_as_int(obj.get("multiplier"), "multiplier", where, 1),
            kind_multipliers=FrozenMap(kind_mult),
            min_stops=_as_int(obj.get("min_stops"), "min_stops", where, 2),
            requires_token=bool(obj.get("requires_token", True)),
            track=str(obj.get("track", "broad")),
            extra=FrozenMap(obj.get("extra") or {}),
        )
    except HexrailError as err:
        raise HexrailError(str(err), where=where) from None
