"""Hex grid geometry: 18xx coordinate names, doubled coordinates, neighbours and rotation.

18xx maps name hexes by a letter and a number (``B12``). Following the 18xx.games engine, the
names map to *doubled* coordinates: on a flat-topped map the letter is the column (x) and the
number the row (y); on a pointy-topped map the number is x and the letter y. Hex sides are
numbered 0-5 clockwise; side ``e`` of a hex faces side ``(e + 3) % 6`` of its neighbour.

>>> Layout("flat").neighbour("B2", 0)
'B4'
>>> Layout("pointy").neighbour("F2", 4)
'F4'
>>> Layout("flat").distance("A1", "C3")
2
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from hexrail.errors import HexrailError

ORIENTATIONS = ("flat", "pointy")

# Neighbour offsets per side in doubled coordinates (y grows downwards), as the 18xx.games engine.
DIRECTIONS = {
    "flat": ((0, 2), (-1, 1), (-1, -1), (0, -2), (1, -1), (1, 1)),
    "pointy": ((-1, 1), (-2, 0), (-1, -1), (1, -1), (2, 0), (1, 1)),
}

_NAME = re.compile(r"^([A-Za-z]+)(-?\d+)$")


def opposite(edge: int) -> int:
    """The side of the neighbour that faces side `edge`."""
    return (edge + 3) % 6


def facing_lanes(lane: tuple[int, int], facing_widths: frozenset[int] | set[int],
                 single_joins_double: bool = False) -> tuple[tuple[int, int], ...]:
    """The lanes at the facing side of the neighbour that track leaving in `lane` (width, index)
    continues into, given the widths of the neighbour's track at that side.

    Lane i of w meets lane w-1-i (mirrored). Where a title joins single to double track
    (1831: "a single track touching a double track is connected to both tracks"), a single
    track facing only double track meets both of its lanes, and each of those meets it.

    >>> facing_lanes((2, 0), {2})
    ((2, 1),)
    >>> facing_lanes((1, 0), {2}, True), facing_lanes((2, 1), {1}, True)
    (((2, 0), (2, 1)), ((1, 0),))
    """
    width, index = lane
    if single_joins_double and width in (1, 2) and set(facing_widths) == {3 - width}:
        other = 3 - width
        return tuple((other, k) for k in range(other))
    return ((width, width - 1 - index),)


def rotate(edge: int, ticks: int) -> int:
    """Side `edge` after turning the tile `ticks` sixths clockwise."""
    return (edge + ticks) % 6


def _letters_to_index(letters: str) -> int:
    index = 0
    for ch in letters.upper():
        index = index * 26 + (ord(ch) - ord("A") + 1)
    return index - 1


@lru_cache(maxsize=65_536)  # a map has at most a few hundred names, read over and over
def name_parts(hex_id: str) -> tuple[int, int]:
    """The letters and the number of a hex name, as indices from 0."""
    m = _NAME.match(hex_id)
    if not m:
        raise HexrailError("not a hex name (expected letters then a number, e.g. 'B12')",
                           where=f"hex {hex_id!r}")
    return _letters_to_index(m.group(1)), int(m.group(2)) - 1


def _index_to_letters(index: int) -> str:
    out = ""
    index += 1
    while index > 0:
        index, rem = divmod(index - 1, 26)
        out = chr(ord("A") + rem) + out
    return out


@dataclass(frozen=True, slots=True)
class Layout:
    """Map geometry: hex orientation and which part of a hex name gives x and y."""

    orientation: str = "flat"
    x_from: str = ""  # "letter" or "number"; empty means the orientation's usual choice
    y_from: str = ""

    def __post_init__(self) -> None:
        if self.orientation not in ORIENTATIONS:
            raise HexrailError(
                f"unknown orientation {self.orientation!r}, expected 'flat' or 'pointy'",
                where="layout",
            )
        default = ("letter", "number") if self.orientation == "flat" else ("number", "letter")
        object.__setattr__(self, "x_from", self.x_from or default[0])
        object.__setattr__(self, "y_from", self.y_from or default[1])
        if not (isinstance(self.x_from, str) and isinstance(self.y_from, str)) or \
                {self.x_from, self.y_from} != {"letter", "number"}:
            raise HexrailError("axes must map one of x/y to 'letter' and the other to 'number'",
                               where="layout.axes")

    def xy(self, hex_id: str) -> tuple[int, int]:
        """Doubled coordinates of a hex name."""
        letter, number = name_parts(hex_id)
        return (letter, number) if self.x_from == "letter" else (number, letter)

    def name(self, x: int, y: int) -> str:
        """Hex name of doubled coordinates (inverse of `xy`)."""
        parts = {self.x_from: x, self.y_from: y}
        if parts["letter"] < 0:
            return ""
        return f"{_index_to_letters(parts['letter'])}{parts['number'] + 1}"

    def neighbour(self, hex_id: str, edge: int) -> str:
        """Name of the hex across side `edge` (it may not exist on the map)."""
        x, y = self.xy(hex_id)
        dx, dy = DIRECTIONS[self.orientation][edge]
        return self.name(x + dx, y + dy)

    def distance(self, a: str, b: str) -> int:
        """Crow-fly distance in hexes between two hex names."""
        (x1, y1), (x2, y2) = self.xy(a), self.xy(b)
        dx, dy = abs(x1 - x2), abs(y1 - y2)
        if self.orientation == "flat":
            return dx + max(0, (dy - dx) // 2)
        return dy + max(0, (dx - dy) // 2)
