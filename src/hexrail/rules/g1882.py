"""1882: Assiniboia (docs/rules.md (1882)).

Plain N trains and D (any distance); every visited stop counts and pays; otherwise the generic
rules. One route bonus: **east–west**, +100 once for a route with stops in a western offboard
(I1 or B2) and in Hudson Bay (B12). The fishing exit B6 costs no distance (its visit cost in
the position). Neutral (CN) tokens never block, and are CN's own stations: both are facts of
the tokens in the position (a neutral token's company is CN).

State: ``route_bonuses`` (the normalised list, `state_bonuses`); without it the constant
east–west bonus.
"""

from __future__ import annotations

from hexrail.model.position import Position, Train
from hexrail.rules.base import Profile, RouteBonus, SetsBonus, register, state_bonuses
from hexrail.rules.base import ARRAY

EAST_WEST = SetsBonus("east_west", 100, (("I1", "B2"), ("B12",)))


@register
class Game1882(Profile):
    """1882: the east–west bonus."""

    state_types = {"route_bonuses": ARRAY}

    name = "1882"
    description = "1882: N and D trains; east-west bonus (+100 from I1 or B2 to B12)"

    def bonuses(self, pos: Position, train: Train) -> tuple[RouteBonus, ...]:
        if "route_bonuses" in pos.state:
            return state_bonuses(pos.state["route_bonuses"])
        return (EAST_WEST,)
