"""How a plan names track and nodes: ``(hex id, index)`` pairs, written ``E5:2`` and ``E5-0``."""

from __future__ import annotations

OBJECTIVES = ("income", "revenue")

# A stops-only route tries at most this many walks through its stops before giving up.
MAX_WALKS = 5000

PathRef = tuple[str, int]  # (hex id, index in the tile's paths): "E5:2"
NodeRef = tuple[str, int]  # (hex id, node index): "E5-0"


def _path_str(ref: PathRef) -> str:
    return f"{ref[0]}:{ref[1]}"


def _node_str(ref: NodeRef) -> str:
    return f"{ref[0]}-{ref[1]}"
