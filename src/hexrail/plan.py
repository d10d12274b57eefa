"""A plan: one route per running train, with what each earns, and whether it is proven best."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hexrail.errors import HexrailError

if TYPE_CHECKING:  # the solver's stages; the plan itself needs none of them (the validator reads plans)
    from hexrail.graph.trains import TrainData
    from hexrail.search.routes import Candidates
    from hexrail.stage import Prepared

FORMAT = "hexrail-plan/1"


@dataclass(frozen=True)
class RoutePlan:
    """One train's route.

    ``stops`` are the stops visited in route order (``"E5-0"``: hex and node index); ``paid`` the
    ones the train is paid for; ``paths`` the track used in order (``"E5:2"``: hex and index in
    the hex's path list); ``hexes`` the hexes passed in order.
    """

    train: str
    train_name: str
    stops: tuple[str, ...]
    paid: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    hexes: tuple[str, ...] = ()
    revenue: int = 0
    subsidy: int = 0
    bonuses: tuple[tuple[str, int], ...] = ()
    crossings: int = 0
    extra: dict = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        out = {
            "train": self.train, "train_name": self.train_name, "revenue": self.revenue,
            "subsidy": self.subsidy, "stops": list(self.stops), "paid": list(self.paid),
            "unpaid": [s for s in self.stops if s not in self.paid],
            "hexes": list(self.hexes), "paths": list(self.paths),
            "bonuses": [{"name": n, "amount": a} for n, a in self.bonuses],
            "crossings": self.crossings,
        }
        out.update(self.extra)
        return out


@dataclass(frozen=True)
class RouteSet:
    """Routes joined end to end and paid as one (1862's freight sets): the set's two end stops
    pay, plus ``bonus`` for the distance between them (counted in the first train's revenue)."""

    trains: tuple[str, ...]
    ends: tuple[str, str]
    bonus: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"trains": list(self.trains), "ends": list(self.ends), "bonus": self.bonus}


@dataclass(frozen=True)
class Plan:
    """The routes a company runs and its income.

    ``revenue`` counts what the trains earn (bonuses included), ``subsidy`` what goes to the
    treasury; ``optimal`` says the total is proven maximal for the objective; otherwise
    ``upper_bound`` bounds what any plan could reach.
    """

    routes: tuple[RoutePlan, ...]
    revenue: int
    subsidy: int = 0
    optimal: bool = True
    upper_bound: int = 0
    objective: str = "income"
    profile: str = "generic"
    company: str = ""
    timings: dict = field(default_factory=dict, compare=False)
    stats: dict = field(default_factory=dict, compare=False)
    sets: tuple[RouteSet, ...] = ()
    # Items the plan must use that no route of it uses, because no plan uses them all
    # (`PlanRules.must_use`: 1831's track rights).
    unused: tuple[str, ...] = ()
    # The position the plan was made for (set by the solver; used to draw the plan).
    position: Any = field(default=None, compare=False, repr=False)
    # Where the solver weighed the ways the company may still set the position up
    # (`hexrail.solve(choices=True)`): the decisions of the best, {decision: option}; empty:
    # the position as given. None: not weighed.
    choices: dict | None = None

    @property
    def total(self) -> int:
        return self.revenue + self.subsidy

    def value(self, objective: str = "income") -> int:
        """What the plan earns to `objective`: revenue and subsidy (income), or revenue alone."""
        return self.total if objective == "income" else self.revenue

    def route(self, train: str) -> RoutePlan | None:
        return next((r for r in self.routes if r.train == train), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "company": self.company,
            "profile": self.profile,
            "objective": self.objective,
            "revenue": self.revenue,
            "subsidy": self.subsidy,
            "total": self.total,
            "optimal": self.optimal,
            "upper_bound": self.upper_bound,
            "routes": [r.to_json() for r in self.routes],
            **({"sets": [s.to_json() for s in self.sets]} if self.sets else {}),
            **({"unused": list(self.unused)} if self.unused else {}),
            **({"choices": dict(self.choices)} if self.choices is not None else {}),
            "timings": self.timings,
            "stats": self.stats,
        }

    def dumps(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_json(), indent=indent)

    def table(self) -> str:
        """A plain-text table: train, stops, revenue, and the total."""
        rows = [("train", "stops", "revenue")]
        for r in self.routes:
            paid = set(r.paid)
            stops = " ".join(s if s in paid else f"({s})" for s in r.stops)
            amount = str(r.revenue)
            if r.subsidy:
                amount += f" +{r.subsidy} subsidy"
            if r.bonuses:
                amount += " incl. " + ", ".join(f"{n} {a}" for n, a in r.bonuses)
            rows.append((r.train, stops, amount))
        widths = [max(len(row[k]) for row in rows) for k in range(2)]
        lines = [f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c}" for a, b, c in rows]
        lines.insert(1, "-" * max(len(x) for x in lines))
        for s in self.sets:
            if s.bonus or len(s.trains) > 1:
                lines.append(f"set {' + '.join(s.trains)}: ends {s.ends[0]} and {s.ends[1]}, "
                             f"bonus {s.bonus}")
        if self.unused:
            lines.append(f"unused (no plan uses them all): {', '.join(self.unused)}")
        if self.choices is not None:
            lines.append(f"choices: {choices_text(self.choices)}")
        total = f"total {self.revenue}"
        if self.subsidy:
            total += f" + {self.subsidy} subsidy"
        if self.optimal:
            total += "  (proven optimal)"
        else:
            total += f"  (not proven optimal; no plan exceeds {self.upper_bound})"
        lines.append(total)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def _repr_svg_(self) -> str | None:
        """Jupyter shows a solved plan as its routes drawn over the board (`hexrail.render`)."""
        if self.position is None:
            return None
        from hexrail.render import render_svg

        return render_svg(self.position, self)


def choices_text(choices: dict) -> str:
    """A plan's ``choices`` as a person reads them: ``Extender 4-5; Pullman 5-1``."""
    return "; ".join(f"{k} {v}" for k, v in choices.items()) or "as the position stands"


def plan_from_json(data: Any) -> Plan:
    """Read a plan (ours, or one a person wrote: each route needs ``train`` and ``paths``)."""
    if not isinstance(data, dict) or not isinstance(data.get("routes"), list):
        raise HexrailError("a plan must be an object with a 'routes' list", where="plan")
    routes = []
    for k, r in enumerate(data["routes"]):
        where = f"plan.routes[{k}]"
        if not isinstance(r, dict) or "train" not in r:
            raise HexrailError("each route needs a 'train' id", where=where)
        if not r.get("paths") and not r.get("stops"):
            raise HexrailError("a route needs its track ('paths') or its stops ('stops')", where=where)
        for key in ("paths", "stops", "paid", "hexes"):
            if not isinstance(r.get(key, []), list) or not all(isinstance(x, str) for x in r.get(key, [])):
                raise HexrailError(f"'{key}' must be a list of strings", where=where)
        routes.append(RoutePlan(
            train=str(r["train"]), train_name=str(r.get("train_name", "")),
            stops=tuple(r.get("stops", ())), paid=tuple(r.get("paid", ())),
            paths=tuple(r.get("paths", ())), hexes=tuple(r.get("hexes", ())),
            revenue=_whole(r, "revenue", where), subsidy=_whole(r, "subsidy", where),
        ))
    choices = data.get("choices")
    if choices is not None and not (isinstance(choices, dict) and all(
            isinstance(v, str) for v in choices.values())):
        raise HexrailError("'choices' must be an object of decisions and options (text)",
                           where="plan.choices")
    return Plan(routes=tuple(routes), revenue=_whole(data, "revenue", "plan"),
                subsidy=_whole(data, "subsidy", "plan"), optimal=bool(data.get("optimal", False)),
                upper_bound=_whole(data, "upper_bound", "plan"), choices=choices)


def _whole(data: dict, key: str, where: str) -> int:
    """An integer field of a plan (0 when absent): a one-line error naming it otherwise."""
    value = data.get(key, 0)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise HexrailError(f"'{key}' must be an integer, not {json.dumps(value)[:40]}", where=where)
    return value


# -- a plan from the solver's choice ------------------------------------------------------------


def plan_route(prep: Prepared, t: int, i: int, *, revenue: int | None = None,
               subsidy: int | None = None, paid: list[int] | None = None,
               reverse: bool = False) -> RoutePlan:
    """Describe candidate i of train t (revenue and paid stops may be overridden by coupling)."""
    from hexrail.graph.trains import name_bonuses  # the fast side's names, only when solving

    cands, td, graph = prep.candidates[t], prep.trains[t], prep.graph_of(t)
    nodes = cands.route_nodes(i).tolist()
    paid_ids = [n for n, p in zip(nodes, cands.route_paid(i).tolist()) if p] if paid is None else paid
    paths: list[int] = []
    for c in cands.route_chains(i).tolist():
        paths.extend(graph.chain_path_list(c) if c >= 0 else graph.chain_path_list(~c, reverse=True))
    hexes: list[str] = []
    for p in paths:
        h = graph.hex_ids[graph.path_hex[p]]
        if not hexes or hexes[-1] != h:
            hexes.append(h)
    if reverse:  # the plan runs it the other way (where a loop of set routes pays)
        nodes, paths, hexes = nodes[::-1], paths[::-1], hexes[::-1]
        paid_ids = [n for n in nodes if n in set(paid_ids)]
    return RoutePlan(
        train=td.train.id, train_name=td.train.name,
        stops=tuple(map(graph.ref, nodes)), paid=tuple(map(graph.ref, paid_ids)),
        paths=tuple(map(graph.path_name, paths)), hexes=tuple(hexes),
        revenue=int(cands.revenue[i]) if revenue is None else revenue,
        subsidy=int(cands.subsidy[i]) if subsidy is None else subsidy,
        bonuses=name_bonuses(td, graph, nodes, paid_ids, hexes) + _span_names(td, cands, i),
        crossings=int(cands.crossings[i]),
    )


def _span_names(td: TrainData, cands: Candidates, i: int) -> tuple[tuple[str, int], ...]:
    """The span bonuses candidate i claims, by name."""
    if cands.span is None:
        return ()
    from hexrail.rules.base import EndsSubsidy  # (a subsidy, not a bonus of the revenue)

    return tuple((b.name, int(a)) for b, a in zip(td.span_bonuses, cands.span[i])
                 if a > 0 and not isinstance(b, EndsSubsidy))
