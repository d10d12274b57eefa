"""What the server's worker processes do: one request's work, JSON in, JSON (or a picture) out.

Each function takes the request's fields as plain data, so it can be sent to another process,
and returns ``{"ok": body, "cut_short": bool}`` (``cut_short``: a solve stopped at its time
limit before proving its plan optimal, so the server may give it longer, see
`hexrail.server.lanes`), or ``{"error": message, "where": field}`` for bad input (a
`HexrailError`: the message names the field, hex, company or train at fault). Anything else
that goes wrong is raised and reported by the server as an internal error.

>>> out = solve_job({"position": None})
>>> out["where"]
'position'
"""

from __future__ import annotations

import time
from typing import Any

from hexrail.errors import HexrailError

G18XX_SCHEMA = "18xx-route-position/1"
MAX_PNG_PIXELS = 40e6  # a PNG answer is at most this many pixels


def start_worker(memory_bytes: int = 0) -> None:
    """Worker start-up: cap the process's memory (address space; 0: no cap), then load the
    solver's compiled kernels once (the built module, or numba's disk cache).

    With the cap, a request whose solve would take more memory fails with `MemoryError` in
    its own worker instead of starving the machine.
    """
    if memory_bytes > 0:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    from hexrail.io.g18xx import warm_up as load_kernels

    load_kernels()


def ping() -> str:
    return "pong"


def _failure(err: HexrailError) -> dict[str, Any]:
    return {"error": str(err), "where": err.where}


def _load(data: Any):
    from hexrail.io.native import load_position

    if not isinstance(data, dict):
        raise HexrailError("a position must be a JSON object (native or 18xx.games export)",
                           where="position")
    return load_position(data)


def _plan(data: Any):
    """A plan document: ours (``hexrail-plan/1``) or 18xx.games routes (``track`` per route)."""
    from hexrail.io.g18xx import plan_from_18xx_routes
    from hexrail.plan import plan_from_json

    if not isinstance(data, dict) or not isinstance(data.get("routes"), list):
        raise HexrailError("a plan must be an object with a 'routes' list", where="plan")
    routes = data["routes"]
    if routes and all(isinstance(r, dict) and "track" in r and "paths" not in r for r in routes):
        return plan_from_18xx_routes(routes, where="plan.routes")
    return plan_from_json(data)


def native_record(pos: Any, plan: Any, seconds: float, objective: str) -> dict[str, Any]:
    """A solved native position described with the keys of a ``hexrail solve --from 18xx`` line.

    Identifiers of an 18xx.games game and its recorded figures are ``None``: a native position
    has none.
    """
    from hexrail.io.g18xx import best_recorded, recorded_figures, route_to_18xx

    routes = []
    for r in plan.routes:
        doc = r.to_json()
        doc["g18xx"] = route_to_18xx(pos, r)
        routes.append(doc)
    figures = recorded_figures({})
    return {
        "title": None, "fixture": None, "action_index": None, "game_id": None,
        "entity": pos.company, "profile": plan.profile, "rules_covered": True,
        "rules_note": f"{plan.profile} rules profile", "objective": objective,
        "revenue": plan.revenue, "subsidy": plan.subsidy, "total": plan.total,
        "optimal": plan.optimal, "upper_bound": plan.upper_bound, "seconds": round(seconds, 6),
        "routes": routes, **({"choices": plan.choices} if plan.choices is not None else {}),
        **figures, "best_recorded": best_recorded(figures, objective), "vs_best_recorded": None,
    }


def solve_job(request: dict[str, Any]) -> dict[str, Any]:
    """Solve a position within ``time_limit`` seconds; the result line of ``solve --from 18xx``."""
    from hexrail.io.g18xx import position_from_18xx, solve_record
    from hexrail.solve import solve

    data = request.get("position")
    time_limit = request.get("time_limit")
    objective = request.get("objective", "income")
    choices = bool(request.get("choices", False))
    try:
        if isinstance(data, dict) and data.get("schema") == G18XX_SCHEMA:
            position_from_18xx(data)  # bad input is reported before any solving, with its field
            record = solve_record(data, time_limit=time_limit, objective=objective, choices=choices)
            if "error" in record:
                if record["error"].startswith("internal error: MemoryError"):
                    raise MemoryError(record["error"])  # reported as the worker's memory cap
                if record["error"].startswith("internal error"):
                    raise RuntimeError(record["error"])  # reported as it is
                return {"error": record["error"], "where": None}
            return {"ok": record, "cut_short": not record["optimal"]}
        pos = _load(data)
        start = time.perf_counter()
        plan = solve(pos, time_limit=time_limit, objective=objective, choices=choices)
        return {"ok": native_record(pos, plan, time.perf_counter() - start, objective),
                "cut_short": not plan.optimal}
    except HexrailError as err:
        return _failure(err)


def validate_job(request: dict[str, Any]) -> dict[str, Any]:
    """Check a plan's routes on a position: the report of ``hexrail validate --format json``."""
    from hexrail.validate import check_plan

    try:
        pos = _load(request.get("position"))
        plan = _plan(request.get("plan"))
        report = check_plan(pos, plan, objective=request.get("objective", "income"))
        return {"ok": report.to_json(), "cut_short": False}
    except HexrailError as err:
        return _failure(err)


def render_job(request: dict[str, Any]) -> dict[str, Any]:
    """Draw a position, with a given plan or the best one, as SVG text or PNG bytes."""
    from hexrail.render import render_svg, svg_to_png
    from hexrail.solve import solve

    try:
        pos = _load(request.get("position"))
        plan, cut_short = None, False
        if request.get("plan") is not None:
            plan = _plan(request["plan"])
        elif request.get("solve"):
            plan = solve(pos, time_limit=request.get("time_limit"),
                         objective=request.get("objective", "income"))
            cut_short = not plan.optimal
        svg = render_svg(pos, plan, size=request.get("size", 50.0), legend=request.get("legend", True),
                         palette=request.get("palette", "classic"))
        if request.get("format", "svg") == "png":
            png = svg_to_png(svg, scale=request.get("scale", 1.0), max_pixels=MAX_PNG_PIXELS)
            return {"ok": png, "media_type": "image/png", "cut_short": cut_short}
        return {"ok": svg.encode("utf-8"), "media_type": "image/svg+xml", "cut_short": cut_short}
    except HexrailError as err:
        return _failure(err)


def position_job(request: dict[str, Any]) -> dict[str, Any]:
    """A position as the page edits it: its native document (any position read, written back
    as ``hexrail-position/1``), company, trains, phase, state, and the routes 18xx.games
    recorded for it."""
    from hexrail.io.native import position_to_json
    from hexrail.model.frozen import thaw
    from hexrail.rules import get_profile

    data = request.get("position")
    try:
        pos = _load(data)
        native = position_to_json(pos)
        g18xx = data.get("schema") == G18XX_SCHEMA
        if g18xx:
            name = " · ".join(str(x) for x in (data.get("title"), data.get("round"),
                                              f"game {data.get('game_id')}" if data.get("game_id") else None,
                                              f"action {data.get('action_index')}") if x)
        else:
            name = str(pos.meta.get("name") or "")
        if name:
            native["name"] = name
        recorded = None
        submitted = data.get("submitted") if g18xx else None
        if isinstance(submitted, dict) and submitted.get("routes"):
            routes = submitted["routes"]
            recorded = {"routes": routes, "revenue": submitted.get("revenue"),
                        "subsidy": submitted.get("subsidy", 0), "error": submitted.get("error"),
                        "drawable": all(isinstance(r, dict) and r.get("track") for r in routes)}
        return {"ok": {
            "source": "18xx" if g18xx else "native", "name": name, "company": pos.company,
            "profile": pos.rules.profile, "train_types": list(get_profile(pos.rules.profile).train_types),
            "trains": [{"id": t.id, "name": t.name} for t in pos.trains],
            "phase": native["phase"], "state": thaw(pos.state), "native": native, "recorded": recorded,
        }, "cut_short": False}
    except HexrailError as err:
        return _failure(err)


def game_job(request: dict[str, Any]) -> dict[str, Any]:
    """Replay an 18xx.games game with the bridge: its positions before every run of trains."""
    import json
    import os
    import tempfile

    from hexrail.bridge import export

    game = request.get("game")
    try:
        if not isinstance(game, dict) or not isinstance(game.get("actions"), list):
            raise HexrailError("a game's data is a JSON object with its 'actions' list (18xx.games: "
                               "Tools → copy the game data)", where="game")
        # the file's name is the positions' "fixture": the game's id, not a temporary name
        game_id = game.get("id")
        name = f"{game_id}.json" if isinstance(game_id, int) else "game.json"
        with tempfile.TemporaryDirectory(prefix="hexrail-game-") as folder:
            path = os.path.join(folder, name)
            with open(path, "w", encoding="utf-8") as f:
                json.dump(game, f)
            positions = list(export(path, all_runs=True))
        if not positions:
            raise HexrailError("the game has no runs of trains yet", where="game")
        return {"ok": {"positions": positions}, "cut_short": False}
    except HexrailError as err:
        return _failure(err)


def bridge_status() -> dict[str, Any]:
    """Whether this server can replay 18xx.games games (`hexrail.bridge`), and if not why."""
    from hexrail.bridge import engine_dir, ruby

    try:
        engine, found = engine_dir(), ruby()
    except HexrailError as err:
        return {"configured": False, "message": f"the 18xx.games bridge is not configured on this "
                                                f"server: {err}"}
    return {"configured": True, "message": f"18xx.games engine at {engine}, Ruby {found}"}
