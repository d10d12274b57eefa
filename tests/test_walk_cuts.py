"""The walk's cuts on real positions (the shared corpus; skipped without it): they only prune.

The random boards of test_oracle check every cut against the oracle. Here the cuts meet what
real titles bring together: bonuses paid once to a route visiting given stops (1846's
east-west, 1861's pair and hex bonuses, counted with the stops they need:
`search._kernels.bonus_bounds`), towns a route may pass uncounted under the sharper cut
(1861), a track bonus (18USA). Each train's routes worth at least its best less `SLACK` must be
the same whether its walk is cut or not (the uncut walk keeps the routes worth that much as it
finds them, and nothing else).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import named_params, route_keys

from hexrail.io.g18xx import position_from_18xx
from hexrail.search.routes import enumerate_routes
from hexrail.solve import prepare

# (title, position ids): the default run takes the first of each, the slow sweep all
POSITIONS = {
    "1861": ("1861-167259-593", "1861-167259-694"),
    "1846": ("1846-10264-458",),
    "18USA": ("18USA-109372-1474",),
}
SLACK = 20


@pytest.mark.parametrize("data", named_params(POSITIONS, {ids[0] for ids in POSITIONS.values()}))
def test_a_cut_walk_keeps_every_route_worth_what_is_wanted(data):
    prep = prepare(position_from_18xx(data))
    for t, td in enumerate(prep.trains):
        graph = prep.graph_of(t)
        best = enumerate_routes(graph, td, best_only=True)
        assert best.complete and len(best)
        least = int(best.value()[0]) - SLACK
        cut = enumerate_routes(graph, td, min_value=least)
        # no cut: no stop bound, no reach tables, no worthier arm first
        bare = replace(td, cut_top=td.cut_top[:0], reach_order=td.reach_order[:0],
                       reach_dist=td.reach_dist[:0, :0], reach_walk=0, arm_extra=-1)
        uncut = enumerate_routes(graph, bare, min_value=least)
        assert cut.complete and uncut.complete
        assert route_keys(cut) == route_keys(uncut), td.train.id
        assert int(cut.value()[0]) == int(best.value()[0])
