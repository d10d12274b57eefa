"""Pictures of boards and plans: SVG (no dependencies) and PNG (through CairoSVG).

>>> import hexrail
>>> from hexrail.render import render_svg
>>> plan = hexrail.solve(hexrail.example_path("demo"))
>>> svg = render_svg(plan.position, plan)
>>> svg.count('class="route"')
3
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hexrail.errors import HexrailError

FORMATS = ("svg", "png")


def render_svg(position: Any = None, plan: Any = None, **kwargs: Any) -> str:
    """SVG text of a position and, if given, a plan (`hexrail.render.svg.render_svg`, loaded
    on first use: ``hexrail --help`` does not pay for it)."""
    from hexrail.render.svg import render_svg as draw

    return draw(position, plan, **kwargs)


def svg_to_png(svg: str, *, scale: float = 2.0, max_pixels: float | None = None) -> bytes:
    """Rasterise SVG text to PNG bytes with CairoSVG (``pip install "hexrail[render]"``).

    With `max_pixels`, a picture that would be larger is refused (`HexrailError`) before any
    drawing.
    """
    if max_pixels is not None:
        size = re.search(r'<svg[^>]*?width="([0-9.]+)"[^>]*?height="([0-9.]+)"', svg)
        if size:
            pixels = float(size.group(1)) * float(size.group(2)) * scale * scale
            if pixels > max_pixels:
                raise HexrailError(f"the picture would have {pixels / 1e6:.0f} million pixels, over the "
                                   f"limit of {max_pixels / 1e6:.0f} million: lower size or scale",
                                   where="scale")
    try:
        import cairosvg
    except (ImportError, OSError) as err:  # OSError: the cairo library itself is missing
        raise HexrailError(f"PNG output needs CairoSVG and the cairo library ({err}); "
                           "SVG output works without them", where="format png") from None
    return cairosvg.svg2png(bytestring=svg.encode("utf-8"), scale=scale)


def render_png(position: Any = None, plan: Any = None, *, scale: float = 2.0, **kwargs: Any) -> bytes:
    """PNG bytes of `render_svg(position, plan, **kwargs)`."""
    return svg_to_png(render_svg(position, plan, **kwargs), scale=scale)


def format_of(path: str | Path, fmt: str | None = None) -> str:
    """The picture format asked for: `fmt`, else the file's suffix (``.svg``/``.png``)."""
    fmt = (fmt or Path(path).suffix.lstrip(".") or "svg").lower()
    if fmt not in FORMATS:
        raise HexrailError(f"unknown picture format {fmt!r}; expected one of {FORMATS}", where="output")
    return fmt


def save_picture(path: str | Path, position: Any = None, plan: Any = None, *, fmt: str | None = None,
                 **kwargs: Any) -> Path:
    """Draw and write an SVG or PNG file (format from `fmt` or the suffix); the path written."""
    path = Path(path)
    svg = render_svg(position, plan, **kwargs)
    if format_of(path, fmt) == "png":
        path.write_bytes(svg_to_png(svg))
    else:
        path.write_text(svg, encoding="utf-8")
    return path


__all__ = ["FORMATS", "format_of", "render_png", "render_svg", "save_picture", "svg_to_png"]
