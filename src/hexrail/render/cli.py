"""``hexrail render``: draw a position, with a plan's routes, as SVG or PNG.

    hexrail render position.json -o board.svg                  # the board
    hexrail render position.json --plan plan.json -o plan.png  # a plan (ours or one drawn by hand)
    hexrail render position.json --solve -o best.svg           # solve first, draw the best plan
    hexrail render 18SJ.jsonl --line 7 --solve -o 18sj.png     # one position of a JSON-lines file

The position may be native or an 18xx.games export (``schema: 18xx-route-position/1``).
"""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("position", help="position file (native JSON or an 18xx.games position)")
    parser.add_argument("--line", type=int, default=None,
                        help="the position on this line (from 1) of a JSON-lines file, as the "
                             "18xx.games corpus files hold them")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--plan", help="plan JSON to draw (hexrail-plan/1; routes by track or by stops)")
    which.add_argument("--solve", action="store_true", help="solve the position and draw the best plan")
    parser.add_argument("--time-limit", type=float, default=None, help="seconds for --solve")
    parser.add_argument("-o", "--output", help="output file, .svg or .png (default: SVG on stdout)")
    parser.add_argument("--format", choices=("svg", "png"), help="picture format (default: from -o)")
    parser.add_argument("--size", type=float, default=50.0, help="hex radius in SVG units (default 50)")
    parser.add_argument("--scale", type=float, default=2.0, help="PNG pixels per SVG unit (default 2)")
    parser.add_argument("--title", help="text above the map (default: position name, company, phase)")


def _nth_line(path: str, number: int) -> str:
    from hexrail.errors import HexrailError

    if number < 1:
        raise HexrailError("line numbers start at 1", where="--line")
    try:
        with open(path, encoding="utf-8") as stream:
            for k, line in enumerate(stream, 1):
                if k == number:
                    return line
    except OSError as err:
        raise HexrailError(f"cannot read file: {err.strerror}", where=path) from None
    raise HexrailError(f"the file has fewer than {number} lines", where=f"{path} --line")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from hexrail.errors import HexrailError
    from hexrail.io.native import load_position, read_json
    from hexrail.render import format_of, render_svg, svg_to_png

    if args.size <= 0 or args.scale <= 0:
        raise HexrailError("must be positive", where="--size/--scale")
    if args.line is not None:
        position = load_position(_nth_line(args.position, args.line))
    else:
        position = load_position(args.position)
    plan = None
    if args.solve:
        from hexrail.solve import solve

        plan = solve(position, time_limit=args.time_limit)
    elif args.plan:
        from hexrail.plan import plan_from_json

        plan = plan_from_json(read_json(Path(args.plan), "plan"))
    svg = render_svg(position, plan, size=args.size, title=args.title)
    fmt = format_of(args.output or "board.svg", args.format)
    data = svg_to_png(svg, scale=args.scale) if fmt == "png" else svg.encode("utf-8")
    if args.output:
        try:
            Path(args.output).write_bytes(data)
        except OSError as err:
            raise HexrailError(f"cannot write file: {err.strerror}", where=args.output) from None
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    return 0
