"""1846: The Race for the Midwest (../shared/rules/titles/1846.md).

No towns: every stop is a city or an offboard; the Chicago cities, the east offboards (group
``E``), St. Louis and Louisville are stop groups of the board. Trains:

==========  ==================================================================================
2, 4, 5, 6  plain N trains: every visited stop pays
3/5, 4/6,   N/M trains: visit at most M stops, pay the best N of them, bonuses counted, and one
7/8         paid stop must be a city with the company's token (`PayRule.paid_station`)
==========  ==================================================================================

Bonuses count the paid stops (`PayRule.bonuses_on_paid`):

==============  =========================================  =====================================
bonus           amount                                     condition
==============  =========================================  =====================================
east-west       the icons of both ends (east 20/30,        a paid stop in group ``E`` and one
                west C5 50, I1 20)                         on a tile labelled ``W``
private hexes   per company (meat packing 30, steamboat    a paid stop on the hex assigned to
                20 per port icon, boomtown 20)             the company; once per route
mail contract   10 per visited stop (`VisitBonus`)         the route visiting most stops; ties:
                                                           the greatest train id
==============  =========================================  =====================================

Offboards end routes, so an east-west route runs from one east to one west offboard: a route
can earn one east-west pair only, one bonus per pair.

State (the 18xx.games export's ``title_state``): ``east_west_bonus`` (amount per east and west
stop; else read from the board's icons and labels), ``stop_bonuses`` (the private hex bonuses
the operating company earns now), ``mail_contract`` (``owned_by_entity``,
``per_visited_stop``). A steamboat hex the company may still move before it runs
(``assignment_bonuses[].entity_may_assign_hex``) stays where the position has it, unless the
solver weighs the company's choices (`Game1846.choices`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from hexrail.errors import HexrailError
from hexrail.model.frozen import freeze, thaw
from hexrail.model.position import Position, Train
from hexrail.rules.base import (OBJECT, ARRAY, Choice, OnceBonus, PayRule, Profile, RouteBonus,
                                SetsBonus, VisitBonus, register)

EAST_GROUP, WEST_LABEL = "E", "W"
MAIL = "mail contract"


@register
class Game1846(Profile):
    """1846: N/M trains, the east-west bonus, private hex bonuses and the mail contract."""

    name = "1846"
    description = ("1846: N and N/M trains (the best N of M stops, one a token city), east-west "
                   "bonus, private company hex bonuses, mail contract")
    state_types = {"east_west_bonus": OBJECT, "stop_bonuses": ARRAY, "mail_contract": OBJECT}

    def pay_rule(self, pos: Position, train: Train) -> PayRule:
        chooses = any(r.pay < r.visit for r in train.spec.rows)
        return PayRule(bonuses_on_paid=True, paid_station=chooses)

    def bonuses(self, pos: Position, train: Train) -> tuple[RouteBonus, ...]:
        return _east_west(pos) + _stop_bonuses(pos)

    def span_bonuses(self, pos: Position, train: Train) -> tuple[OnceBonus, ...]:
        mail = pos.state.get("mail_contract")
        if not mail or not mail.get("owned_by_entity"):
            return ()
        per_stop = mail.get("per_visited_stop", 10)
        if not _whole(per_stop):
            raise HexrailError("per_visited_stop must be an integer", where="state.mail_contract")
        return (VisitBonus(MAIL, per_stop),)


    def choices(self, pos: Position) -> tuple[Choice, ...]:
        """Where the company holds a bonus company's assignment and may still move its hex
        before it runs (the Steamboat Company: ``entity_may_assign_hex``), each other hex it
        may take that has the company's icons: the bonus there, its amount per icon."""
        out = []
        given = pos.state.get("assignment_bonuses") or ()
        if not isinstance(given, (tuple, list)):
            raise HexrailError("must be an array", where="state.assignment_bonuses")
        for i, b in enumerate(given):
            where = f"state.assignment_bonuses[{i}]"
            if not isinstance(b, Mapping):
                raise HexrailError("must be an object", where=where)
            may = b.get("entity_may_assign_hex")
            if may is None or not b.get("entity_assigned"):
                continue
            uses = may.get("uses_left", 1) if isinstance(may, Mapping) else None
            if not _whole(uses):
                raise HexrailError("needs uses_left, an integer", where=f"{where}.entity_may_assign_hex")
            source, icon, per = b.get("company") or b.get("key"), b.get("per_icon"), b.get("base_amount")
            if uses <= 0 or icon is None:
                continue
            hexes, now = may.get("hexes") or (), b.get("assigned_hexes") or ()
            if not (isinstance(source, str) and isinstance(icon, str) and _whole(per)
                    and _texts(hexes) and _texts(now)):
                raise HexrailError("needs the company, per_icon, an integer base_amount and the "
                                   "hexes (assigned_hexes, entity_may_assign_hex.hexes) as text",
                                   where=where)
            kept = [thaw(x) for x in pos.state.get("stop_bonuses") or ()
                    if not (isinstance(x, Mapping) and x.get("source") == source)]
            for hex_id in dict.fromkeys(hexes):
                h = pos.hex_by_id.get(hex_id)
                icons = sum(i == icon for i in h.icons) if h else 0
                stops = [f"{h.id}-{n.index}" for n in h.tile.nodes if n.is_stop] if h else []
                if hex_id in now or not icons or not stops:
                    continue
                there = {"nodes": stops, "amount_by_hex": {hex_id: per * icons}}
                bonus = {"source": source, "hexes": [hex_id], **there}
                moved = {**thaw(b), **there, "assigned_hexes": [hex_id],
                         "entity_may_assign_hex": {**thaw(may), "uses_left": uses - 1}}
                state = freeze({**thaw(pos.state), "stop_bonuses": [*kept, bonus],
                                "assignment_bonuses": [moved if x is b else thaw(x) for x in given]})
                out.append(Choice(((f"{b.get('name') or source} hex", hex_id),),
                                  replace(pos, state=state)))
        return tuple(out)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _texts(value: Any) -> bool:
    return isinstance(value, (tuple, list)) and all(isinstance(x, str) for x in value)


def _east_west(pos: Position) -> tuple[RouteBonus, ...]:
    """One `SetsBonus` per pair of east and west amounts: the stops of each amount by hex."""
    given = pos.state.get("east_west_bonus")
    if given:
        sides = [_amounts(given.get(side), f"state.east_west_bonus.{side}") for side in ("east", "west")]
    else:
        sides = [{}, {}]
        for h in pos.hexes:
            icons = sum(int(i) for i in h.icons if i.isdigit())
            for n in h.tile.nodes:
                if not n.is_stop or not icons:
                    continue
                if EAST_GROUP in n.groups:
                    sides[0][h.id] = icons
                elif WEST_LABEL in h.tile.labels:
                    sides[1][h.id] = icons
    east, west = ({a: tuple(sorted(h for h, x in side.items() if x == a)) for a in set(side.values())}
                  for side in sides)
    return tuple(SetsBonus("east-west", a + b, (east[a], west[b]))
                 for a in sorted(east) for b in sorted(west))


def _amounts(raw: Any, where: str) -> dict[str, int]:
    """{hex: amount} from {node reference: amount}."""
    if not isinstance(raw, Mapping):
        raise HexrailError("must be an object of stop: amount", where=where)
    out: dict[str, int] = {}
    for ref, amount in raw.items():
        if not _whole(amount):
            raise HexrailError(f"the amount of {ref} must be an integer", where=where)
        out[str(ref).rsplit("-", 1)[0]] = amount
    return out


def _stop_bonuses(pos: Position) -> tuple[RouteBonus, ...]:
    """The private companies' hex bonuses the operating company earns: once per route, at a
    paid stop on one of the company's hexes."""
    out: list[RouteBonus] = []
    for i, b in enumerate(pos.state.get("stop_bonuses") or ()):
        where = f"state.stop_bonuses[{i}]"
        if not isinstance(b, Mapping):
            raise HexrailError("a stop bonus must be an object", where=where)
        amounts = _amounts(b.get("amount_by_hex"), f"{where}.amount_by_hex")
        hexes = tuple(str(h) for h in b.get("hexes") or amounts)
        if set(hexes) - set(amounts):
            raise HexrailError(f"no amount for hex {sorted(set(hexes) - set(amounts))[0]}", where=where)
        if len({amounts[h] for h in hexes}) > 1:
            # 18xx.games pays the first such stop along the route: which one depends on the
            # direction the route is run, which no exact answer can leave open
            raise HexrailError("one company's hexes with different amounts are not supported",
                               where=where)
        if hexes:
            out.append(SetsBonus(str(b.get("source", f"stop bonus {i}")), amounts[hexes[0]], (hexes,)))
    return tuple(out)
