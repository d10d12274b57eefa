"""Rules profiles, registered by name (``generic`` and the games built on it).

Every module of this package is imported here, so a game's profile registers itself just by
living in ``hexrail/rules/``.
"""

import importlib
import pkgutil

from hexrail.rules.base import (Bonus, CyclicRun, PlanRules, Profile, StopRule, get_profile, profiles,
                                register, ruled)

for _module in pkgutil.iter_modules(__path__):
    if _module.name != "base":
        importlib.import_module(f"{__name__}.{_module.name}")

__all__ = ["Bonus", "CyclicRun", "PlanRules", "Profile", "StopRule", "get_profile", "profiles", "register",
           "ruled"]
