"""hexrail: the best routes for an 18xx company's trains, proven optimal.

>>> import hexrail
>>> plan = hexrail.solve(hexrail.example_path("demo"))
>>> plan.optimal
True

The top-level names load their modules on first use, so ``import hexrail`` (and the command
line's ``--help``) does not pay for numba and the compiled solver.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers and editors see; at run time `__getattr__` loads these
    from hexrail.errors import HexrailError
    from hexrail.examples import example_path
    from hexrail.io.native import load_position, position_to_json
    from hexrail.model import Position
    from hexrail.plan import Plan, RoutePlan, plan_from_json
    from hexrail.batch import solve_many
    from hexrail.solve import solve
    from hexrail.validate import check_plan, validate
    from hexrail.build import position

# public name -> the module it comes from
_SOURCES = {
    "HexrailError": "hexrail.errors", "example_path": "hexrail.examples",
    "load_position": "hexrail.io.native", "position_to_json": "hexrail.io.native",
    "Position": "hexrail.model", "Plan": "hexrail.plan", "RoutePlan": "hexrail.plan",
    "plan_from_json": "hexrail.plan", "solve": "hexrail.solve", "solve_many": "hexrail.batch", "check_plan": "hexrail.validate",
    "validate": "hexrail.validate", "position": "hexrail.build",
}

__all__ = [
    "HexrailError", "Plan", "Position", "RoutePlan", "example_path", "load_position",
    "check_plan", "plan_from_json", "position", "position_to_json", "solve", "solve_many", "validate",
]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value = version("hexrail")
        except PackageNotFoundError:  # a source tree on sys.path, not installed
            value = "0+unknown"
    elif name in _SOURCES:
        value = getattr(importlib.import_module(_SOURCES[name]), name)
    else:
        raise AttributeError(f"module 'hexrail' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_SOURCES) | {"__version__"})


class _Package(types.ModuleType):
    """The package module: the functions `solve` and `validate` keep their names.

    Importing a submodule binds it on its package (``hexrail.solve = <module>``); the functions
    are named like their modules, so that binding is replaced by the function, as the eager
    ``from hexrail.solve import solve`` of earlier versions left it.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("solve", "validate") and isinstance(value, types.ModuleType):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
