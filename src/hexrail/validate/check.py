"""The whole plan paid (stops paying once, sets, hex subsidies) and the entry points `check_plan` and `validate`."""

from __future__ import annotations

import itertools
from collections.abc import Hashable
from typing import Any

from hexrail.errors import HexrailError
from hexrail.io.native import load_position
from hexrail.model.position import Train
from hexrail.plan import Plan, RouteSet, plan_from_json
from hexrail.rules.base import decided, ruled
from hexrail.validate.board import _Board, _parse_node_ref
from hexrail.validate.pay import _best_pay, _bonuses, _declared_pay, _Pay, _stop_info
from hexrail.validate.plan import (_apart_city_errors, _bypass_errors, _connection_errors, _exclusive_side_errors, _home_errors, _intersect_errors, _region_errors, _shared_track_errors, _trace_routes)
from hexrail.validate.refs import OBJECTIVES, NodeRef, _node_str, _path_str
from hexrail.validate.report import PlanReport, RouteReport
from hexrail.validate.route import _cyclic_pay, _Route
from hexrail.validate.sets import _hex_subsidies, _route_sets, _span_bonuses
from hexrail.validate.walk import _passed_unpaid, _stops


def _location(board: _Board, ref: NodeRef) -> Hashable:
    """Where a stop pays once (with `PlanRules.stops_pay_once`): its first group (all the hexes
    of one offboard area are one location), else the stop itself."""
    groups = board.node(ref).groups
    return ("group", groups[0]) if groups else ref


def _pay_of(board: _Board, train: Train, paid: frozenset[NodeRef]) -> _Pay:
    """What a route earns when paid for exactly `paid`."""
    stops = [_stop_info(board, train, ref) for ref in paid]
    revenue = sum(s.value for s in stops)
    subsidy = sum(s.subsidy for s in stops)
    score = revenue + subsidy if board.objective == "income" else revenue
    return _Pay(frozenset(paid), revenue, subsidy, (score, revenue))


def _set_pay(board: _Board, train: Train, refs: list[NodeRef],
             unpayable: frozenset[NodeRef] = frozenset()) -> _Pay:
    """A set route is paid for each of `refs` (its set's ends among its own) not in `unpayable`;
    its other stops pay nothing."""
    return _pay_of(board, train, frozenset(r for r in refs if r not in unpayable))


def _settle_declared(board: _Board, routes: list[_Route],
                     payable: dict[int, list[NodeRef]]) -> dict[int, _Pay]:
    """Each legal route paid for the stops its plan declares; a declared choice the train
    cannot be paid for makes the route illegal. A set route is paid for its set's ends among
    its own ends, whatever it declares (18xx.games derives them from the sets)."""
    pays: dict[int, _Pay] = {}
    for i, route in enumerate(routes):
        if not route.legal:
            continue
        stops = _stops(board, route.walk)
        declared = []
        for text in route.plan.paid:
            ref, error = _parse_node_ref(board, text)
            if ref is None or ref not in stops:
                route.errors.append(error or f"paid stop {text} is not a stop of the route")
            declared.append(ref)
        if not route.legal:
            continue
        if i in payable:
            pays[i] = _set_pay(board, route.train, payable[i])
            continue
        passed = _passed_unpaid(board, route.train, route.walk)
        pay = None if passed & set(declared) else _declared_pay(board, route.train, stops,
                                                                frozenset(declared))
        if pay is None:
            route.errors.append(f"the train cannot be paid for exactly {', '.join(route.plan.paid)}")
            continue
        pays[i] = pay
    return pays


def _settle_pay(board: _Board, routes: list[_Route],
                payable: dict[int, list[NodeRef]]) -> dict[int, _Pay]:
    """Each legal route's best pay. When a location pays once across all routes, try every way
    of giving each shared location to one of the routes that may be paid for it, and keep the
    best total (so best-of trains choose their paid stops jointly). A set route may be paid only
    for the stops in `payable`.

    When the plan says which stops each route is paid for, that choice is checked; it is what
    the routes earn unless locations pay once. Then the rules, not the plan, choose every
    route's paid stops, jointly (18xx.games recomputes them from the routes and pays a stop
    listed by two routes once), so the lists are only checked and the best choice is paid.
    """
    legal = [i for i, r in enumerate(routes) if r.legal]
    if any(routes[i].plan.paid for i in legal) and all(routes[i].plan.paid or i in payable
                                                       for i in legal):
        pays = _settle_declared(board, routes, payable)
        if not board.rules.stops_pay_once:
            return pays
        legal = [i for i in legal if routes[i].legal]
    stops = {i: _stops(board, routes[i].walk) for i in legal}
    candidates = {i: payable.get(i, stops[i]) for i in legal}
    passed = {i: _passed_unpaid(board, routes[i].train, routes[i].walk) for i in legal}
    where = {ref: _location(board, ref) for i in legal for ref in candidates[i]}
    shared: dict[Hashable, list[int]] = {}
    if board.rules.stops_pay_once:
        for i in legal:
            for ref in candidates[i]:
                shared.setdefault(where[ref], []).append(i)
        shared = {loc: owners for loc, owners in shared.items() if len(owners) > 1}
    best: dict[int, _Pay] | None = None
    best_score = None
    cache: dict[tuple[int, frozenset[NodeRef]], _Pay | None] = {}
    for owners in itertools.product(*shared.values()):
        given = dict(zip(shared, owners))
        pays = {}
        for i in legal:
            unpayable = passed[i] | frozenset(ref for ref in candidates[i]
                                              if given.get(where[ref], i) != i)
            if (i, unpayable) not in cache:
                train = routes[i].train
                cache[i, unpayable] = (_set_pay(board, train, candidates[i], unpayable)
                                       if i in payable else
                                       _best_pay(board, train, stops[i], unpayable))
            pays[i] = cache[i, unpayable]
        score = tuple(map(sum, zip(*(p.score for p in pays.values())))) or (0, 0)
        if best_score is None or score > best_score:
            best, best_score = pays, score
    return best or {}


def _report(board: _Board, route: _Route, pay: _Pay | None, hex_subsidy: int = 0,
            set_bonus: int = 0, span: tuple[tuple[str, int], ...] = ()) -> RouteReport:
    walk = route.walk
    if walk is None:
        return RouteReport(route.plan.train, tuple(route.errors))
    stops = _stops(board, walk)
    common = dict(
        stops=tuple(_node_str(s) for s in stops), hexes=walk.hexes, crossings=len(walk.lanes),
        paths=tuple(_path_str(p) for p in walk.paths),
    )
    if pay is None:
        return RouteReport(route.plan.train, tuple(route.errors), **common)
    bonuses = _bonuses(board, route.train, stops, pay.paid, tuple(p[0] for p in walk.paths))
    if set_bonus:
        bonuses += (("set", set_bonus),)
    bonuses += span
    return RouteReport(
        route.plan.train, (), paid=tuple(_node_str(s) for s in stops if s in pay.paid),
        revenue=pay.revenue + sum(a for _, a in bonuses), subsidy=pay.subsidy + hex_subsidy,
        bonuses=bonuses, **common,
    )


def check_plan(position: Any, plan: Plan | dict, *, objective: str = "income") -> PlanReport:
    """Check every route of `plan` and the rules that couple them; recompute what each earns.

    Parameters
    ----------
    position : Position, dict, JSON text or file path
        Anything `hexrail.io.native.load_position` accepts.
    plan : Plan or dict
        A solved plan, or a plan document (`hexrail.plan.plan_from_json`); a route gives its
        track (``paths``) or only its stops, whose track is then found. Plan order matters
        where the rules say "earlier route" (hex subsidies) and to how sets form.
    objective : {"income", "revenue"}
        Which paid stops a route chooses: best revenue + subsidy (default) or revenue alone.

    Returns
    -------
    PlanReport
        ``legal`` is true when no rule is broken; messages name the hex, node or track at fault.
    """
    if objective not in OBJECTIVES:
        raise HexrailError(f"objective must be one of {OBJECTIVES}, not {objective!r}",
                           where="objective")
    pos = load_position(position)
    claimed: dict[str, Any] = {}
    if not isinstance(plan, Plan):
        claimed = _claims(plan, objective)
        plan = plan_from_json(plan)
    # (a plan made weighing the company's choices runs on the position they set up)
    pos, profile = ruled(decided(pos, plan.choices or {}))
    board = _Board(pos, profile, profile.plan_rules(pos), objective)
    routes = _trace_routes(board, plan)
    errors = (_shared_track_errors(board, routes) + _exclusive_side_errors(board, routes)
              + _apart_city_errors(board, routes)
              + _bypass_errors(board, routes)
              + _home_errors(board, routes) + _intersect_errors(board, routes)
              + _connection_errors(board, routes) + _region_errors(board, routes))
    sets, set_errors, payable = _route_sets(board, routes)
    errors += set_errors
    cyclic = {i: r for i, r in enumerate(routes) if r.legal and r.cyclic}
    for i, route in cyclic.items():  # priced below; kept out of the ordinary pay rules
        payable[i] = list(dict.fromkeys(route.cyclic))
    pays = _settle_pay(board, routes, payable)
    for i, route in cyclic.items():
        pays[i] = _cyclic_pay(board, route.train, route.cyclic)
    hex_subsidy = _hex_subsidies(board, routes)
    set_bonus = {s.members[0]: s.bonus for s in sets}
    span, span_subsidy = _span_bonuses(board, routes)
    reports = tuple(_report(board, r, pays.get(i), hex_subsidy.get(i, 0) + span_subsidy.get(i, 0),
                            set_bonus.get(i, 0), span.get(i, ())) for i, r in enumerate(routes))
    route_sets = tuple(RouteSet(tuple(routes[i].plan.train for i in s.members),
                                (_node_str(s.ends[0]), _node_str(s.ends[-1])), s.bonus)
                       for s in sets)
    revenue, subsidy = sum(r.revenue for r in reports), sum(r.subsidy for r in reports)
    if not errors and all(r.legal for r in reports):  # illegal routes earn nothing: no claim holds
        errors += _claim_errors(claimed, {"revenue": revenue, "subsidy": subsidy, "total": revenue + subsidy})
    return PlanReport(reports, tuple(errors), revenue=revenue, subsidy=subsidy, sets=route_sets,
                      unused=_unused(board, routes))


def _claims(doc: Any, objective: str) -> dict[str, Any]:
    """The totals a plan document states. Only a document can claim: a `Plan` cannot tell 0
    from unstated. None for a plan made for another objective, whose paid stops may differ."""
    if not isinstance(doc, dict) or doc.get("objective", objective) != objective:
        return {}
    return {key: doc[key] for key in ("revenue", "subsidy", "total") if key in doc}


def _claim_errors(claimed: dict[str, Any], recomputed: dict[str, int]) -> list[str]:
    """A plan document's stated totals that differ from what its routes earn.

    >>> _claim_errors({"revenue": 500, "total": 480}, {"revenue": 480, "subsidy": 0, "total": 480})
    ['the plan claims revenue 500, its routes earn 480']
    """
    return [f"the plan claims {key} {claimed[key]}, its routes earn {recomputed[key]}"
            for key in ("revenue", "subsidy", "total")
            if key in claimed and claimed[key] != recomputed[key]]


def _unused(board: _Board, routes: list[_Route]) -> tuple[str, ...]:
    """The items the plan must use (`PlanRules.must_use`, 1831's track rights) that no legal
    route uses: none of its stops (a cyclic run's visits) names it in `StopRule.uses`. Whether
    some other plan could use them all is not the validator's to say; the plan reports them."""
    items = board.rules.must_use
    if not items:
        return ()
    used: set[str] = set()
    for route in routes:
        if route.legal and route.walk is not None:
            stops = route.cyclic or _stops(board, route.walk)
            for ref in stops:
                used.update(board.rule(route.train, ref).uses)
    return tuple(item for item in items if item not in used)


def validate(position: Any, plan: Plan | dict, *, objective: str = "income") -> PlanReport:
    """Check a plan against the rules (the public name of `check_plan`)."""
    return check_plan(position, plan, objective=objective)
