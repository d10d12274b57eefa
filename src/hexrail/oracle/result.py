"""What the oracle answers: the routes it found and the best plan's value."""

from __future__ import annotations

from dataclasses import dataclass, field

OBJECTIVES = ("income", "revenue")

NodeKey = tuple[str, int]  # (hex id, node index)
PathKey = tuple[str, int]  # (hex id, index in the tile's path list)
LaneKey = frozenset  # {(hex, side, width, lane), (neighbour, side, width, lane)}


@dataclass(frozen=True)
class ReferenceRoute:
    """One legal route of one train, with its best scoring.

    ``paths`` are track refs in walk order (``"E5:2"``), ``stops`` the stops in walk order
    (``"E5-0"``), ``counted`` the stops that use the train's distance, ``paid`` those paid.
    """

    train: str
    paths: tuple[str, ...]
    stops: tuple[str, ...]
    counted: tuple[str, ...]
    paid: tuple[str, ...]
    revenue: int  # paid stops plus bonuses
    subsidy: int
    bonus: int
    bypass: int  # blocked cities passed through
    crossings: int  # hexside crossings
    track: frozenset = field(repr=False, default=frozenset())  # paths and hexside lanes used
    nodes: tuple[str, ...] = field(repr=False, default=())  # every node passed, stops included
    # Span bonuses the route could earn, (name, amount): each pays once per plan, to one route
    # (`_price_plan` gives it to the chosen route earning most from it).
    span: tuple[tuple[str, int], ...] = ()

    def value(self, objective: str = "income") -> int:
        return self.revenue + self.subsidy if objective == "income" else self.revenue


@dataclass(frozen=True)
class ReferenceResult:
    """The best plan by brute force: ``value`` is what the objective maximises."""

    value: int
    revenue: int
    subsidy: int
    # One per running train, in train order; where the sets depend on the routes' order and
    # direction (a loop, or three route ends at one stop), in an order and direction that earn
    # the value (as `hexrail.validate.check_plan` scores a plan in its order).
    routes: tuple[ReferenceRoute, ...]
    candidates: dict  # train id → number of legal routes
    objective: str = "income"
    # Sets of routes joined end to end: (train ids, (end, end), bonus), as `hexrail.plan.RouteSet`.
    sets: tuple[tuple[tuple[str, ...], tuple[str, str], int], ...] = ()
    # Must-use items (`PlanRules.must_use`) the best plan leaves unused: it uses as many as any
    # plan can, then earns most.
    unused: tuple[str, ...] = ()

    @property
    def total(self) -> int:
        return self.revenue + self.subsidy

    def route(self, train: str) -> ReferenceRoute | None:
        return next((r for r in self.routes if r.train == train), None)
