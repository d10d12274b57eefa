"""Colours and sizes of the drawing: the 18xx.games map palette, company and train colours.

>>> tile_fill("green"), tile_fill("no-such-colour")
('#71bf44', '#d8d8d8')
>>> train_colour(0) != train_colour(1)
True
>>> train_colour(0, "okabe-ito"), train_dash(0, "okabe-ito", 50.0), train_dash(1, "okabe-ito", 50.0)
('#0072b2', None, '20 8')
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

# Train colours that people with any common colour-vision deficiency can tell apart: the
# Okabe–Ito palette without its yellow (lost on yellow tiles) and black (the track's colour),
# each train also with its own dash pattern (lengths in hex sizes; None: solid), so that two
# routes differ in shape as well as hue.
OKABE_ITO = ("#0072b2", "#d55e00", "#cc79a7", "#009e73", "#e69f00", "#56b4e9")
OKABE_ITO_DASHES = (None, (0.4, 0.16), (0.1, 0.12), (0.4, 0.12, 0.08, 0.12), (0.22, 0.22),
                    (0.6, 0.1, 0.1, 0.1, 0.1, 0.1))

# Route styles by name (`hexrail.render.svg.render_svg`'s ``palette``): colours, dash patterns.
PALETTES: dict[str, tuple[tuple[str, ...], tuple[tuple[float, ...] | None, ...]]] = {
    "classic": (TRAIN_COLOURS, (None,)),
    "okabe-ito": (OKABE_ITO, OKABE_ITO_DASHES),
}

# Company token colours, handed out in the order companies are listed.
COMPANY_COLOURS = ("#c8102e", "#003f87", "#00843d", "#f2a900", "#6b2c91", "#e87722",
                   "#00a3ad", "#222222", "#8b5e3c", "#d6338a", "#7a9a01", "#4a6fa5")

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
TRACK = "#000000"


def tile_fill(colour: str) -> str:
    return TILE_FILL.get(colour, UNKNOWN_FILL)


def train_colour(index: int, palette: str = "classic") -> str:
    colours = PALETTES[palette][0]
    return colours[index % len(colours)]


def train_dash(index: int, palette: str, size: float) -> str | None:
    """The SVG ``stroke-dasharray`` of a train's route at hex size `size`; None for solid."""
    dashes = PALETTES[palette][1]
    dash = dashes[index % len(dashes)]
    return None if dash is None else " ".join(f"{d * size:g}" for d in dash)


def text_on(fill: str) -> str:
    """Black or white text, whichever reads better on `fill` (``#rrggbb``)."""
    r, g, b = (int(fill[i:i + 2], 16) for i in (1, 3, 5))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#ffffff"
