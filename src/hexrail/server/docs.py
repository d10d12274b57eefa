"""``/docs`` without the internet: Swagger UI (and ReDoc at ``/redoc``) from local files.

FastAPI's own pages load their scripts from a CDN, so on a machine offline they are blank.
The ``serve`` extra brings ``fastapi-offline``, a package that ships the Swagger UI 5 and ReDoc
files (Swagger UI 5 reads the OpenAPI 3.1 schemas FastAPI writes); they are served from
``/docs-static``. Where that package is missing, ``/docs`` is a plain page listing the
endpoints from the OpenAPI schema, with a link to ``/openapi.json``.
"""

from __future__ import annotations

import html
from importlib import resources

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

STATIC_URL = "/docs-static"


def _assets() -> str | None:
    """The folder of the Swagger UI and ReDoc files, if the package that ships them is here."""
    try:
        folder = resources.files("fastapi_offline") / "static"
    except ImportError:
        return None
    return str(folder) if (folder / "swagger-ui-bundle.js").is_file() else None


def add_docs(app: FastAPI) -> None:
    """Serve ``/docs`` (and ``/redoc`` when the files are here) from this machine. The app must be
    made with ``docs_url=None, redoc_url=None``."""
    assets = _assets()
    title = f"{app.title} {app.version}"
    if assets is None:
        @app.get("/docs", include_in_schema=False)
        async def endpoint_list() -> HTMLResponse:
            return HTMLResponse(endpoints_page(app))
        return

    app.mount(STATIC_URL, StaticFiles(directory=assets), name="docs-static")

    @app.get("/docs", include_in_schema=False)
    async def swagger() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url=app.openapi_url, title=title,
                                   swagger_js_url=f"{STATIC_URL}/swagger-ui-bundle.js",
                                   swagger_css_url=f"{STATIC_URL}/swagger-ui.css",
                                   swagger_favicon_url=f"{STATIC_URL}/favicon.png",
                                   swagger_ui_parameters={"validatorUrl": None})  # (no badge from afar)

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return get_redoc_html(openapi_url=app.openapi_url, title=title,
                              redoc_js_url=f"{STATIC_URL}/redoc.standalone.js",
                              redoc_favicon_url=f"{STATIC_URL}/favicon.png", with_google_fonts=False)


def endpoints_page(app: FastAPI) -> str:
    """A self-contained HTML page: each endpoint's method, path and summary."""
    rows = []
    for path, item in app.openapi()["paths"].items():
        for method, op in item.items():
            rows.append(f"<tr><td>{method.upper()}</td><td><code>{html.escape(path)}</code></td>"
                        f"<td>{html.escape(op.get('summary', ''))}</td></tr>")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(app.title)}</title>"
            f"</head><body><h1>{html.escape(app.title)} {html.escape(app.version)}</h1>"
            f"<p>{html.escape(app.description)}</p><table><tr><th>method</th><th>path</th><th>what</th></tr>"
            f"{''.join(rows)}</table><p>The full schema: <a href='{app.openapi_url}'>{app.openapi_url}</a>"
            "</p></body></html>")
