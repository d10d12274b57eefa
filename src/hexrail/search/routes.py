"""Enumerate every legal route of one train: the `Candidates` the combiner chooses from."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from hexrail.graph.track import TrackGraph
from hexrail.graph.trains import TrainData
from hexrail.search import _kernels as K


@dataclass(frozen=True, eq=False)
class Candidates:
    """All routes of one train, sorted by objective value (best first).

    Per route: revenue (bonuses included), subsidy, bonus part, bypasses spent, hexside
    crossings, ordered stops with their paid flags (``nodes``/``paid`` over ``node_ptr``), ordered
    chains (``chains`` over ``chain_ptr``; ``~c`` = chain c run backwards) and the resource
    bitset (paths, hexsides and profile claims).
    """

    revenue: np.ndarray
    subsidy: np.ndarray
    bonus: np.ndarray
    bypass: np.ndarray
    crossings: np.ndarray
    node_ptr: np.ndarray
    nodes: np.ndarray
    paid: np.ndarray
    chain_ptr: np.ndarray
    chains: np.ndarray
    res: np.ndarray
    complete: bool  # False when a deadline cut the enumeration short

    def __len__(self) -> int:
        return len(self.revenue)

    def value(self, objective: str = "income") -> np.ndarray:
        return self.revenue + self.subsidy if objective == "income" else self.revenue.copy()

    def route_nodes(self, i: int) -> np.ndarray:
        return self.nodes[self.node_ptr[i]:self.node_ptr[i + 1]]

    def route_paid(self, i: int) -> np.ndarray:
        return self.paid[self.node_ptr[i]:self.node_ptr[i + 1]]

    def route_chains(self, i: int) -> np.ndarray:
        return self.chains[self.chain_ptr[i]:self.chain_ptr[i + 1]]

    def take(self, order: np.ndarray) -> Candidates:
        """The candidates in `order` (ragged arrays rebuilt)."""
        node_ptr, nodes, paid = _take_ragged(self.node_ptr, (self.nodes, self.paid), order)
        chain_ptr, chains = _take_ragged(self.chain_ptr, (self.chains,), order)
        return Candidates(self.revenue[order], self.subsidy[order], self.bonus[order],
                          self.bypass[order], self.crossings[order], node_ptr, nodes, paid,
                          chain_ptr, chains, self.res[order], self.complete)


def _take_ragged(ptr: np.ndarray, arrays: tuple, order: np.ndarray):
    lengths = (ptr[1:] - ptr[:-1])[order]
    new_ptr = np.zeros(len(order) + 1, np.int64)
    np.cumsum(lengths, out=new_ptr[1:])
    # element j of new route r sits at old index ptr[order[r]] + (j - new_ptr[r])
    idx = np.repeat(ptr[order] - new_ptr[:-1], lengths) + np.arange(new_ptr[-1])
    return (new_ptr, *(a[idx] for a in arrays))


def enumerate_routes(graph: TrackGraph, td: TrainData, *, deadline: float | None = None,
                     objective: str = "income") -> Candidates:
    """Every legal route of the train `td` on `graph`, best first.

    With a `deadline` (a ``time.perf_counter()`` value) the walk stops between anchors once it
    passes, and the result says ``complete=False``.
    """
    cap = 1024
    words = graph.chain_res.shape[1]
    bufs = _alloc(cap, words)
    n_out = n_nodes = n_chains = 0
    complete = True
    hex_count = len(graph.hex_ids)
    for anchor in td.anchors:
        if deadline is not None and time.perf_counter() > deadline:
            complete = False
            break
        while True:
            status, n_out2, n_nodes2, n_chains2 = K.enumerate_anchor(
                int(anchor), graph.n_nodes, hex_count, td.n_groups,
                graph.adj_ptr, graph.adj_chain, graph.adj_end, graph.chain_ends,
                graph.chain_side, graph.chain_terminal, graph.chain_crossings,
                graph.chain_hex_ptr, graph.chain_hexes, graph.chain_res, graph.vertex_res,
                graph.node_hex,
                td.node_kidx, td.node_cost, td.node_optional, td.node_block, td.node_can_end,
                td.node_anchor_rank, td.node_group, td.node_value, td.node_subsidy,
                td.node_weight, td.node_tags, td.visit_cap, td.pay_cap, td.hex_limit,
                td.min_stops, td.hex_noreenter, td.max_bypass,
                td.bonus_cond_ptr, td.bonus_cond_tag, td.bonus_cond_min, td.bonus_amount,
                td.bonus_group, td.bonus_per_count, td.n_bonus_groups,
                *bufs, n_out, n_nodes, n_chains)
            if status == K.OK:
                n_out, n_nodes, n_chains = n_out2, n_nodes2, n_chains2
                break
            cap *= 4
            bufs = _grow(bufs, cap, words)
    revenue, subsidy, bonus, bypass, crossings, node_ptr, nodes, paid, chain_ptr, chains, res = bufs
    cands = Candidates(revenue[:n_out].copy(), subsidy[:n_out].copy(), bonus[:n_out].copy(),
                       bypass[:n_out].copy(), crossings[:n_out].copy(),
                       node_ptr[:n_out + 1].copy(), nodes[:n_nodes].copy(), paid[:n_nodes].copy(),
                       chain_ptr[:n_out + 1].copy(), chains[:n_chains].copy(), res[:n_out].copy(),
                       complete)
    value = cands.value(objective)
    order = np.lexsort((-cands.revenue, -value))  # best objective first, then more revenue
    return cands.take(order)


def _alloc(cap: int, words: int) -> list[np.ndarray]:
    return [
        np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap, np.int64),
        np.zeros(cap, np.int64), np.zeros(cap, np.int64),
        np.zeros(cap + 1, np.int64), np.zeros(cap * 8, np.int64), np.zeros(cap * 8, np.bool_),
        np.zeros(cap + 1, np.int64), np.zeros(cap * 16, np.int64),
        np.zeros((cap, words), np.uint64),
    ]


def _grow(bufs: list[np.ndarray], cap: int, words: int) -> list[np.ndarray]:
    new = _alloc(cap, words)
    for old, fresh in zip(bufs, new):
        fresh[:len(old)] = old
    return new
