"""1861: The Railways of the Russian Empire (docs/rules.md (1861)).

The route rules of 1867 (`hexrail.rules.g1867`): pay rows filled with the best fillers, a paid
station, hex bonuses of private companies (Odessa D20, Moscow H8 twice, Poland A9–A15), the
pair bonus Moscow (H8) – Ekaterinburg (Q3), 40 × the train's multiplier, one stop per hex. The
national company (RSR) runs like any other.
"""

from __future__ import annotations

from hexrail.rules.base import register
from hexrail.rules.g1867 import Game1867


@register
class Game1861(Game1867):
    """1861: 1867's rules with its own pair bonus."""

    name = "1861"
    description = ("1861: N trains paid for cities and offboards with towns filling free slots, "
                   "5+5E, hex bonuses, Moscow-Ekaterinburg pair bonus, one stop per hex")
    pair_bonus = {"hexes_a": ("H8",), "hexes_b": ("Q3",), "amount": 40,
                  "times_train_multiplier": True}
