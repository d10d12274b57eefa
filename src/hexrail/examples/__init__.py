"""Example positions shipped with hexrail (``hexrail demo`` solves ``demo``)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def example_names() -> list[str]:
    return sorted(p.name.removesuffix(".json") for p in resources.files(__name__).iterdir()
                  if p.name.endswith(".json"))


def example_path(name: str) -> Path:
    """Path of a bundled example position."""
    path = Path(str(resources.files(__name__).joinpath(f"{name}.json")))
    if not path.exists():
        from hexrail.errors import HexrailError

        raise HexrailError(f"no example {name!r}; examples: {example_names()}", where="example")
    return path
