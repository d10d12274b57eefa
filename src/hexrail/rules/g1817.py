"""1817 (../shared/rules/titles/1817.md); 18USA builds on it.

Plain N trains (2, 2+, 3 … 8): every visited stop counts and pays. Beyond the generic rules:

=============  =====================================================================  ==========
rule           what                                                                   state
=============  =====================================================================  ==========
bridges        +10 per paid stop on a hex with a ``bridge`` marker, for every company  ``bridge_bonus``
mines          +10 per distinct ``mine`` hex whose track the route uses (`TrackBonus`)  ``mine_bonus``
ranches        +10 per distinct ``ranch`` hex, likewise                                 ``ranch_bonus``
modern trains  7 trains +10, 8 trains +20 per paid city with the company's token       ``modern_trains``
=============  =====================================================================  ==========

A route visits one stop per hex: 18xx.games lists the hexes of the nodes its connections join
(a node once, where one connection ends and the next begins) and refuses a route naming a hex
twice, so New York's two cities never share a route (`StopRule.groups`). A route may pass a
junction (the centre of a Lawson tile) again by other track, as the engine lets it (it checks
repeated nodes among the stops only).

Markers: from the state's lists of hexes, else from the hexes' assignments (``assignments``).
Routes may not start or end on a mine or ranch hex, but those hold plain track only: no route
can, and nothing checks it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from hexrail.errors import HexrailError
from hexrail.model.position import Hex, Position, Train
from hexrail.model.tile import Node
from hexrail.rules.base import (OBJECT, Bonus, Profile, RouteBonus, StopRule, TrackBonus, register)
from hexrail.rules.columns import KIND_INDEX, StopColumns

BRIDGE, MINE, RANCH = "bridge", "mine", "ranch"
PER_MARKER = 10
MODERN = {7: 10, 8: 20}  # per paid city with the company's token, by train distance


@register
class Game1817(Profile):
    """1817: bridge, mine and ranch markers, modern trains, one stop per hex."""

    name = "1817"
    description = ("1817: N trains; bridges +10 per paid stop, mines and ranches +10 per hex the "
                   "track uses, modern 7/8 trains +10/+20 per token city, one stop per hex")
    junctions_pass_twice = True  # 18xx.games: Lawson tiles' junctions, by other track
    state_types = {"bridge_bonus": OBJECT, "mine_bonus": OBJECT, "ranch_bonus": OBJECT,
                   "modern_trains": OBJECT, "assignments": OBJECT}

    def stop_rule(self, pos: Position, train: Train, hex_: Hex, node: Node) -> StopRule:
        rule = super().stop_rule(pos, train, hex_, node)
        if not node.is_stop:
            return rule
        rule = rule._replace(groups=rule.groups + (f"hex {hex_.id}",))
        extra = _modern(pos, train)
        if extra and node.kind == "city" and hex_.tokened_by(node.index, pos.company):
            rule = rule._replace(value=rule.value + extra)
        return rule

    def stop_columns(self, pos: Position, train: Train) -> StopColumns:
        cols = super().stop_columns(pos, train)
        for i in np.flatnonzero(cols.stop).tolist():
            cols.groups[i] = cols.groups.get(i, ()) + (f"hex {cols.refs[i].rpartition('-')[0]}",)
        extra = _modern(pos, train)
        if extra:
            cols.value[cols.stop & (cols.kind == KIND_INDEX["city"]) & cols.anchor] += extra
        return cols

    def hex_tags(self, pos: Position, train: Train, hex_: Hex) -> tuple[str, ...]:
        tags = super().hex_tags(pos, train, hex_)
        return tags + (BRIDGE,) if hex_.id in marked(pos, BRIDGE) else tags

    def bonuses(self, pos: Position, train: Train) -> tuple[RouteBonus, ...]:
        out: list[RouteBonus] = []
        if marked(pos, BRIDGE):
            out.append(Bonus(BRIDGE, _amount(pos, BRIDGE, "per_paid_stop"), ((BRIDGE, 1),),
                             per_count=True))
        for marker in (MINE, RANCH):
            hexes = marked(pos, marker)
            if hexes:
                amount = _amount(pos, marker, "per_hex_on_route")
                out.append(TrackBonus(marker, tuple((h, amount) for h in sorted(hexes))))
        return tuple(out)


def marked(pos: Position, marker: str) -> frozenset[str]:
    """The hexes holding `marker`: the state's ``<marker>_bonus.hexes``, else the hexes whose
    assignments name it."""
    given = pos.state.get(f"{marker}_bonus")
    if given is not None and "hexes" in given:
        hexes = given["hexes"]
        if not isinstance(hexes, (list, tuple)) or not all(isinstance(h, str) for h in hexes):
            raise HexrailError("hexes must be a list of hex ids", where=f"state.{marker}_bonus")
        return frozenset(hexes)
    return frozenset(h for h, names in (pos.state.get("assignments") or {}).items()
                     if marker in _names(names))


def _names(raw: Any) -> tuple[str, ...]:
    if isinstance(raw, str):
        return (raw,)
    if isinstance(raw, Mapping):
        return tuple(str(k) for k in raw)
    return tuple(str(x) for x in raw or ())


def _amount(pos: Position, marker: str, key: str) -> int:
    amount = (pos.state.get(f"{marker}_bonus") or {}).get(key, PER_MARKER)
    if not isinstance(amount, int) or isinstance(amount, bool):
        raise HexrailError(f"{key} must be an integer", where=f"state.{marker}_bonus")
    return amount


def _modern(pos: Position, train: Train) -> int:
    """What the Modern Trains option adds per paid token city for `train` (0: nothing)."""
    modern = pos.state.get("modern_trains") or {}
    if not modern.get("enabled"):
        return 0
    by_train = modern.get("trains")
    if by_train is not None:
        amount = by_train.get(train.id, 0) if isinstance(by_train, Mapping) else None
    else:
        rows = train.spec.rows
        distance = rows[0].visit if len(rows) == 1 else 0
        amount = (modern.get("per_token_city_by_distance") or {}).get(str(distance),
                                                                       MODERN.get(distance, 0))
    if not isinstance(amount, int) or isinstance(amount, bool):
        raise HexrailError("amounts must be integers", where="state.modern_trains")
    return amount
