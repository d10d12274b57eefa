"""1870: Railroading across the Trans Mississippi (docs/rules.md (1870)).

Plain N trains (and D with diesels); every visited stop counts and pays; the red areas are
zero-slot cities (route ends, closed to passing), destination tokens are extra tokens (the
company's station, filling no slot). Route bonuses, from the position's state:

===============  ======  ==================================================================
bonus            amount  condition
===============  ======  ==================================================================
cattle           10      once per route with a stop in the cattle token's hex (its holder)
open port        20/10   once per route with a stop in the port's hex (holder / others)
closed port      20      the same, holder only
destination      stop    a route ending in the destination hex earns that end stop again,
                         once the destination is reached and its token placed
===============  ======  ==================================================================

A **connection run** (``state.connection_run``): when a route runs, one has both end stops in
the home hex or the destination hex (``home_hex``, ``connection_run_destination``).

State: ``route_bonuses`` (the normalised list, `state_bonuses`), ``connection_run``,
``home_hex``, ``connection_run_destination``.
"""

from __future__ import annotations

from hexrail.errors import HexrailError
from hexrail.model.position import Position, Train
from hexrail.rules.base import PlanRules, Profile, RouteBonus, register, state_bonuses
from hexrail.rules.base import ARRAY, TEXT


@register
class Game1870(Profile):
    """1870: cattle, ports, destinations and the connection run."""

    state_types = {"route_bonuses": ARRAY, "home_hex": TEXT, "connection_run_destination": TEXT}

    name = "1870"
    description = ("1870: N and D trains; cattle (+10), ports (+20/+10), destination end stop "
                   "paid twice, connection runs")

    def bonuses(self, pos: Position, train: Train) -> tuple[RouteBonus, ...]:
        return state_bonuses(pos.state.get("route_bonuses"))

    def plan_rules(self, pos: Position) -> PlanRules:
        state = pos.state
        if not state.get("connection_run"):
            return PlanRules()
        ends = tuple(h for h in (state.get("home_hex"), state.get("connection_run_destination")) if h)
        for h in ends:
            if not isinstance(h, str) or h not in pos.hex_by_id:
                raise HexrailError(f"connection run hex {h!r} is not on the map",
                                   where="state.home_hex")
        if not ends:
            raise HexrailError("a connection run needs home_hex and connection_run_destination",
                               where="state.connection_run")
        return PlanRules(connection=ends)
