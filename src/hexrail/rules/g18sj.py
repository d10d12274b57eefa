"""18SJ: Railways in the Frozen North (docs/rules.md (18SJ)).

Trains 2-6 count every stop; D and E run any distance. An **E** train is paid double at every
stop in a hex where the company has a token (bonuses are not doubled), and nationalization
(``SJ``) tokens never block it. Every other train treats SJ tokens as ordinary foreign tokens: a
city full of tokens that are not the company's own cannot be passed through (the engine marks SJ
tokens ``neutral`` while the operating company owns an E train; that flag is ignored here on
purpose, because the engine then forbids the same cities to the other trains by a separate check).

Route bonuses come from the icons of the hexes the route stops in, plus markers:

==========  ======  ==========================================================================
bonus       amount  condition
==========  ======  ==========================================================================
N/S         100     a stop in an ``N`` hex and a stop in an ``S`` hex
Ö/V         120     ``O`` and ``V`` icons, with stops at H9 and at A2 or A10 (east-west)
b/B, b/B/b  50/100  a ``B`` hex and one / two or more ``b_lower_case`` icons (Bergslagen)
m/M, m/M/m  50/100  an ``M`` hex and one / two or more ``m_lower_case`` icons (ore fields)
Port        30/icon a stop on the hex holding the steamship marker, per ``port`` icon there;
                    only for the company that owns the marker's private
GKB50/30/20 amount  per stop on a hex holding that bonus token; only for its owner
==========  ======  ==========================================================================

Icons are counted over the route's stops, each stop bringing its hex's icons (as 18xx.games
does); a hex carrying an icon twice is tagged ``<icon>#2`` so that it counts two on its own.

Everything is lowered through the profile hooks (tags and `Bonus` objects), so the search weighs
bonuses exactly when it chooses routes.

Position facts (``Position.state``, the keys of the 18xx.games export's ``title_state``):

- ``assignments``: ``{hex id: [marker id, ...]}``, markers such as ``"SB"`` or ``"GKB50"`` (the
  18xx.games reader puts the hexes' ``assignments`` here; native positions do the same);
- ``port_marker`` (marker id of the steamship marker, default ``"SB"``) and
  ``port_marker_owner`` (the company owning that private; a player id or null earns nothing);
- ``bonus_tokens`` (``{marker id: amount}``, default GKB50/GKB30/GKB20 = 50/30/20) and
  ``bonus_tokens_owner`` (the company earning them);
- ``electric_train_owned``: the company owns an E train (also true when one of its trains is an
  E train).

A train is an E train when its name is ``E``; in native positions the spec ``"E"`` reads as an
unlimited train.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from hexrail.model.position import Hex, Position, Train
from hexrail.model.tile import Node, Token
from hexrail.model.trains import TrainSpec
from hexrail.rules.base import BYPASS, PASSABLE, Bonus, Profile, StopRule, register
from hexrail.rules.base import OBJECT, TEXT
from hexrail.rules.columns import StopColumns

NATIONAL = "SJ"  # the nationalization company: its tokens never block E trains
ELECTRIC = "E"  # train name of the electric train

BONUS_ICONS = ("N", "S", "O", "V", "B", "b_lower_case", "M", "m_lower_case")
EAST_HEXES = ("H9",)  # Stockholms hamn
WEST_HEXES = ("A2", "A10")  # Malmö, Göteborg
PORT_ICON = "port"
PORT_AMOUNT = 30
DEFAULT_PORT_MARKER = "SB"
DEFAULT_BONUS_TOKENS = {"GKB50": 50, "GKB30": 30, "GKB20": 20}

# Tags the profile adds to a hex besides its bonus icons (icon names never contain "@" or "#").
EAST_TAG = "@east"
WEST_TAG = "@west"
COUNTED_ICONS = ("b_lower_case", "m_lower_case")  # bonuses count these icons, not their hexes
TWICE = "#2"  # tag suffix: the hex carries the icon twice (counts as two on its own)


def marker_tag(marker: str, hex_id: str) -> str:
    """The tag a marker gives the one hex it lies on.

    >>> marker_tag("GKB50", "C8")
    'GKB50@C8'
    """
    return f"{marker}@{hex_id}"


@register
class G18SJ(Profile):
    """18SJ routes: N, D and E trains, SJ tokens, icon bonuses, port marker and bonus tokens."""

    state_types: ClassVar[dict[str, tuple[type, ...]]] = {
        "port_marker": TEXT, "port_marker_owner": TEXT, "bonus_tokens": OBJECT,
        "bonus_tokens_owner": TEXT, "assignments": OBJECT,
    }

    name: ClassVar[str] = "18SJ"
    description: ClassVar[str] = ("18SJ: trains 2-6, D, E (double at own-token hexes, passes SJ "
                                  "tokens); N/S, east-west, Bergslagen, ore, port and GKB bonuses")
    train_types: ClassVar[tuple[str, ...]] = ("N", "D", "E")

    # -- trains -------------------------------------------------------------------------
    def parse_train(self, spec: Any, where: str) -> TrainSpec:
        if isinstance(spec, str) and spec.strip() == ELECTRIC:
            return super().parse_train("D", where)
        return super().parse_train(spec, where)

    @staticmethod
    def is_electric(train: Train) -> bool:
        return train.name == ELECTRIC

    def owns_electric(self, pos: Position) -> bool:
        """Does the operating company own an E train (the state says so, or it runs one)?"""
        return bool(pos.state.get("electric_train_owned")) or any(
            self.is_electric(t) for t in pos.trains)

    # -- stops ---------------------------------------------------------------------------
    def stop_rule(self, pos: Position, train: Train, hex_: Hex, node: Node) -> StopRule:
        """An E train is paid double in hexes where the company has a token; full cities close
        as `_token_blocks` says."""
        rule = super().stop_rule(pos, train, hex_, node)
        electric = self.is_electric(train)
        value = rule.value
        if electric and node.is_stop and _has_token(hex_, pos.company):
            value *= 2
        block = rule.block
        if node.kind in ("city", "pass"):
            slots = hex_.slots(node.index)
            closed = (len(slots) == node.slots and all(t is not None for t in slots) and not rule.anchor
                      and all(_token_blocks(t, electric, not electric and self.owns_electric(pos))
                              for t in slots))
            block = BYPASS if closed else PASSABLE
        if (value, block) == (rule.value, rule.block):
            return rule
        return rule._replace(value=value, block=block)

    def stop_columns(self, pos: Position, train: Train) -> StopColumns:
        cols = super().stop_columns(pos, train)
        electric = self.is_electric(train)
        strict = not electric and self.owns_electric(pos)
        if electric:
            tokened = np.array([_has_token(h, pos.company) for h in pos.hexes], np.bool_)
            cols.value[cols.stop & tokened[cols.node_hex]] *= 2
        for i, ref in enumerate(cols.refs):
            hex_ = pos.hexes[cols.node_hex[i]]
            node = hex_.node(int(ref.rpartition("-")[2]))
            if node.kind in ("city", "pass"):
                slots = hex_.slots(node.index)
                closed = (len(slots) == node.slots and all(t is not None for t in slots)
                          and not cols.anchor[i]
                          and all(_token_blocks(t, electric, strict) for t in slots))
                cols.block[i] = BYPASS if closed else PASSABLE
        return cols

    # -- bonuses -------------------------------------------------------------------------
    def hex_tags(self, pos: Position, train: Train, hex_: Hex) -> tuple[str, ...]:
        tags = [icon for icon in hex_.icons if icon in BONUS_ICONS]
        tags.extend(icon + TWICE for icon in COUNTED_ICONS if hex_.icons.count(icon) >= 2)
        if hex_.id in EAST_HEXES:
            tags.append(EAST_TAG)
        if hex_.id in WEST_HEXES:
            tags.append(WEST_TAG)
        tags.extend(marker_tag(m, hex_.id) for m in _assignments(pos).get(hex_.id, ()))
        return tuple(dict.fromkeys(tags))

    def bonuses(self, pos: Position, train: Train) -> tuple[Bonus, ...]:
        out = [
            Bonus("N/S", 100, (("N", 1), ("S", 1))),
            Bonus("Ö/V", 120, (("O", 1), ("V", 1), (EAST_TAG, 1), (WEST_TAG, 1))),
            Bonus("b/B", 50, (("B", 1), ("b_lower_case", 1)), group="Bergslagen"),
            Bonus("b/B/b", 100, (("B", 1), ("b_lower_case", 2)), group="Bergslagen"),
            Bonus("b/B/b", 100, (("B", 1), ("b_lower_case" + TWICE, 1)), group="Bergslagen"),
            Bonus("m/M", 50, (("M", 1), ("m_lower_case", 1)), group="ore fields"),
            Bonus("m/M/m", 100, (("M", 1), ("m_lower_case", 2)), group="ore fields"),
            Bonus("m/M/m", 100, (("M", 1), ("m_lower_case" + TWICE, 1)), group="ore fields"),
        ]
        state = pos.state
        assignments = _assignments(pos)
        if state.get("port_marker_owner") == pos.company:
            marker = state.get("port_marker") or DEFAULT_PORT_MARKER
            for hex_id, markers in sorted(assignments.items()):
                if marker not in markers or hex_id not in pos.hex_by_id:
                    continue
                ports = sum(1 for icon in pos.hex(hex_id).icons if icon == PORT_ICON)
                if ports:
                    out.append(Bonus("Port", PORT_AMOUNT * ports, ((marker_tag(marker, hex_id), 1),),
                                     group="Port"))
        if state.get("bonus_tokens_owner") == pos.company:
            amounts = state.get("bonus_tokens") or DEFAULT_BONUS_TOKENS
            for hex_id, markers in sorted(assignments.items()):
                for marker in markers:
                    if marker in amounts and hex_id in pos.hex_by_id:
                        out.append(Bonus(f"{marker}({hex_id})", int(amounts[marker]),
                                         ((marker_tag(marker, hex_id), 1),), per_count=True))
        return tuple(out)


def _has_token(hex_: Hex, company: str) -> bool:
    """Does `company` have a token in any city of the hex?"""
    return any(hex_.tokened_by(n.index, company) for n in hex_.tile.nodes if n.kind in ("city", "pass"))


def _token_blocks(token: Token, electric: bool, strict: bool) -> bool:
    """Does a foreign token close its city to this train (when the city is full)?

    SJ tokens never block an E train and always block the others; with `strict` (a non-E train
    of a company owning an E train) every token blocks, whatever its flag.
    """
    if token.company == NATIONAL:
        return not electric
    return strict or token.blocks


def _assignments(pos: Position) -> dict[str, tuple[str, ...]]:
    """``{hex id: marker ids}`` from ``state["assignments"]`` (lists or a single id)."""
    raw = pos.state.get("assignments") or {}
    out = {}
    for hex_id, markers in raw.items():
        out[str(hex_id)] = (markers,) if isinstance(markers, str) else tuple(str(m) for m in markers)
    return out
