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
POST      /position     ``{"position"}`` → the position as the page edits it (native document,
                        trains, phase, state, recorded routes)
GET       /examples     the bundled example positions (``/examples/{name}``: one of them)
GET       /bridge       whether the 18xx.games bridge is configured here
POST      /game         ``{"game"}`` → the positions of an 18xx.games game, replayed by the bridge
GET       /             the route calculator page (`hexrail.server.web`)
GET       /openapi.json the OpenAPI schema (``/docs`` shows it)
========  ============  ===========================================================================

A position is native (``hexrail-position/1``) or an 18xx.games export, recognised by its
``schema`` field (``18xx-route-position/1``). Bad input gets a 4xx with ``{"error", "where"}``
naming the field, hex, company or train at fault: a body over ``max_body_bytes`` gets 413, one
not fully sent within ``body_timeout`` seconds 408, a document nested deeper, or with numbers
larger, than `hexrail.io.limits` allows 422, before any of it reaches a worker
(`hexrail.server.body`). Connections must send their headers within ``header_timeout`` seconds
and one client address may hold ``max_client_connections`` (`hexrail.server.connections`).
Every solve runs under a time limit, the request's ``time_limit`` capped by ``max_time_limit``;
a solve cut short returns its best plan with ``optimal: false`` and an honest ``upper_bound``.

Jobs run in worker processes with a hard limit on top, in two lanes (`hexrail.server.lanes`):
work that proves light (a solve finished within ``light_time_limit``) is answered by the light
lane while the heavy lane is busy, so it never waits behind heavy work; when the heavy lane is
full, a heavy request gets 503 with ``Retry-After``. A worker killed or crashed is replaced and
its job run again; a pool that fails is rebuilt (`hexrail.server.jobs`); ``/health`` answers 503
while it is. A client that goes away before its answer stops its job (its worker is freed).
No request can hang or crash the server.
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

import hexrail
from hexrail.server import work
from hexrail.server.body import BodyIntake, CheckedRoute, error_response
from hexrail.server.docs import add_docs
from hexrail.server.jobs import JobError
from hexrail.server.lanes import Lanes
from hexrail.server.web import add_web
from hexrail.server.models import (
    BridgeAnswer,
    GameAnswer,
    GameRequest,
    HealthAnswer,
    PositionAnswer,
    PositionRequest,
    ProfileAnswer,
    RenderRequest,
    SolveAnswer,
    SolveRequest,
    ValidateAnswer,
    ValidateRequest,
    error_responses,
)


@dataclass(frozen=True)
class ServerConfig:
    """The server's limits. Times are seconds."""

    workers: int = 2  # heavy lane
    max_body_bytes: int = 4 * 1024 * 1024
    default_time_limit: float = 10.0
    max_time_limit: float = 30.0
    grace: float = 15.0  # hard limit = time limit + grace (loading, compiling, drawing)
    max_pending: int = 64  # heavy lane: jobs running or queued
    worker_memory_bytes: int = 4 * 1024 ** 3  # address space per worker process; 0: no cap
    light_workers: int = 1
    light_time_limit: float = 0.5  # a probe's solve in the light lane
    max_light_pending: int = 4  # light lane: jobs running or queued
    body_timeout: float = 10.0  # a request's body must arrive within this after its headers
    header_timeout: float = 10.0  # a connection must send a request's headers within this
    keep_alive: int = 5  # an idle connection is closed after this, between requests
    max_connections: int = 1024  # in all; past it uvicorn answers 503
    max_client_connections: int = 32  # from one client address; past it 429
    retry_after: int = 5  # the Retry-After of a 503 or 429

    def time_limit(self, asked: float | None) -> float:
        """The time limit a solve runs under: the request's, else the default, capped."""
        return min(self.default_time_limit if asked is None else asked, self.max_time_limit)


# ------------------------------------------------------------------------------------------------
# The application


def _field(loc: tuple) -> str:
    out = ""
    for part in loc:
        if part == "body" and not out:
            continue
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "body"


CLIENT_GONE = 499  # (nginx's status for a request whose client went away; nobody receives it)


async def _client_gone(request: Request) -> None:
    """Return once the client has closed its connection (its body has been read already)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


def create_app(config: ServerConfig | None = None) -> FastAPI:
    """The ASGI application; its worker lanes start and stop with it (lifespan)."""
    config = config or ServerConfig()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        app.state.lanes = Lanes(workers=config.workers, max_pending=config.max_pending,
                                light_workers=config.light_workers,
                                max_light_pending=config.max_light_pending,
                                light_time_limit=config.light_time_limit,
                                memory_bytes=config.worker_memory_bytes, retry_after=config.retry_after)
        await app.state.lanes.ready()
        watch = asyncio.create_task(app.state.lanes.watch())
        try:
            yield
        finally:
            watch.cancel()
            app.state.lanes.close()

    app = FastAPI(title="hexrail", version=hexrail.__version__, lifespan=lifespan,
                  description=__doc__.split("\n\n", 1)[0], docs_url=None, redoc_url=None)
    app.router.route_class = CheckedRoute  # JSON bodies parsed and checked before FastAPI reads them

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0]
        if first.get("type") == "json_invalid":
            return error_response(400, f"malformed JSON: {first.get('ctx', {}).get('error', first['msg'])}",
                                  "body")
        where = _field(tuple(first.get("loc", ())))
        if where == "body":
            return error_response(422, "the body must be a JSON object (Content-Type: application/json) "
                                       "with the fields this endpoint documents", "body")
        extra = f" (and {len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
        return error_response(422, f"{where}: {first['msg']}{extra}", where)

    async def run(fn: Any, payload: dict, time_limit: float, request: Request, probe: bool = True) -> Any:
        """The job's ``{"ok": ...}`` answer, or the error response to send. A client that goes
        away meanwhile stops the job (a page's Cancel): its worker is freed for others."""
        job = asyncio.ensure_future(app.state.lanes.run(fn, payload, time_limit=time_limit,
                                                        grace=config.grace, body=await request.body(),
                                                        probe=probe))
        gone = asyncio.ensure_future(_client_gone(request))
        try:
            await asyncio.wait({job, gone}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:  # (the server is stopping)
            job.cancel()
            raise
        finally:
            gone.cancel()
        if not job.done():
            job.cancel()
            await asyncio.gather(job, return_exceptions=True)
            return error_response(CLIENT_GONE, "the client closed the request; its job was stopped")
        try:
            out = job.result()
        except JobError as err:
            headers = {"Retry-After": str(err.retry_after)} if err.retry_after else None
            return error_response(err.status, str(err), headers=headers)
        except Exception as err:  # noqa: BLE001 - an engine failure: say what it was, no traceback
            text = str(err)
            return error_response(500, text if text.startswith("internal error") else
                                  f"internal error: {type(err).__name__}: {text}")
        if "error" in out:
            return error_response(422, out["error"], out.get("where"))
        return out

    refusals = error_responses(400, 408, 413, 422, 429, 500, 503)

    @app.post("/solve", summary="Best routes for the operating company's trains",
              responses={200: {"model": SolveAnswer}, **refusals})
    async def solve(req: SolveRequest, request: Request) -> Any:
        limit = config.time_limit(req.time_limit)
        out = await run(work.solve_job, req.model_dump(), limit, request)
        return out if isinstance(out, Response) else JSONResponse(out["ok"])

    @app.post("/validate", summary="Check a plan's routes and recompute their revenue",
              responses={200: {"model": ValidateAnswer}, **refusals})
    async def validate(req: ValidateRequest, request: Request) -> Any:
        out = await run(work.validate_job, req.model_dump(), config.max_time_limit, request)
        return out if isinstance(out, Response) else JSONResponse(out["ok"])

    @app.post("/render", summary="Draw the board (and a plan) as SVG or PNG",
              responses={200: {"content": {"image/svg+xml": {}, "image/png": {}}}, **refusals})
    async def render(req: RenderRequest, request: Request) -> Any:
        limit = config.time_limit(req.time_limit)
        # Drawing a PNG of millions of pixels is heavy work, whatever the board: no probe.
        out = await run(work.render_job, req.model_dump(), limit, request, probe=req.format != "png")
        if isinstance(out, Response):
            return out
        return Response(out["ok"], media_type=out["media_type"])

    @app.get("/health", summary="Liveness and limits",
             responses={200: {"model": HealthAnswer}, 503: {"model": HealthAnswer}})
    async def health() -> JSONResponse:
        lanes: Lanes = app.state.lanes
        healthy = lanes.healthy
        body = {"status": "ok" if healthy else "failing", "version": hexrail.__version__,
                "pending": sum(lane.pending for lane in lanes.lanes),
                "lanes": {lane.name: {"workers": lane.workers, "pending": lane.pending,
                                      "max_pending": lane.max_pending, "healthy": lane.healthy,
                                      "rebuilds": lane.rebuilds} for lane in lanes.lanes},
                **asdict(config)}
        if not healthy:
            lanes.heal()  # reported as found; the next request finds a fresh pool
        return JSONResponse(body, status_code=200 if healthy else 503)

    @app.get("/profiles", summary="Rules profiles and their train types",
             response_model=list[ProfileAnswer])
    async def profiles() -> list[dict]:
        from hexrail.rules import profiles as registered

        return [{"name": name, "description": cls.description, "train_types": list(cls.train_types),
                 "options": dict(cls.options)} for name, cls in sorted(registered().items())]

    @app.post("/position", summary="A position as the page edits it: native document, trains, phase, "
                                    "state, recorded routes",
              responses={200: {"model": PositionAnswer}, **refusals})
    async def position(req: PositionRequest, request: Request) -> Any:
        out = await run(work.position_job, req.model_dump(), config.max_time_limit, request)
        return out if isinstance(out, Response) else JSONResponse(out["ok"])

    @app.get("/bridge", summary="Whether the 18xx.games bridge is configured on this server",
             response_model=BridgeAnswer)
    async def bridge() -> dict:
        return await asyncio.to_thread(work.bridge_status)

    @app.post("/game", summary="Replay an 18xx.games game (the bridge): its positions before each run",
              responses={200: {"model": GameAnswer}, **refusals})
    async def game(req: GameRequest, request: Request) -> Any:
        status = await asyncio.to_thread(work.bridge_status)
        if not status["configured"]:
            return error_response(501, status["message"], "game")
        # replaying a whole game is heavy work: no probe, the heavy lane's longest limit
        out = await run(work.game_job, req.model_dump(), config.max_time_limit, request, probe=False)
        return out if isinstance(out, Response) else JSONResponse(out["ok"])

    add_web(app)
    add_docs(app)
    app.add_middleware(BodyIntake, max_bytes=config.max_body_bytes, timeout=config.body_timeout)
    return app
