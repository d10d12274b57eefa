"""Colours and sizes of the drawing: the 18xx.games map palette, company and train colours.

>>> tile_fill("green"), tile_fill("no-such-colour")
('#71bf44', '#d8d8d8')
>>> train_colour(0) != train_colour(1)
True
"""

from __future__ import annotations

# Tile and map colours as 18xx.games paints them.
TILE_FILL = {
    "white": "#eae0c8", "yellow": "#fde900", "green": "#71bf44", "brown": "#cb7745",
    "gray": "#bcbdc0", "grey": "#bcbdc0", "red": "#ec232a", "blue": "#35a7ff",
    "purple": "#b065c6", "sepia": "#d0b48c", "orange": "#f48221", "salmon": "#ff9c84",
    "lightblue": "#a8d8f0", "black": "#404040",
}
UNKNOWN_FILL = "#d8d8d8"

# Revenue boxes of offboards name phase colours, including 1862's and the diesel column.
PHASE_FILL = {**TILE_FILL, "diesel": "#9a9a9a"}

# Borders by type; an unknown type is drawn grey.
BORDER_STROKE = {"impassable": "#c00000", "water": "#1f6fd1", "mountain": "#7a4a12",
                 "divider": "#202020"}

# One colour per train, in plan order: strong hues that stand out on every tile colour.
TRAIN_COLOURS = ("#1f5fd6", "#e0197d", "#ff8c00", "#7b2cbf", "#00a7c4", "#d62020",
                 "#0d7a4a", "#8a5a00", "#5a5a5a", "#c04ae0")

# Company token colours, handed out in the order companies are listed.
COMPANY_COLOURS = ("#c8102e", "#003f87", "#00843d", "#f2a900", "#6b2c91", "#e87722",
                   "#00a3ad", "#222222", "#8b5e3c", "#d6338a", "#7a9a01", "#4a6fa5")

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
TRACK = "#000000"


def tile_fill(colour: str) -> str:
    return TILE_FILL.get(colour, UNKNOWN_FILL)


def train_colour(index: int) -> str:
    return TRAIN_COLOURS[index % len(TRAIN_COLOURS)]


def text_on(fill: str) -> str:
    """Black or white text, whichever reads better on `fill` (``#rrggbb``)."""
    r, g, b = (int(fill[i:i + 2], 16) for i in (1, 3, 5))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#ffffff"
