"""The slow, obviously correct twin of the solver: brute force over every route and plan.

`reference_solve` answers the same question as `hexrail.solve` on small boards, written
independently of the fast path (no track graph, no chains, no numba, no combiner): it reads the
`Position` and asks the rules profile's hooks directly, exactly as docs/rules.md (generic) states
the rules.

1. **Routes.** For each train, a depth-first walk over *tile paths* from every stop a route may
   end at. A path end at hex side ``e`` lane ``(w, i)`` continues into
   ``position.neighbour(hex, e)`` at side ``(e + 3) % 6`` lane ``(w, w - 1 - i)``; two paths of
   one hex meeting at a side do not connect; at a node (stop or junction) any of its paths may
   follow. The walk never reuses a path, a hexside lane or a node; it passes through no node
   that blocks (a full city may be passed by spending a bypass), never through a node by a
   terminal path, at most one stop per group, never back into a hex it may not re-enter, and no
   further than a hex train's crossings allow. Every simple walk that starts and ends at stops,
   visits an anchor (if the train needs a token), enough stops, whose mandatory stops fit
   the train's rows (each using the profile.s `StopRule.cost` units) and whose stops' tallies lie
   within the train's `tally_limits` is a route. A route is its set of paths (a walk and its
   reverse are one). Runs over the train's cyclic patterns (`Profile.cyclic_runs`) are routes
   too: leg after leg over paths no earlier leg used (`_cyclic_routes`), every visit paid.
2. **Scores.** For each route, every choice of counted optional stops and every assignment of the
   counted stops to rows (within each row's visit units); each row pays its best ``row.pay``
   stops, a paid stop earning its value and its subsidy. The best
   choice for the objective (revenue + subsidy, or revenue; ties to more revenue) wins; bonuses
   (from every visited stop's hex tags) are added to the revenue.
3. **Plan.** Every assignment of one route (or none) per train with no shared path or hexside
   lane (unless the plan rules share track), no more bypasses than they allow, and, if they say
   so, a route through the home and routes that meet at stops (docs/rules.md (generic)); the best total
   wins (ties to more revenue). A train the profile bars (`Profile.may_run`) has no routes.
   The search prunes with ``value so far + best route of each remaining train`` (a valid bound)
   and nothing else.
4. **Coupled plans.** When the routes' pay depends on each other — a location (a stop, or all
   stops of one group) pays once across the routes, trains earn a subsidy per hex that pays once
   (`Profile.hex_subsidy`), trains join into sets end to end (`Profile.set_role`), or a bonus
   pays once per round (`Profile.span_bonuses`) — every
   plan is priced as a whole instead of adding up its routes:

   - sets are built from the set trains' routes exactly as 18xx.games builds them
     (`hexrail.validate.build_sets`, `set_ends`); where that depends on the routes' order and
     direction (three route ends at one stop, or a loop), every order and direction is tried, as
     a player may list the routes either way. Plans breaking the rules on temporary set trains
     are out. A set route is paid only for the set's ends among its own ends; the set's first
     route earns `Profile.set_bonus` of its two ends;
   - with stops paying once, every way of giving each shared location to one of the routes that
     may be paid for it is tried, each route then paying its best among the rest;
   - hexes pay their subsidy to one route each, the one with the highest rate (listing routes
     by falling rate is a legal plan order, and no order pays more);
   - span bonuses (`Profile.span_bonuses`, e.g. bonus routes from home to a bonus station)
     pay once per plan: each goes to the chosen route that earns most from it, every route
     having computed it from its own walk (the lanes crossed between the bonus's two stops).

   Set trains are chosen first, unpruned. Once they are, what their sets can earn at most
   (every payable stop paid, the bonuses) plus, for the other routes, their values alone (each
   route's best pay plus its subsidy for every hex it passes) bound the plan: no sharing can
   exceed them.

It is exponential on purpose; `max_routes` stops it on boards that are too big for it.

>>> from hexrail.examples import example_path
>>> from hexrail.io.native import load_position
>>> result = reference_solve(load_position(example_path("demo")))
>>> result.value == result.revenue + result.subsidy
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field, replace
from functools import cache
from itertools import permutations, product
from typing import Any

from hexrail.errors import HexrailError
from hexrail.io.native import load_position
from hexrail.model.position import Hex, Position, Train
from hexrail.model.tile import Node, Path
from hexrail.model.trains import UNLIMITED
from hexrail.rules import ruled
from hexrail.rules.base import (BYPASS, FIRST, MANDATORY, OPTIONAL, PASSABLE, SET_NONE, SET_TEMPORARY,
                                PlanRules, Profile)
from hexrail.validate import build_sets, set_ends

OBJECTIVES = ("income", "revenue")

NodeKey = tuple[str, int]  # (hex id, node index)
PathKey = tuple[str, int]  # (hex id, index in the tile's path list)
LaneKey = frozenset  # {(hex, side, width, lane), (neighbour, side, width, lane)}


@dataclass(frozen=True)
class ReferenceRoute:
    """One legal route of one train, with its best scoring.

    ``paths`` are track refs in walk order (``"E5:2"``), ``stops`` the stops in walk order
    (``"E5-0"``), ``counted`` the stops that use the train's distance, ``paid`` those paid.
    """

    train: str
    paths: tuple[str, ...]
    stops: tuple[str, ...]
    counted: tuple[str, ...]
    paid: tuple[str, ...]
    revenue: int  # paid stops plus bonuses
    subsidy: int
    bonus: int
    bypass: int  # blocked cities passed through
    crossings: int  # hexside crossings
    track: frozenset = field(repr=False, default=frozenset())  # paths and hexside lanes used
    nodes: tuple[str, ...] = field(repr=False, default=())  # every node passed, stops included
    # Span bonuses the route could earn, (name, amount): each pays once per plan, to one route
    # (`_price_plan` gives it to the chosen route earning most from it).
    span: tuple[tuple[str, int], ...] = ()

    def value(self, objective: str = "income") -> int:
        return self.revenue + self.subsidy if objective == "income" else self.revenue


@dataclass(frozen=True)
class ReferenceResult:
    """The best plan by brute force: ``value`` is what the objective maximises."""

    value: int
    revenue: int
    subsidy: int
    # One per running train, in train order; where the sets depend on the routes' order and
    # direction (a loop, or three route ends at one stop), in an order and direction that earn
    # the value (as `hexrail.validate.check_plan` scores a plan in its order).
    routes: tuple[ReferenceRoute, ...]
    candidates: dict  # train id → number of legal routes
    objective: str = "income"
    # Sets of routes joined end to end: (train ids, (end, end), bonus), as `hexrail.plan.RouteSet`.
    sets: tuple[tuple[tuple[str, ...], tuple[str, str], int], ...] = ()

    @property
    def total(self) -> int:
        return self.revenue + self.subsidy

    def route(self, train: str) -> ReferenceRoute | None:
        return next((r for r in self.routes if r.train == train), None)


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
        return _solve_coupled(pos, profile, rules, per_train, objective, home, candidates)
    choice = _best_combination(per_train, objective, rules.share_track, rules.max_bypass,
                               home, rules.intersect)
    chosen = tuple(per_train[t][i] for t, i in enumerate(choice) if i >= 0)
    revenue = sum(r.revenue for r in chosen)
    subsidy = sum(r.subsidy for r in chosen)
    return ReferenceResult(
        value=revenue + subsidy if objective == "income" else revenue,
        revenue=revenue, subsidy=subsidy, routes=chosen,
        candidates={t.id: len(rs) for t, rs in zip(pos.trains, per_train)}, objective=objective)


# -- routes of one train ---------------------------------------------------------------------

def _gauge_ok(path: Path, gauge: str) -> bool:
    return path.track == gauge or (path.track == "dual" and gauge in ("broad", "narrow"))


class _Board:
    """Per train: which paths meet at each node and at each hex side lane, and the hooks' answers."""

    def __init__(self, pos: Position, profile: Profile, train: Train):
        self.pos = pos
        self.train = train
        gauge = train.spec.track
        self.at_node: dict[NodeKey, list[tuple[PathKey, int]]] = {}
        self.at_side: dict[tuple[str, int, tuple[int, int]], list[tuple[PathKey, int]]] = {}
        self.path: dict[PathKey, Path] = {}
        self.node: dict[NodeKey, Node] = {}
        self.hex: dict[str, Hex] = {}
        for h in pos.hexes:
            self.hex[h.id] = h
            for n in h.tile.nodes:
                self.node[(h.id, n.index)] = n
            for k, p in enumerate(h.tile.paths):
                if p.ignore or not _gauge_ok(p, gauge):
                    continue
                self.path[(h.id, k)] = p
                for end_no, end in enumerate(p.ends):
                    if end.is_edge:
                        self.at_side.setdefault((h.id, end.edge, end.lane), []).append(((h.id, k), end_no))
                    else:
                        self.at_node.setdefault((h.id, end.node), []).append(((h.id, k), end_no))
        # The profile's record of each node for this train, asked once per node.
        rule = {key: profile.stop_rule(pos, train, self.hex[key[0]], n) for key, n in self.node.items()}
        self.rule = rule
        self.is_stop = {key: n.is_stop for key, n in self.node.items()}
        self.blocks = {key: rule[key].block != PASSABLE for key in self.node}
        self.can_end = {key: n.is_stop and rule[key].may_end for key, n in self.node.items()}
        self.end_class = {key: rule[key].end_class for key in self.node}
        self.anchor = {key: rule[key].anchor for key in self.node}
        stops = [key for key, n in self.node.items() if n.is_stop]
        self.count = {key: rule[key].count for key in stops}
        self.optional = {key: rule[key].count != MANDATORY for key in stops}
        self.value = {key: rule[key].value for key in stops}
        self.cost = {key: rule[key].cost for key in stops}
        self.tallies = {key: rule[key].tallies for key in stops}
        self.subsidy = {key: rule[key].subsidy for key in stops}
        self.tally_limits = profile.tally_limits(pos, train)
        self.no_reentry = {h.id for h in pos.hexes if profile.reentry_forbidden(pos, h)}
        self.tags = {h.id: tuple(profile.hex_tags(pos, train, h)) for h in pos.hexes}
        self.bonuses = profile.bonuses(pos, train)
        self.span_bonuses = profile.span_bonuses(pos, train)

    def soft_block(self, key: NodeKey) -> bool:
        """Blocked, but a bypass lets a train through (a city or pass full of other tokens)."""
        return self.rule[key].block == BYPASS


@dataclass
class _Walk:
    """The mutable state of the depth-first walk (everything is undone on the way back)."""

    start: NodeKey
    paths: list[PathKey] = field(default_factory=list)
    lanes: list[LaneKey] = field(default_factory=list)
    nodes: list[NodeKey] = field(default_factory=list)
    stops: list[NodeKey] = field(default_factory=list)
    hex_runs: list[str] = field(default_factory=list)  # hexes of the paths, runs collapsed
    bypass: int = 0
    node_lanes: list[int] = field(default_factory=list)  # per node: hexside lanes crossed before


def reference_routes(position: Any, train: Train | str, *, objective: str = "income",
                     max_routes: int = 200_000, profile: Profile | None = None) -> list[ReferenceRoute]:
    """Every legal route of one train (by id or object), each with its best scoring."""
    pos, own_profile = ruled(load_position(position))
    train_id = train if isinstance(train, str) else train.id
    train = next((t for t in pos.trains if t.id == train_id), None)
    if train is None:
        raise HexrailError("no such train", where=f"train {train_id!r}")
    profile = profile or own_profile
    if profile.may_run(pos, train):
        return []  # e.g. no permit for its kind: the train stays idle
    rules = profile.plan_rules(pos)
    board = _Board(pos, profile, train)
    spec = train.spec
    fits = _fit_checker(spec)
    by_key: dict[frozenset, ReferenceRoute] = {}

    for start in sorted(board.node):
        if not board.can_end[start]:
            continue
        for walk in _walks(board, start, rules.max_bypass, spec.hexes, fits):
            key = frozenset(walk.paths) if walk.paths else frozenset({("stop", start)})
            if key in by_key:
                continue
            if len(walk.stops) < spec.min_stops:
                continue
            if spec.requires_token and not any(board.anchor[n] for n in walk.nodes):
                continue
            if not _tallies_ok(board, walk.stops):
                continue
            route = _score_route(board, walk, objective)
            if route is None:
                continue
            by_key[key] = route
            if len(by_key) > max_routes:
                raise HexrailError(f"more than {max_routes} routes: the board is too big for the "
                                   "reference solver", where=f"train {train.id}")
    for route in _cyclic_routes(board, profile.cyclic_runs(pos, train)):
        by_key.setdefault(("cyclic", route.stops, route.track), route)
    return list(by_key.values())


def _cyclic_routes(board: _Board, runs) -> Iterator[ReferenceRoute]:
    """Every run over the train's cyclic patterns (`Profile.cyclic_runs`), 2 to ``max_visits``
    visits: leg after leg, each a walk over tile paths from one visit to the next that uses no
    path or hex-side lane of the run twice, no node twice within the leg, and passes through no
    blocking node, no terminal path and no stop where the train may end. Every visit pays its
    stop value."""
    for run in runs:
        cycle = [_key(ref) for ref in run.cycle]
        if any(key not in board.node for key in cycle):
            continue
        for start in run.starts:
            visits = [cycle[start]]
            used_paths: list[PathKey] = []
            used_lanes: list[LaneKey] = []
            nodes: list[NodeKey] = [cycle[start]]
            yield from _extend_run(board, run, start, cycle, visits, used_paths, used_lanes, nodes)


def _extend_run(board: _Board, run, start: int, cycle: list[NodeKey], visits: list[NodeKey],
                paths: list[PathKey], lanes: list, nodes: list[NodeKey]) -> Iterator[ReferenceRoute]:
    if len(visits) >= 2:
        revenue = sum(board.value[v] for v in visits)
        yield ReferenceRoute(
            train=board.train.id, paths=tuple(f"{h}:{k}" for h, k in paths),
            stops=tuple(_ref(v) for v in visits), counted=tuple(_ref(v) for v in visits),
            paid=tuple(_ref(v) for v in visits), revenue=revenue, subsidy=0, bonus=0, bypass=0,
            crossings=len(lanes), track=frozenset(paths) | frozenset(lanes),
            nodes=tuple(_ref(n) for n in nodes))
    if len(visits) >= run.max_visits:
        return
    target = cycle[(start + len(visits)) % len(cycle)]
    for leg_paths, leg_lanes, leg_nodes in _legs(board, visits[-1], target, set(paths), set(lanes)):
        visits.append(target)
        yield from _extend_run(board, run, start, cycle, visits, paths + leg_paths,
                               lanes + leg_lanes, nodes + leg_nodes)
        visits.pop()


def _legs(board: _Board, a: NodeKey, b: NodeKey, used_paths: set, used_lanes: set):
    """Every leg of a cyclic run from node a to node b over unused track: (paths, lanes, nodes
    after a)."""
    leg_paths: list[PathKey] = []
    leg_lanes: list = []
    leg_nodes: list[NodeKey] = []

    def from_node(v: NodeKey, arrived: Path | None):
        for pkey, end_no in board.at_node.get(v, ()):
            if pkey in used_paths or pkey in leg_paths:
                continue
            if arrived is not None and (arrived.terminal or board.path[pkey].terminal):
                continue
            yield from run_path(pkey, 1 - end_no)

    def run_path(pkey: PathKey, out_end: int):
        leg_paths.append(pkey)
        path = board.path[pkey]
        end = path.ends[out_end]
        hex_id = pkey[0]
        if not end.is_edge:
            u = (hex_id, end.node)
            if u == b:
                yield list(leg_paths), list(leg_lanes), leg_nodes + [u]
            elif u != a and u not in leg_nodes and not board.blocks[u] and not board.can_end[u]:
                leg_nodes.append(u)
                yield from from_node(u, path)
                leg_nodes.pop()
        else:
            nb = board.pos.neighbour(hex_id, end.edge)
            if nb is not None:
                width, lane = end.lane
                side, there = (end.edge + 3) % 6, (width, width - 1 - lane)
                key = frozenset({(hex_id, end.edge, width, lane), (nb, side, width, there[1])})
                if key not in used_lanes and key not in leg_lanes:
                    leg_lanes.append(key)
                    for qkey, q_end in board.at_side.get((nb, side, there), ()):
                        if qkey not in used_paths and qkey not in leg_paths:
                            yield from run_path(qkey, 1 - q_end)
                    leg_lanes.pop()
        leg_paths.pop()

    yield from from_node(a, None)


def _tallies_ok(board: _Board, stops: list[NodeKey]) -> bool:
    """Do the stops' tallies (`StopRule.tallies`) lie within the train's tally limits?"""
    if not board.tally_limits:
        return True
    counts: Counter = Counter()
    for s in stops:
        for name, count in board.tallies[s]:
            counts[name] += count
    return all(lo <= counts[name] <= hi for name, lo, hi in board.tally_limits)


def _walks(board: _Board, start: NodeKey, max_bypass: int, hex_limit: int,
           fits: Any) -> Iterator[_Walk]:
    """Every simple walk from `start` that ends at a stop where a route may end (a snapshot
    of the state is yielded, so callers may keep it)."""
    walk = _Walk(start=start)
    walk.nodes.append(start)
    walk.node_lanes.append(0)
    walk.stops.append(start)
    walk.hex_runs.append(start[0])
    if not fits(_mandatory(board, walk.stops)):
        return
    groups = set(board.node[start].groups)
    yield _snapshot(walk)  # the one-stop route, if the train allows it (min_stops decides)
    yield from _leave_node(board, walk, start, None, groups, max_bypass, hex_limit, fits)


def _snapshot(walk: _Walk) -> _Walk:
    return _Walk(walk.start, list(walk.paths), list(walk.lanes), list(walk.nodes), list(walk.stops),
                 list(walk.hex_runs), walk.bypass, list(walk.node_lanes))


def _mandatory(board: _Board, stops: list[NodeKey]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted((board.node[s].kind, board.cost[s])
                        for s in stops if not board.optional[s]))


def _leave_node(board: _Board, walk: _Walk, v: NodeKey, arrived: Path | None, groups: set,
                max_bypass: int, hex_limit: int, fits: Any) -> Iterator[_Walk]:
    """Continue the walk from node `v` (reached by path `arrived`, None at the start)."""
    spend = 0
    if arrived is not None:
        # v becomes a node the route passes through.
        if arrived.terminal:
            return
        if board.blocks[v]:
            if not board.soft_block(v) or walk.bypass >= max_bypass:
                return
            spend = 1
    walk.bypass += spend
    for pkey, end_no in board.at_node.get(v, ()):
        if pkey in walk.paths:
            continue
        path = board.path[pkey]
        if arrived is not None and path.terminal:
            continue  # passing through v by a terminal path
        yield from _run_path(board, walk, pkey, 1 - end_no, groups, max_bypass, hex_limit, fits)
    walk.bypass -= spend


def _enter_hex(walk: _Walk, board: _Board, hex_id: str) -> bool:
    """Add a path of `hex_id` to the walk's hex runs; False if that re-enters a hex illegally."""
    if walk.hex_runs[-1] == hex_id:
        walk.hex_runs.append(hex_id)
        return True
    if hex_id in board.no_reentry and hex_id in walk.hex_runs:
        return False
    walk.hex_runs.append(hex_id)
    return True


def _run_path(board: _Board, walk: _Walk, pkey: PathKey, out_end: int, groups: set,
              max_bypass: int, hex_limit: int, fits: Any) -> Iterator[_Walk]:
    """Take path `pkey` (not yet used) and follow it out of its end `out_end`."""
    hex_id = pkey[0]
    if not _enter_hex(walk, board, hex_id):
        return
    walk.paths.append(pkey)
    path = board.path[pkey]
    end = path.ends[out_end]
    if not end.is_edge:
        u = (hex_id, end.node)
        yield from _arrive_node(board, walk, u, path, groups, max_bypass, hex_limit, fits)
    else:
        nb = board.pos.neighbour(hex_id, end.edge)
        if nb is not None and (hex_limit <= 0 or len(walk.lanes) < hex_limit):
            width, lane = end.lane
            there_side, there_lane = (end.edge + 3) % 6, (width, width - 1 - lane)
            lane_key = frozenset({(hex_id, end.edge, width, lane), (nb, there_side, width, there_lane[1])})
            if lane_key not in walk.lanes:
                walk.lanes.append(lane_key)
                for qkey, q_end in board.at_side.get((nb, there_side, there_lane), ()):
                    if qkey in walk.paths:
                        continue
                    yield from _run_path(board, walk, qkey, 1 - q_end, groups, max_bypass,
                                         hex_limit, fits)
                walk.lanes.pop()
    walk.paths.pop()
    walk.hex_runs.pop()


def _arrive_node(board: _Board, walk: _Walk, u: NodeKey, path: Path, groups: set,
                 max_bypass: int, hex_limit: int, fits: Any) -> Iterator[_Walk]:
    if u in walk.nodes:
        return
    is_stop = board.is_stop[u]
    new_groups = set(board.node[u].groups) if is_stop else set()
    if new_groups & groups:
        return
    walk.nodes.append(u)
    walk.node_lanes.append(len(walk.lanes))
    if is_stop:
        walk.stops.append(u)
    # Distance is monotone: if the mandatory stops no longer fit, no longer walk will.
    if not is_stop or fits(_mandatory(board, walk.stops)):
        start = walk.nodes[0]
        cls = board.end_class[start]
        joins_same_class = start != u and cls and board.end_class[u] == cls
        if is_stop and board.can_end[u] and not joins_same_class:
            yield _snapshot(walk)
        yield from _leave_node(board, walk, u, path, groups | new_groups, max_bypass, hex_limit, fits)
    if is_stop:
        walk.stops.pop()
    walk.nodes.pop()
    walk.node_lanes.pop()


# -- distance and scoring -------------------------------------------------------------------

def _fit_checker(spec):
    """``fits(stops)``: can stops given as (kind, visit cost) pairs be assigned to the rows?"""
    rows = spec.rows

    @cache
    def fits(stops: tuple[tuple[str, int], ...]) -> bool:
        return _assignment(rows, stops) is not None

    return fits


def _assignment(rows, stops) -> tuple[int, ...] | None:
    """Any assignment of the stops to rows listing their kind within each row's visit units."""
    options = [[r for r, row in enumerate(rows) if kind in row.kinds] for kind, _ in stops]
    for assign in product(*options):
        used = [0] * len(rows)
        for (_, cost), r in zip(stops, assign):
            used[r] += cost
        if all(u <= row.visit or row.visit >= UNLIMITED for u, row in zip(used, rows)):
            return assign
    return None


def _score_route(board: _Board, walk: _Walk, objective: str) -> ReferenceRoute | None:
    """The best way to count and pay the route's stops; None if its mandatory stops don't fit."""
    best = _choose_pay(board, walk.stops, frozenset(), objective)
    if best is None:
        return None
    _, revenue, subsidy, counted, paid = best
    bonus = _bonus(board, walk.stops)
    return ReferenceRoute(
        train=board.train.id,
        paths=tuple(f"{h}:{k}" for h, k in walk.paths),
        stops=tuple(_ref(s) for s in walk.stops),
        counted=tuple(_ref(s) for s in walk.stops if s in counted),
        paid=tuple(_ref(s) for s in walk.stops if s in paid),
        revenue=revenue + bonus, subsidy=subsidy, bonus=bonus, bypass=walk.bypass,
        crossings=len(walk.lanes), track=frozenset(walk.paths) | frozenset(walk.lanes),
        nodes=tuple(_ref(n) for n in walk.nodes), span=_span(board, walk))


def _span(board: _Board, walk: _Walk) -> tuple[tuple[str, int], ...]:
    """The span bonuses the walk could earn: for each whose start and target it contains, the
    amount less the price of the hex-side lanes crossed between them (the fewest)."""
    lanes_at = dict(zip(walk.nodes, walk.node_lanes))
    out = []
    for b in board.span_bonuses:
        starts = [lanes_at[k] for k in map(_key, b.start) if k in lanes_at]
        targets = [lanes_at[k] for k in map(_key, b.target) if k in lanes_at]
        if starts and targets:
            amount = b.earned(min(abs(x - y) for x in starts for y in targets))
            if amount > 0:
                out.append((b.name, amount))
    return tuple(out)


def _key(ref: str) -> NodeKey:
    hex_id, _, index = ref.rpartition("-")
    return hex_id, int(index)


def _choose_pay(board: _Board, stops: list[NodeKey] | tuple[NodeKey, ...],
                unpayable: frozenset[NodeKey], objective: str) -> tuple | None:
    """(objective value, revenue, subsidy, counted, paid) of the best way to count and pay
    `stops`; stops in `unpayable` use distance but earn nothing (another route is paid for
    them). None if the mandatory stops don't fit the rows."""
    rows = board.train.spec.rows
    mandatory = [s for s in stops if not board.optional[s]]
    optional = [s for s in stops if board.optional[s]]
    best = None  # (objective value, revenue, subsidy, counted, paid)
    for mask in range(1 << len(optional)):
        counted = mandatory + [s for j, s in enumerate(optional) if (mask >> j) & 1]
        if any(board.count[s] == FIRST and s not in counted for s in optional) and any(
                board.count[s] == OPTIONAL and s in counted for s in optional):
            continue  # an optional stop counts only when every FIRST stop visited counts
        options = [[r for r, row in enumerate(rows) if board.node[s].kind in row.kinds] for s in counted]
        for assign in product(*options):
            used = [0] * len(rows)
            members: list[list[NodeKey]] = [[] for _ in rows]
            for s, r in zip(counted, assign):
                used[r] += board.cost[s]
                members[r].append(s)
            if any(u > row.visit and row.visit < UNLIMITED for u, row in zip(used, rows)):
                continue
            # Each row pays its best `row.pay` stops; a paid stop earns its value and its
            # subsidy. Ranking by (worth to the objective, revenue) and taking the top of each
            # row maximises that pair (pairs ordered lexicographically add up consistently).
            paid: list[NodeKey] = []
            revenue = subsidy = 0
            for row, ms in zip(rows, members):
                worth = {s: (0, 0) if s in unpayable else _worth(board, s, objective) for s in ms}
                ranked = sorted(ms, key=lambda s: worth[s], reverse=True)
                for s in ranked[:row.pay]:
                    if worth[s] > (0, 0):
                        paid.append(s)
                        revenue += board.value[s]
                        subsidy += board.subsidy[s]
            value = revenue + subsidy if objective == "income" else revenue
            if best is None or (value, revenue) > (best[0], best[1]):
                best = (value, revenue, subsidy, counted, paid)
    return best


def _worth(board: _Board, stop: NodeKey, objective: str) -> tuple[int, int]:
    """What paying `stop` adds: (objective value, revenue). Row multipliers are already in the
    profile's stop value (a kind is paid by rows of one multiplier only)."""
    revenue = board.value[stop]
    return (revenue + board.subsidy[stop] if objective == "income" else revenue, revenue)


def _ref(node: NodeKey) -> str:
    return f"{node[0]}-{node[1]}"


def _bonus(board: _Board, stops: list[NodeKey]) -> int:
    """The route's bonuses: counts of visited stops per hex tag; exclusive groups pay their best."""
    if not board.bonuses:
        return 0
    counts: dict[str, int] = {}
    for h, _ in stops:
        for tag in set(board.tags[h]):  # a stop counts once per tag its hex carries
            counts[tag] = counts.get(tag, 0) + 1
    total = 0
    best_in_group: dict[str, int] = {}
    for b in board.bonuses:
        if not all(counts.get(tag, 0) >= at_least for tag, at_least in b.conditions):
            continue
        amount = b.amount * (counts.get(b.conditions[0][0], 0) if b.per_count else 1)
        if b.group:
            best_in_group[b.group] = max(best_in_group.get(b.group, amount), amount)
        else:
            total += amount
    return total + sum(best_in_group.values())


# -- the plan ---------------------------------------------------------------------------------

def _home_nodes(pos: Position) -> frozenset[str]:
    """The company's home token as node refs: its home node refs, or in each home hex the cities
    holding its token (every city of the hex while none does)."""
    out: set[str] = set()
    for home in pos.operating().home:
        if "-" in home:
            out.add(home)
            continue
        hex_ = pos.hex(home)
        cities = [n for n in hex_.tile.nodes if n.kind == "city"]
        tokened = [n for n in cities
                   if any(t is not None and t.company == pos.company for t in hex_.slots(n.index))]
        out.update(f"{home}-{n.index}" for n in tokened or cities)
    return frozenset(out)


def _plan_ok(routes: list[ReferenceRoute], home: frozenset[str] | None, intersect: bool) -> bool:
    """The rules that couple routes (docs/rules.md (generic)): with `home` (node refs), one route passes
    through or stops at the home token; with `intersect`, the routes' stop sets form one network."""
    if not routes:
        return True
    if home is not None and not any(n in home for r in routes for n in r.nodes):
        return False
    if intersect:
        network = [set(routes[0].stops)]
        rest = [set(r.stops) for r in routes[1:]]
        while rest:
            joined = [s for s in rest if any(s & t for t in network)]
            if not joined:
                return False
            network += joined
            rest = [s for s in rest if not any(s is j for j in joined)]
    return True


def _best_combination(per_train: list[list[ReferenceRoute]], objective: str, share_track: bool,
                      max_bypass: int, home: frozenset[str] | None = None,
                      intersect: bool = False) -> tuple[int, ...]:
    """Index of the chosen route per train (-1 idle): best (value, revenue), by exhaustive search
    pruned only by an admissible bound (routes are sorted best first)."""
    n = len(per_train)
    best_value = [max((r.value(objective) for r in rs), default=0) for rs in per_train]
    best_revenue = [max((r.revenue for r in rs), default=0) for rs in per_train]
    suffix_value = [0] * (n + 1)
    suffix_revenue = [0] * (n + 1)
    for t in range(n - 1, -1, -1):
        suffix_value[t] = suffix_value[t + 1] + max(0, best_value[t])
        suffix_revenue[t] = suffix_revenue[t + 1] + max(0, best_revenue[t])
    best: list[Any] = [(-1, -1), tuple([-1] * n)]
    choice = [-1] * n

    def search(t: int, used: frozenset, bypass: int, value: int, revenue: int) -> None:
        if t == n:
            if (value, revenue) > best[0] and _plan_ok(
                    [per_train[k][i] for k, i in enumerate(choice) if i >= 0], home, intersect):
                best[0] = (value, revenue)
                best[1] = tuple(choice)
            return
        for i, r in enumerate(per_train[t]):
            v = r.value(objective)
            if (value + v + suffix_value[t + 1], revenue + r.revenue + suffix_revenue[t + 1]) <= best[0]:
                if value + v + suffix_value[t + 1] < best[0][0]:
                    break  # sorted by value: no later route of this train can do better
                continue
            if not share_track and not used.isdisjoint(r.track):
                continue
            if bypass + r.bypass > max_bypass:
                continue
            choice[t] = i
            search(t + 1, used | r.track, bypass + r.bypass, value + v, revenue + r.revenue)
        choice[t] = -1
        search(t + 1, used, bypass, value, revenue)

    search(0, frozenset(), 0, 0, 0)
    return best[1]


# -- coupled plans: stops paying once, hex subsidies, sets --------------------------------------

def _coupled(pos: Position, profile: Profile, rules: PlanRules) -> bool:
    """Does a route's pay depend on the other routes of the plan?"""
    return rules.stops_pay_once or any(
        profile.hex_subsidy(pos, t) > 0 or profile.set_role(pos, t) != SET_NONE
        or profile.span_bonuses(pos, t) for t in pos.trains)


def _stop_keys(route: ReferenceRoute) -> tuple[NodeKey, ...]:
    out = []
    for ref in route.stops:
        hex_id, _, index = ref.rpartition("-")
        out.append((hex_id, int(index)))
    return tuple(out)


def _path_hexes(route: ReferenceRoute) -> list[str]:
    """The hexes of the route's paths, in walk order (repeats kept)."""
    return [ref.rpartition(":")[0] for ref in route.paths]


@dataclass(frozen=True)
class _Priced:
    """A whole plan priced: the objective's value, revenue, subsidy, the routes rescored (paid
    stops, revenue and subsidy as the plan pays them) and the sets."""

    value: int
    revenue: int
    subsidy: int
    routes: tuple[ReferenceRoute, ...]
    sets: tuple = ()


def _solve_coupled(pos: Position, profile: Profile, rules: PlanRules,
                   per_train: list[list[ReferenceRoute]], objective: str,
                   home: frozenset[str] | None, candidates: dict) -> ReferenceResult:
    """The best plan when routes' pay depends on each other: every combination priced whole.

    Set trains are chosen first. Once they are, their sets (and what the sets can earn at
    most) are known, and the other trains are searched with the bound ``what the sets can earn
    + each chosen route's value + the best route of each remaining train``."""
    n = len(pos.trains)
    boards = {t: _Board(pos, profile, pos.trains[t]) for t in range(n) if per_train[t]}
    role = [profile.set_role(pos, train) for train in pos.trains]
    rate = [profile.hex_subsidy(pos, train) for train in pos.trains]
    income = objective == "income"
    order = ([t for t in range(n) if role[t] != SET_NONE]
             + [t for t in range(n) if role[t] == SET_NONE])
    n_set = sum(1 for t in range(n) if role[t] != SET_NONE)

    def upper(t: int, r: ReferenceRoute) -> tuple[int, int]:
        """What a route not in a set can add to any plan, at most: (value, revenue)."""
        hex_subsidy = rate[t] * len(set(_path_hexes(r))) if income else 0
        span = sum(a for _, a in r.span)
        return r.value(objective) + hex_subsidy + span, r.revenue + span

    suffix = [(0, 0)] * (n + 1)
    for i in range(n - 1, n_set - 1, -1):
        t = order[i]
        v, rev = max((upper(t, r) for r in per_train[t]), default=(0, 0))
        suffix[i] = (suffix[i + 1][0] + max(0, v), suffix[i + 1][1] + max(0, rev))
    best: list[Any] = [(-1, -1), None]
    choice: dict[int, ReferenceRoute] = {}
    layouts: list[Any] = [None]

    def search(i: int, used: frozenset, bypass: int, up_value: int, up_revenue: int) -> None:
        if i == n_set:
            # The sets are settled: what they can earn at most starts the bound.
            set_routes = [(t, choice[t]) for t in order[:n_set] if t in choice]
            layouts[0] = _set_layouts(pos, profile, boards, role, set_routes)
            if not layouts[0]:
                return  # the set trains break the rules on temporary trains
            up_value, up_revenue = _sets_upper(boards, rate, set_routes, layouts[0], objective)
        if i == n:
            chosen = sorted(choice.items())
            if not _plan_ok([r for _, r in chosen], home, rules.intersect):
                return
            priced = _price_plan(boards, rules, rate, chosen, layouts[0], objective)
            if (priced.value, priced.revenue) > best[0]:
                best[0] = (priced.value, priced.revenue)
                best[1] = priced
            return
        t = order[i]
        for r in per_train[t]:
            v, rev = upper(t, r) if i >= n_set else (0, 0)
            if i >= n_set and (up_value + v + suffix[i + 1][0],
                               up_revenue + rev + suffix[i + 1][1]) <= best[0]:
                continue
            if not rules.share_track and not used.isdisjoint(r.track):
                continue
            if bypass + r.bypass > rules.max_bypass:
                continue
            choice[t] = r
            search(i + 1, used | r.track, bypass + r.bypass, up_value + v, up_revenue + rev)
            del choice[t]
        search(i + 1, used, bypass, up_value, up_revenue)

    search(0, frozenset(), 0, 0, 0)
    priced: _Priced = best[1]
    return ReferenceResult(
        value=priced.value, revenue=priced.revenue, subsidy=priced.subsidy, routes=priced.routes,
        candidates=candidates, objective=objective, sets=priced.sets)


def _sets_upper(boards: dict[int, _Board], rate: list[int], set_routes: list[tuple[int, ReferenceRoute]],
                layouts: list, objective: str) -> tuple[int, int]:
    """What the set routes can earn at most, (value, revenue): their payable stops all paid,
    their bonuses, every hex subsidised."""
    income = objective == "income"
    fixed_value = fixed_revenue = 0
    for t, r in set_routes:
        span = sum(a for _, a in r.span)
        fixed_revenue += r.bonus + span
        fixed_value += r.bonus + span + (rate[t] * len(set(_path_hexes(r))) if income else 0)
    best_value = best_revenue = 0
    for payable, bonus, _, _ in layouts:
        revenue = sum(bonus.values()) + sum(boards[t].value[s] for t, refs in payable.items() for s in refs)
        subsidy = sum(boards[t].subsidy[s] for t, refs in payable.items() for s in refs)
        best_value = max(best_value, revenue + subsidy if income else revenue)
        best_revenue = max(best_revenue, revenue)
    return fixed_value + best_value, fixed_revenue + best_revenue


def _price_plan(boards: dict[int, _Board], rules: PlanRules, rate: list[int],
                chosen: list[tuple[int, ReferenceRoute]], layouts: list, objective: str) -> _Priced:
    """What the routes `chosen` ((train index, route), train order) earn together, their set
    routes forming sets in one of `layouts` (the best)."""
    income = objective == "income"
    stops = {t: _stop_keys(r) for t, r in chosen}
    # Hex subsidies: each hex to the covering route of the highest rate.
    hex_subsidy = {t: 0 for t, _ in chosen}
    covered: set[str] = set()
    for t, r in sorted(chosen, key=lambda tr: -rate[tr[0]]):
        if rate[t] > 0:
            hexes = set(_path_hexes(r))
            hex_subsidy[t] = rate[t] * len(hexes - covered)
            covered |= hexes
    # Span bonuses: each to the chosen route earning most from it (the first on ties).
    span: dict[int, int] = {t: 0 for t, _ in chosen}
    top: dict[str, tuple[int, int]] = {}
    for t, r in chosen:
        for name, amount in r.span:
            if amount > top.get(name, (0, -1))[0]:
                top[name] = (amount, t)
    for amount, t in top.values():
        span[t] += amount
    best = None
    for payable, set_bonus, sets, arrangement in layouts:
        pays = _joint_pay(boards, rules.stops_pay_once, chosen, stops, payable, objective)
        revenue = (sum(p[1] for p in pays.values()) + sum(r.bonus for _, r in chosen)
                   + sum(set_bonus.values()) + sum(span.values()))
        subsidy = sum(p[2] for p in pays.values()) + sum(hex_subsidy.values())
        value = revenue + subsidy if income else revenue
        if best is None or (value, revenue) > best[0]:
            best = ((value, revenue), subsidy, pays, set_bonus, sets, arrangement)
    (value, revenue), subsidy, pays, set_bonus, sets, (set_order, backwards) = best
    routes = {}
    for t, r in chosen:
        _, pay_revenue, pay_subsidy, counted, paid = pays[t]
        bonus = r.bonus + set_bonus.get(t, 0) + span[t]
        r = replace(
            r, paid=tuple(_ref(s) for s in stops[t] if s in paid),
            counted=r.counted if counted is None else tuple(_ref(s) for s in stops[t] if s in counted),
            revenue=pay_revenue + bonus, subsidy=pay_subsidy + hex_subsidy[t], bonus=bonus)
        routes[t] = _reversed(r) if t in backwards else r
    # A plan that earns this: train order, except that the set trains go in the order that
    # builds these sets, and routes with a hex subsidy by falling rate when rates differ.
    trains = [t for t, _ in chosen]
    placed = iter(set_order)
    trains = [next(placed) if t in set_order else t for t in trains]
    if len({rate[t] for t in trains if rate[t] > 0}) > 1:
        trains.sort(key=lambda t: -rate[t])
    return _Priced(value, revenue, subsidy, tuple(routes[t] for t in trains), sets)


def _reversed(route: ReferenceRoute) -> ReferenceRoute:
    """The same route run the other way."""
    return replace(route, paths=route.paths[::-1], stops=route.stops[::-1],
                   counted=route.counted[::-1], paid=route.paid[::-1], nodes=route.nodes[::-1])


def _set_layouts(pos: Position, profile: Profile, boards: dict[int, _Board], role: list[int],
                 set_routes: list[tuple[int, ReferenceRoute]]) -> list:
    """The ways the set routes ((train index, route), train order) can form sets under the
    rules, as ``(payable, bonus, sets, arrangement)``: per set train the stops it may be paid
    for, per set's first train its bonus, the sets for the result, and the order of the set
    trains with those running backwards that build them. Several when the routes' order and
    direction change the sets; none when every way breaks the rules on temporary trains."""
    if not set_routes:
        return [({}, {}, (), ((), frozenset()))]
    route = dict(set_routes)
    stops = {t: _stop_keys(r) for t, r in set_routes}
    payable: dict[int, tuple[NodeKey, ...]] = {t: () for t in route}  # no track: nothing
    tracked = [t for t in route if route[t].paths]
    ends = {t: (stops[t][0], stops[t][-1]) for t in tracked}
    temporary = {t for t in tracked if role[t] == SET_TEMPORARY}
    trials = [ends]
    meetings = Counter(node for pair in ends.values() for node in pair)
    loop = any(not any(meetings[n] == 1 for t in group for n in ends[t])
               for group in build_sets(ends, temporary))
    if loop or any(m >= 3 for m in meetings.values()):
        # The sets depend on the order and direction the routes are listed in: try them all.
        trials = [{t: ends[t][::-1] if flip else ends[t] for t, flip in zip(order, flips)}
                  for order in permutations(tracked)
                  for flips in product((False, True), repeat=len(tracked))]
    out: dict[tuple, tuple] = {}
    for trial in trials:
        groups = build_sets(trial, temporary)
        mixed = [g for g in groups if any(t in temporary for t in g)]
        if len(mixed) > 1 or (mixed and all(t in temporary for t in mixed[0]) and len(groups) > 1):
            continue
        pay = dict(payable)
        bonus: dict[int, int] = {}
        sets = []
        for group in groups:
            both = set_ends([trial[t] for t in group])
            if len(both) == 1:
                break
            for t in group:
                pay[t] = tuple(e for e in dict.fromkeys(both) if e in trial[t])
            a = _set_end(pos, route, stops, group, both[0])
            b = _set_end(pos, route, stops, group, both[-1])
            bonus[group[0]] = profile.set_bonus(pos, a, b)
            sets.append((tuple(route[t].train for t in group), (_ref(both[0]), _ref(both[-1])),
                         bonus[group[0]]))
        else:
            key = (tuple(sorted(pay.items())), sum(bonus.values()))
            arrangement = (tuple(trial), frozenset(t for t in trial if trial[t] != ends[t]))
            out.setdefault(key, (pay, bonus, tuple(sets), arrangement))
    return list(out.values())


def _set_end(pos: Position, route: dict[int, ReferenceRoute], stops: dict[int, tuple[NodeKey, ...]],
             group: list[int], end: NodeKey) -> tuple:
    """A set end for `Profile.set_bonus`: (its hex, its node, the hex its set's track enters it
    from, i.e. the next hex along the set's first route that stops there)."""
    hex_ = pos.hex(end[0])
    node = hex_.tile.node(end[1])
    for t in group:
        if end in stops[t]:
            hexes = _path_hexes(route[t])
            if end != stops[t][0]:
                hexes.reverse()
            return hex_, node, pos.hex(hexes[1] if len(hexes) > 1 else end[0])
    return hex_, node, hex_


def _joint_pay(boards: dict[int, _Board], pay_once: bool, chosen: list[tuple[int, ReferenceRoute]],
               stops: dict[int, tuple[NodeKey, ...]], payable: dict[int, tuple[NodeKey, ...]],
               objective: str) -> dict[int, tuple]:
    """Per train its route's (value, revenue, subsidy, counted or None, paid) in the best joint
    choice: with `pay_once`, every way of giving each location several routes may be paid for
    to one of them. A set route (in `payable`) is paid for its payable stops only."""
    income = objective == "income"

    def location(t: int, s: NodeKey) -> Hashable:
        groups = boards[t].node[s].groups
        return ("group", groups[0]) if groups else s

    candidates = {t: payable[t] if t in payable else stops[t] for t, _ in chosen}
    owners: dict[Hashable, list[int]] = {}
    if pay_once:
        for t, refs in candidates.items():
            for s in refs:
                owners.setdefault(location(t, s), []).append(t)
    shared = {loc: ts for loc, ts in owners.items() if len(ts) > 1}
    cache_: dict[tuple, tuple] = {}

    def pay(t: int, unpayable: frozenset) -> tuple:
        if (t, unpayable) not in cache_:
            board = boards[t]
            if t in payable:
                paid = [s for s in payable[t] if s not in unpayable]
                revenue = sum(board.value[s] for s in paid)
                subsidy = sum(board.subsidy[s] for s in paid)
                cache_[t, unpayable] = (revenue + subsidy if income else revenue, revenue, subsidy,
                                        None, paid)
            else:
                cache_[t, unpayable] = _choose_pay(board, stops[t], unpayable, objective)
        return cache_[t, unpayable]

    best = None
    for pick in product(*shared.values()):
        given = dict(zip(shared, pick))
        pays = {t: pay(t, frozenset(s for s in candidates[t] if given.get(location(t, s), t) != t))
                for t in candidates}
        score = (sum(p[0] for p in pays.values()), sum(p[1] for p in pays.values()))
        if best is None or score > best[0]:
            best = (score, pays)
    return best[1]
