"""The bounds a walk takes up only once it runs long, checked on real positions whose walks do
(the shared corpus; skipped without it).

Past `search.routes.ARM_AFTER` steps an anchor's walk bounds arm 2 by the best arms leaving the
anchor (`search._kernels.arm_bounds`). Random boards rarely walk that long, and their bonuses
at their most leave those bounds loose, so the oracle tests hardly reach them: here the routes
worth at least a value must be the same whether the walk bounds its arms from the first step or
never. (Such a bound once left arm 1's track bonus out and lost 18USA routes at the optimum.)
"""

from __future__ import annotations

import pytest
from conftest import named_params, route_keys

from hexrail.io.g18xx import position_from_18xx
from hexrail.search import routes
from hexrail.search.routes import enumerate_routes
from hexrail.solve import prepare

# Positions whose walks run long (single trains, 20-140 ms), by title; the default run takes the
# first of each title with a track bonus, the slow sweep all of them.
LONG = {
    "18USA": ("18USA-109372-1506", "18USA-109372-1500", "18USA-109372-1474", "18USA-109372-1512",
              "18USA-109372-1518", "18USA-109372-1431", "18USA-109372-1460",
              "18USA-109372-1390", "18USA-109372-1371"),
    "1817": ("1817-15528-1670", "1817-15528-1619", "1817-15528-1545"),
    "1861": ("1861-167259-720", "1861-167259-716"),
}
DEFAULT = {"18USA-109372-1506", "1817-15528-1670"}
SLACK = 20  # routes this far below the best are compared too


@pytest.mark.parametrize("data", named_params(LONG, DEFAULT))
def test_bounded_arms_keep_every_route_worth_the_best(data, monkeypatch):
    prep = prepare(position_from_18xx(data))
    for t, td in enumerate(prep.trains):
        graph = prep.graph_of(t)
        monkeypatch.setattr(routes, "ARM_AFTER", 1 << 62)  # arms never bounded
        best = enumerate_routes(graph, td, best_only=True)
        if not len(best):
            continue
        least = int(best.value()[0]) - SLACK
        plain = enumerate_routes(graph, td, min_value=least)
        monkeypatch.setattr(routes, "ARM_AFTER", 0)  # bounded from the first step
        bounded = enumerate_routes(graph, td, min_value=least)
        assert plain.complete and bounded.complete
        assert route_keys(bounded) == route_keys(plain), td.train.id
        # and a best-only walk bounded so keeps every best route
        top = int(best.value()[0])
        bounded_best = enumerate_routes(graph, td, best_only=True)
        assert {r for r in route_keys(bounded_best) if r[0] == top} == \
            {r for r in route_keys(plain) if r[0] == top}, td.train.id
