"""Rules profiles, registered by name (``generic`` and the games built on it)."""

from hexrail.rules.base import Bonus, PlanRules, Profile, get_profile, profiles, register

__all__ = ["Bonus", "PlanRules", "Profile", "get_profile", "profiles", "register"]
