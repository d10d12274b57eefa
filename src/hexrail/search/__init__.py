"""Route search: enumerate the legal routes of each train (numba) and the brute-force twin."""

from typing import Any

__all__ = ["Candidates", "enumerate_routes"]


def __getattr__(name: str) -> Any:
    # (loaded when asked for: the model of track's own process, `python -m
    # hexrail.search.relax`, needs none of the walks)
    if name in __all__:
        from hexrail.search import routes

        return getattr(routes, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
