"""The HTTP service: hexrail as an engine backend for other tools (FastAPI on uvicorn).

========  ============  ===========================================================================
method    path          what
========  ============  ===========================================================================
POST      /solve        ``{"position", "time_limit"?, "objective"?}`` → the result line of
                        ``hexrail solve --from 18xx`` (same keys; for a native position the game
                        identifiers and recorded figures are null)
POST      /validate     ``{"position", "plan", "objective"?}`` → the report of ``hexrail validate``
POST      /render       ``{"position", "plan"? | "solve"?, "format"?: svg|png, ...}`` → the picture
GET       /health       liveness and the server's limits
GET       /profiles     rules profiles: name, description, train types, options
GET       /openapi.json the OpenAPI schema (``/docs`` shows it)
========  ============  ===========================================================================

A position is native (``hexrail-position/1``) or an 18xx.games export, recognised by its
``schema`` field (``18xx-route-position/1``). Bad input gets a 4xx with ``{"error", "where"}``
naming the field, hex, company or train at fault; a body over ``max_body_bytes`` gets 413. Every
solve runs under a time limit, the request's ``time_limit`` capped by ``max_time_limit``; a solve
cut short returns its best plan with ``optimal: false`` and an honest ``upper_bound``. Jobs run in
worker processes with a hard limit on top (`hexrail.server.jobs`), so no request can hang or crash
the server.
"""

from __future__ import annotations

import json
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from typing import Any, Literal

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

import hexrail
from hexrail.server import work
from hexrail.server.jobs import JobError, Jobs


@dataclass(frozen=True)
class ServerConfig:
    """The server's limits. Times are seconds."""

    workers: int = 2
    max_body_bytes: int = 4 * 1024 * 1024
    default_time_limit: float = 10.0
    max_time_limit: float = 30.0
    grace: float = 15.0  # hard limit = time limit + grace (loading, compiling, drawing)
    max_pending: int = 64
    worker_memory_bytes: int = 4 * 1024 ** 3  # address space per worker process; 0: no cap

    def time_limit(self, asked: float | None) -> float:
        """The time limit a solve runs under: the request's, else the default, capped."""
        return min(self.default_time_limit if asked is None else asked, self.max_time_limit)


# ------------------------------------------------------------------------------------------------
# Request bodies


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class SolveRequest(_Body):
    position: dict[str, Any] = Field(description="native position or 18xx.games position export")
    time_limit: float | None = Field(None, ge=0, description="seconds; capped by the server's maximum")
    objective: Literal["income", "revenue"] = "income"


class ValidateRequest(_Body):
    position: dict[str, Any]
    plan: dict[str, Any] = Field(description="hexrail-plan/1, or {'routes': [...]} in 18xx.games "
                                             "route form (each route with 'track')")
    objective: Literal["income", "revenue"] = "income"


class RenderRequest(_Body):
    position: dict[str, Any]
    plan: dict[str, Any] | None = Field(None, description="routes to draw")
    solve: bool = Field(False, description="solve the position and draw the best plan")
    time_limit: float | None = Field(None, ge=0)
    objective: Literal["income", "revenue"] = "income"
    format: Literal["svg", "png"] = "svg"
    size: float = Field(50.0, gt=0, le=500, description="hex radius in SVG units")
    scale: float = Field(1.0, gt=0, le=4, description="PNG pixels per SVG unit")


# ------------------------------------------------------------------------------------------------
# Body size limit (plain ASGI, before anything reads the body)


class BodyLimit:
    """Refuse request bodies over `max_bytes` with 413, by header or by counting the stream."""

    def __init__(self, app: Any, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def _refuse(self, send: Any, size: str) -> None:
        body = json.dumps({"error": f"request body of {size} bytes is over the limit of "
                                    f"{self.max_bytes} bytes", "where": "body"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope.get("headers") or ()).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            return await self._refuse(send, length.decode())
        chunks, size, more = [], 0, True
        while more:  # read the whole (bounded) body, so nothing downstream sees a partial one
            message = await receive()
            if message["type"] != "http.request":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                return await self._refuse(send, f"more than {self.max_bytes}")
            chunks.append(chunk)
            more = message.get("more_body", False)
        body, replayed = b"".join(chunks), False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


# ------------------------------------------------------------------------------------------------
# The application


def _error(status: int, message: str, where: str | None = None) -> JSONResponse:
    return JSONResponse({"error": message, "where": where}, status_code=status)


def _field(loc: tuple) -> str:
    out = ""
    for part in loc:
        if part == "body" and not out:
            continue
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "body"


def create_app(config: ServerConfig | None = None) -> FastAPI:
    """The ASGI application; its worker pool starts and stops with it (lifespan)."""
    config = config or ServerConfig()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        app.state.jobs = Jobs(config.workers, config.max_pending, config.worker_memory_bytes)
        await app.state.jobs.ready()
        try:
            yield
        finally:
            app.state.jobs.close()

    app = FastAPI(title="hexrail", version=hexrail.__version__, lifespan=lifespan,
                  description=__doc__.split("\n\n", 1)[0])

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0]
        if first.get("type") == "json_invalid":
            return _error(400, f"malformed JSON: {first.get('ctx', {}).get('error', first['msg'])}",
                          "body")
        where = _field(tuple(first.get("loc", ())))
        if where == "body":
            return _error(422, "the body must be a JSON object (Content-Type: application/json) "
                               "with the fields this endpoint documents", "body")
        extra = f" (and {len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
        return _error(422, f"{where}: {first['msg']}{extra}", where)

    async def run(fn: Any, payload: dict, timeout: float) -> Any:
        try:
            out = await app.state.jobs.run(fn, payload, timeout=timeout)
        except JobError as err:
            return _error(err.status, str(err))
        except Exception as err:  # noqa: BLE001 - an engine failure: say what it was, no traceback
            text = str(err)
            return _error(500, text if text.startswith("internal error") else
                          f"internal error: {type(err).__name__}: {text}")
        if "error" in out:
            return _error(422, out["error"], out.get("where"))
        return out

    @app.post("/solve", summary="Best routes for the operating company's trains")
    async def solve(req: SolveRequest) -> Any:
        limit = config.time_limit(req.time_limit)
        out = await run(work.solve_job, {**req.model_dump(), "time_limit": limit}, limit + config.grace)
        return out if isinstance(out, Response) else out["ok"]

    @app.post("/validate", summary="Check a plan's routes and recompute their revenue")
    async def validate(req: ValidateRequest) -> Any:
        out = await run(work.validate_job, req.model_dump(), config.max_time_limit + config.grace)
        return out if isinstance(out, Response) else out["ok"]

    @app.post("/render", summary="Draw the board (and a plan) as SVG or PNG",
              responses={200: {"content": {"image/svg+xml": {}, "image/png": {}}}})
    async def render(req: RenderRequest) -> Any:
        limit = config.time_limit(req.time_limit)
        out = await run(work.render_job, {**req.model_dump(), "time_limit": limit}, limit + config.grace)
        if isinstance(out, Response):
            return out
        return Response(out["ok"], media_type=out["media_type"])

    @app.get("/health", summary="Liveness and limits")
    async def health() -> dict:
        return {"status": "ok", "version": hexrail.__version__, "pending": app.state.jobs.pending,
                **asdict(config)}

    @app.get("/profiles", summary="Rules profiles and their train types")
    async def profiles() -> list[dict]:
        from hexrail.rules import profiles as registered

        return [{"name": name, "description": cls.description, "train_types": list(cls.train_types),
                 "options": dict(cls.options)} for name, cls in sorted(registered().items())]

    app.add_middleware(BodyLimit, max_bytes=config.max_body_bytes)
    return app
