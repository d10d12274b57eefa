"""What the service's endpoints take and give back, as pydantic models (so ``/openapi.json``
describes both).

Request models are strict (unknown fields are refused). Answer models document the keys an
answer has; they allow more (a rules profile may add keys to a route), and the server tests
check every answer against them, so the documentation cannot drift from what is sent.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# ------------------------------------------------------------------------------------------------
# Requests


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class SolveRequest(_Body):
    position: dict[str, Any] = Field(description="native position or 18xx.games position export")
    time_limit: float | None = Field(None, ge=0, description="seconds; capped by the server's maximum")
    objective: Literal["income", "revenue"] = "income"
    choices: bool = Field(False, description="also weigh what the company may still decide "
                                             "before it runs; the result says which (choices)")


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
    legend: bool = Field(True, description="draw the legend under the map (with a plan)")
    palette: Literal["classic", "okabe-ito"] = Field(
        "classic", description="route colours: classic hues, or Okabe–Ito colours (safe for "
                               "colour-blind eyes) with a dash pattern per train")


class PositionRequest(_Body):
    position: dict[str, Any] = Field(description="native position or 18xx.games position export")


class GameRequest(_Body):
    game: dict[str, Any] = Field(description="an 18xx.games game's data (the site's Tools tab), "
                                             "replayed by the 18xx.games bridge")


# ------------------------------------------------------------------------------------------------
# Answers


class _Answer(BaseModel):
    model_config = ConfigDict(extra="allow")


class ErrorAnswer(_Answer):
    """Any refusal: bad input (4xx), a busy server (503, with ``Retry-After``), a failure (500)."""

    error: str = Field(description="one line naming the field, hex, company or train at fault")
    where: str | None = Field(description="the field at fault, e.g. 'position.hexes.E5'")


class Bonus(_Answer):
    name: str
    amount: int


class RouteSetAnswer(_Answer):
    """Routes joined end to end and paid as one (1862's freight sets)."""

    trains: list[str]
    ends: list[str]
    bonus: int


class RouteAnswer(_Answer):
    train: str
    train_name: str
    revenue: int
    subsidy: int
    stops: list[str] = Field(description="stops in route order ('E5-0' refs)")
    paid: list[str]
    unpaid: list[str]
    hexes: list[str]
    paths: list[str]
    bonuses: list[Bonus]
    crossings: int
    g18xx: dict[str, Any] = Field(description="the route in 18xx.games form")


class SolveAnswer(_Answer):
    """The result line of ``hexrail solve --from 18xx``; for a native position the game's
    identifiers and recorded figures are null."""

    title: str | None
    fixture: str | None
    action_index: int | None
    game_id: int | str | None
    entity: str = Field(description="the operating company")
    profile: str
    rules_covered: bool
    rules_note: str
    objective: Literal["income", "revenue"]
    revenue: int
    subsidy: int
    total: int
    optimal: bool = Field(description="the total is proven maximal; else see upper_bound")
    upper_bound: int
    seconds: float
    routes: list[RouteAnswer]
    sets: list[RouteSetAnswer] | None = None
    choices: dict[str, str] | None = Field(None, description="where choices were weighed: the "
                                                              "decisions of the best, {decision: option}")
    submitted_revenue: int | None
    submitted_subsidy: int | None
    auto_router_revenue: int | None
    auto_router_revenue_rescored: int | None
    auto_router_subsidy: int | None
    auto_router_time_s: float | None
    best_recorded: int | None
    vs_best_recorded: int | None


class RouteReportAnswer(_Answer):
    train: str
    legal: bool
    errors: list[str]
    revenue: int
    subsidy: int
    stops: list[str]
    paid: list[str]
    hexes: list[str]
    paths: list[str]
    bonuses: list[Bonus]
    crossings: int


class ValidateAnswer(_Answer):
    """The report of ``hexrail validate --format json``."""

    legal: bool
    errors: list[str]
    revenue: int
    subsidy: int
    total: int
    routes: list[RouteReportAnswer]
    sets: list[RouteSetAnswer] | None = None
    unused: list[str] | None = Field(None, description="track rights no route uses")


class LaneAnswer(_Answer):
    workers: int
    pending: int = Field(description="jobs running or queued")
    max_pending: int
    healthy: bool
    rebuilds: int = Field(description="times its pool failed and was built anew")


class HealthAnswer(_Answer):
    """Liveness: ``status`` is 'ok', or 'failing' (with status 503) while a worker pool is
    being rebuilt; then the server's limits (`ServerConfig`)."""

    status: Literal["ok", "failing"]
    version: str
    pending: int
    lanes: dict[Literal["light", "heavy"], LaneAnswer]


class PositionAnswer(_Answer):
    """A position as the page edits it: the native document, what it is about, and the routes
    18xx.games recorded for it (an 18xx.games export only)."""

    source: Literal["native", "18xx"]
    name: str
    company: str
    profile: str
    train_types: list[str] = Field(description="train forms the profile reads")
    trains: list[dict[str, Any]] = Field(description="id and name of each train")
    phase: dict[str, Any]
    state: dict[str, Any]
    native: dict[str, Any] = Field(description="the position as a native document (hexrail-position/1)")
    recorded: dict[str, Any] | None = Field(description="the players' routes (18xx.games route "
                                                        "form) and figures, when the position has them")


class ExampleAnswer(_Answer):
    name: str
    title: str


class BridgeAnswer(_Answer):
    configured: bool
    message: str


class GameAnswer(_Answer):
    """The positions of a replayed game, one before each run of a company's trains."""

    positions: list[dict[str, Any]]


class ProfileAnswer(_Answer):
    name: str
    description: str
    train_types: list[str]
    options: dict[str, Any]


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries for refusals with these statuses."""
    return {status: {"model": ErrorAnswer} for status in statuses}
