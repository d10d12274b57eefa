"""The best plan: every assignment of one route (or none) per train, checked against the plan rules."""

from __future__ import annotations

from typing import Any

from hexrail.errors import HexrailError
from hexrail.io.native import load_position
from hexrail.oracle.coupled import _coupled, _solve_coupled
from hexrail.oracle.result import OBJECTIVES, ReferenceResult, ReferenceRoute
from hexrail.oracle.rules import _apart, _home_nodes, _plan_ok, _side_uses
from hexrail.oracle.walks import reference_routes
from hexrail.rules import ruled


def reference_solve(position: Any, *, objective: str = "income",
                    max_routes: int = 200_000) -> ReferenceResult:
    """The best plan for the operating company, by enumerating everything.

    Parameters
    ----------
    position : Position, dict, JSON text or file path
    objective : {"income", "revenue"}
        Maximise revenue + subsidy (ties to more revenue) or revenue alone.
    max_routes : int
        Give up (`HexrailError`) when one train has more legal routes than this.
    """
    if objective not in OBJECTIVES:
        raise HexrailError(f"objective must be one of {OBJECTIVES}", where="objective")
    pos, profile = ruled(load_position(position))
    rules = profile.plan_rules(pos)
    per_train: list[list[ReferenceRoute]] = []
    for train in pos.trains:
        # Every train on its own, even identical ones: a profile may tell trains apart by id.
        routes = reference_routes(pos, train, objective=objective, max_routes=max_routes,
                                  profile=profile)
        routes.sort(key=lambda r: (-r.value(objective), -r.revenue))
        per_train.append(routes)
    home = _home_nodes(pos) if rules.home_route else None
    candidates = {t.id: len(rs) for t, rs in zip(pos.trains, per_train)}
    if _coupled(pos, profile, rules):
        if rules.must_use:
            raise HexrailError("items a plan must use are not supported together with coupled "
                               "routes", where="rules.profile")
        return _solve_coupled(pos, profile, rules, per_train, objective, home, candidates)
    uses = [[_uses(pos, profile, train, r, rules.must_use) for r in rs]
            for train, rs in zip(pos.trains, per_train)] if rules.must_use else None
    choice = _best_combination(per_train, objective, rules.share_track, rules.max_bypass,
                               home, rules.intersect, frozenset(rules.connection), rules.regions,
                               uses, _side_uses(pos, rules), _apart(pos, rules))
    chosen = tuple(per_train[t][i] for t, i in enumerate(choice) if i >= 0)
    got = set().union(*(uses[t][i] for t, i in enumerate(choice) if i >= 0)) if uses else set()
    revenue = sum(r.revenue for r in chosen)
    subsidy = sum(r.subsidy for r in chosen)
    return ReferenceResult(
        value=revenue + subsidy if objective == "income" else revenue,
        revenue=revenue, subsidy=subsidy, routes=chosen,
        candidates={t.id: len(rs) for t, rs in zip(pos.trains, per_train)}, objective=objective,
        unused=tuple(item for item in rules.must_use if item not in got))


def _uses(pos, profile, train, route: ReferenceRoute, items: tuple[str, ...]) -> frozenset[str]:
    """The must-use items (`PlanRules.must_use`) the route uses: named by its counted stops."""
    out = set()
    for ref in route.counted:
        hex_id, _, index = ref.rpartition("-")
        hex_ = pos.hex(hex_id)
        out.update(profile.stop_rule(pos, train, hex_, hex_.tile.node(int(index))).uses)
    return frozenset(out) & frozenset(items)

def _best_combination(per_train: list[list[ReferenceRoute]], objective: str, share_track: bool,
                      max_bypass: int, home: frozenset[str] | None = None,
                      intersect: bool = False, connection: frozenset[str] = frozenset(),
                      regions: tuple = (), uses: list[list[frozenset[str]]] | None = None,
                      exclusive: tuple = (), apart: tuple = (frozenset(), frozenset())
                      ) -> tuple[int, ...]:
    """Index of the chosen route per train (-1 idle): best (value, revenue), by exhaustive search
    pruned only by an admissible bound (routes are sorted best first). With `uses` (per train
    and route, the must-use items it uses), best (items used, value, revenue)."""
    n = len(per_train)
    uses = uses or [[frozenset()] * len(rs) for rs in per_train]
    best_value = [max((r.value(objective) for r in rs), default=0) for rs in per_train]
    best_revenue = [max((r.revenue for r in rs), default=0) for rs in per_train]
    suffix_value = [0] * (n + 1)
    suffix_revenue = [0] * (n + 1)
    suffix_uses: list[frozenset[str]] = [frozenset()] * (n + 1)
    for t in range(n - 1, -1, -1):
        suffix_value[t] = suffix_value[t + 1] + max(0, best_value[t])
        suffix_revenue[t] = suffix_revenue[t + 1] + max(0, best_revenue[t])
        suffix_uses[t] = suffix_uses[t + 1].union(*uses[t])
    best: list[Any] = [(-1, -1, -1), tuple([-1] * n)]
    choice = [-1] * n

    def search(t: int, used: frozenset, bypass: int, value: int, revenue: int,
               got: frozenset[str]) -> None:
        if t == n:
            if (len(got), value, revenue) > best[0] and _plan_ok(
                    [per_train[k][i] for k, i in enumerate(choice) if i >= 0], home, intersect,
                    connection, regions, exclusive, apart):
                best[0] = (len(got), value, revenue)
                best[1] = tuple(choice)
            return
        most = len(got | suffix_uses[t])  # items any completion can use
        if most < best[0][0]:
            return
        for i, r in enumerate(per_train[t]):
            v = r.value(objective)
            if (most, value + v + suffix_value[t + 1],
                    revenue + r.revenue + suffix_revenue[t + 1]) <= best[0]:
                if most == best[0][0] and value + v + suffix_value[t + 1] < best[0][1]:
                    break  # sorted by value: no later route of this train can do better
                continue
            if not share_track and not used.isdisjoint(r.track):
                continue
            if bypass + r.bypass > max_bypass:
                continue
            choice[t] = i
            search(t + 1, used | r.track, bypass + r.bypass, value + v, revenue + r.revenue,
                   got | uses[t][i])
        choice[t] = -1
        search(t + 1, used, bypass, value, revenue, got)

    search(0, frozenset(), 0, 0, 0, frozenset())
    return best[1]
