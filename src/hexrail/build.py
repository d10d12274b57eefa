"""A position from Python values, in the obvious forms, checked as a document would be.

>>> import hexrail
>>> pos = hexrail.position(
...     {"A1": "city=revenue:20;path=a:0,b:_0", "A3": "city=revenue:30;path=a:3,b:_0"},
...     company="PRR", trains=["2"], tokens={"A1": "PRR"}, homes={"PRR": "A1"})
>>> pos
Position(generic: PRR, 2 hexes, trains 2)
>>> hexrail.solve(pos).revenue
50

The builder writes the native document (docs/position-format.md) and reads it back with
`hexrail.io.native.position_from_json`, so every check and every error message is the reader's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hexrail.io.native import FORMAT, load_position
from hexrail.model.position import Position


def position(hexes: Mapping[str, Any], *, company: str, trains: Sequence[Any],
             tokens: Mapping[str, Any] | None = None, homes: Mapping[str, Any] | None = None,
             profile: str = "generic", options: Mapping[str, Any] | None = None,
             phase: str = "1", colors: Sequence[str] = ("yellow",), layout: str = "flat",
             state: Mapping[str, Any] | None = None) -> Position:
    """A `Position` of `hexes` with `company` to run `trains`.

    `hexes` maps a hex id to its tile in tile notation (``"city=revenue:20;path=a:0,b:_0"``),
    to ``None`` for an empty hex, or to a hex object of the native format (``{"tile": ...,
    "rotation": 2}``). `tokens` maps a hex id to the company holding its first city (``"PRR"``),
    its slots (``["PRR", None]``) or the slots per city (``{"0": ["PRR"]}``); `homes` maps a
    company to its home hex or node (``"A1"``, ``"E5-0"``) or a list of them. Every company
    named by a token or a home is listed.
    """
    doc_hexes: dict[str, Any] = {}
    for hex_id, spec in hexes.items():
        if spec is None:
            doc_hexes[hex_id] = {}
        elif isinstance(spec, str):
            doc_hexes[hex_id] = {"tile": spec}
        else:
            doc_hexes[hex_id] = dict(spec)
    for hex_id, held in (tokens or {}).items():
        if hex_id not in doc_hexes:
            doc_hexes[hex_id] = {}
        doc_hexes[hex_id]["tokens"] = [held] if isinstance(held, str) else held
    homes = dict(homes or {})
    names = [company] + [c for c in homes if c != company]
    for slots in (h.get("tokens") for h in doc_hexes.values()):
        for slot in _slots(slots):
            who = slot if isinstance(slot, str) else (slot or {}).get("company")
            if isinstance(who, str) and who not in names:
                names.append(who)
    doc = {
        "format": FORMAT, "layout": layout, "phase": {"name": phase, "colors": list(colors)},
        "rules": {"profile": profile, "options": dict(options or {})}, "company": company,
        "companies": [{"id": c, **({"home": homes[c]} if c in homes else {})} for c in names],
        "trains": list(trains), "hexes": doc_hexes, "state": dict(state or {}),
    }
    return load_position(doc)


def _slots(tokens: Any) -> list:
    if isinstance(tokens, Mapping):
        return [s for slots in tokens.values() if isinstance(slots, list) for s in slots]
    return list(tokens) if isinstance(tokens, list) else []
