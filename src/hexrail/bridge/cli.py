"""``hexrail import 18xx GAME.json --engine DIR [--action N | --all] -o positions.jsonl``.

Replays an 18xx.games game with the engine and writes its positions, one JSON line each, in
schema ``18xx-route-position/1``; ``hexrail solve --from 18xx-game`` does this and solves.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from typing import Any

from hexrail.errors import HexrailError

log = logging.getLogger("hexrail")


def add_game_arguments(p: argparse.ArgumentParser) -> None:
    """The options that say which game, which engine and which positions."""
    p.add_argument("--engine", metavar="DIR",
                   help="a checkout of the 18xx.games engine (default: $HEXRAIL_18XX_ENGINE)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--action", type=int, metavar="N",
                       help="the position before the run_routes action of index N (0-based, into "
                            "the game's actions)")
    which.add_argument("--all", action="store_true", dest="all_runs",
                       help="the position before every run_routes action")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", choices=("18xx",), help="where the game comes from (18xx.games)")
    p.add_argument("game", help="the game's data (18xx.games Tools → game data, or an engine "
                                "fixture); - for stdin")
    add_game_arguments(p)
    p.add_argument("-o", "--output", help="positions file (JSON lines; default stdout)")
    p.add_argument("--check-result", action="store_true",
                   help="also replay the rest of the game and check it reaches its recorded result")


def positions(args: argparse.Namespace) -> Any:
    from hexrail.bridge import export

    return export(args.game, engine=args.engine, action=args.action, all_runs=args.all_runs,
                  check_result=getattr(args, "check_result", False))


def run(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout  # noqa: SIM115
    count = 0
    try:
        for position in positions(args):
            out.write(json.dumps(position) + "\n")
            out.flush()
            count += 1
    except OSError as err:
        raise HexrailError(f"cannot write: {err.strerror}", where=args.output or "stdout") from None
    finally:
        if out is not sys.stdout:
            out.close()
    log.info(f"{count} position{'s' * (count != 1)} in {time.perf_counter() - start:.2f} s")
    return 0
