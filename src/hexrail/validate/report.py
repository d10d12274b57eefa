"""What the validator says: per route its track, stops, pay and the rules it breaks; per plan the totals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hexrail.plan import RouteSet


@dataclass(frozen=True)
class RouteReport:
    """What one route visits and earns, or the rules it breaks.

    ``stops`` are the visited stops in route order and ``paid`` the ones paid (``"E5-0"`` refs);
    ``paths`` the track in order (given, or found for a route drawn by its stops); ``revenue``
    includes ``bonuses``. An illegal route earns nothing.
    """

    train: str
    errors: tuple[str, ...] = ()
    stops: tuple[str, ...] = ()
    paid: tuple[str, ...] = ()
    revenue: int = 0
    subsidy: int = 0
    bonuses: tuple[tuple[str, int], ...] = ()
    hexes: tuple[str, ...] = ()
    crossings: int = 0
    paths: tuple[str, ...] = ()

    @property
    def legal(self) -> bool:
        return not self.errors

    def to_json(self) -> dict[str, Any]:
        return {
            "train": self.train, "legal": self.legal, "errors": list(self.errors),
            "revenue": self.revenue, "subsidy": self.subsidy, "stops": list(self.stops),
            "paid": list(self.paid), "hexes": list(self.hexes), "paths": list(self.paths),
            "bonuses": [{"name": n, "amount": a} for n, a in self.bonuses],
            "crossings": self.crossings,
        }


@dataclass(frozen=True)
class PlanReport:
    """The verdict on a whole plan: each route's report plus the rules that couple routes."""

    routes: tuple[RouteReport, ...]
    errors: tuple[str, ...] = ()
    revenue: int = 0
    subsidy: int = 0
    sets: tuple[RouteSet, ...] = ()  # routes joined end to end and paid as one (`set_role`)
    unused: tuple[str, ...] = ()  # items the plan must use that no route uses (track rights)

    @property
    def legal(self) -> bool:
        return not self.errors and all(r.legal for r in self.routes)

    @property
    def total(self) -> int:
        return self.revenue + self.subsidy

    def route(self, train: str) -> RouteReport | None:
        return next((r for r in self.routes if r.train == train), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "legal": self.legal, "errors": list(self.errors), "revenue": self.revenue,
            "subsidy": self.subsidy, "total": self.total,
            "routes": [r.to_json() for r in self.routes],
            **({"sets": [x.to_json() for x in self.sets]} if self.sets else {}),
            **({"unused": list(self.unused)} if self.unused else {}),
        }

    def table(self) -> str:
        """Plain text: per route the train, its stops (unpaid ones in brackets) and revenue or
        the rules it breaks; then the plan's errors and the total, or "illegal"."""
        rows = [("train", "stops", "revenue")]
        for r in self.routes:
            paid = set(r.paid) if r.legal else set(r.stops)
            stops = " ".join(s if s in paid else f"({s})" for s in r.stops)
            if r.legal:
                amount = str(r.revenue)
                if r.subsidy:
                    amount += f" +{r.subsidy} subsidy"
                if r.bonuses:
                    amount += " incl. " + ", ".join(f"{n} {a}" for n, a in r.bonuses)
            else:
                amount = "illegal: " + "; ".join(r.errors)
            rows.append((r.train, stops, amount))
        widths = [max(len(row[k]) for row in rows) for k in range(2)]
        lines = [f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c}".rstrip() for a, b, c in rows]
        lines.insert(1, "-" * max(len(x) for x in lines))
        lines.extend(f"plan: {e}" for e in self.errors)
        if self.unused:
            lines.append(f"unused: {', '.join(self.unused)}")
        if self.legal:
            total = f"total {self.revenue}"
            if self.subsidy:
                total += f" + {self.subsidy} subsidy"
            lines.append(total)
        else:
            lines.append("illegal")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()
