"""The route calculator page: one static HTML page, its script and its style, served by the app.

``/`` is ``static/index.html``; ``/static/`` holds ``app.js`` (a plain ES module, no build step)
and ``app.css``. Nothing is fetched from elsewhere: the page works offline. It talks to the
service's JSON endpoints only (``/examples``, ``/position``, ``/solve``, ``/render``,
``/validate``, ``/bridge``, ``/game``). ``/?example=demo`` loads and solves a bundled example.

>>> sorted(p.name for p in STATIC_DIR.iterdir() if not p.name.startswith("."))
['app.css', 'app.js', 'index.html']
"""

from __future__ import annotations

import json
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from hexrail.server.body import error_response
from hexrail.server.models import ExampleAnswer

STATIC_DIR = Path(__file__).parent / "static"
STATIC_URL = "/static"
# The page changes with hexrail: browsers ask again rather than show a stale copy.
NO_STALE = {"Cache-Control": "no-cache"}


def example_list() -> list[dict[str, str]]:
    """Each bundled example's name and title (its position's ``name``)."""
    from hexrail.examples import example_names, example_path

    out = []
    for name in example_names():
        doc = json.loads(example_path(name).read_text(encoding="utf-8"))
        out.append({"name": name, "title": str(doc.get("name") or name)})
    return out


def add_web(app: FastAPI) -> None:
    """Serve the page at ``/``, its files under ``/static``, and the bundled examples."""
    app.mount(STATIC_URL, StaticFiles(directory=STATIC_DIR), name="web-static")

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", media_type="text/html", headers=NO_STALE)

    @app.get("/examples", summary="The bundled example positions", response_model=list[ExampleAnswer])
    async def examples() -> list[dict[str, str]]:
        return example_list()

    @app.get("/examples/{name}", summary="A bundled example position (native JSON)",
             responses={404: {"description": "no such example"}})
    async def example(name: str) -> JSONResponse:
        from hexrail.examples import example_names, example_path

        if name not in example_names():
            return error_response(404, f"no example {name!r}; examples: {', '.join(example_names())}",
                                  "example")
        return JSONResponse(json.loads(example_path(name).read_text(encoding="utf-8")))
