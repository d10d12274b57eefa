"""1867: The Railways of Canada (docs/rules.md (1867)); 1861 shares its route rules.

A train's *pay row* pays P stops of its kinds (``2``…``8``: cities and offboards, P = N;
``5+5E``: offboards, P = 5); every other stop it visits is a *filler* (towns; cities and towns
for the 5+5E), visited freely. The pay row's stops are all paid (at most P may be visited);
free slots are filled with the best fillers, and when no pay-row stop is the company's station
one paid filler must be (`PayRule.paid_station`). The choice weighs the bonuses, which count
the paid stops (`PayRule.bonuses_on_paid`):

===========  ===============  ==============================================================
bonus        amount           condition
===========  ===============  ==============================================================
hex bonuses  10               per distinct paid-stop hex in the hexes of a private company the
                              operating company owns (``hex_bonuses``)
pair         40 × multiplier  the paid stops include a hex of each list of ``pair_bonus``
===========  ===============  ==============================================================

A route visits one stop per hex (``stop_hex_repeat_forbidden``). Multipliers (``2+2``,
``5+5E``) are in the stops' train values.

State (the 18xx.games export's ``title_state``): ``stop_rows`` (per train id its
``pay_kinds``, ``pay`` and ``filler_kinds``; else read from its rows), ``hex_bonuses``,
``pair_bonus``, ``stop_hex_repeat_forbidden``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from hexrail.errors import HexrailError
from hexrail.model.frozen import FrozenMap
from hexrail.model.position import Hex, Position, Train
from hexrail.model.tile import Node
from hexrail.model.trains import Row, TrainSpec
from hexrail.rules.base import (OPTIONAL, HexBonus, PayRule, Profile, RouteBonus, SetsBonus,
                                StopRule, register)
from hexrail.rules.base import ARRAY, OBJECT
from hexrail.rules.columns import COUNT_CODE, KIND_INDEX, StopColumns

PAIR_BONUS = {"hexes_a": ("F16", "L12", "O7"), "hexes_b": ("D2",), "amount": 40,
              "times_train_multiplier": True}


@register
class Game1867(Profile):
    """1867: pay rows with fillers, hex bonuses and the pair bonus, one stop per hex."""

    state_types = {"hex_bonuses": ARRAY, "pair_bonus": OBJECT, "stop_rows": OBJECT}

    name = "1867"
    description = ("1867: N trains paid for cities and offboards with towns filling free slots, "
                   "5+5E, hex bonuses, pair bonus x multiplier, one stop per hex")
    pair_bonus: Mapping[str, Any] = PAIR_BONUS

    def train_spec(self, pos: Position, train: Train) -> TrainSpec:
        spec = train.spec
        if "fillers" in spec.extra:
            return spec  # (already made so)
        pay_kinds, pay, fillers = _stop_rows(pos, train)
        mult = {r.multiplier for r in spec.rows}
        row = Row(frozenset(pay_kinds) | frozenset(fillers), pay, pay, mult.pop() if len(mult) == 1 else 1)
        return TrainSpec((row,), spec.hexes, spec.multiplier, spec.kind_multipliers,
                         spec.min_stops, spec.requires_token, spec.track,
                         FrozenMap({**spec.extra, "fillers": tuple(sorted(fillers))}))

    def stop_rule(self, pos: Position, train: Train, hex_: Hex, node: Node) -> StopRule:
        rule = super().stop_rule(pos, train, hex_, node)
        if not node.is_stop:
            return rule
        if pos.state.get("stop_hex_repeat_forbidden", True):
            rule = rule._replace(groups=(f"hex {hex_.id}",))  # one stop per hex
        if node.kind in train.spec.extra.get("fillers", ()):
            rule = rule._replace(count=OPTIONAL)  # fills a free slot of the pay row, or rides free
        return rule

    def stop_columns(self, pos: Position, train: Train) -> StopColumns:
        cols = super().stop_columns(pos, train)
        stops = np.flatnonzero(cols.stop).tolist()
        if pos.state.get("stop_hex_repeat_forbidden", True):
            for i in stops:  # one stop per hex
                cols.groups[i] = (f"hex {cols.refs[i].rpartition('-')[0]}",)
        fillers = [KIND_INDEX[k] for k in train.spec.extra.get("fillers", ()) if k in KIND_INDEX]
        cols.count[cols.stop & np.isin(cols.kind, fillers)] = COUNT_CODE[OPTIONAL]
        return cols

    def pay_rule(self, pos: Position, train: Train) -> PayRule:
        return PayRule(bonuses_on_paid=True, paid_station=True)

    def bonuses(self, pos: Position, train: Train) -> tuple[RouteBonus, ...]:
        out: list[RouteBonus] = []
        for i, b in enumerate(pos.state.get("hex_bonuses") or ()):
            where = f"state.hex_bonuses[{i}]"
            if not isinstance(b, Mapping) or not isinstance(b.get("amount"), int):
                raise HexrailError("a hex bonus needs hexes and an integer amount", where=where)
            out.append(HexBonus(str(b.get("company", f"hex bonus {i}")), b["amount"],
                                tuple(str(h) for h in b.get("hexes") or ())))
        pair = pos.state.get("pair_bonus") or self.pair_bonus
        try:
            amount = int(pair["amount"]) * (train.spec.multiplier if pair.get("times_train_multiplier")
                                             else 1)
            out.append(SetsBonus("pair", amount, (tuple(pair["hexes_a"]), tuple(pair["hexes_b"]))))
        except (KeyError, TypeError, ValueError):
            raise HexrailError("pair_bonus needs hexes_a, hexes_b and an integer amount",
                               where="state.pair_bonus") from None
        return tuple(out)


def _stop_rows(pos: Position, train: Train) -> tuple[tuple[str, ...], int, tuple[str, ...]]:
    """The train's pay row (kinds, slots) and filler kinds: from ``state.stop_rows``, else its
    rows (the row paying something is the pay row, the others' kinds fill)."""
    given = (pos.state.get("stop_rows") or {}).get(train.id)
    if given is not None:
        try:
            return (tuple(given["pay_kinds"]), int(given["pay"]), tuple(given["filler_kinds"]))
        except (KeyError, TypeError, ValueError):
            raise HexrailError("stop_rows needs pay_kinds, pay and filler_kinds",
                               where=f"state.stop_rows.{train.id}") from None
    paying = [r for r in train.spec.rows if r.pay > 0]
    if len(paying) != 1:
        raise HexrailError("a train needs exactly one row that pays (its pay row)",
                           where=f"train {train.id}")
    fillers = {k for r in train.spec.rows if r.pay == 0 for k in r.kinds} - paying[0].kinds
    return tuple(sorted(paying[0].kinds)), min(paying[0].pay, paying[0].visit), tuple(sorted(fillers))
