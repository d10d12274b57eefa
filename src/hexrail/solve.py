"""The pipeline: position → track graph → candidate routes per train → best plan."""

from __future__ import annotations

import time
from collections.abc import Callable
from itertools import combinations
from dataclasses import replace
from typing import Any

import numpy as np

from hexrail.combine import Selection, combine_disjoint
from hexrail.combine.bnb import greedy_value, worth_keeping
from hexrail.errors import HexrailError
from hexrail.graph.track import TrackGraph, compile_track
from hexrail.graph.trains import TrainData, lower_train
from hexrail.io.native import load_position
from hexrail.model.position import Position
from hexrail.plan import Plan, RoutePlan, RouteSet, plan_route
from hexrail.rules import ruled
from hexrail.rules.base import Choice, PlanRules, VisitAllBonus, VisitBonus
from hexrail.search.narrow import least_values, share
from hexrail.search.relax import applies as relax_applies
from hexrail.search.relax import Apart, Route, Track, track_of
from hexrail.search.rows import placed_pay
from hexrail.search.routes import (
    PAUSED,
    Candidates,
    Partner,
    _track_view,
    enumerate_routes,
    no_routes,
    with_cyclic_runs,
    with_revisits,
    with_span_bonuses,
)
from hexrail.stage import (MUST_USE, OBJECTIVES, TIE_SCALE, Prepared, check_magnitude, loose_bound,
                           meets, optional_left_unpaid, region_limits, required, resources,
                           route_bound, side_masks, sides_used)


# Compiled boards, by the identity of their layout and hexes (see `cached_track`).
_TRACKS: dict[tuple, tuple[tuple, TrackGraph]] = {}
TRACKS = 32


def cached_track(pos: Position, gauge: str, single_joins_double: bool = False,
                 twins: tuple[str, ...] = ()) -> TrackGraph:
    """`compile_track` of `pos`, compiled once per board.

    The track depends on the layout and the hexes only, so positions that share those objects
    (the companies of one round, read by `hexrail.io.g18xx`, which shares repeated hexes; the
    two passes of one `solve`) share the graph. The key is their ``id``s, cheap where hashing
    a board is not; each entry holds the objects it names, so no id is reused while it lives.
    """
    key = (id(pos.layout), *map(id, pos.hexes), gauge, single_joins_double, twins)
    found = _TRACKS.get(key)
    if found is not None:
        return found[1]
    graph = compile_track(pos, gauge, extra_resources=1, single_joins_double=single_joins_double,
                          twins=twins)
    if len(_TRACKS) >= TRACKS:
        del _TRACKS[next(iter(_TRACKS))]  # the oldest
    _TRACKS[key] = ((pos.layout, pos.hexes), graph)
    return graph


def forget_tracks() -> None:
    """Empty the compiled-board cache (a benchmark's cold start)."""
    _TRACKS.clear()


def prepare(position: Any, *, objective: str = "income", deadline: float | None = None,
            narrow: bool = False, floor: int | None = None,
            beside: ModelBeside | None = None) -> Prepared:
    """Compile the position and enumerate every train's candidate routes.

    With `narrow`, where the plan's value is the sum of its routes' values, only the routes
    that can be in a plan worth at least a floor are kept: `floor`, or else the value of a
    greedy plan (`Prepared.floor` says which). A plan that is worth that much has all its
    routes among them, since no other train adds more than its best route. So is a lone
    train's plan where its route may earn bonuses paid once per round: its routes within
    those bonuses at their most (`once_extra`) of its best are kept.

    Where such a plan may also be bounded by a model of track (`Prepared.relaxable`), the
    position is offered to the model run `beside` the walks (`ModelBeside`).
    """
    if objective not in OBJECTIVES:
        raise HexrailError(f"objective must be one of {OBJECTIVES}", where="objective")
    pos, profile = ruled(load_position(position))
    rules = profile.plan_rules(pos)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    twins = tuple(r.stop for r in profile.revisits(pos))
    graphs = {g: cached_track(pos, g, profile.single_joins_double, twins)
              for g in sorted({t.spec.track for t in pos.trains})}
    trains = [lower_train(pos, graphs[t.spec.track], profile, t, objective) for t in pos.trains]
    check_magnitude(trains, pos)
    timings["compile"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    by_key: dict[bytes, int] = {}
    groups: list[int] = []
    first: dict[int, int] = {}  # group -> its first train
    for t, td in enumerate(trains):
        barred = profile.may_run(pos, td.train)  # e.g. no permit: the train stays idle
        key = td.key() + td.train.spec.track.encode() + barred.encode()
        groups.append(by_key.setdefault(key, len(by_key)))
        first.setdefault(groups[-1], t)
    hex_subsidy = [profile.hex_subsidy(pos, t) for t in pos.trains]
    set_role = [profile.set_role(pos, t) for t in pos.trains]
    idle = {g for g, t in first.items() if profile.may_run(pos, trains[t].train)}
    # A lone train earning bonuses paid once per round (to one route each) is narrowed too:
    # its plan is one route with them, so only routes within their most of its best count.
    lone = sum(groups[t] not in idle for t in range(len(trains))) == 1
    once = once_extra(trains) if lone else 0
    additive = (narrow and len(graphs) == 1 and not rules.must_use and not (
        rules.stops_pay_once or rules.max_bypass > 1 or any(hex_subsidy) or any(set_role))
        and not any(td.cyclic_runs or (td.span_bonuses and not lone) or td.revisits
                    for td in trains))
    relaxable = additive and len({profile.track_group(pos, td.train) for td in trains}) == 1 \
        and relax_applies([td for t, td in enumerate(trains) if groups[t] not in idle], rules,
                          objective)
    if relaxable and beside is not None:
        beside.offer(Prepared(pos, profile, rules, graphs, trains, [], groups, objective, timings,
                              hex_subsidy, set_role, relaxable=True))
    least: dict[int, int | None] = {g: None for g in first}
    best: dict[int, Candidates] = {}
    greedy: dict[int, Candidates] = {}
    # a floor the caller gives is what the plan rules allow: it stays (see `solve`). Nor does
    # it rise to a plan of two routes where plan rules beyond sharing no track may refuse such
    # a plan: a floor above the best plan they allow would cost a second pass.
    floor_may_rise = floor is None and not (
        rules.home_route or rules.intersect or rules.connection or rules.exclusive_sides
        or rules.apart_cities
        or any(k < len(pos.trains) for _, k in rules.regions))
    busy = len(first) - len(idle)
    # Where every train is alone in its group and routes share no track, the train with the
    # best route walks last, beside the others' routes (`enumerate_routes(partners=...)`).
    partnered = (additive and len(first) == len(groups) and busy >= 2 and not rules.share_track
                 and len({profile.track_group(pos, td.train) for td in trains}) == 1)
    listed: dict[int, Candidates] = {}
    if additive and trains:
        # with a time limit and more than one train to walk, half the time is kept for the
        # walks below, which find the plans the greedy one misses
        floor, least, best, greedy, listed = least_values(
            next(iter(graphs.values())), trains, groups, first, idle, rules.max_bypass == 1,
            objective, share(deadline, 2 if busy > 1 else 1), floor, once,
            listing=partnered and floor_may_rise)
        least = {g: v - once for g, v in least.items()}
    else:
        floor = None
    cache: dict[int, Candidates] = {}
    # (a train whose every route worth its least was listed walks no more)
    last = max((g for g in first if g not in idle and g not in listed), default=None,
               key=lambda g: best[g].value(objective)[0] if len(best[g]) else 0) if (
        floor is not None and partnered) else None
    walks = sorted(first.items(), key=lambda item: item[0] == last)
    for k, (g, t) in enumerate(walks):
        graph = graphs[trains[t].train.spec.track]
        if g in idle:
            cache[g] = no_routes(graph.chain_res.shape[1])
        elif g in listed:
            cache[g] = with_span_bonuses(graph, trains[t], listed[g], objective)
        elif g in best and len(best[g]) and least[g] >= best[g].value(objective)[0] - once:
            # only best routes are wanted (within `once` of the best), and the search kept them
            cache[g] = with_span_bonuses(graph, trains[t], best[g], objective)
        else:
            partners = [Partner(cache[h], cache[h].value(objective), least[h])
                        for h in first if h != g and h not in idle] if g == last else []
            if not all(p.routes.complete for p in partners):
                partners = []
            raised = np.array([floor or 0, floor_may_rise], np.int64)
            cache[g] = _routes_of(graph, trains[t], share(deadline, len(walks) - k), objective,
                                  least[g], partners, raised)
            if not cache[g].complete:
                # cut short by the time limit: the best routes and the greedy plan's, found
                # before, stay candidates (that plan stays within reach)
                known = [c for c in (best.get(g), greedy.get(g)) if c is not None]
                if len(known) == 2:
                    known = [known[0].merged(known[1], objective)]
                if known:
                    cache[g] = cache[g].merged(known[0], objective)
            if partners and floor_may_rise:
                # the walk found a plan this good (its plan rules unchecked, as the greedy
                # one's: should no plan that good keep them, `solve` walks again from the
                # best that does)
                floor = int(raised[0])
    for g, t in first.items():
        cache[g] = _one_side_each(graphs[trains[t].train.spec.track], pos, rules, cache[g])
    candidates = [cache[g] for g in groups]
    timings["enumerate"] = time.perf_counter() - t1
    bounds = [route_bound(td, best.get(g), objective) for td, g in zip(trains, groups)] + [once] \
        if additive else None
    return Prepared(pos, profile, rules, graphs, trains, candidates, groups, objective, timings,
                    hex_subsidy, set_role, floor, route_bounds=bounds, relaxable=relaxable)


def _one_side_each(graph: TrackGraph, pos: Position, rules: PlanRules,
                   routes: Candidates) -> Candidates:
    """`routes` but those using two sides of one `PlanRules.exclusive_sides` rule."""
    for masks in side_masks(graph, pos, rules) if rules.exclusive_sides else ():
        routes = routes.subset(np.flatnonzero(sides_used(routes, masks).sum(axis=1) <= 1))
    return routes


def once_extra(trains: list[TrainData]) -> int:
    """At most what the bonuses paid once per round (`TrainData.span_bonuses`, told apart by
    name) add to a plan beyond its routes: each its most, on a route visiting as many stops
    as any of the trains can."""
    most: dict[str, int] = {}
    for td in trains:
        if not td.span_bonuses:
            continue  # (most trains: nothing to weigh per solve)
        stop = td.node_kidx >= 0
        # a route's visits: the units of its distance, and the stops costing none or optional
        visits = min(int(stop.sum()), int(td.visit_cap[-1]) + int(
            (stop & ((td.node_cost == 0) | (td.node_optional != 0))).sum()))
        for b in td.span_bonuses:
            most[b.name] = max(most.get(b.name, 0), b.at_most(visits))
    return sum(most.values())


def _routes_of(graph: TrackGraph, td: TrainData, deadline: float | None, objective: str,
               least: int | None = None, partners: list[Partner] = (),
               plan_floor: np.ndarray | None = None) -> Candidates:
    """Every legal route of one train (worth at least `least`, if given, and with
    `partners` in a plan worth ``plan_floor[0]``, which may rise): the kernel's walk, then the profile's
    route-level rules (stops run to twice, cyclic runs, span bonuses), each a pass over the
    candidates (the walk keeps a route's stop tallies within their limits)."""
    cands = enumerate_routes(graph, td, deadline=deadline, objective=objective, min_value=least,
                             partners=partners, plan_floor=plan_floor)
    cands = with_revisits(graph, td, cands)
    cands = with_cyclic_runs(graph, td, cands, objective, deadline=deadline)
    return with_span_bonuses(graph, td, cands, objective)


def _pays_once(prep: Prepared) -> bool:
    from hexrail.combine.payonce import payonce_applies

    return prep.coupled and payonce_applies(prep)


def _pay_once(prep: Prepared, *, deadline: float | None = None) -> Selection:
    """Stops paying once, hex subsidies and freight sets on shared track: the pay-once search."""
    from hexrail.combine.payonce import combine_payonce

    return combine_payonce(prep, deadline=deadline)


def _cp_sat(prep: Prepared, *, deadline: float | None = None) -> Selection:
    """Any other coupling of the routes' earnings: the CP-SAT model."""
    from hexrail.combine.cpsat import combine_coupled

    return combine_coupled(prep, deadline=deadline)


def _additive(prep: Prepared, *, deadline: float | None = None) -> Selection:
    """A plan worth the sum of its routes: branch and bound over routes sharing no resource
    (track, the round's bypass, span-bonus claims), with the home route and intersecting
    routes checked on complete choices."""
    # Equal incomes go to more revenue (docs/rules.md (generic)): revenue rides in the low bits.
    scale = TIE_SCALE if prep.objective == "income" else 1
    values = [c.value(prep.objective) * scale + (c.revenue if scale > 1 else 0)
              for c in prep.candidates]
    res = [resources(prep, t) for t in range(len(prep.trains))]
    # Most routes are worth too little to be in a plan as good as a quick greedy one: search
    # only those that can be (`worth_keeping`). Should the best plan among them fall short of
    # that floor (the greedy plan broke a plan rule), that plan is a floor that holds, and a
    # second search from it is exact.
    floor = greedy_value(values, res, prep.groups, deadline)
    while True:
        sel = _choose_disjoint(prep, values, res, worth_keeping(values, floor), deadline)
        if sel.value >= floor or floor <= 0 or not sel.optimal:
            break
        floor = sel.value
    # a plan left out is worth less than the floor
    upper = max(sel.upper_bound, floor - 1)
    return replace(sel, value=sel.value // scale, upper_bound=upper // scale)


# The combiners, tried in order: the first that applies chooses the plan.
COMBINERS: tuple[tuple[Callable[[Prepared], bool], Callable[..., Selection]], ...] = (
    (_pays_once, _pay_once),
    (lambda prep: prep.coupled, _cp_sat),
    (lambda prep: True, _additive),
)


def choose(prep: Prepared, *, deadline: float | None = None) -> Selection:
    """Pick one candidate per train, exactly, with the first combiner of `COMBINERS` that
    applies to the plan rules."""
    if not prep.trains:
        return Selection((), 0, True, 0, 0)  # a company without trains runs nothing
    if prep.coupled and prep.span_names:
        raise HexrailError("span bonuses (paid once per round) are not supported together "
                           "with coupled routes", where="rules.profile")
    if prep.coupled and prep.rules.apart_cities:
        raise HexrailError("trains kept off each other's cities are not supported together "
                           "with coupled routes", where="rules.profile")
    if prep.coupled and any(td.node_end_bonus.any() or td.bonus_on_paid or td.paid_station
                            for td in prep.trains):
        # a coupled plan may leave a route's stop unpaid (another route is paid for it), which
        # a route's bonus fixed on its own paid stops does not see
        raise HexrailError("end bonuses and bonuses on paid stops are not supported together "
                           "with coupled routes", where="rules.profile")
    run = next(run for applies, run in COMBINERS if applies(prep))
    if prep.coupled and optional_left_unpaid(prep):
        # a route is paid only for optional stops it can count; the same search with every
        # visited stop payable bounds the best plan, and proves it when the values agree
        sel = run(prep, deadline=deadline)
        bound = run(replace(prep, relax_optional=True), deadline=deadline)
        if bound.value > sel.value:
            sel = replace(sel, optimal=False, upper_bound=max(sel.upper_bound, bound.upper_bound))
        return sel
    if not prep.rules.must_use:
        return run(prep, deadline=deadline)
    if prep.coupled:
        raise HexrailError("items a plan must use (track rights) are not supported together "
                           "with coupled routes", where="rules.profile")
    return _most_used(prep, run, deadline)


def _most_used(prep: Prepared, run: Callable[..., Selection], deadline: float | None) -> Selection:
    """The plan using the most items of `PlanRules.must_use`, then earning most: for each set
    of items, largest first, the best plan whose routes use them all (a combiner's "one route
    must" bits); the first size some plan reaches decides. Plans that use more items than the
    set asks for are found again under the larger set, which was tried first."""
    items = prep.rules.must_use
    proven = True
    upper = 0
    nodes = 0
    for size in range(len(items), -1, -1):
        found: list[Selection] = []
        for subset in combinations(items, size):
            sub = replace(prep, rules=replace(prep.rules, must_use=subset))
            sel = run(sub, deadline=deadline)
            proven &= sel.optimal
            upper = max(upper, sel.upper_bound)
            nodes += sel.nodes
            if size == 0 or any(i >= 0 for i in sel.choice):
                found.append(sel)
        if found:
            best = max(found, key=lambda sel: sel.value)
            return replace(best, optimal=proven, upper_bound=upper if not proven else best.value,
                           nodes=nodes)
    raise AssertionError("the empty set of items is always met")


def _choose_disjoint(prep: Prepared, values: list[np.ndarray], res: list[np.ndarray],
                     counts: list[int], deadline: float | None) -> Selection:
    """The best plan from the first `counts[t]` candidates of each train t (sorted best first)
    whose routes share no resource and meet the plan rules."""
    rules = prep.rules
    stops = [prep.candidates[t].stop_bits(prep.graph_of(t).n_nodes, counts[t])
             for t in range(len(prep.trains))] if rules.intersect else None
    need = required(prep)
    limits = region_limits(prep)
    # Identical trains choose in one order only, each after the one before; where trains may
    # share track, or a route holds nothing another could not hold too (1822's local train at
    # its city alone), two of them may run one route, so each chooses on its own.
    alike = len(set(prep.groups)) < len(prep.groups)
    groups = list(range(len(prep.trains))) if rules.share_track or alike and any(
        (r[:n] == 0).all(axis=1).any() for r, n in zip(res, counts)) else prep.groups
    meet = [meets(prep, t, counts[t]) for t in range(len(prep.trains))] \
        if need or len(limits) else None
    return combine_disjoint([v[:n] for v, n in zip(values, counts)],
                            [r[:n] for r, n in zip(res, counts)], groups, deadline=deadline,
                            meets=meet, required=need, region_limits=limits, stops=stops)


def _visit_bonuses_as_paid(prep: Prepared, routes: list[RoutePlan]) -> list[RoutePlan]:
    """Each `VisitBonus` and `VisitAllBonus` paid as 18xx.games pays it (and the validator
    prices it): to the route earning most from it; on ties the one of the greatest train id
    (`VisitBonus`), the first or the last in plan order (`VisitAllBonus`). The combiner weighs
    which route claims it and may give it to an equal one (or, cut short, to none)."""
    kinds = (VisitBonus, VisitAllBonus)
    own = {td.train.id: {b.name: b for b in td.span_bonuses if isinstance(b, kinds)}
           for td in prep.trains}
    routes = list(routes)
    for name in sorted({n for bs in own.values() for n in bs}):
        earning = {k: own[r.train][name] for k, r in enumerate(routes) if name in own[r.train]}
        if not earning:
            continue

        def amount(k: int) -> int:
            b = earning[k]
            return b.earned(len(routes[k].stops)) if isinstance(b, VisitBonus) else b.earned(routes[k].stops)

        def rank(k: int) -> tuple:
            b = earning[k]
            tie = routes[k].train if isinstance(b, VisitBonus) else (k if b.last_on_ties else -k)
            return amount(k), tie

        winner = max(earning, key=rank)
        for k in earning:
            r = routes[k]
            claimed = sum(a for n, a in r.bonuses if n == name)
            paid = amount(k) if k == winner else 0
            if claimed != paid:
                kept = tuple(b for b in r.bonuses if b[0] != name)
                routes[k] = replace(r, revenue=r.revenue - claimed + paid,
                                    bonuses=kept + (((name, paid),) if paid else ()))
    return routes


def _placed(prep: Prepared, routes: list[RoutePlan]) -> tuple[list[RoutePlan], bool]:
    """The routes of trains whose rows share a kind in a way the walk does not pay exactly
    (`TrainData.by_placing`) paid as their best placing in the rows (`hexrail.search.rows`),
    which may be less than the walk said (or none at all: the train then runs nothing); with
    whether any is. Then the plan is not proven: the walk's worth of it stays the bound."""
    index = {td.train.id: t for t, td in enumerate(prep.trains)}
    out: list[RoutePlan] = []
    repriced = False
    for r in routes:
        td = prep.trains[index[r.train]]
        if not td.by_placing:
            out.append(r)
            continue
        graph = prep.graph_of(index[r.train])
        stops = [graph.node_index[ref] for ref in r.stops]
        said = [graph.node_index[ref] for ref in r.paid]
        found = placed_pay(td.train.spec, stops, td.node_kidx, td.node_cost, td.node_optional,
                           td.node_value, td.node_subsidy, prep.objective == "income")
        if found is None:
            repriced = True  # the stops fit no placing: the route is no route
            continue
        paid, revenue, subsidy = found
        was = int(td.node_value[said].sum()), int(td.node_subsidy[said].sum())
        if (revenue, subsidy) != was or set(paid) != set(said):
            repriced = repriced or (revenue, subsidy) != was
            r = replace(r, paid=tuple(ref for ref, s in zip(r.stops, stops) if s in set(paid)),
                        revenue=r.revenue - was[0] + revenue, subsidy=r.subsidy - was[1] + subsidy)
        out.append(r)
    return out, repriced


# Of a time limit, the share the route walks may use (the rest is for choosing the plan), and
# the share kept after the combiner for describing the plan chosen (at most PLAN_MARGIN s).
ENUMERATE_SHARE = 0.8
PLAN_SHARE, PLAN_MARGIN = 0.02, 0.02


def solve(position: Any, time_limit: float | None = None, *, objective: str = "income",
          choices: bool = False) -> Plan:
    """The best routes for the operating company's trains.

    Parameters
    ----------
    position : Position, dict, JSON text or file path
        A native position or an 18xx.games position export.
    time_limit : float, optional
        Seconds. When it runs out the best plan found so far is returned with
        ``optimal=False`` and an honest ``upper_bound``.
    objective : {"income", "revenue"}
        Maximise revenue + subsidy (default) or revenue alone.
    choices : bool
        Also weigh what the company may still decide before it runs (1846's steamboat hex,
        18USA's upgrades left unattached): the plan is the best over those ways and says in
        ``choices`` which it takes. Off by default: the position as it stands (what
        18xx.games will pay for now).

    Examples
    --------
    >>> from hexrail.examples import example_path
    >>> plan = solve(example_path("demo"))
    >>> plan.optimal
    True
    """
    if choices:
        return _weigh_choices(position, time_limit, objective)
    start = time.perf_counter()
    end = None if time_limit is None else start + time_limit
    # Most positions are proven in milliseconds. One that is not after RELAX_AFTER seconds of
    # search, and whose plans a model of track bounds (`search.relax`), is tried as that
    # model too, beside the search (`ModelBeside`).
    beside = ModelBeside(start, end) if time_limit is None or time_limit > MODEL_LEAST else None
    token = PAUSED.set(beside.paused if beside else None)
    try:
        prep, sel = _search(position, time_limit, objective, start, beside)
    except _Proven as proven:
        return beside.told(proven.plan)
    except BaseException:
        if beside:
            beside.stop()  # (a bad position, an interrupt: the model's process ends too)
        raise
    finally:
        PAUSED.reset(token)
    plan = _plan(prep, sel, start, bound=beside.bound if beside else None)
    if beside is None:
        return plan
    if plan.optimal or not prep.relaxable:
        beside.stop()
        return beside.told(plan)
    return beside.finish(prep, sel)


def _weigh_choices(position: Any, time_limit: float | None, objective: str) -> Plan:
    """The best plan over the ways the company may still set the position up
    (`Profile.choices`), the position as it stands first: each is solved within what is left of
    `time_limit`, shared evenly among those still to solve. The plan is proven where every way's
    is, or where no way's bound exceeds it; on ties the earlier way stays."""
    start = time.perf_counter()
    pos = load_position(position)
    _, profile = ruled(pos)
    ways = (Choice((), pos), *profile.choices(pos))
    best: Plan | None = None
    decisions: tuple = ()
    proven, upper = True, 0
    for k, way in enumerate(ways):
        left = None if time_limit is None else \
            max(time_limit - (time.perf_counter() - start), 0.0) / (len(ways) - k)
        try:
            plan = solve(way.decided(), None if left is None else max(left, 1e-3), objective=objective)
        except HexrailError as err:
            # a way the rules here do not build: no plan weighs it, so none claims the best
            said = "; ".join(f"{name} {option}" for name, option in way.decisions)
            raise HexrailError(f"cannot weigh the choice {said}: {err}", where="choices") from None
        value = plan.value(objective)
        proven &= plan.optimal
        upper = max(upper, value if plan.optimal else plan.upper_bound)
        if best is None or value > best.value(objective):
            best, decisions = plan, way.decisions
    value = best.value(objective)
    optimal = proven or upper <= value
    return replace(best, choices=dict(decisions), optimal=optimal,
                   upper_bound=value if optimal else upper,
                   timings=best.timings | {"total": round(time.perf_counter() - start, 6)},
                   stats=best.stats | {"ways": len(ways)})


RELAX_AFTER = 0.4  # seconds of search after which a position is also tried as a model (`solve`)
RELAX_SHARE = 0.1  # (or this share of a shorter time limit: the model's bound is worth its start)
MODEL_LEAST = 0.5  # seconds a model needs at least (its process loads in about 0.3 s)
# what a model leaves of the time limit: its answer comes back, and its track is walked, in time
MODEL_SHARE, MODEL_MARGIN = 0.1, 0.1
MODEL_ALONE = 5.0  # seconds the search waits for the model once (`ModelBeside.paused`)
relaxed_plan_beside = Apart  # what starts the model's run (a test runs it in its own process)


class _Proven(Exception):
    """The model's track holds a plan worth its bound: the search ends (`ModelBeside.paused`)."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan


class ModelBeside:
    """The model of track (`search.relax`) run beside the search of one `solve`, in a
    process of its own (`relax.Apart`), on the position `prepare` offers (one whose plans it
    bounds). Some positions take the search minutes and the model seconds (18USA's late game),
    others the reverse (long trains on large boards, where the model's bound is loose, or a
    search that ends just after RELAX_AFTER), and neither is known before. So, at the first
    pause of a walk RELAX_AFTER seconds in (RELAX_SHARE of a shorter time limit: a plan cut
    short is far closer to the best, and its bound to the plan, with the model's answer), the
    model starts and the search goes on for as long again (while the model's process loads);
    then the search waits for the model, at most MODEL_ALONE seconds (CP-SAT's workers take
    every core); then both run to the end.
    Neither loses what it has done: a position the search proves in T seconds costs T, or
    T + MODEL_ALONE at most; one the model proves costs what the model takes, plus RELAX_AFTER.

    The model's answer is taken at the walks' next pause: the track of its best plan is walked
    for real, and a plan there worth its bound ends the search (`_Proven`); else the bound
    stays, to bound the search's plan. A search that proves its plan first stops the model.
    """

    def __init__(self, start: float, end: float | None) -> None:
        self.start, self.end = start, end
        self.at = start + (RELAX_AFTER if end is None else
                           min(RELAX_AFTER, RELAX_SHARE * (end - start)))
        self.due: float | None = None  # when the model answers at the latest (its time limit's end)
        self.prep: Prepared | None = None  # the position as offered (its candidates aside)
        self.run: Apart | None = None
        self.began = 0.0
        self.took = 0.0  # seconds from the model's start to its answer (or its end)
        self.bound: int | None = None
        self.plans: list[Plan] = []  # from the model's track
        self.proved = False
        self.answered = False  # (its answer taken)
        self.busy = False  # taking an answer (its walks pause too) or past the search
        self.waited = False  # has the search waited for the model?

    def offer(self, prep: Prepared) -> None:
        self.prep = prep

    def paused(self) -> None:
        """At a walk's pause: start the model, or take its answer."""
        if self.busy:
            return
        now = time.perf_counter()
        if self.run is None:
            if self.prep is not None and now >= self.at and (
                    self.end is None or self.end - now >= MODEL_LEAST):
                self._begin()
        else:
            if not self.waited and now >= self.began + RELAX_AFTER:
                # the search has had as long again, beside the model's start: the model now
                # has the machine to itself for a while (CP-SAT's workers take every core)
                self.waited = True
                self.run.answer(MODEL_ALONE if self.due is None else
                                min(MODEL_ALONE, max(0.0, self.due - now)))
            if self.run.done():
                self.busy = True  # (one answer: the walks below pause too)
                plan = self.take(self.run.answer())
                if plan is not None and plan.optimal:
                    raise _Proven(plan)

    def _running(self) -> list[int]:
        """The trains of the position that run (not idle): the model's, in order."""
        prep = self.prep
        return [t for t, td in enumerate(prep.trains)
                if not prep.profile.may_run(prep.position, td.train)]

    def _begin(self) -> None:
        prep = self.prep
        graph = next(iter(prep.graphs.values()))
        routes = [Route.of(prep.trains[t], _track_view(graph, prep.trains[t].junctions_twice)[-1])
                  for t in self._running()]
        deadline = None if self.end is None else \
            self.end - max(MODEL_SHARE * (self.end - time.perf_counter()), MODEL_MARGIN)
        self.began = time.perf_counter()
        self.due = deadline
        self.run = relaxed_plan_beside(Track.of(graph), routes, deadline)

    def take(self, got: tuple | None) -> Plan | None:
        """The model's answer: its bound kept, and the best plan on its best plan's track,
        walked for real (proven the best where worth the bound)."""
        self.took = time.perf_counter() - self.began
        self.answered = True
        if got is None:
            return None
        bound, found_one, chains = got
        if bound is not None:
            self.bound = bound
        if not found_one:
            return None
        prep = self.prep
        graph = next(iter(prep.graphs.values()))
        until = None if self.end is None else self.end - PLAN_MARGIN  # (the plan's own margin)
        found: dict[int, Candidates] = {}
        for t, run in zip(self._running(), chains):
            walked = enumerate_routes(graph, prep.trains[t], objective=prep.objective,
                                      forbid=track_of(graph, run), deadline=until)
            g = prep.groups[t]
            found[g] = walked if g not in found else found[g].merged(walked, prep.objective)
        words = graph.chain_res.shape[1]
        candidates = [_one_side_each(graph, prep.position, prep.rules,
                                     found.get(g, no_routes(words))) for g in prep.groups]
        walked_prep = replace(prep, candidates=candidates, timings=dict(prep.timings))
        plan = _plan(walked_prep, choose(walked_prep, deadline=until), self.start,
                     bound=self.bound, proven=bound is not None)
        self.plans.append(plan)
        self.proved = plan.optimal
        return plan

    def stop(self) -> None:
        if self.run is not None and not self.run.done():
            self.run.stop()
            self.took = time.perf_counter() - self.began

    def finish(self, prep: Prepared, sel: Selection) -> Plan:
        """The plan of a position the search has not proven (cut short by the time limit or
        its routes' cap): the model's answer, waited for until the time limit (and started
        now, if the search ended before it had), then the best of the plans."""
        self.busy = True
        if self.run is None and (self.end is None or self.end - time.perf_counter() >= MODEL_LEAST):
            self.offer(prep)
            self._begin()
        if self.run is not None and not self.answered:
            # (the answer is due before the end, which leaves its track's walk a margin)
            left = None if self.end is None else max(0.0, self.end - PLAN_MARGIN - time.perf_counter())
            got = self.run.answer(left)
            self.stop()
            if got is not None:
                self.take(got)
        plans = [_plan(prep, sel, self.start, bound=self.bound)] + self.plans
        return self.told(_best(plans, self.start))

    def told(self, plan: Plan) -> Plan:
        """`plan`, saying what the model did."""
        if self.run is None:
            return plan
        return replace(plan, timings=plan.timings | {"model": round(self.took, 6)},
                       stats=plan.stats | {"model": {"bound": self.bound, "proved": self.proved}})


def _search(position: Any, time_limit: float | None, objective: str, start: float,
            beside: ModelBeside | None = None) -> tuple[Prepared, Selection]:
    """The walks and the combiner, within `time_limit` seconds from `start`, the model of
    track `beside` them where it may bound the plan."""
    deadline = None if time_limit is None else \
        start + time_limit - min(PLAN_SHARE * time_limit, PLAN_MARGIN)
    # The walk stops early enough to leave the rest of the call (sorting what it found, the
    # plan rules' tables over the candidates, the combiner) a share of the limit.
    walk_deadline = None if time_limit is None else start + ENUMERATE_SHARE * time_limit
    prep = prepare(position, objective=objective, deadline=walk_deadline, narrow=True,
                   beside=beside)
    t2 = time.perf_counter()
    sel = choose(prep, deadline=deadline)
    prep.timings["combine"] = time.perf_counter() - t2
    if prep.floor is not None and sel.optimal and sel.value < prep.floor:
        # The greedy plan broke a plan rule (e.g. the home route): the best plan found is a
        # floor that holds, and the routes that can beat it are all there in a second pass.
        timings = prep.timings
        prep = prepare(position, objective=objective, deadline=walk_deadline, narrow=True,
                       floor=sel.value, beside=beside)
        t3 = time.perf_counter()
        sel = choose(prep, deadline=deadline)
        prep.timings["combine"] = timings["combine"] + time.perf_counter() - t3
        prep.timings["enumerate"] += timings["enumerate"]
    return prep, sel


def _best(plans: list[Plan], start: float) -> Plan:
    """The worthiest of `plans` (found for one position), bounded by the least of their
    bounds."""
    worth = [p.total if p.objective == "income" else p.revenue for p in plans]
    best = plans[int(np.argmax(worth))]
    upper = max(min(p.upper_bound for p in plans), max(worth))
    return replace(best, optimal=max(worth) >= upper, upper_bound=upper,
                   timings=best.timings | {"total": round(time.perf_counter() - start, 6)})


def _plan(prep: Prepared, sel: Selection, start: float, bound: int | None = None,
          proven: bool = False) -> Plan:
    """The answer: the selection's routes, priced, with the bound. `bound`: a bound on every
    legal plan known beside the search's (`ModelBeside.take`); with `proven`, the only one (the
    candidates are the model's track alone)."""
    objective = prep.objective
    routes = []
    for t in sel.order or range(len(sel.choice)):
        i = sel.choice[t]
        if i < 0:
            continue
        # coupled combiners (stops paying once) say what each chosen route is paid
        kw = (sel.routes[t] if sel.routes else None) or {}
        routes.append(plan_route(prep, t, i, **kw))
    routes = _visit_bonuses_as_paid(prep, routes)
    routes, repriced = _placed(prep, routes)
    revenue, subsidy = sum(r.revenue for r in routes), sum(r.subsidy for r in routes)
    sets = tuple(RouteSet(tuple(prep.trains[t].train.id for t in trains),
                          tuple(prep.graphs[next(iter(prep.graphs))].node_ref[e] for e in ends), bonus)
                 for trains, ends, bonus in sel.sets)
    upper = sel.upper_bound if prep.complete else max(sel.upper_bound, loose_bound(prep))
    if prep.floor is not None:
        upper = max(upper, prep.floor - 1)  # a plan left out is worth less than the floor
    if proven:
        upper = bound  # (the candidates are the model's track only: its bound holds for all)
    elif bound is not None:
        upper = min(upper, bound)
    value = revenue + subsidy if objective == "income" else revenue
    # a plan that reaches the bound is proven best, however the search was cut short
    optimal = (sel.optimal and prep.complete and not repriced and not proven) or value >= upper
    prep.timings["total"] = time.perf_counter() - start
    stats = {"candidates": {td.train.id: len(c) for td, c in zip(prep.trains, prep.candidates)},
             "combine_nodes": sel.nodes, "vertices": prep.graphs[next(iter(prep.graphs))].n_vertices
             if prep.graphs else 0}
    facts = prep.profile.facts(prep.position)
    if facts:
        stats["facts"] = facts
    used = 0
    for t, i in enumerate(sel.choice if prep.rules.must_use else ()):
        if i >= 0:
            used |= int(meets(prep, t, i + 1)[i])
    unused = tuple(item for k, item in enumerate(prep.rules.must_use)
                   if not used & (MUST_USE << k))
    return Plan(
        routes=tuple(routes), revenue=revenue, subsidy=subsidy, optimal=optimal,
        upper_bound=max(upper, value) if not optimal else value, objective=objective,
        profile=prep.position.rules.profile, company=prep.position.company,
        position=prep.position, sets=sets, unused=unused,
        timings={k: round(v, 6) for k, v in prep.timings.items()},
        stats=stats,
    )
