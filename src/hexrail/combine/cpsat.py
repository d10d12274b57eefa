"""Choose one route per train when rules couple the routes: an OR-Tools CP-SAT model.

Rules this model handles on top of disjoint track: every stop pays once across the company's
routes (with each train's paid stops chosen jointly, within its pay rows), one route must include
the home token, the routes' stops must form one connected graph, and a budget of bypasses per
round. The model follows data → variables → constraints → objective → solve → read.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np
from ortools.sat.python import cp_model

from hexrail.combine.bnb import Selection, combine_disjoint

if TYPE_CHECKING:
    from hexrail.solve import Prepared


def home_nodes(prep: Prepared, t: int) -> set[int]:
    """Node ids of the operating company's home: its home node refs, or the tokened cities of
    its home hexes (all their cities if none is tokened yet)."""
    pos, graph = prep.position, prep.graph_of(t)
    out: set[int] = set()
    for home in pos.operating().home:
        if "-" in home:
            if home in graph.node_index:
                out.add(graph.node_index[home])
            continue
        hex_ = pos.hex(home)
        cities = [n for n in hex_.tile.nodes if n.kind == "city"]
        own = [n for n in cities if any(tok is not None and tok.company == pos.company
                                        for tok in hex_.slots(n.index))]
        for n in own or cities:
            out.add(graph.node_index[f"{home}-{n.index}"])
    return out


def _bits(res: np.ndarray) -> list[np.ndarray]:
    """For each candidate, the indices of its set resource bits."""
    if res.shape[0] == 0:
        return []
    as_bytes = res.view(np.uint8).reshape(res.shape[0], -1)
    bits = np.unpackbits(as_bytes, axis=1, bitorder="little")
    return [np.flatnonzero(row) for row in bits]


def combine_coupled(prep: Prepared, *, deadline: float | None = None, workers: int = 1) -> Selection:
    """Exact choice of one candidate per train under the coupled plan rules of `prep`."""
    rules = prep.rules
    n_trains = len(prep.trains)
    objective = prep.objective
    model = cp_model.CpModel()

    # -- data ----------------------------------------------------------------------------
    cands = prep.candidates
    values = [c.value(objective) for c in cands]
    route_stops = [[set(c.route_nodes(i).tolist()) for i in range(len(c))] for c in cands]

    # -- variables: x[t, i] = train t runs candidate i --------------------------------------
    x = {(t, i): model.new_bool_var(f"x[{t},{i}]")
         for t in range(n_trains) for i in range(len(cands[t]))}
    runs = {t: sum(x[t, i] for i in range(len(cands[t]))) for t in range(n_trains)}

    # -- constraints ------------------------------------------------------------------------
    # Each train runs at most one route.
    for t in range(n_trains):
        model.add(runs[t] <= 1)
    # No two routes share a resource (track unless shared; profile claims always).
    users: dict[int, list] = {}
    for t in range(n_trains):
        graph = prep.graph_of(t)
        res = cands[t].res
        if rules.share_track:
            res = res.copy()
            for w in range(res.shape[1]):
                lo = w * 64
                keep = max(0, graph.n_resources - lo)
                if keep >= 64:
                    res[:, w] = 0
                elif keep > 0:
                    res[:, w] &= ~np.uint64((1 << keep) - 1)
        for i, bits in enumerate(_bits(res)):
            for b in bits.tolist():
                users.setdefault(b, []).append(x[t, i])
    for lits in users.values():
        if len(lits) > 1:
            model.add_at_most_one(lits)
    # The round's bypass budget.
    if rules.max_bypass >= 0:
        spent = [int(cands[t].bypass[i]) * x[t, i] for (t, i) in x if cands[t].bypass[i] > 0]
        if spent:
            model.add(sum(spent) <= rules.max_bypass)

    # Visits: visit[t, s] = train t's route visits stop s.
    visit: dict[tuple[int, int], cp_model.LinearExpr] = {}
    for t in range(n_trains):
        by_stop: dict[int, list] = {}
        for i, stops in enumerate(route_stops[t]):
            for s in stops:
                by_stop.setdefault(s, []).append(x[t, i])
        for s, lits in by_stop.items():
            visit[t, s] = sum(lits)

    any_run = model.new_bool_var("any_run")
    model.add_max_equality(any_run, [x[k] for k in x] or [0])
    if rules.home_route:
        home = [sum(visit[t, s] for s in home_nodes(prep, t) if (t, s) in visit) for t in range(n_trains)]
        model.add(sum(home) >= any_run)

    if rules.intersect and n_trains > 1:
        # Connected through shared stops: every running route but one (the root, which holds
        # the home token when that rule applies) shares a stop with a route of a lower level.
        level = [model.new_int_var(0, n_trains - 1, f"level[{t}]") for t in range(n_trains)]
        root = [model.new_bool_var(f"root[{t}]") for t in range(n_trains)]
        model.add(sum(root) == any_run)
        for t in range(n_trains):
            model.add(root[t] <= runs[t])
            if rules.home_route:
                model.add(sum(visit[t, s] for s in home_nodes(prep, t) if (t, s) in visit) >= root[t])
            parents = []
            for u in range(n_trains):
                if u == t:
                    continue
                shared = [s for (tt, s) in visit if tt == t and (u, s) in visit]
                if not shared:
                    continue
                link = model.new_bool_var(f"link[{t},{u}]")
                meets = []
                for s in shared:
                    z = model.new_bool_var(f"meet[{t},{u},{s}]")
                    model.add(z <= visit[t, s])
                    model.add(z <= visit[u, s])
                    meets.append(z)
                model.add(link <= sum(meets))
                model.add(link <= runs[u])
                model.add(level[u] + 1 <= level[t]).only_enforce_if(link)
                parents.append(link)
            # a running non-root route needs a parent
            model.add(sum(parents) >= runs[t] - root[t])

    # -- objective ----------------------------------------------------------------------------
    terms = []
    pay_vars: dict[tuple[int, int], cp_model.IntVar] = {}
    if rules.stops_pay_once:
        # pay[t, s]: train t is paid for stop s. A stop pays once in all; a train is paid only
        # for stops its route visits, within its pay rows (Hall bound per set of stop kinds).
        for (t, s), expr in visit.items():
            pay_vars[t, s] = model.new_bool_var(f"pay[{t},{s}]")
            model.add(pay_vars[t, s] <= expr)
        by_stop: dict[int, list] = {}
        for (t, s), p in pay_vars.items():
            by_stop.setdefault(s, []).append(p)
        for lits in by_stop.values():
            model.add_at_most_one(lits)
        for t in range(n_trains):
            td = prep.trains[t]
            stops_t = [s for (tt, s) in pay_vars if tt == t]
            for subset in range(1, 16):
                cap = int(td.pay_cap[subset])
                members = [pay_vars[t, s] for s in stops_t if (subset >> int(td.node_kidx[s])) & 1]
                if len(members) > cap:
                    model.add(sum(members) <= cap)
            for s in stops_t:
                terms.append(int(td.node_weight[s]) * pay_vars[t, s])
            for i in range(len(cands[t])):
                if cands[t].bonus[i]:
                    terms.append(int(cands[t].bonus[i]) * x[t, i])
    else:
        for (t, i), var in x.items():
            if values[t][i]:
                terms.append(int(values[t][i]) * var)
    model.maximize(sum(terms))

    # A hint: the best disjoint choice ignoring the couplings.
    disjoint = combine_disjoint(values, [c.res for c in cands], prep.groups,
                                deadline=time.perf_counter() + 1.0)
    for t, i in enumerate(disjoint.choice):
        if i >= 0:
            model.add_hint(x[t, i], True)

    # -- solve ---------------------------------------------------------------------------------
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = 0
    if deadline is not None:
        solver.parameters.max_time_in_seconds = max(0.01, deadline - time.perf_counter())
    status = solver.solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        # nothing found in time: every train idle is always legal
        bound = int(solver.best_objective_bound) if status == cp_model.UNKNOWN else 0
        return Selection(tuple([-1] * n_trains), 0, status == cp_model.INFEASIBLE, bound, 0)

    # -- read ----------------------------------------------------------------------------------
    choice = []
    for t in range(n_trains):
        chosen = [i for i in range(len(cands[t])) if solver.value(x[t, i])]
        choice.append(chosen[0] if chosen else -1)
    overrides: list[dict | None] = [None] * n_trains
    if rules.stops_pay_once:
        for t, i in enumerate(choice):
            if i < 0:
                continue
            td = prep.trains[t]
            paid = [s for s in cands[t].route_nodes(i).tolist()
                    if (t, s) in pay_vars and solver.value(pay_vars[t, s])]
            revenue = int(sum(int(td.node_value[s]) for s in paid)) + int(cands[t].bonus[i])
            subsidy = int(sum(int(td.node_subsidy[s]) for s in paid))
            overrides[t] = {"revenue": revenue, "subsidy": subsidy, "paid": paid}
    value = int(round(solver.objective_value))
    optimal = status == cp_model.OPTIMAL
    upper = value if optimal else int(solver.best_objective_bound)
    return Selection(tuple(choice), value, optimal, upper, int(solver.num_branches),
                     tuple(overrides))
