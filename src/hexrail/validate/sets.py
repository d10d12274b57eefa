"""Routes joined end to end into sets (``Profile.set_role``), formed as 18xx.games forms them; hex subsidies and span bonuses across routes."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from hexrail.model.position import Hex
from hexrail.model.tile import Node
from hexrail.rules.base import SET_NONE, SET_TEMPORARY, EndsSubsidy, VisitAllBonus, VisitBonus
from hexrail.validate.board import _Board
from hexrail.validate.refs import NodeRef, _node_str
from hexrail.validate.route import _Route
from hexrail.validate.walk import _stops

# -- routes joined end to end: sets (`Profile.set_role`) ------------------------------------------

K = TypeVar("K", bound=Hashable)
N = TypeVar("N", bound=Hashable)


def build_sets(ends: dict[K, tuple[N, N]], temporary: set[K] | frozenset[K]) -> list[list[K]]:
    """Group the routes of set trains into sets joined end to end, as 18xx.games does.

    `ends` maps each route (any key), in plan order, to its first and last stop; `temporary`
    holds the routes of `SET_TEMPORARY` trains. The first set grows from the first temporary
    route, the next ones from the first route left. A set grows from both ends of its first
    route along routes that end where it ends; where several routes end at one stop, it takes
    the branch holding a temporary route if any, else the longest (the first on ties), and the
    other branches are left for later sets. Every route lands in exactly one set; each set lists
    the route it grew from first. This follows the engine's ``build_freight_sets`` step by step.

    >>> build_sets({"a": ("A", "B"), "b": ("C", "B"), "c": ("D", "E")}, set())
    [['a', 'b'], ['c']]
    """
    stops = dict(ends)
    sets: list[list[K]] = []
    first = next((k for k in stops if k in temporary), None)
    if first is not None:
        sets.append(_create_set(first, stops, temporary))
    while stops:
        sets.append(_create_set(next(iter(stops)), stops, temporary))
    return sets


def _unique(items: list) -> list:
    return list(dict.fromkeys(items))


def _create_set(route: K, stops: dict, temporary: Any) -> list[K]:
    a, b = stops[route]
    out = [route]
    out += _set_from_node(a, route, stops, temporary)
    out += _set_from_node(b, route, stops, temporary)
    return _unique(out)


def _set_from_node(node: N, route: K, stops: dict, temporary: Any) -> list[K]:
    """The routes continuing the set from `node`, the end of `route` (taken out of `stops`)."""
    stops.pop(route, None)
    if not stops:
        return []
    meeting = [r for r in stops if node in stops[r]]
    if len(meeting) == 1:
        return _one_way_set(node, meeting[0], [meeting[0]], stops, temporary)
    if not meeting:
        return []
    branches = [_one_way_set(node, r, [], dict(stops), temporary) for r in meeting]
    branch = next((br for br in branches if any(r in temporary for r in br)), None)
    if branch is None:
        branch = max(branches, key=len)  # the first of the longest
    for r in branch:
        stops.pop(r, None)
    return branch


def _one_way_set(came_from: N, route: K, out: list[K], stops: dict, temporary: Any) -> list[K]:
    out.append(route)
    a, b = stops[route]
    if a != came_from:
        out += _set_from_node(a, route, stops, temporary)
    if b != came_from:
        out += _set_from_node(b, route, stops, temporary)
    return _unique(out)


def set_ends(ends: Sequence[tuple[N, N]]) -> list[N]:
    """The ends of a set whose routes (in set order) start and end at these stops: the stops
    that end exactly one of them, in order of appearance; a loop (no such stop) ends twice at
    the first stop. (One end only is a broken set; the caller says so.)

    >>> set_ends([("A", "B"), ("C", "B")]), set_ends([("A", "B"), ("B", "A")])
    (['A', 'C'], ['A', 'A'])
    """
    count: dict[N, int] = {}
    for a, b in ends:
        count[a] = count.get(a, 0) + 1
        count[b] = count.get(b, 0) + 1
    once = [n for n, k in count.items() if k == 1]
    if not once and count:
        first = next(iter(count))
        return [first, first]
    return once


@dataclass(frozen=True)
class _Set:
    """One set: its routes (indices, the first earns the bonus), its ends and its bonus."""

    members: tuple[int, ...]
    ends: tuple[NodeRef, ...]
    bonus: int


def _set_end(board: _Board, routes: list[_Route], group: list[int],
             end: NodeRef) -> tuple[Hex, Node, Hex]:
    """A set's end for `Profile.set_bonus`: its hex, its node, and the hex the set's track
    enters it from (the next hex along the first route of the set that stops there; the end's
    own hex for a route without track)."""
    hex_ = board.hex(end[0])
    for i in group:
        walk = routes[i].walk
        stops = _stops(board, walk)
        if end not in stops:
            continue
        hexes = [ref[0] for ref in walk.paths]
        if end != stops[0]:
            hexes.reverse()
        return hex_, board.node(end), board.hex(hexes[1] if len(hexes) > 1 else end[0])
    return hex_, board.node(end), hex_


def _route_sets(board: _Board,
                routes: list[_Route]) -> tuple[list[_Set], list[str], dict[int, list[NodeRef]]]:
    """The sets the legal routes of set trains form, the rules they break, and per such route
    the stops it may be paid for: the ends of its set that are its own ends."""
    pos, profile = board.pos, board.profile
    role = {i: profile.set_role(pos, r.train) for i, r in enumerate(routes) if r.legal}
    members = [i for i, k in role.items() if k != SET_NONE]
    payable: dict[int, list[NodeRef]] = {i: [] for i in members}  # a route without track: nothing
    ends = {}
    for i in members:
        if routes[i].walk.paths:
            stops = _stops(board, routes[i].walk)
            ends[i] = (stops[0], stops[-1])
    temporary = {i for i in ends if role[i] == SET_TEMPORARY}
    sets: list[_Set] = []
    errors: list[str] = []
    for group in build_sets(ends, temporary):
        stops = set_ends([ends[i] for i in group])
        names = ", ".join(routes[i].plan.train for i in group)
        bonus = 0
        if len(stops) == 1:
            errors.append(f"the routes of trains {names} join end to end with one end only "
                          f"({_node_str(stops[0])})")
        else:
            bonus = profile.set_bonus(pos, _set_end(board, routes, group, stops[0]),
                                      _set_end(board, routes, group, stops[-1]))
        for i in group:
            payable[i] = [e for e in _unique(stops) if e in ends[i]]
        sets.append(_Set(tuple(group), tuple(stops), bonus))

    def shown(s: _Set) -> str:
        return "+".join(routes[i].plan.train for i in s.members)

    mixed = [s for s in sets if any(i in temporary for i in s.members)]
    if len(mixed) > 1:
        errors.append("all non-permanent set trains need to connect end to end, into one set; "
                      f"they are in {len(mixed)} sets ({'; '.join(map(shown, mixed))})")
    elif mixed and all(i in temporary for i in mixed[0].members) and len(sets) > 1:
        errors.append(f"non-permanent set trains must connect to a permanent one: the set "
                      f"{shown(mixed[0])} holds none while {len(sets)} sets run")
    return sets, errors, payable


def _hex_subsidies(board: _Board, routes: list[_Route]) -> dict[int, int]:
    """Per legal route of a train with a hex subsidy: the subsidy times the hexes its track
    passes that no earlier such route (plan order) passed."""
    out: dict[int, int] = {}
    covered: set[str] = set()
    for i, route in enumerate(routes):
        if not route.legal:
            continue
        rate = board.profile.hex_subsidy(board.pos, route.train)
        if rate <= 0:
            continue
        hexes = {ref[0] for ref in route.walk.paths}
        out[i] = rate * len(hexes - covered)
        covered |= hexes
    return out


def _span_bonuses(board: _Board, routes: list[_Route]
                  ) -> tuple[dict[int, tuple[tuple[str, int], ...]], dict[int, int]]:
    """Per legal route, the once-per-round bonuses it is paid (`Profile.span_bonuses`): a route
    ending at a `SpanBonus`'s start and containing its target earns its amount less the price
    of the hex-side crossings between them along the route; a `VisitBonus` earns per visited
    stop; a `VisitAllBonus` for the stops it names. Each bonus (by name) is paid once, to the
    route earning most from it; on ties the first in plan order (the last for a
    `VisitAllBonus` with ``last_on_ties``), for a `VisitBonus` the greatest train id (as
    18xx.games pays the mail contract); an `EndsSubsidy` paying k routes to the k earning most,
    one each. Returns per route its bonuses, and apart the subsidies (`EndsSubsidy`)."""
    earning: dict[str, list[tuple[int, str, int]]] = {}  # name -> (amount, tie-break, route)
    paid_to: dict[str, int] = {}  # name -> how many routes it pays
    subsidies: set[str] = set()  # the names of `EndsSubsidy` bonuses: paid as subsidy
    for i, route in enumerate(routes):
        if not route.legal:
            continue
        lanes_at: dict[NodeRef, int] = dict(zip(route.walk.nodes, route.walk.node_lanes))
        ends = {route.walk.nodes[0], route.walk.nodes[-1]}
        for bonus in board.profile.span_bonuses(board.pos, route.train):
            if isinstance(bonus, VisitBonus):
                amount, tie = bonus.earned(len(_stops(board, route.walk))), route.train.id
            elif isinstance(bonus, (VisitAllBonus, EndsSubsidy)):
                if isinstance(bonus, EndsSubsidy):
                    subsidies.add(bonus.name)
                amount = bonus.earned(tuple(_node_str(s) for s in _stops(board, route.walk)))
                tie = str(i).zfill(6) if getattr(bonus, "last_on_ties", False) else ""  # later wins
            else:
                gaps = [abs(lanes_at[a] - lanes_at[b]) for a in map(_node_key, bonus.start) if a in ends
                        for b in map(_node_key, bonus.target) if b in lanes_at and b != a]
                if not gaps:
                    continue
                amount, tie = bonus.earned(min(gaps)), ""
            paid_to[bonus.name] = getattr(bonus, "routes", 1)
            if amount > 0:
                earning.setdefault(bonus.name, []).append((amount, tie, i))
    out: dict[int, tuple[tuple[str, int], ...]] = {}
    subsidy: dict[int, int] = {}
    for name in sorted(earning):
        # the most first; among equals, the first in plan order (the sort is stable)
        ranked = sorted(earning[name], key=lambda e: e[:2], reverse=True)
        for amount, _, i in ranked[:paid_to[name]]:
            if name in subsidies:
                subsidy[i] = subsidy.get(i, 0) + amount
            else:
                out[i] = out.get(i, ()) + ((name, amount),)
    return out, subsidy


def _node_key(text: str) -> NodeRef:
    hex_id, _, index = text.rpartition("-")
    return hex_id, int(index)
