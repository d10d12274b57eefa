"""Check a plan against the route rules from first principles: the slow, obvious twin of the solver.

The solver compiles track into chains and enumerates routes in numba kernels; this module uses
none of that (nothing from ``hexrail.graph``, ``hexrail.search`` or ``hexrail.combine``). It
walks the model itself — tiles, paths, hex sides and lanes, tokens — and asks the rules profile's
hooks, so a bug in the fast path shows up as a disagreement here. Revenue is chosen by brute
force, which is exact and fast enough for one company's routes.

Every broken rule becomes a message naming the rule and the hex, node or track at fault; nothing
a plan says makes it raise (a malformed position or plan document still raises `HexrailError`).

>>> from hexrail.examples import example_path
>>> report = check_plan(example_path("demo"),
...                     {"routes": [{"train": "4-0", "stops": ["A1-0", "B2-0", "D4-0", "E5-0"]}]})
>>> report.legal, report.revenue
(True, 150)
>>> report.routes[0].paths
('A1:0', 'B2:0', 'B2:1', 'C3:0', 'D4:0', 'D4:2', 'E5:0')
"""

from hexrail.validate.check import check_plan, validate
from hexrail.validate.report import PlanReport, RouteReport
from hexrail.validate.sets import build_sets, set_ends

__all__ = ["PlanReport", "RouteReport", "build_sets", "check_plan", "set_ends", "validate"]
