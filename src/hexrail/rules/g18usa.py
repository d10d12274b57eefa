"""18USA (../shared/rules/titles/18USA.md): 1817's rules (`Game1817`: bridges, one stop per
hex, junctions passed again) and more.

=================  ==========================================================================
rule               what
=================  ==========================================================================
resources          per distinct hex whose track the route uses, holding none of its stops:
                   the hex's coal, ore and oil amounts (`TrackBonus`); such a hex is never
                   left and entered again (``resource_hexes``)
company town       a route paying the company-town city earns 10 less, unless the company has
                   its own token there (the city pays 10 less: one stop per hex)
Mexico             at most two routes of the plan run to Mexico (`PlanRules.regions`)
hex bonuses        the home-city subsidies and Express Freight, once per route at a stop on
                   their hexes (``stop_hex_bonuses``)
Pullman            +20 per paid stop but rural junctions, for the train it is attached to
Great Northern     one route of the plan: +60 with stops at Seattle, Helena, Fargo and Chicago,
                   else +30 with Helena and Fargo; the best route gets it (`VisitAllBonus`)
switcher           +1 distance (in the train's distance already) and one stop left unpaid when
                   the route's counted stops reach it: a train visiting N + 1 stops, paid for
                   the best N, one of them a token city (`PayRule`); it may pass one city full
                   of other companies' tokens, visited but never paid (the round's one bypass,
                   `PayRule.passed_unpaid`), which no other train may pass
rural junctions    towns costing no distance, never a route's end, never entered twice
=================  ==========================================================================

Upgrades are as the position attached them (``train_upgrades``); those left unattached
(``upgrades_not_attached``) are weighed where the solver weighs the company's choices
(`Game18USA.choices`: each on each train it may go on, or on none). Not built: the Great
Northern bonus beside a switcher, and two switchers at once; a position that needs either is
refused with the reason.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from hexrail.errors import HexrailError
from hexrail.model.frozen import FrozenMap, freeze, thaw
from hexrail.model.position import Hex, Position, Train
from hexrail.model.tile import Node
from hexrail.model.trains import Row, TrainSpec
from hexrail.rules.base import (ARRAY, BLOCKS, BYPASS, OBJECT, Choice, OnceBonus, PayRule,
                                PlanRules, RouteBonus, SetsBonus, StopRule, TrackBonus,
                                VisitAllBonus, per_position, register)
from hexrail.rules.columns import StopColumns
from hexrail.rules.g1817 import Game1817

MEXICO = ("I5", "I7", "I9", "I11", "J12", "K13")
PULLMAN = 20
COMPANY_TOWN_PENALTY = 10
# Seattle, Helena, Fargo and Chicago; else Helena and Fargo
GREAT_NORTHERN = ({"hexes": ["B2", "B8", "B14", "D20"], "amount": 60}, {"hexes": ["B8", "B14"], "amount": 30})


@register
class Game18USA(Game1817):
    """18USA: resources, company town, Mexico, hex bonuses, Pullman and switcher."""

    name = "18USA"
    description = ("18USA: 1817's rules with resources along the track, company town, at most two "
                   "routes to Mexico, home-city and Express Freight bonuses, Pullman, switcher")
    state_types = {**Game1817.state_types, "resource_hexes": OBJECT, "company_town": OBJECT,
                   "mexico": OBJECT, "stop_hex_bonuses": ARRAY, "pullman": OBJECT,
                   "switcher": OBJECT, "rural_junctions": OBJECT, "gnr": OBJECT}

    def train_spec(self, pos: Position, train: Train) -> TrainSpec:
        spec = train.spec
        if not _upgraded(pos, "switcher", train) or "switcher" in spec.extra:
            return spec
        if len(spec.rows) != 1:
            raise HexrailError("a switcher goes on a train of one row", where=f"train {train.id}")
        row = spec.rows[0]
        # visits its distance (one more than the train's), is paid for one stop less
        return TrainSpec((Row(row.kinds, row.visit - 1, row.visit, row.multiplier),), spec.hexes,
                         spec.multiplier, spec.kind_multipliers, spec.min_stops, spec.requires_token,
                         spec.track, FrozenMap({**spec.extra, "switcher": True}))

    def pay_rule(self, pos: Position, train: Train) -> PayRule:
        if _upgraded(pos, "switcher", train):
            return PayRule(bonuses_on_paid=True, paid_station=True,
                           passed_unpaid=_passes(pos))
        return PayRule()

    def stop_rule(self, pos: Position, train: Train, hex_: Hex, node: Node) -> StopRule:
        rule = super().stop_rule(pos, train, hex_, node)
        if rule.block == BYPASS and not (_passes(pos) and _upgraded(pos, "switcher", train)):
            rule = rule._replace(block=BLOCKS)  # only the switcher passes a full city
        if not node.is_stop:
            return rule
        rural = _refs(pos, "rural_junctions", "nodes")
        ref = f"{hex_.id}-{node.index}"
        if ref in rural:
            rule = rule._replace(may_end=False)
        elif _upgraded(pos, "pullman", train):
            rule = rule._replace(value=rule.value + _number(pos, "pullman", "per_paid_stop", PULLMAN))
        if ref in _refs(pos, "company_town", "nodes") and not hex_.tokened_by(node.index, pos.company):
            rule = rule._replace(value=rule.value - _number(pos, "company_town", "penalty",
                                                            COMPANY_TOWN_PENALTY))
        return rule

    def stop_columns(self, pos: Position, train: Train) -> StopColumns:
        cols = super().stop_columns(pos, train)
        if not (_passes(pos) and _upgraded(pos, "switcher", train)):
            cols.block[cols.block == BYPASS] = BLOCKS  # only the switcher passes a full city
        rural = cols.index(_refs(pos, "rural_junctions", "nodes")) & cols.stop
        cols.may_end &= ~rural
        if _upgraded(pos, "pullman", train):
            cols.value[cols.stop & ~rural] += _number(pos, "pullman", "per_paid_stop", PULLMAN)
        towns = _refs(pos, "company_town", "nodes")
        if towns:
            for i in np.flatnonzero(cols.index(towns) & cols.stop).tolist():
                hex_id, _, index = cols.refs[i].rpartition("-")
                if not pos.hex(hex_id).tokened_by(int(index), pos.company):
                    cols.value[i] -= _number(pos, "company_town", "penalty", COMPANY_TOWN_PENALTY)
        return cols

    def choices(self, pos: Position) -> tuple[Choice, ...]:
        return _choices(pos)

    def reentry_forbidden(self, pos: Position, hex_: Hex) -> bool:
        return hex_.id in _resources(pos) or hex_.id in _refs(pos, "rural_junctions", "hexes")

    def bonuses(self, pos: Position, train: Train) -> tuple[RouteBonus, ...]:
        out = list(super().bonuses(pos, train))
        resources = _resources(pos)
        if resources:
            out.append(TrackBonus("resources", tuple(sorted(resources.items())), skip_stop_hexes=True))
        by_source: dict[str, tuple[int, list[str]]] = {}
        for i, b in enumerate(pos.state.get("stop_hex_bonuses") or ()):
            where = f"state.stop_hex_bonuses[{i}]"
            if not isinstance(b, Mapping) or not isinstance(b.get("amount"), int) \
                    or not isinstance(b.get("hexes"), (list, tuple)):
                raise HexrailError("a hex bonus needs hexes and an integer amount", where=where)
            source = str(b.get("source", i))
            amount, hexes = by_source.setdefault(source, (b["amount"], []))
            if amount != b["amount"]:
                raise HexrailError(f"two amounts for {source}", where=where)
            hexes.extend(str(h) for h in b["hexes"])
        out += [SetsBonus(source, amount, (tuple(hexes),))
                for source, (amount, hexes) in by_source.items() if hexes]
        return tuple(out)

    def plan_rules(self, pos: Position) -> PlanRules:
        self._refuse_what_is_not_built(pos)
        mexico = pos.state.get("mexico") or {}
        hexes = tuple(mexico.get("hexes") or MEXICO)
        limit = mexico.get("max_routes", 2)
        if not isinstance(limit, int) or isinstance(limit, bool):
            raise HexrailError("max_routes must be an integer", where="state.mexico")
        switchers = sum(_upgraded(pos, "switcher", t) for t in pos.trains)
        return PlanRules(regions=((hexes, limit),), max_bypass=int(switchers > 0 and _passes(pos)))

    def span_bonuses(self, pos: Position, train: Train) -> tuple[OnceBonus, ...]:
        gnr = pos.state.get("gnr") or {}
        if not gnr.get("owned_by_entity"):
            return ()
        try:
            levels = tuple((tuple(str(h) for h in level["hexes"]), int(level["amount"]))
                           for level in gnr.get("levels") or GREAT_NORTHERN)
        except (KeyError, TypeError, ValueError):
            raise HexrailError("levels need hexes and an integer amount", where="state.gnr") from None
        return (VisitAllBonus("Great Northern", levels),)

    def _refuse_what_is_not_built(self, pos: Position) -> None:
        if (pos.state.get("gnr") or {}).get("owned_by_entity") and any(
                _upgraded(pos, "switcher", t) for t in pos.trains):
            # the switcher may leave one of the stops the bonus needs unpaid
            raise HexrailError("the Great Northern bonus beside a switcher is not supported",
                               where="state.gnr")
        if sum(_upgraded(pos, "switcher", t) for t in pos.trains) > 1:
            raise HexrailError("one switcher at a time is supported", where="state.switcher")


UPGRADES = {"+": "extender", "/": "switcher", "P": "pullman"}  # (by the upgrade's id)


def _choices(pos: Position) -> tuple[Choice, ...]:
    """`Game18USA.choices`: every way of attaching the upgrades left unattached, each to one
    train it may go on or to none."""
    trains = {t.id for t in pos.trains}
    given = pos.state.get("upgrades_not_attached") or ()
    if not isinstance(given, (tuple, list)):
        raise HexrailError("must be an array", where="state.upgrades_not_attached")
    left = []
    for i, u in enumerate(given):
        where = f"state.upgrades_not_attached[{i}]"
        eligible = u.get("eligible_trains") or () if isinstance(u, Mapping) else None
        if not (isinstance(u, Mapping) and u.get("id") in UPGRADES
                and isinstance(u.get("name"), (str, type(None)))
                and isinstance(eligible, (tuple, list)) and all(isinstance(t, str) for t in eligible)):
            raise HexrailError(f"needs an id among {', '.join(UPGRADES)}, a name and the "
                               f"eligible_trains (ids)", where=where)
        on = [t for t in dict.fromkeys(eligible) if t in trains]
        if on:
            left.append((u, on))
    out = []
    for picks in itertools.product(*([None, *on] for _, on in left)):
        if any(picks):
            way = pos
            for (u, _), train in zip(left, picks):
                if train is not None:
                    way = _attach(way, u, train)
            out.append(Choice(tuple((str(u.get("name") or UPGRADES[u["id"]]), train)
                                    for (u, _), train in zip(left, picks) if train), way))
    return tuple(out)


def _attach(pos: Position, upgrade: Mapping, train_id: str) -> Position:
    """The position with `upgrade` attached to the train: its distance longer by the upgrade's
    size (the extender's 1, the switcher's ``extra_distance``), the train among the upgrade's
    ``trains`` (switcher, Pullman) and in ``train_upgrades``, the upgrade no longer left."""
    state = thaw(pos.state)
    kind = UPGRADES[upgrade["id"]]
    size = 1 if kind == "extender" else 0
    if kind in ("switcher", "pullman"):
        given = dict(state.get(kind) or {})
        if kind == "switcher":
            size = given.get("extra_distance", 1)
            if not isinstance(size, int) or isinstance(size, bool) or size < 0:
                raise HexrailError("extra_distance must be an integer >= 0", where="state.switcher")
        if not isinstance(given.get("trains", []), list):
            raise HexrailError("trains must be an array", where=f"state.{kind}")
        given["trains"] = [*given.get("trains", ()), train_id]
        state[kind] = given
    upgrades = state.get("train_upgrades") or {}
    if not isinstance(upgrades, dict) or not isinstance(upgrades.get(train_id, []), list):
        raise HexrailError("must be an object of arrays by train", where="state.train_upgrades")
    state["train_upgrades"] = {**upgrades, train_id: [*upgrades.get(train_id, ()), {
        "id": upgrade["id"], "name": upgrade.get("name"), "size": size}]}
    state["upgrades_not_attached"] = [u for u in state.get("upgrades_not_attached") or ()
                                      if u != thaw(upgrade)]
    trains = tuple(t if t.id != train_id else replace(
        t, name=f"{t.name}{upgrade['id']}{size or ''}",  # (as 18xx.games names it: 4+1, 5/1, 5P)
        spec=replace(t.spec, rows=tuple(
            replace(r, visit=r.visit + size, pay=r.pay + size if r.pay == r.visit else r.pay)
            for r in t.spec.rows))) for t in pos.trains)
    return replace(pos, trains=trains, state=freeze(state))


def _upgraded(pos: Position, upgrade: str, train: Train) -> bool:
    """Is `upgrade` (``pullman``, ``switcher``) attached to `train` this turn?"""
    return train.id in _upgraded_ids(pos, upgrade)


@per_position
def _upgraded_ids(pos: Position, upgrade: str) -> frozenset[str]:
    return frozenset((pos.state.get(upgrade) or {}).get("trains") or ())


@per_position
def _passes(pos: Position) -> bool:
    """May the switcher pass a city full of other companies' tokens (``may_pass_one_blocked_city``)?"""
    return bool((pos.state.get("switcher") or {}).get("may_pass_one_blocked_city", True))


@per_position
def _refs(pos: Position, key: str, field: str) -> frozenset[str]:
    return frozenset(str(x) for x in (pos.state.get(key) or {}).get(field) or ())


@per_position
def _number(pos: Position, key: str, field: str, default: int) -> int:
    value = (pos.state.get(key) or {}).get(field, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise HexrailError(f"{field} must be an integer", where=f"state.{key}")
    return value


@per_position
def _resources(pos: Position) -> dict[str, int]:
    """{hex: what its resources pay now} (``resource_hexes``)."""
    out: dict[str, int] = {}
    for hex_id, raw in (pos.state.get("resource_hexes") or {}).items():
        amount = raw.get("amount") if isinstance(raw, Mapping) else raw
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise HexrailError("a resource hex needs an integer amount",
                               where=f"state.resource_hexes.{hex_id}")
        out[str(hex_id)] = amount
    return out
