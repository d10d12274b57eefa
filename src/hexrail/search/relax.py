"""The plan as one CP-SAT model of track: a bound on every legal plan, and the track of its best.

Where a plan is worth the sum of its routes and its routes share no track, a walk over long
trains on a rich board (18USA's late game: an 8-train beside a 5-train) spends tens of seconds
proving what a model of paths proves in a few: each train's route is a path through the
track's vertices (`AddCircuit` over them and a node closing the path), visiting at most its
distance in stops, holding an anchor, and worth its stops, the track bonus of every bonus hex
its chains run in and its other bonuses at their most; no chain is run by two trains.

Every rule the model leaves out only lets it run more (the hex rules, the ends' classes,
terminal track, how many routes may reach a place), and every worth it counts is at least
what a route earns (`TrainData.arm_extra`: where a route earns no more than its stops and
those bonuses), so its best is at least every legal plan's: `relaxed_plan`'s bound. Its best
plan's track is then walked for real, each train on the chains the model gave it (`track_of`),
and a legal plan found there worth the bound is proven the best.
"""

from __future__ import annotations

import ctypes
import math
import os
import pickle
import signal
import subprocess
import sys
import time

import numpy as np

from hexrail.graph.track import TrackGraph
from hexrail.graph.trains import NO_LIMIT, TrainData
from hexrail.rules.base import PlanRules
from hexrail.search._kernels import HARD_BLOCK, MANDATORY, N_SUBSETS, SOFT_BLOCK


def applies(trains: list[TrainData], rules: PlanRules, objective: str) -> bool:
    """Is the model a bound for these trains' plans (where a plan is worth the sum of its
    routes, on one graph)? Each route must earn no more than its stops' worth and
    `TrainData.arm_extra` (no stop worth less than nothing, none passed unpaid) within a
    distance that ends, never run to a stop twice nor over fixed patterns, nor share track;
    no subsidy may count beside revenue; and the plan rules may only refuse plans (not rank
    them first by what they use, as `PlanRules.must_use` does). (A D train's route is bounded
    by every stop it can reach, where the hex rules end it long before: the walks, which take
    its worthier arm first, prove those plans sooner.)"""
    return bool(trains) and not rules.share_track and not rules.must_use and all(
        td.arm_extra >= 0 and td.visit_cap[N_SUBSETS - 1] < NO_LIMIT and not td.revisits and not td.cyclic_runs
        and not td.span_bonuses and (objective == "revenue" or not td.node_subsidy.any())
        for td in trains)


def relaxed_plan(graph: TrackGraph, trains: list[TrainData], again: list[np.ndarray],
                 deadline: float | None, workers: int = 1
                 ) -> tuple[int | None, bool, list[np.ndarray]]:
    """The model's best plan for `trains` on `graph` (`again[t]`: per vertex, may train t's
    route pass it twice, by other chains): ``(bound, found, chains)``: no legal plan is worth
    more than `bound` (None: the search found no bound by `deadline`); where `found`, per train
    the chains of the best plan the model found (bool per chain), its best where that plan is
    worth `bound`."""
    from ortools.sat.python import cp_model  # (0.2 s to load: only where a model is built)

    model = cp_model.CpModel()
    n_chains = len(graph.chain_ends)
    uses: list[list] = []
    worth: list = []
    for td, twice in zip(trains, again):
        use, value = _route(model, graph, td, twice)
        uses.append(use)
        worth.append(value)
    for c in range(n_chains):
        held = [use[c] for use in uses if use[c] is not None]
        if len(held) > 1:
            model.add(sum(held) <= 1)
    model.maximize(sum(worth))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = 0
    # (the circuit's fuller linear relaxation: on 18USA's late game its proofs take half as long)
    solver.parameters.linearization_level = 2
    if deadline is not None:
        solver.parameters.max_time_in_seconds = max(0.01, deadline - time.perf_counter())
    status = solver.solve(model)
    found = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    chains = [np.zeros(n_chains, np.bool_) for _ in trains]
    if not found:
        return None, False, chains
    for t, use in enumerate(uses):
        for c, lit in enumerate(use):
            chains[t][c] = lit is not None and bool(solver.value(lit))
    # (worths are whole: a bound of 979.6 says 979)
    return math.floor(solver.best_objective_bound + 1e-6), True, chains


def _route(model, graph: TrackGraph, td: TrainData,
           twice: np.ndarray) -> tuple[list, object]:
    """One train's route in `model`: per chain the literal of its use (None: never used), and
    the route's worth at most."""
    n_nodes, n_vertices = graph.n_nodes, graph.n_vertices
    ends = graph.chain_ends
    stop = td.node_kidx >= 0
    # a junction passed twice is two vertices of the circuit (one per pass), and so on
    degree = np.bincount(ends.ravel(), minlength=n_vertices)
    copies: list[list[int]] = []
    nxt = n_vertices + 1  # (n_vertices: the node closing the path)
    for v in range(n_vertices):
        k = max(int(degree[v]) // 2, 1) if twice[v] else 1
        copies.append([v] + list(range(nxt, nxt + k - 1)))
        nxt += k - 1
    close = n_vertices
    arcs: dict[tuple[int, int], list] = {}
    visit = {}
    for v in range(n_vertices):
        for k, x in enumerate(copies[v]):
            visit[x] = model.new_bool_var(f"v{x}")
            arcs[x, x] = [~visit[x]]
            if k:  # (copies in order: no two plans that differ only by which copy)
                model.add_implication(visit[x], visit[copies[v][k - 1]])
    use: list = [None] * len(ends)
    for c, (a, b) in enumerate(ends.tolist()):
        lits = []
        for x in copies[a]:
            for y in copies[b]:
                if x == y:
                    continue  # (a loop back to where it left: never a path)
                for arc in ((x, y), (y, x)):
                    lit = model.new_bool_var("")
                    arcs.setdefault(arc, []).append(lit)
                    lits.append(lit)
        if lits:
            use[c] = model.new_bool_var(f"c{c}")
            model.add(sum(lits) == use[c])
    # a route starts and ends at stops that may end it; the closing node alone: no route
    idle = model.new_bool_var("idle")
    arcs[close, close] = [idle]
    shut = (td.node_block == HARD_BLOCK) | ((td.node_block == SOFT_BLOCK) & (td.max_bypass == 0))
    for v in range(n_nodes):
        if stop[v] and td.node_can_end[v]:
            start, end = model.new_bool_var(""), model.new_bool_var("")
            arcs[close, v] = [start]
            arcs[v, close] = [end]
            if shut[v]:  # (a route may end at such a stop, never pass it)
                model.add(start + end >= 1).only_enforce_if(visit[v])
        elif shut[v]:
            model.add(visit[v] == 0)
    circuit = []
    for (x, y), lits in arcs.items():
        if len(lits) == 1:
            circuit.append((x, y, lits[0]))
        else:
            # (one literal per arc: parallel chains share it)
            lit = model.new_bool_var("")
            model.add(sum(lits) == lit)
            circuit.append((x, y, lit))
    model.add_circuit(circuit)
    anchors = [visit[v] for v in np.flatnonzero(td.node_anchor_rank >= 0).tolist()]
    model.add(sum(anchors) >= 1).only_enforce_if(~idle)
    units = int(td.visit_cap[N_SUBSETS - 1])
    counted = [v for v in np.flatnonzero(stop).tolist() if td.node_optional[v] == MANDATORY]
    if units < NO_LIMIT:
        model.add(sum(int(td.node_cost[v]) * visit[v] for v in counted) <= units)
    terms = [int(td.node_weight[v] + td.node_bound[v]) * visit[v]
             for v in np.flatnonzero(stop).tolist() if td.node_weight[v] + td.node_bound[v] > 0]
    chain_of = np.repeat(np.arange(len(ends)), np.diff(graph.chain_hex_ptr))
    for h in np.flatnonzero(td.hex_track_bonus > 0).tolist():
        held = [use[c] for c in np.unique(chain_of[graph.chain_hexes == h]).tolist()
                if use[c] is not None]
        if held:
            ran = model.new_bool_var(f"h{h}")
            model.add(ran <= sum(held))
            terms.append(int(td.hex_track_bonus[h]) * ran)
    # the bonuses a route earns once (those counted per stop are in `node_bound`): each only
    # where its route visits the stops its tags need, one of a group
    groups: dict[int, list] = {}
    tagged = stop & (td.node_tags != 0)
    for b in range(len(td.bonus_amount)):
        amount = int(td.bonus_amount[b])
        conditions = range(td.bonus_cond_ptr[b], td.bonus_cond_ptr[b + 1])
        if amount <= 0 or (td.bonus_per_count[b] and len(conditions)):
            continue  # (counted per stop: in `node_bound`)
        earned = model.new_bool_var(f"b{b}")
        model.add_implication(earned, ~idle)
        for k in conditions:
            bit = np.int64(1) << np.int64(td.bonus_cond_tag[k])
            holders = [visit[v] for v in np.flatnonzero(tagged & (td.node_tags & bit != 0)).tolist()]
            model.add(int(td.bonus_cond_min[k]) * earned <= sum(holders))
        if td.bonus_group[b] >= 0:
            groups.setdefault(int(td.bonus_group[b]), []).append(earned)
        terms.append(amount * earned)
    for members in groups.values():
        model.add(sum(members) <= 1)
    end = int(td.node_end_bonus.max(initial=0))
    if end > 0:
        terms.append(end * (1 - idle))
    return use, sum(terms)


def track_of(graph: TrackGraph, chains: np.ndarray) -> np.ndarray:
    """The resources a walk may not use to keep to `chains` (`enumerate_routes(forbid=...)`):
    every other chain's, but those the chains or their vertices hold themselves."""
    words = graph.chain_res.shape[1]
    own = np.bitwise_or.reduce(graph.chain_res[chains], axis=0) if chains.any() else \
        np.zeros(words, np.uint64)
    own = own.copy()
    for r in graph.vertex_res[np.unique(graph.chain_ends[chains].ravel())].tolist():
        if r >= 0:  # (a branch point's own resource)
            own[r >> 6] |= np.uint64(1) << np.uint64(r & 63)
    other = np.bitwise_or.reduce(graph.chain_res[~chains], axis=0) if (~chains).any() else \
        np.zeros(words, np.uint64)
    return other & ~own


RELAX_WORKERS = 8  # CP-SAT's portfolio: on two cores it proves these plans several times faster
GRACE = 1.0  # seconds a model's process may take beyond its deadline before it is stopped


def relaxed_plan_apart(graph: TrackGraph, trains: list[TrainData], again: list[np.ndarray],
                       deadline: float, workers: int = RELAX_WORKERS
                       ) -> tuple[int | None, bool, list[np.ndarray]] | None:
    """`relaxed_plan` in a process of its own (``python -m hexrail.search.relax``): CP-SAT
    with several workers has been seen to abort on memory errors (ortools 9.15), which must
    not take the caller down. None when the process fails or overruns."""
    left = deadline - time.perf_counter()
    # (the wall clock: the process counts its deadline from before it loads)
    job = pickle.dumps((graph, trains, again, time.time() + left, workers, os.getpid()))
    try:
        done = subprocess.run([sys.executable, "-m", "hexrail.search.relax"], input=job,
                              capture_output=True, timeout=max(left, 0.0) + GRACE, check=False)
        return pickle.loads(done.stdout) if done.returncode == 0 else None
    except (subprocess.SubprocessError, OSError, pickle.UnpicklingError, EOFError):
        return None


def _main() -> None:
    graph, trains, again, wall_deadline, workers, caller = pickle.load(sys.stdin.buffer)
    _end_with(caller)
    deadline = time.perf_counter() + wall_deadline - time.time()
    got = relaxed_plan(graph, trains, again, deadline, workers)
    sys.stdout.buffer.write(pickle.dumps(got))


def _end_with(caller: int) -> None:
    """This process ends when its caller does (a server's worker killed mid-job): Linux's
    parent-death signal, and a caller gone already."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # (PR_SET_PDEATHSIG)
        except (OSError, AttributeError):
            pass
    if os.getppid() != caller:
        sys.exit(1)


if __name__ == "__main__":
    _main()
