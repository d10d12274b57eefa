"""1822: The Railways of Great Britain (../shared/rules/titles/1822.md).

=================  ==========================================================================
rule               what
=================  ==========================================================================
trains             2 … 7 (and 2P, 5P, Pullman-attached ``+`` trains with their rows): every
                   visited stop counts and pays. L and LP: one city, at most one town, both
                   paid; a route of the city alone is legal. E: any distance, paid double for
                   the cities holding the company's token (``etrain_paying_nodes``) and nothing
                   for the others; both ends are such cities, or, with the company's token in
                   the Channel city (``english_channel_tokened``), one end is and the other is
                   France, and the Channel city pays France's value
shared track       E routes share no track with each other, the others none with each other,
                   but an E route and another may (`Profile.track_group`)
English Channel    a route visiting P43 visits France Q44 too, and another stop beside them
                   (`StopRule.tallies`); local trains reach neither
Merthyr Tydfil     the plan uses one of F33's sides 1 and 2 at most (the direct track to E34
                   or the track by E32; `PlanRules.exclusive_sides`); those links' terminal
                   track, marked ``ignore``, is run (`Profile.runs_ignored_track`)
destination        a route visiting both the company's home city and its destination city
                   earns the destination's value for its train, once per round, the best route
                   (the last in plan order on ties; `VisitAllBonus`)
mail contracts     a subsidy: half the base values of a route's two ends, to the best route
                   per contract, one contract a route (not a local train; `EndsSubsidy`)
=================  ==========================================================================

A route visits two stops of one hex only where the hex is exempt (the city and town hexes);
on the 1822 map every other hex with several stops is London, one stop group.

State: ``train_roles``, ``etrain_paying_nodes``, ``english_channel``, ``exclusive_edges``,
``destination_bonus``, ``mail_contracts``. A Pullman car not yet attached
(``pullman_eligible``) is weighed where the solver weighs the company's choices
(`Game1822.choices`).
Local trains visit each city once in a plan, where they run track (a city alone runs none;
`PlanRules.apart_cities`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from hexrail.errors import HexrailError
from hexrail.model.frozen import freeze, thaw
from hexrail.model.position import Hex, Position, Train
from hexrail.model.tile import Node
from hexrail.model.trains import TrainSpec
from hexrail.rules.columns import StopColumns
from hexrail.rules.base import (ARRAY, BOOL, OBJECT, Choice, EndsSubsidy, OnceBonus, PlanRules,
                                Profile, StopRule, VisitAllBonus, per_position, register)

CHANNEL, FRANCE = "P43", "Q44"
EXEMPT = ("D35", "F7", "H21", "H37")
LOCAL_NAMES, E_NAME = ("L", "LP"), "E"
UNBOUNDED = 1 << 30


@register
class Game1822(Profile):
    """1822: L and E trains, shared track by type, the Channel, F33, destination, mail."""

    name = "1822"
    description = ("1822: N, local L/LP (one city, one town) and E trains (token cities paid "
                   "double, sharing track with other trains), English Channel, Merthyr Tydfil "
                   "track, destination bonus, mail contract subsidy")
    runs_ignored_track = True
    state_types = {"train_roles": OBJECT, "etrain_paying_nodes": ARRAY, "english_channel": OBJECT,
                   "exclusive_edges": ARRAY, "destination_bonus": OBJECT, "mail_contracts": ARRAY,
                   "stop_hex_repeat_exempt_hexes": ARRAY, "english_channel_tokened": BOOL,
                   "pullman_eligible": OBJECT}

    def train_spec(self, pos: Position, train: Train) -> TrainSpec:
        spec = train.spec
        if _role(pos, train) == "local" and spec.min_stops != 1:
            return TrainSpec(spec.rows, spec.hexes, spec.multiplier, spec.kind_multipliers, 1,
                             spec.requires_token, spec.track, spec.extra)
        return spec

    def track_group(self, pos: Position, train: Train) -> str:
        return "E" if _role(pos, train) == "etrain" else ""

    def stop_rule(self, pos: Position, train: Train, hex_: Hex, node: Node) -> StopRule:
        rule = super().stop_rule(pos, train, hex_, node)
        if not node.is_stop:
            return rule
        ref = f"{hex_.id}-{node.index}"
        channel, france = _channel(pos)
        if _role(pos, train) == "etrain":
            paying = ref in _paying(pos)
            value = rule.value if paying else 0
            if _channel_end(pos):
                # the Channel city pays France's value; France may end a route whose other
                # end is a token city, and the route still visits two token cities
                far = _france(pos)
                if paying and hex_.id == channel:
                    value = super().stop_rule(pos, train, *far).value if far else 0
                rule = rule._replace(tallies=(("token cities", 1),) if paying else ())
                paying = paying or hex_.id == france
            rule = rule._replace(value=value, subsidy=0, may_end=paying)
        if channel and france:
            if hex_.id == channel:
                pair = (("channel", 1), ("channel pair", 1))
            elif hex_.id == france:
                pair = (("channel", -1), ("channel pair", 1))
            else:
                pair = (("channel pair", -2),)
            rule = rule._replace(tallies=rule.tallies + pair)
        return rule

    def stop_columns(self, pos: Position, train: Train) -> StopColumns:
        cols = super().stop_columns(pos, train)
        channel, france = _channel(pos)
        if _role(pos, train) == "etrain":
            paying = cols.index(_paying(pos))
            ends = paying
            if _channel_end(pos):
                at_france = cols.hexes({france}, pos) & cols.stop
                far = cols.value[at_france] if _france(pos) else np.zeros(1, np.int64)
                cols.value[paying & cols.hexes({channel}, pos)] = far[0]
                for i in np.flatnonzero(paying & cols.stop).tolist():
                    cols.tallies[i] = (("token cities", 1),)
                ends = paying | at_france
            cols.value[~paying] = 0
            cols.subsidy[:] = 0
            cols.may_end &= ends
        if channel and france:
            at_channel = cols.hexes({channel}, pos)
            at_france = cols.hexes({france}, pos)
            for i in np.flatnonzero(cols.stop).tolist():
                cols.tallies[i] = cols.tallies.get(i, ()) + (
                    (("channel", 1), ("channel pair", 1)) if at_channel[i] else
                    (("channel", -1), ("channel pair", 1)) if at_france[i] else
                    (("channel pair", -2),))
        return cols

    def tally_limits(self, pos: Position, train: Train) -> tuple[tuple[str, int, int], ...]:
        channel, france = _channel(pos)
        if not (channel and france):
            return ()
        # the Channel and France both or neither; the two alone count as one stop
        limits = (("channel", 0, 0), ("channel pair", -UNBOUNDED, 1))
        if _role(pos, train) == "etrain" and _channel_end(pos):
            limits += (("token cities", 2, UNBOUNDED),)  # (France as an end leaves one to ask)
        return limits

    def span_bonuses(self, pos: Position, train: Train) -> tuple[OnceBonus, ...]:
        out: list[OnceBonus] = []
        dest = pos.state.get("destination_bonus")
        if isinstance(dest, Mapping) and dest.get("home_node") and dest.get("destination_node"):
            amount = (dest.get("amount_by_train") or {}).get(train.id, 0)
            if not isinstance(amount, int) or isinstance(amount, bool):
                raise HexrailError("amounts must be integers", where="state.destination_bonus")
            if amount > 0:
                stops = (str(dest["home_node"]), str(dest["destination_node"]))
                out.append(VisitAllBonus("destination", ((stops, amount),), last_on_ties=True))
        contracts = pos.state.get("mail_contracts") or ()
        if contracts and _role(pos, train) != "local":
            values = tuple((f"{h.id}-{n.index}", n.value(pos.phase.colors))
                           for h in pos.hexes for n in h.tile.nodes if n.is_stop)
            out.append(EndsSubsidy("mail contract", values, routes=len(set(map(str, contracts)))))
        return tuple(out)

    def plan_rules(self, pos: Position) -> PlanRules:
        pos.derived(("1822 refusals",), self._refuse_what_is_not_built)  # (asked once a board)
        sides = []
        for i, rule in enumerate(pos.state.get("exclusive_edges") or ({"hex": "F33", "edges": [1, 2]},)):
            try:
                sides.append((str(rule["hex"]), tuple(int(e) for e in rule["edges"])))
            except (KeyError, TypeError, ValueError):
                raise HexrailError("needs a hex and its edges", where=f"state.exclusive_edges[{i}]") from None
        locals_ = tuple(t.id for t in pos.trains if _role(pos, t) == "local")
        return PlanRules(exclusive_sides=tuple(sides),
                         apart_cities=locals_ if len(locals_) > 1 else ())

    def choices(self, pos: Position) -> tuple[Choice, ...]:
        """A Pullman car owned and not attached: on each train it may go on
        (``pullman_eligible``: the rows it gives each), renamed ``<name>+``."""
        from hexrail.io.g18xx.reader import _rows  # (the rows as the export writes them)

        eligible = pos.state.get("pullman_eligible")
        if not isinstance(eligible, Mapping) or pos.state.get("pullman_attached_to"):
            return ()
        out = []
        for train in pos.trains:
            rows = eligible.get(train.id)
            if rows is None:
                continue
            spec = replace(train.spec, rows=_rows(thaw(rows), f"state.pullman_eligible.{train.id}"))
            state = thaw(pos.state)
            state.pop("pullman_eligible")
            state.update(pullman_attached_to=train.id, pullman_original_name=train.name,
                         train_roles={**(state.get("train_roles") or {}), train.id: "pullman_attached"})
            trains = tuple(replace(t, name=f"{t.name}+", spec=spec) if t is train else t
                           for t in pos.trains)
            out.append(Choice((("Pullman", train.id),), replace(pos, trains=trains, state=freeze(state))))
        return tuple(out)

    def _refuse_what_is_not_built(self, pos: Position) -> None:
        roles = [_role(pos, t) for t in pos.trains]
        if "etrain" in roles and _channel_end(pos) and _france(pos) is None:
            raise HexrailError("France must be one offboard for an E train to end there",
                               where=f"hex {_channel(pos)[1]}")
        exempt = set(pos.state.get("stop_hex_repeat_exempt_hexes") or EXEMPT)
        for h in pos.hexes:
            stops = [n for n in h.tile.nodes if n.is_stop]
            if len(stops) > 1 and h.id not in exempt and not set.intersection(
                    *(set(n.groups) for n in stops)):
                # 18xx.games lets such a hex repeat on a route visiting an exempt hex
                raise HexrailError("a hex of several stops that is neither exempt nor one stop "
                                   "group is not supported", where=f"hex {h.id}")


def _role(pos: Position, train: Train) -> str:
    """``etrain``, ``local`` or ``normal`` (``train_roles``, else by the train's name)."""
    return _roles(pos, train.id, train.name)


@per_position
def _roles(pos: Position, train_id: str, name: str) -> str:
    role = (pos.state.get("train_roles") or {}).get(train_id)
    if role is None:
        name = name.rstrip("+")
        role = "local" if name in LOCAL_NAMES else "etrain" if name == E_NAME else "normal"
    return "normal" if role == "pullman_attached" else str(role)


@per_position
def _paying(pos: Position) -> frozenset[str]:
    return frozenset(str(x) for x in pos.state.get("etrain_paying_nodes") or ())


@per_position
def _channel_end(pos: Position) -> bool:
    """May an E train end in France (the company has a token in the Channel city)?"""
    return pos.state.get("english_channel_tokened") is True and _channel(pos)[0] is not None


@per_position
def _france(pos: Position) -> tuple[Hex, Node] | None:
    """France's hex and its stop, when that is one offboard (the Channel city's E value)."""
    hex_ = pos.hex_by_id[_channel(pos)[1]]
    stops = [n for n in hex_.tile.nodes if n.is_stop]
    return (hex_, stops[0]) if len(stops) == 1 and stops[0].kind == "offboard" else None


@per_position
def _channel(pos: Position) -> tuple[str | None, str | None]:
    """The English Channel's and France's hexes, when both are on the map."""
    given = pos.state.get("english_channel") or {}
    channel, france = given.get("hex", CHANNEL), given.get("france_hex", FRANCE)
    if channel in pos.hex_by_id and france in pos.hex_by_id:
        return channel, france
    return None, None
