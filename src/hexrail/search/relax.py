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
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from hexrail.graph.track import TrackGraph
    from hexrail.graph.trains import TrainData
    from hexrail.rules.base import PlanRules

# (The model's own process loads numpy and ortools only: what it is given is plain arrays,
# `Route` and `Track`, and the solver's constants are imported where those are made.)


def applies(trains: list[TrainData], rules: PlanRules, objective: str) -> bool:
    """Is the model a bound for these trains' plans (where a plan is worth the sum of its
    routes, on one graph)? Each route must earn no more than its stops' worth and
    `TrainData.arm_extra` (no stop worth less than nothing, none passed unpaid) within a
    distance that ends, never run to a stop twice nor over fixed patterns, nor share track;
    no subsidy may count beside revenue; and the plan rules may only refuse plans (not rank
    them first by what they use, as `PlanRules.must_use` does). (A D train's route is bounded
    by every stop it can reach, where the hex rules end it long before: the walks, which take
    its worthier arm first, prove those plans sooner.)"""
    from hexrail.graph.trains import NO_LIMIT
    from hexrail.search._kernels import N_SUBSETS

    return bool(trains) and not rules.share_track and not rules.must_use and all(
        td.arm_extra >= 0 and td.visit_cap[N_SUBSETS - 1] < NO_LIMIT and not td.revisits and not td.cyclic_runs
        and not td.span_bonuses and (objective == "revenue" or not td.node_subsidy.any())
        for td in trains)


@dataclass(frozen=True)
class Route:
    """One train's routes as the model sees them, per node of the track: may a route pass it
    twice (by other chains; `twice`), is it a stop (`stop`) that may end a route (`end`) and
    that no route passes (`shut`), an anchor (`anchor`), its worth with the bonuses counted
    per stop (`worth`), the visit units it costs (`cost`, where counted); the units a route
    has (`units`, -1: no end), whether it runs at least one chain (`moves`: two stops or
    more), per hex its track bonus (`hex_bonus`); the bonuses a route earns once, ``(amount,
    group, ((stops holding a tag, how many needed), ...))`` (group -1: none), and the end
    bonus at its most."""

    twice: np.ndarray
    stop: np.ndarray
    end: np.ndarray
    shut: np.ndarray
    anchor: np.ndarray
    worth: np.ndarray
    cost: np.ndarray
    units: int
    moves: bool
    hex_bonus: np.ndarray
    bonuses: tuple[tuple[int, int, tuple[tuple[np.ndarray, int], ...]], ...]
    end_bonus: int

    @classmethod
    def of(cls, td: TrainData, twice: np.ndarray) -> Route:
        from hexrail.graph.trains import NO_LIMIT
        from hexrail.search._kernels import HARD_BLOCK, MANDATORY, N_SUBSETS, SOFT_BLOCK

        stop = td.node_kidx >= 0
        units = int(td.visit_cap[N_SUBSETS - 1])
        bonuses = []
        tagged = stop & (td.node_tags != 0)
        per_stop = np.zeros(len(stop), np.int64)  # the bonuses counted per stop, at their most
        for b in range(len(td.bonus_amount)):
            amount = int(td.bonus_amount[b])
            conditions = range(td.bonus_cond_ptr[b], td.bonus_cond_ptr[b + 1])
            carriers = [tagged & (td.node_tags & (np.int64(1) << np.int64(td.bonus_cond_tag[k]))
                                  != 0) for k in conditions]
            if amount <= 0:
                continue
            if td.bonus_per_count[b] and len(conditions):
                per_stop[carriers[0]] += amount
                continue
            needs = tuple((np.flatnonzero(c), int(td.bonus_cond_min[k]))
                          for c, k in zip(carriers, conditions))
            bonuses.append((amount, int(td.bonus_group[b]), needs))
        return cls(
            twice=np.asarray(twice, np.bool_), stop=stop, end=stop & td.node_can_end.astype(bool),
            shut=(td.node_block == HARD_BLOCK) | ((td.node_block == SOFT_BLOCK) & (td.max_bypass == 0)),
            anchor=td.node_anchor_rank >= 0,
            worth=np.where(stop, td.node_weight + per_stop, 0),
            cost=np.where(stop & (td.node_optional == MANDATORY), td.node_cost, 0),
            units=units if units < NO_LIMIT else -1, moves=td.min_stops >= 2, hex_bonus=td.hex_track_bonus.copy(),
            bonuses=tuple(bonuses), end_bonus=int(td.node_end_bonus.max(initial=0)))


@dataclass(frozen=True)
class Track:
    """The track as the model sees it: its vertices (the first `n_nodes` are nodes), its
    chains' ends, and the hexes each chain runs in (``chain_hexes[chain_hex_ptr[c]:...]``)."""

    n_vertices: int
    n_nodes: int
    chain_ends: np.ndarray
    chain_hex_ptr: np.ndarray
    chain_hexes: np.ndarray

    @classmethod
    def of(cls, graph: TrackGraph) -> Track:
        return cls(graph.n_vertices, graph.n_nodes, graph.chain_ends, graph.chain_hex_ptr,
                   graph.chain_hexes)


def relaxed_plan(track: Track, routes: list[Route], deadline: float | None, workers: int = 1
                 ) -> tuple[int | None, bool, list[np.ndarray]]:
    """The model's best plan for the trains of `routes` on `track`: ``(bound, found,
    chains)``: no legal plan is worth more than `bound` (None: the search found no bound by
    `deadline`); where `found`, per train the chains of the best plan the model found (bool
    per chain), its best where that plan is worth `bound`."""
    from ortools.sat.python import cp_model  # (0.2 s to load: only where a model is built)

    model = cp_model.CpModel()
    n_chains = len(track.chain_ends)
    uses: list[list] = []
    worth: list = []
    for route in routes:
        use, value = _route(model, track, route)
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
    chains = [np.zeros(n_chains, np.bool_) for _ in routes]
    if not found:
        return None, False, chains
    for t, use in enumerate(uses):
        for c, lit in enumerate(use):
            chains[t][c] = lit is not None and bool(solver.value(lit))
    # (worths are whole: a bound of 979.6 says 979)
    return math.floor(solver.best_objective_bound + 1e-6), True, chains


def _route(model, track: Track, route: Route) -> tuple[list, object]:
    """One train's route in `model`: per chain the literal of its use (None: never used), and
    the route's worth at most."""
    n_vertices, ends = track.n_vertices, track.chain_ends
    # a junction passed twice is two vertices of the circuit (one per pass), and so on
    degree = np.bincount(ends.ravel(), minlength=n_vertices)
    copies: list[list[int]] = []
    nxt = n_vertices + 1  # (n_vertices: the node closing the path)
    for v in range(n_vertices):
        k = max(int(degree[v]) // 2, 1) if route.twice[v] else 1
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
            model.add_implication(use[c], visit[a])
            model.add_implication(use[c], visit[b])
    # (what the circuit implies, said outright: its linear relaxation is tighter, and on
    # 18USA's late game the model is proven about a quarter sooner) a vertex's copies run at
    # most two chains each, and a route of two stops or more runs one at every vertex it visits
    incident: dict[int, list] = {}
    for c, (a, b) in enumerate(ends.tolist()):
        if use[c] is not None:
            incident.setdefault(a, []).append(use[c])
            incident.setdefault(b, []).append(use[c])
    for v, held in incident.items():
        model.add(sum(held) <= 2 * len(copies[v]))
        if route.moves:
            model.add(sum(held) >= 1).only_enforce_if(visit[v])
    for v in range(n_vertices) if route.moves else ():
        if v not in incident:
            model.add(visit[v] == 0)
    # a route starts and ends at stops that may end it; the closing node alone: no route
    idle = model.new_bool_var("idle")
    arcs[close, close] = [idle]
    for v in range(track.n_nodes):
        if route.end[v]:
            start, end = model.new_bool_var(""), model.new_bool_var("")
            arcs[close, v] = [start]
            arcs[v, close] = [end]
            if route.shut[v]:  # (a route may end at such a stop, never pass it)
                model.add(start + end >= 1).only_enforce_if(visit[v])
        elif route.shut[v]:
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
    model.add(sum(visit[v] for v in np.flatnonzero(route.anchor).tolist()) >= 1).only_enforce_if(~idle)
    if route.units >= 0:
        model.add(sum(int(route.cost[v]) * visit[v] for v in np.flatnonzero(route.cost).tolist())
                  <= route.units)
    terms = [int(route.worth[v]) * visit[v] for v in np.flatnonzero(route.worth > 0).tolist()]
    chain_of = np.repeat(np.arange(len(ends)), np.diff(track.chain_hex_ptr))
    for h in np.flatnonzero(route.hex_bonus > 0).tolist():
        held = [use[c] for c in np.unique(chain_of[track.chain_hexes == h]).tolist()
                if use[c] is not None]
        if held:
            ran = model.new_bool_var(f"h{h}")
            model.add(ran <= sum(held))
            terms.append(int(route.hex_bonus[h]) * ran)
    # the bonuses a route earns once (those counted per stop are in its stops' worth): each
    # only where its route visits the stops its tags need, one of a group
    groups: dict[int, list] = {}
    for amount, group, needs in route.bonuses:
        earned = model.new_bool_var("")
        model.add_implication(earned, ~idle)
        for holders, least in needs:
            model.add(least * earned <= sum(visit[v] for v in holders.tolist()))
        if group >= 0:
            groups.setdefault(group, []).append(earned)
        terms.append(amount * earned)
    for members in groups.values():
        model.add(sum(members) <= 1)
    if route.end_bonus > 0:
        terms.append(route.end_bonus * (1 - idle))
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
GRACE = 0.2  # seconds a model's process may take beyond its deadline before it is stopped
NICE = 10  # how much lower the model's process runs than its caller


class Apart:
    """`relaxed_plan` in a process of its own (``python -m hexrail.search.relax``), running
    beside the caller until it answers, its deadline passes or `stop` ends it: CP-SAT with
    several workers has been seen to abort on memory errors (ortools 9.15), which must not
    take the caller down. A thread feeds the process its job and reads its answer, so the
    caller goes on (a search, `hexrail.solve`) and asks `done` when it pauses."""

    def __init__(self, track: Track, routes: list[Route], deadline: float | None,
                 workers: int = RELAX_WORKERS) -> None:
        left = None if deadline is None else max(deadline - time.perf_counter(), 0.0)
        # (the wall clock: the process counts its deadline from before it loads)
        job = pickle.dumps((track, routes, None if left is None else time.time() + left, workers,
                            os.getpid()))
        self._answer: tuple[int | None, bool, list[np.ndarray]] | None = None
        self._thread: threading.Thread | None = None
        try:
            self._process = subprocess.Popen([sys.executable, "-m", "hexrail.search.relax"],
                                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=subprocess.DEVNULL)
        except OSError:
            return
        self._thread = threading.Thread(target=self._talk, args=(job, left), daemon=True)
        self._thread.start()

    def _talk(self, job: bytes, left: float | None) -> None:
        process = self._process
        try:
            out, _ = process.communicate(job, timeout=None if left is None else left + GRACE)
            if process.returncode == 0:
                self._answer = pickle.loads(out)
        except (subprocess.SubprocessError, OSError, ValueError, pickle.UnpicklingError,
                EOFError):
            process.kill()
            process.wait()

    def done(self) -> bool:
        """Has the model answered (or failed)?"""
        return self._thread is None or not self._thread.is_alive()

    def answer(self, timeout: float | None = None) -> tuple[int | None, bool, list[np.ndarray]] | None:
        """`relaxed_plan`'s answer, waiting at most `timeout` seconds for it (None: as long as
        it takes); None when the process failed, overran or is still at work."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self._answer if self.done() else None

    def stop(self) -> None:
        """End the process, wherever it is."""
        if self._thread is not None and self._thread.is_alive():
            self._process.kill()
            self._thread.join()


def relaxed_plan_apart(track: Track, routes: list[Route], deadline: float | None,
                       workers: int = RELAX_WORKERS) -> tuple[int | None, bool, list[np.ndarray]] | None:
    """`relaxed_plan` in a process of its own (`Apart`), waited for. None when the process
    fails or overruns."""
    return Apart(track, routes, deadline, workers).answer()


def _main() -> None:
    track, routes, wall_deadline, workers, caller = pickle.load(sys.stdin.buffer)
    _end_with(caller)
    try:
        # beside a search (`hexrail.solve.ModelBeside`) the search keeps its core: the model's
        # workers take what it leaves, and every core while it waits
        os.nice(NICE)
    except OSError:
        pass
    deadline = None if wall_deadline is None else time.perf_counter() + wall_deadline - time.time()
    got = relaxed_plan(track, routes, deadline, workers)
    sys.stdout.buffer.write(pickle.dumps(got))
    sys.stdout.flush()
    os._exit(0)  # (the answer is out: no teardown of the solver's threads to wait for)


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
