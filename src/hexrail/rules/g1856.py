"""1856: Railroading in Upper Canada (docs/rules.md (1856)).

Plain N trains and D (any distance); every visited stop counts and pays; otherwise the generic
rules. Two route bonuses, from the position's state (the 18xx.games export's ``title_state``):

==============  ======  ===================================================================
bonus           amount  condition
==============  ======  ===================================================================
port            20      once per route with a stop in the hex holding the port marker; only
                        for the company holding the marker's assignment (before the first 6)
bridge, tunnel  10      per distinct stop hex among the right's hexes (Buffalo P17/P19,
                        Sarnia B13), for a company holding the right
==============  ======  ===================================================================

State: ``route_bonuses`` (the normalised list, `state_bonuses`), or else the raw keys
``port_bonus_entitled``, ``port_hexes``, ``port_bonus`` and ``hex_bonuses``.
"""

from __future__ import annotations

from hexrail.model.position import Position, Train
from hexrail.rules.base import HexBonus, Profile, RouteBonus, SetsBonus, register, state_bonuses
from hexrail.rules.base import ARRAY, NUMBER

PORT_BONUS = 20  # the engine's literal


@register
class Game1856(Profile):
    """1856: port marker and bridge/tunnel rights as route bonuses."""

    state_types = {
        "route_bonuses": ARRAY, "port_hexes": ARRAY, "port_bonus": NUMBER, "hex_bonuses": ARRAY,
    }

    name = "1856"
    description = "1856: N and D trains; port marker (+20 once) and bridge/tunnel rights (+10 per hex)"

    def bonuses(self, pos: Position, train: Train) -> tuple[RouteBonus, ...]:
        state = pos.state
        if "route_bonuses" in state:
            return state_bonuses(state["route_bonuses"])
        out: list[RouteBonus] = []
        if state.get("port_bonus_entitled") and state.get("port_hexes"):
            out.append(SetsBonus("port", int(state.get("port_bonus", PORT_BONUS)),
                                 (tuple(state["port_hexes"]),)))
        for right in state.get("hex_bonuses") or ():
            out.append(HexBonus(str(right.get("kind", "hex bonus")), int(right["amount"]),
                                tuple(right["hexes"])))
        return tuple(out)
