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

__all__ = [
    "HexrailError", "Plan", "Position", "RoutePlan", "example_path", "load_position",
    "plan_from_json", "position_to_json", "solve",
]
__version__ = "0.1.0"
