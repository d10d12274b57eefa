"""1862: Railway Mania in the Eastern Counties (docs/rules.md (1862)).

Every train card runs as one of three variants, named by its last letter (stars, which mark
trains that rust late, are ignored):

=======  ====================================================================================
variant  rule
=======  ====================================================================================
``nE``   express: counts up to n cities, offboards and ports; towns are passed and pay nothing.
``x/yE`` express visiting up to y of them, paid for the best x (chosen with the other routes).
``nL``   local: counts up to n cities; towns pay without counting; offboards and ports may not
         be visited; £10 subsidy per hex of the route not covered by another local route.
``x/yL`` local visiting up to y cities, paid for the best x.
``nF``   freight: at most n hex-side crossings; only the ends of its *set* pay (below).
=======  ====================================================================================

**Freight sets.** Freight routes joined end to end form a set: the set pays its two end stops
plus the crow-fly distance between them (the hexes between the end hexes, as 18xx.games counts
it) times £20, or £30 when an end is a port. Freight trains below 6 are not permanent: they must
all be in one set, and when the company runs more than one set, that set must hold a permanent
train. A stop where two freight routes meet is not an end and pays nothing.

**The whole plan.** Trains may share track, never within one route. Every location (a stop, or
all the hexes of one offboard area) pays once across the company's routes; x/y trains choose
their paid stops jointly with the others. No route starts or ends at a town, runs from a red
offboard to another or from port to port, or ends in London without a London link. Every route
holds a company token, one holds the home token, and the routes' stops form one connected graph.
Only variants the company has a permit for run.

These are stated through the generic hooks: rows for the variants, `Profile.hex_subsidy` for
the locals' subsidy, `Profile.set_role` and `Profile.set_bonus` for freight sets, the stop
record's ``end_class`` and ``may_end`` for the route ends, `may_run` for permits.

Position facts (``Position.state``, the 18xx.games ``title_state``): ``permits`` (variants the
company may run: ``"express"``, ``"local"``, ``"freight"``; absent = all), ``london_link``
(absent = true), ``freight_bonus`` (20) and ``port_freight_bonus`` (30).

>>> spec = Game1862().parse_train("2/3E", "train")
>>> [(sorted(r.kinds), r.pay, r.visit) for r in spec.rows]
[(['city', 'offboard'], 2, 3), (['halt', 'town'], 0, 999)]
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from hexrail.errors import HexrailError
from hexrail.model.position import Hex, Position, Train
from hexrail.model.tile import Node
from hexrail.model.trains import ALL_KINDS, UNLIMITED, Row, TrainSpec
from hexrail.rules.base import SET_NONE, SET_PERMANENT, SET_TEMPORARY, PlanRules, Profile, StopRule, register
from hexrail.rules.base import ARRAY, NUMBER, OBJECT
from hexrail.rules.columns import KIND_INDEX, StopColumns, node_groups

TOWN_KINDS = frozenset({"town", "halt"})
EXPRESS_KINDS = frozenset({"city", "offboard"})
LOCAL_KINDS = frozenset({"city"})

VARIANTS = {"E": "express", "L": "local", "F": "freight"}
_NAME = re.compile(r"^(\d+)(?:/(\d+))?([ELF])\**$")

PERMANENT_FREIGHT = 6  # freight trains below 6 must join the one set
LOCAL_SUBSIDY = 10  # per hex a local route covers
FREIGHT_BONUS = 20  # per hex between a set's ends
PORT_FREIGHT_BONUS = 30  # ... when an end is a port
LONDON = "London"  # offboard group that needs a London link
RED, BLUE = "red", "blue"  # red offboards, ports: no route from one to another of its colour


def variant_rows(variant: str, pay: int, visit: int) -> tuple[Row, ...]:
    """The distance rows of one variant (``pay`` of ``visit`` counted stops)."""
    if variant == "express":
        return (Row(EXPRESS_KINDS, pay, visit), Row(TOWN_KINDS, 0, UNLIMITED))
    if variant == "local":
        return (Row(LOCAL_KINDS, pay, visit), Row(TOWN_KINDS, UNLIMITED, UNLIMITED))
    return (Row(ALL_KINDS, UNLIMITED, UNLIMITED),)


def parse_name(name: str) -> tuple[str, int, int] | None:
    """``(variant, pay, visit)`` of a train named like ``"2/3E"``, ``"4L*"`` or ``"9F"``;
    None when the name is not a variant's. For freight, pay and visit are the hex limit."""
    m = _NAME.match(name.strip())
    if not m:
        return None
    pay = int(m.group(1))
    visit = int(m.group(2) or pay)
    return VARIANTS[m.group(3)], pay, visit


@register
class Game1862(Profile):
    """1862 Eastern Counties, docs/rules.md (1862)."""

    state_types = {
        "train_info": OBJECT, "permits": ARRAY, "freight_bonus": NUMBER,
        "port_freight_bonus": NUMBER,
    }

    name = "1862"
    description = ("1862 Eastern Counties: express, local and freight trains, shared track, "
                   "every location paid once, freight sets, local subsidies")
    train_types = ("nE", "x/yE", "nL", "x/yL", "nF")

    # -- trains ---------------------------------------------------------------------------
    def parse_train(self, spec: Any, where: str) -> TrainSpec:
        """A variant from its name (``"3E"``, ``"2/3L"``, ``"5F"``) or a generic spec."""
        if isinstance(spec, str) and (parsed := parse_name(spec)):
            return self._spec(*parsed)
        if isinstance(spec, (list, tuple)):  # the 18xx.games distance rows
            spec = {"rows": list(spec)}
        return super().parse_train(spec, where)

    @staticmethod
    def _spec(variant: str, pay: int, visit: int) -> TrainSpec:
        if variant == "freight":
            return TrainSpec(rows=variant_rows(variant, pay, visit), hexes=pay)
        return TrainSpec(rows=variant_rows(variant, pay, visit))

    def variant(self, pos: Position, train: Train) -> str:
        """``express``, ``local`` or ``freight``: from the train's name, else the variant the
        18xx.games export states, else from its rows (a hex limit means freight)."""
        if parsed := parse_name(train.name):
            return parsed[0]
        info = (pos.state.get("train_info") or {}).get(train.id) or {}
        if info.get("title_train_type") in VARIANTS.values():
            return info["title_train_type"]
        if train.spec.hexes:
            return "freight"
        kinds = {k for r in train.spec.rows if r.pay > 0 for k in r.kinds}
        if "offboard" in kinds and "town" not in kinds:
            return "express"
        if "offboard" not in kinds:
            return "local"
        raise HexrailError(f"train {train.name!r} is not an 1862 variant; name it like 3E, "
                           "2/3L or 5F", where=f"train {train.id}")

    def train_spec(self, pos: Position, train: Train) -> TrainSpec:
        """The variant's rows, whatever shape the train arrived in (the export gives freight
        trains as a plain stop count, which in 1862 is a hex limit)."""
        parsed = parse_name(train.name)
        if parsed is None:
            return train.spec
        return self._spec(*parsed)

    def may_run(self, pos: Position, train: Train) -> str:
        permits = pos.state.get("permits")
        variant = self.variant(pos, train)
        if permits is not None and variant not in permits:
            return f"the company has no {variant} permit"
        return ""

    # -- stops ----------------------------------------------------------------------------
    def stop_rule(self, pos: Position, train: Train, hex_: Hex, node: Node) -> StopRule:
        """No route ends at a town, nor in London without a London link; red offboards and
        ports are end classes (no route joins two of one)."""
        rule = super().stop_rule(pos, train, hex_, node)
        if not node.is_stop:
            return rule
        may_end = node.kind not in TOWN_KINDS and not (
            LONDON in node.groups and not _truthy(pos.state.get("london_link", True)))
        end_class = {RED: 1, BLUE: 2}.get(hex_.tile.color, 0)
        if may_end and not end_class:
            return rule
        return rule._replace(may_end=may_end, end_class=end_class)

    def stop_columns(self, pos: Position, train: Train) -> StopColumns:
        cols = super().stop_columns(pos, train)
        cols.may_end &= (cols.kind != KIND_INDEX["town"]) & (cols.kind != KIND_INDEX["halt"])
        if not _truthy(pos.state.get("london_link", True)):
            for i, groups in node_groups(pos).items():
                if LONDON in groups:
                    cols.may_end[i] = False
        color = np.array([{RED: 1, BLUE: 2}.get(h.tile.color, 0) for h in pos.hexes], np.int64)
        cols.end_class = np.where(cols.stop, color[cols.node_hex], 0)
        return cols

    def hex_subsidy(self, pos: Position, train: Train) -> int:
        return LOCAL_SUBSIDY if self.variant(pos, train) == "local" else 0

    # -- freight sets ---------------------------------------------------------------------
    def set_role(self, pos: Position, train: Train) -> int:
        if self.variant(pos, train) != "freight":
            return SET_NONE
        return SET_PERMANENT if train.spec.hexes >= PERMANENT_FREIGHT else SET_TEMPORARY

    def set_bonus(self, pos: Position, a: tuple[Hex, Node, Hex], b: tuple[Hex, Node, Hex]) -> int:
        # 18xx.games counts the hexes strictly between the two ends; an offboard end is
        # measured from the hex its track enters from, plus one.
        def anchor(end: tuple[Hex, Node, Hex]) -> tuple[str, int]:
            hex_, node, via = end
            return (via.id, 1) if node.kind == "offboard" and via.id != hex_.id else (hex_.id, 0)

        (ha, xa), (hb, xb) = anchor(a), anchor(b)
        between = -1 if ha == hb else max(0, pos.layout.distance(ha, hb) - 1)
        port = BLUE in (a[0].tile.color, b[0].tile.color)
        rate = pos.state.get("port_freight_bonus" if port else "freight_bonus",
                             PORT_FREIGHT_BONUS if port else FREIGHT_BONUS)
        return max(0, between + xa + xb) * int(rate)

    def plan_rules(self, pos: Position) -> PlanRules:
        return PlanRules(share_track=True, stops_pay_once=True, home_route=True, intersect=True)


def _truthy(value: Any) -> bool:
    return value not in (None, False, 0, "0", "", "false")
