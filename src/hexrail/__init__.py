"""hexrail: the best routes for an 18xx company's trains, proven optimal.

>>> import hexrail
>>> plan = hexrail.solve(hexrail.example_path("demo"))
>>> plan.optimal
True
"""

from hexrail.errors import HexrailError
from hexrail.examples import example_path
from hexrail.io.native import load_position, position_to_json
from hexrail.model import Position
from hexrail.plan import Plan, RoutePlan, plan_from_json
from hexrail.solve import solve
from hexrail.validate import check_plan, validate  # noqa: E402  (the function shadows the module)

__all__ = [
    "HexrailError", "Plan", "Position", "RoutePlan", "example_path", "load_position",
    "check_plan", "plan_from_json", "position_to_json", "solve", "validate",
]
__version__ = "0.1.0"
