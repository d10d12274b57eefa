"""Choose one route per train when rules couple the routes: an OR-Tools CP-SAT model.

Rules this model handles on top of disjoint track: every stop pays once across the company's
routes (with each train's paid stops chosen jointly, within its pay rows), one route must include
the home token, the routes' stops must form one connected graph, and a budget of bypasses per
round. The model follows data → variables → constraints → objective → solve → read.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from hexrail.combine import _kernels as K
from hexrail.combine.bnb import Selection
from hexrail.errors import HexrailError
from hexrail.stage import (CONNECTION, HOME_ROUTE, REGION, Prepared, meets, payable_stops,
                           region_limits, required)

if TYPE_CHECKING:  # ortools (and the pandas it imports) load only when a model is built
    from ortools.sat.python import cp_model


def _bits(res: np.ndarray) -> list[np.ndarray]:
    """For each candidate, the indices of its set resource bits."""
    if res.shape[0] == 0:
        return []
    as_bytes = res.view(np.uint8).reshape(res.shape[0], -1)
    bits = np.unpackbits(as_bytes, axis=1, bitorder="little")
    return [np.flatnonzero(row) for row in bits]


def locations(prep: Prepared) -> list[int]:
    """Per graph node, its location: stops of one offboard area (a group) are one location,
    paid once between them; any other stop is its own."""
    graph = prep.graphs[next(iter(prep.graphs))]
    pos = prep.position
    loc: list[int] = []
    ids: dict[str, int] = {}
    for ref in graph.node_ref:
        hex_id, index = ref.rsplit("-", 1)
        groups = pos.hex(hex_id).node(int(index)).groups
        loc.append(ids.setdefault(groups[0] if groups else ref, len(ids)))
    return loc


@dataclass
class _Routes:
    """What the model needs of one train's candidates (those kept after dominance)."""

    keep: np.ndarray  # candidate indices, best first
    stops: list[list[int]]  # the stops it may be paid for (`payable_stops`)
    ends: np.ndarray  # first and last stop
    hexes: list[list[int]] | None  # hexes passed, for trains with a hex subsidy


def _stop_bitsets(stops: list[list[int]], n_nodes: int) -> np.ndarray:
    """One bitset per stop list."""
    words = max(1, (n_nodes + 63) // 64)
    out = np.zeros((len(stops), words), np.uint64)
    for k, row in enumerate(stops):
        for s in row:
            out[k, s >> 6] |= np.uint64(1) << np.uint64(s & 63)
    return out


def _routes(prep: Prepared, t: int, reduce: bool) -> _Routes:
    """Train t's candidates as the model sees them. With `reduce`, a candidate is dropped when
    another visits every stop it visits (and passes every hex it passes, for hex subsidies; with
    the same ends, for set trains; alike as a connection run) and earns at least its bonus: with shared track and every
    earning settled stop by stop, the larger route can do all the smaller one does."""
    cands, graph = prep.candidates[t], prep.graph_of(t)
    ends = cands.ends()
    # a train with no optional stops may be paid for every stop it visits
    restricted = not prep.relax_optional and bool((prep.trains[t].node_optional != 0).any())
    payable = [payable_stops(prep, t, i) for i in range(len(cands))] if restricted else None
    parts = [_stop_bitsets(payable, graph.n_nodes) if restricted
             else cands.stop_bits(graph.n_nodes)]
    if prep.hex_subsidy[t]:
        words = max(1, (len(graph.hex_ids) + 63) // 64)
        parts.append(K.route_hex_bits(cands.src, cands.chain_ptr, cands.chains,
                                      graph.chain_hex_ptr, graph.chain_hexes, words))
    keep = np.arange(len(cands))
    if reduce and len(cands) > 1:
        bits = np.concatenate(parts, axis=1)
        if prep.set_role[t]:
            lo, hi = np.minimum(ends[:, 0], ends[:, 1]), np.maximum(ends[:, 0], ends[:, 1])
            key = lo * graph.n_nodes + hi
        else:
            key = np.zeros(len(cands), np.int64)
        if prep.rules.connection or prep.rules.regions:
            # a route's ends decide whether it is a connection run, and a larger route may
            # enter a region the smaller one keeps out of: only a route alike in those may
            # stand in for another
            key = key * (1 << 20) + (meets(prep, t) & ~HOME_ROUTE)
        pop = np.unpackbits(bits.view(np.uint8), axis=1).sum(axis=1)
        order = np.argsort(-pop, kind="stable")
        kept = order[K.undominated(bits[order], key[order], cands.bonus[order])]
        keep = np.sort(kept)
    stops = [payable[int(i)] if restricted else cands.route_nodes(int(i)).tolist() for i in keep]
    hexes = None
    if prep.hex_subsidy[t]:
        hexes = [row.tolist() for row in _bits(parts[1][keep])] if len(keep) else []
    return _Routes(keep, stops, ends[keep], hexes)


def combine_coupled(prep: Prepared, *, deadline: float | None = None, workers: int = 1) -> Selection:
    """Exact choice of one candidate per train under the coupled plan rules of `prep`."""
    rules = prep.rules
    n_trains = len(prep.trains)
    income = prep.objective == "income"
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()

    # -- data ----------------------------------------------------------------------------
    cands = prep.candidates
    # With shared track and per-stop earnings, dominated candidates can go.
    reduce = rules.share_track and rules.stops_pay_once and rules.max_bypass == 0
    routes = [_routes(prep, t, reduce) for t in range(n_trains)]
    loc = locations(prep)
    if any(prep.set_role) or any(prep.hex_subsidy):
        # Sets and hex subsidies come with shared track (1862): `combine.payonce` prices them.
        raise HexrailError("route sets and hex subsidies need shared track in this version",
                           where="rules")

    # -- variables: x[t, k] = train t runs its k-th kept candidate ---------------------------
    x = {(t, k): model.new_bool_var(f"x[{t},{k}]")
         for t in range(n_trains) for k in range(len(routes[t].keep))}
    runs = {t: sum(x[t, k] for k in range(len(routes[t].keep))) for t in range(n_trains)}

    # -- constraints ------------------------------------------------------------------------
    for t in range(n_trains):
        model.add(runs[t] <= 1)
    # Identical trains take their routes in candidate order.
    for t in range(n_trains):
        for u in range(t + 1, n_trains):
            if prep.groups[t] == prep.groups[u] and prep.set_role[t] == prep.set_role[u] \
                    and prep.hex_subsidy[t] == prep.hex_subsidy[u]:
                model.add(runs[t] >= runs[u])
                # (an idle train ranks after every candidate, so t may run while u is idle)
                idle = len(routes[t].keep) + 1
                order_t = sum((k + 1) * x[t, k] for k in range(len(routes[t].keep)))
                order_u = sum((k + 1) * x[u, k] for k in range(len(routes[u].keep)))
                model.add(order_t + idle * (1 - runs[t]) <= order_u + idle * (1 - runs[u]))
                break
    _no_shared_resources(prep, model, x, routes)
    if rules.max_bypass >= 0:
        spent = [int(cands[t].bypass[routes[t].keep[k]]) * x[t, k] for (t, k) in x
                 if cands[t].bypass[routes[t].keep[k]] > 0]
        if spent:
            model.add(sum(spent) <= rules.max_bypass)

    # visit[t, s]: train t's route visits stop s
    visit: dict[tuple[int, int], Any] = {}
    for t in range(n_trains):
        by_stop: dict[int, list] = {}
        for k, stops in enumerate(routes[t].stops):
            for s in stops:
                by_stop.setdefault(s, []).append(x[t, k])
        for s, lits in by_stop.items():
            visit[t, s] = sum(lits)
    _home_and_intersect(prep, model, x, runs, visit, routes)

    # -- earnings ---------------------------------------------------------------------------
    revenue_terms: list = []
    subsidy_terms: list = []
    pay: dict[tuple[int, int], cp_model.IntVar] = {}
    if rules.stops_pay_once:
        pay = _paid_stops(prep, model, x, routes, visit, loc)
        for (t, s), var in pay.items():
            td = prep.trains[t]
            revenue_terms.append(int(td.node_value[s]) * var)
            subsidy_terms.append(int(td.node_subsidy[s]) * var)
        for (t, k), var in x.items():
            bonus = int(cands[t].bonus[routes[t].keep[k]])
            if bonus:
                revenue_terms.append(bonus * var)
    else:
        for (t, k), var in x.items():
            i = routes[t].keep[k]
            revenue_terms.append(int(cands[t].revenue[i]) * var)
            subsidy_terms.append(int(cands[t].subsidy[i]) * var)

    # Income ranks plans by revenue + subsidy, then by revenue (docs/rules.md (generic)).
    # The tie order of `hexrail.stage.TIE_SCALE` (income, then revenue), with the smallest
    # scale that keeps it: the solver's objective stays small.
    scale = _revenue_ceiling(prep, routes) + 1 if income else 1
    if income:
        model.maximize(scale * (sum(revenue_terms) + sum(subsidy_terms)) + sum(revenue_terms))
    else:
        model.maximize(sum(revenue_terms))

    # -- solve ---------------------------------------------------------------------------------
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = 0
    if deadline is not None:
        solver.parameters.max_time_in_seconds = max(0.01, deadline - time.perf_counter())
    status = solver.solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        # nothing found in time: every train idle is always legal
        bound = int(solver.best_objective_bound) // scale if status == cp_model.UNKNOWN else 0
        return Selection(tuple([-1] * n_trains), 0, status == cp_model.INFEASIBLE, bound, 0)

    # -- read ----------------------------------------------------------------------------------
    chosen = []
    for t in range(n_trains):
        ks = [k for k in range(len(routes[t].keep)) if solver.value(x[t, k])]
        chosen.append(ks[0] if ks else -1)
    choice = tuple(int(routes[t].keep[k]) if k >= 0 else -1 for t, k in enumerate(chosen))
    overrides: list[dict | None] = [None] * n_trains
    for t, k in enumerate(chosen):
        if k < 0:
            continue
        td, i = prep.trains[t], choice[t]
        if pay:
            paid = [s for s in routes[t].stops[k] if (t, s) in pay and solver.value(pay[t, s])]
            revenue = int(sum(int(td.node_value[s]) for s in paid) + cands[t].bonus[i])
            subsidy = int(sum(int(td.node_subsidy[s]) for s in paid))
        else:
            paid = [s for s, p in zip(cands[t].route_nodes(i).tolist(), cands[t].route_paid(i)) if p]
            revenue, subsidy = int(cands[t].revenue[i]), int(cands[t].subsidy[i])
        overrides[t] = {"revenue": revenue, "subsidy": subsidy, "paid": paid}
    value = round(solver.objective_value) // scale
    optimal = status == cp_model.OPTIMAL
    upper = value if optimal else int(solver.best_objective_bound) // scale
    return Selection(choice, value, optimal, upper, int(solver.num_branches), tuple(overrides))


def _no_shared_resources(prep: Prepared, model: cp_model.CpModel, x: dict, routes: list[_Routes]) -> None:
    """No two routes share a resource bit: track unless the rules share it; profile claims
    (the bits past the track) always."""
    if len(prep.track_groups) > 1:
        raise HexrailError("track groups are not supported together with routes whose pay "
                           "depends on each other", where="rules.profile")
    users: dict[int, list] = {}
    for t in range(len(prep.trains)):
        graph = prep.graph_of(t)
        res = prep.candidates[t].res[routes[t].keep]
        if prep.rules.share_track:
            res = res.copy()
            for w in range(res.shape[1]):
                keep = max(0, graph.n_resources - w * 64)
                if keep >= 64:
                    res[:, w] = 0
                elif keep > 0:
                    res[:, w] &= ~np.uint64((1 << keep) - 1)
        for k, bits in enumerate(_bits(res)):
            for b in bits.tolist():
                users.setdefault(b, []).append(x[t, k])
    for lits in users.values():
        if len(lits) > 1:
            model.add_at_most_one(lits)


def _home_and_intersect(prep: Prepared, model: cp_model.CpModel, x: dict, runs: dict,
                        visit: dict, routes: list) -> None:
    """The "one route must ..." rules (home route, connection run: `hexrail.stage.required`),
    at most k routes per region; the routes' stops form one connected graph."""
    rules, n_trains = prep.rules, len(prep.trains)
    any_run = model.new_bool_var("any_run")
    model.add_max_equality(any_run, [x[k] for k in x] or [0])
    need = required(prep)
    met = [meets(prep, t) for t in range(n_trains)] if need or rules.regions else []

    def meeting(t: int, bit: int) -> list:
        return [x[t, k] for k, c in enumerate(routes[t].keep) if met[t][c] & bit]

    for bit in (HOME_ROUTE, CONNECTION):
        if need & bit:
            model.add(sum(lit for t in range(n_trains) for lit in meeting(t, bit)) >= any_run)
    for r, limit in enumerate(region_limits(prep)):
        model.add(sum(lit for t in range(n_trains) for lit in meeting(t, REGION << r)) <= limit)
    if not (rules.intersect and n_trains > 1):
        return
    # Every running route but one (the root, which holds the home token when that rule applies)
    # shares a stop with a route of a lower level.
    level = [model.new_int_var(0, n_trains - 1, f"level[{t}]") for t in range(n_trains)]
    root = [model.new_bool_var(f"root[{t}]") for t in range(n_trains)]
    model.add(sum(root) == any_run)
    for t in range(n_trains):
        model.add(root[t] <= runs[t])
        if rules.home_route:
            model.add(sum(meeting(t, HOME_ROUTE)) >= root[t])
        parents = []
        for u in range(n_trains):
            if u == t:
                continue
            shared = [s for (tt, s) in visit if tt == t and (u, s) in visit]
            if not shared:
                continue
            link = model.new_bool_var(f"link[{t},{u}]")
            shared_at = []
            for s in shared:
                z = model.new_bool_var(f"meet[{t},{u},{s}]")
                model.add(z <= visit[t, s])
                model.add(z <= visit[u, s])
                shared_at.append(z)
            model.add(link <= sum(shared_at))
            model.add(link <= runs[u])
            model.add(level[u] + 1 <= level[t]).only_enforce_if(link)
            parents.append(link)
        model.add(sum(parents) >= runs[t] - root[t])


def _paid_stops(prep: Prepared, model: cp_model.CpModel, x: dict, routes: list[_Routes],
                visit: dict, loc: list[int]) -> dict:
    """pay[t, s]: train t is paid for stop s. A train is paid only for stops its route visits,
    within its pay rows (the Hall bound per set of stop kinds); a location pays one train at
    most."""
    pay: dict[tuple[int, int], cp_model.IntVar] = {}
    for t in range(len(prep.trains)):
        td = prep.trains[t]
        weight = td.node_weight if prep.objective == "income" else td.node_value
        stops_t = [s for (tt, s) in visit if tt == t and weight[s] > 0]
        for s in stops_t:
            pay[t, s] = model.new_bool_var(f"pay[{t},{s}]")
            model.add(pay[t, s] <= visit[t, s])
        for subset in range(1, 16):
            cap = int(td.pay_cap[subset])
            members = [pay[t, s] for s in stops_t if (subset >> int(td.node_kidx[s])) & 1]
            if len(members) > cap:
                model.add(sum(members) <= cap)
    by_loc: dict[int, list] = {}
    for (t, s), p in pay.items():
        by_loc.setdefault(loc[s], []).append(p)
    for lits in by_loc.values():
        if len(lits) > 1:
            model.add_at_most_one(lits)
    return pay

def _revenue_ceiling(prep: Prepared, routes: list[_Routes]) -> int:
    """More than any plan's revenue: every stop's value and every train's best bonus."""
    total = 0
    for t, td in enumerate(prep.trains):
        total += int(np.maximum(td.node_value, 0).sum())
        if len(routes[t].keep):
            total += int(prep.candidates[t].bonus[routes[t].keep].max())
    return total
