"""What a rules profile is: data plus a few named hooks, each with the generic default.

The compiler asks a profile, per train and per node, what a stop is worth, whether it blocks,
whether a route may end there, and which bonuses a route can earn; the answers become arrays.
Plan-level couplings (stops paying once, home route, one bypass per round, ...) are declared as
`PlanRules` and handled exactly by the combiner. No game name appears outside ``hexrail.rules``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import wraps
from typing import Any, Callable, ClassVar, NamedTuple, Union

from hexrail.errors import HexrailError
from hexrail.model.frozen import FrozenMap, thaw
from hexrail.model.memo import ByIdentity
from hexrail.model.position import Hex, Position, Train
# (the stop rule's codes live with the columns; the titles import them from here)
from hexrail.rules.columns import (BLOCKS, BYPASS, FIRST, MANDATORY, OPTIONAL,  # noqa: F401
                                   PASSABLE, StopColumns, generic_columns, rules_columns)
from hexrail.model.tile import Node
from hexrail.model.trains import TrainSpec, parse_spec


@dataclass(frozen=True, slots=True)
class Bonus:
    """A per-route bonus, earned when the route's stops carry the required tags.

    ``conditions`` are ``(tag, at_least)`` pairs that must all hold, counting the route's
    visited stops whose hex carries ``tag``. Bonuses sharing a non-empty ``group`` are exclusive:
    the route earns the largest one that applies. With ``per_count`` the amount is multiplied by
    the number of stops carrying the first condition's tag.
    """

    name: str
    amount: int
    conditions: tuple[tuple[str, int], ...]
    group: str = ""
    per_count: bool = False


@dataclass(frozen=True, slots=True)
class SetsBonus:
    """`amount` once per route when, for every set in `sets` (of hex ids), one of the route's
    visited stops lies in that set: one set is a port or cattle token, two an east-west or
    city-pair bonus."""

    name: str
    amount: int
    sets: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class HexBonus:
    """`amount` for every distinct hex in `hexes` holding one of the route's visited stops
    (bridge and tunnel rights, private companies' hex bonuses): two stops in one such hex earn
    it once."""

    name: str
    amount: int
    hexes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class EndBonus:
    """An end stop of the route lying in `hexes` pays its value a second time (destinations);
    when both ends do, the better one. The stop must count: a title gives the stops of `hexes`
    the `MANDATORY` count."""

    name: str
    hexes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TrackBonus:
    """Per distinct hex whose track the route runs on, the amount `amounts` gives that hex
    (mines, ranches, resources); with `skip_stop_hexes`, a hex holding one of the route's
    visited stops earns nothing."""

    name: str
    amounts: tuple[tuple[str, int], ...]
    skip_stop_hexes: bool = False


RouteBonus = Union[Bonus, SetsBonus, HexBonus, EndBonus, TrackBonus]


@dataclass(frozen=True, slots=True)
class SpanBonus:
    """A bonus for a route that starts at a stop of `start` (one of its two end stops) and
    contains another stop, of `target`, anywhere (visited, paid or not), worth
    ``amount - per_crossing * h``, never below zero: ``h`` is the number of hex-side crossings
    along the route between the two (the fewest, when it contains several).

    Span bonuses are told apart by `name`; each pays at most once per round, to one route of the
    company (the solver chooses which, weighing it against the routes' other earnings). Stops are
    node references (``"E5-0"``).
    """

    name: str
    start: tuple[str, ...]
    target: tuple[str, ...]
    amount: int
    per_crossing: int = 0

    def earned(self, crossings_between: int) -> int:
        """What a route with `crossings_between` hex-side crossings from start to target earns.

        >>> SpanBonus("x", ("A1-0",), ("A5-0",), 60, 10).earned(4)
        20
        """
        return max(0, self.amount - self.per_crossing * crossings_between)

    def at_most(self, visits: int) -> int:
        """What a route of at most `visits` stops can earn from it."""
        return max(0, self.amount)


@dataclass(frozen=True, slots=True)
class VisitBonus:
    """`per_stop` for every stop the route visits (counted, paid or not), paid once per round
    to one route of the company: the one visiting the most stops, on ties the one whose train
    id is greatest (1846's mail contract). Like a `SpanBonus`, told apart by `name` and
    returned by `Profile.span_bonuses`; the solver weighs which route gets it."""

    name: str
    per_stop: int

    def earned(self, visits: int) -> int:
        """What a route visiting `visits` stops earns.

        >>> VisitBonus("mail", 10).earned(5)
        50
        """
        return self.per_stop * visits

    def at_most(self, visits: int) -> int:
        """What a route of at most `visits` stops can earn from it."""
        return max(0, self.per_stop * visits)


@dataclass(frozen=True, slots=True)
class VisitAllBonus:
    """Paid once per round to one route of the company: the amount of the first of `levels`
    (``(stops, amount)``, best first) whose stops the route all visits, each given as a node
    reference (``"B2-0"``) or a hex (any stop of it). The route earning most from it gets it;
    on ties the first in plan order, the last with `last_on_ties` (18USA's Great Northern,
    1822's destination bonus)."""

    name: str
    levels: tuple[tuple[tuple[str, ...], int], ...]
    last_on_ties: bool = False

    def earned(self, stops: tuple[str, ...]) -> int:
        """What a route visiting `stops` (node references) earns.

        >>> VisitAllBonus("gn", ((("B2", "B8"), 60), (("B8",), 30))).earned(("B8-0", "C3-1"))
        30
        """
        seen = set(stops) | {s.rpartition("-")[0] for s in stops}
        return next((amount for need, amount in self.levels if seen.issuperset(need)), 0)

    def at_most(self, visits: int) -> int:
        """What a route can earn from it."""
        return max((max(0, amount) for _, amount in self.levels), default=0)


@dataclass(frozen=True, slots=True)
class EndsSubsidy:
    """A *subsidy* (to the treasury, not revenue) paid once per round to `routes` routes of the
    company of at least two stops, one each: half the sum, rounded down, of the base values
    `values` gives its first and last stop (node references; 1822's mail contracts, one route
    per contract). The routes earning most get it; the first in plan order on ties."""

    name: str
    values: tuple[tuple[str, int], ...]
    routes: int = 1

    def earned(self, stops: tuple[str, ...]) -> int:
        """What a route visiting `stops` (node references, in order) earns.

        >>> EndsSubsidy("mail", (("A1-0", 30), ("A5-0", 45))).earned(("A1-0", "A3-0", "A5-0"))
        37
        """
        if len(stops) < 2:
            return 0
        value = dict(self.values)
        return (value.get(stops[0], 0) + value.get(stops[-1], 0)) // 2

    def at_most(self, visits: int) -> int:
        """What a route can earn from it."""
        return max((max(0, v) for _, v in self.values), default=0)


OnceBonus = Union[SpanBonus, VisitBonus, VisitAllBonus, EndsSubsidy]  # once per round, one route


@dataclass(frozen=True, slots=True)
class CyclicRun:
    """A run over a fixed cyclic pattern of stops, which a train may make instead of a route
    (1831's commuter runs).

    The run starts at ``cycle[s]`` for some ``s`` in `starts` and visits the cycle's stops in
    order, wrapping around, `min_visits` to `max_visits` visits. Each *leg* between two visits
    is a walk over track that no earlier leg of the run used (no path, no hex-side lane), visits
    no node twice, and passes through nothing that blocks the train, no terminal track and no
    stop where the train may end a route. A visit of ``cycle[k]`` pays ``values[k]`` (1831: the
    city and one station token, whatever else the company holds there). Stops are node
    references (``"E5-0"``).
    """

    name: str
    cycle: tuple[str, ...]
    starts: tuple[int, ...]
    max_visits: int
    values: tuple[int, ...]
    min_visits: int = 2

    def visits(self, start: int, count: int) -> tuple[str, ...]:
        """The first `count` stops of the run from cycle position `start`.

        >>> CyclicRun("x", ("A", "B", "C", "B"), (0,), 9, (1, 2, 3, 2)).visits(0, 6)
        ('A', 'B', 'C', 'B', 'A', 'B')
        """
        return tuple(self.cycle[(start + k) % len(self.cycle)] for k in range(count))

    def value_of(self, stop: str) -> int:
        """What one visit of `stop` pays.

        >>> CyclicRun("x", ("A", "B"), (0,), 9, (30, 20)).value_of("B")
        20
        """
        return self.values[self.cycle.index(stop)]


@dataclass(frozen=True, slots=True)
class Revisit:
    """A stop a route may run to twice (1831's Delaware): both times as a stop where the train
    may end (it counts and pays each time), provided that between the two visits the route
    runs to a stop where it may end in each hex of `between`, and over track it has not used.
    Its hex may then be entered twice. `stop` is a node reference (``"E5-0"``)."""

    stop: str
    between: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Choice:
    """A way the company may still set its trains or bonuses up before it runs (1846's
    steamboat hex, 18USA's upgrades left unattached): what it decides, ``(decision, option)``
    pairs, and the position so decided (`Profile.choices`)."""

    decisions: tuple[tuple[str, str], ...]
    position: Position

    def decided(self) -> Position:
        """The position, saying in its ``meta`` which choices set it up (`decided` then takes
        it as it is: a plan's own position)."""
        return self.position.unchecked(meta=FrozenMap({**self.position.meta,
                                                       "choices": dict(self.decisions)}))


# How a visited stop counts (`StopRule.count`: MANDATORY, OPTIONAL, FIRST) and how a node stops
# a train passing through it (`StopRule.block`: PASSABLE, BYPASS, BLOCKS): `hexrail.rules.columns`.


class StopRule(NamedTuple):
    """What one node is to one train: the single record the compiler lowers to arrays and the
    validator and the oracle read, each on their own (`Profile.stop_rule`).

    ``value`` and ``subsidy`` are paid when the stop is counted and paid; ``count`` says whether
    it must count (`MANDATORY`, `OPTIONAL`, `FIRST`); ``cost`` is the visit units it uses of the
    train's rows; ``block`` whether a train may pass through (`PASSABLE`, `BYPASS`, `BLOCKS`);
    ``may_end`` whether a route may start or end there; two ends of one nonzero ``end_class``
    may not be joined by a route; ``tallies`` are named counts bounded per route by
    `Profile.tally_limits`; ``anchor``: the stop counts as the company's station (the token a
    route needs); ``groups``: stop groups it belongs to beside its tile's (a route visits one
    stop of a group; e.g. one group per hex for "one stop per hex"); ``uses``: the plan's
    must-use items (`PlanRules.must_use`) a route counting the stop uses (1831's track rights).
    Nodes that are not stops have only ``block`` and ``anchor``. A title changes
    fields of the generic record with ``_replace`` (a named tuple: the compiler builds one per
    train and node, so it must be cheap).
    """

    value: int = 0
    subsidy: int = 0
    count: str = MANDATORY
    cost: int = 1
    block: int = PASSABLE
    may_end: bool = True
    end_class: int = 0
    tallies: tuple[tuple[str, int], ...] = ()
    anchor: bool = False
    groups: tuple[str, ...] = ()  # stop groups beside the tile's (one stop per group and route)
    uses: tuple[str, ...] = ()  # items of `PlanRules.must_use` a route counting this stop uses


class PayRule(NamedTuple):
    """How one train's route is paid beyond its rows (`Profile.pay_rule`).

    ``bonuses_on_paid``: the route bonuses (`Bonus`, `SetsBonus`, `HexBonus`) count the *paid*
    stops, not the visited ones, and the choice of paid stops weighs them (1846's N/M trains,
    1867's filled slots); ``paid_station``: one paid stop must be the company's station (a
    route with none paid earns nothing and is not run); ``passed_unpaid``: a city the route
    passes through by spending a bypass is visited (it uses distance) but never paid (18USA's
    switcher).
    """

    bonuses_on_paid: bool = False
    paid_station: bool = False
    passed_unpaid: bool = False


# How a train's routes join others end to end (`Profile.set_role`).
SET_NONE = 0  # the route stands alone
SET_PERMANENT = 1  # joins a set; several sets may exist
SET_TEMPORARY = 2  # all such trains must be in one set, which holds a permanent one if sets are many


@dataclass(frozen=True, slots=True)
class PlanRules:
    """Rules that couple the routes of one company."""

    share_track: bool = False  # trains may use the same track (never within one route)
    stops_pay_once: bool = False  # a location pays once across all routes
    home_route: bool = False  # one route must include the home token
    intersect: bool = False  # the routes' stop sets form one connected graph
    max_bypass: int = 0  # passes through a blocked city allowed per round (all trains together)
    # hexes: when any route runs, one has both end stops in them (1870's connection run)
    connection: tuple[str, ...] = ()
    # (hexes, k): at most k routes have a stop in those hexes (18USA's Mexico)
    regions: tuple[tuple[tuple[str, ...], int], ...] = ()
    # names of items some route of the plan must use (a stop whose `StopRule.uses` names it,
    # counted): 1831's track rights. When no plan uses them all, the plan uses as many as it
    # can, then earns most; the plan names the ones left unused.
    must_use: tuple[str, ...] = ()
    # (hex, sides): the plan uses track at one of these sides of the hex at most, whatever the
    # trains (1822's two links from Merthyr Tydfil to Pontypool)
    exclusive_sides: tuple[tuple[str, tuple[int, ...]], ...] = ()
    # ids of trains whose routes, where they run track (two stops or more), visit no city
    # another of them visits (1822's local trains: each token once)
    apart_cities: tuple[str, ...] = ()


class Profile:
    """The generic profile (docs/rules.md (generic)); games subclass it and override hooks."""

    name: ClassVar[str] = "generic"
    description: ClassVar[str] = "Generic 18xx routes (1830 family): N, N+M, D, x/y, NE, NH trains"
    train_types: ClassVar[tuple[str, ...]] = ("N", "N+M", "D", "x/y", "NE", "NH", "rows")
    options: ClassVar[dict[str, str]] = {}
    # Token flags that let trains through a full city: a neutral token does; a flipped marker
    # (a closed company's, or a token of a company marked closed) keeps blocking unless the
    # title says otherwise (1860).
    tokens_letting_by: ClassVar[frozenset[str]] = frozenset({"neutral"})
    # Does a single track at a hex side join both tracks of a double track facing it (1831)?
    # Elsewhere lanes meet lane to lane.
    single_joins_double: ClassVar[bool] = False
    # May a route pass a junction (a node that is no stop) again, by other track? 18xx.games
    # checks repeated nodes only among a route's stops; the generic rules forbid it.
    junctions_pass_twice: ClassVar[bool] = False
    # May routes run on track marked ``ignore``? 18xx.games' flag keeps only its graph walk from
    # leaving a node by the path (1822's F33–E34 links, terminal); the generic rules never use it.
    runs_ignored_track: ClassVar[bool] = False
    # The state keys the profile reads and the kinds of value each may hold (`check_state`):
    # a wrong kind is a one-line error naming the key, before any rule reads it.
    state_types: ClassVar[dict[str, tuple[type, ...]]] = {}

    def __init__(self, position: Position | None = None):
        self.position = position

    # -- trains -------------------------------------------------------------------------
    def parse_train(self, spec: Any, where: str) -> TrainSpec:
        """Turn a train spec (shorthand string or rows object) into a `TrainSpec`."""
        return parse_spec(spec, where=where)

    def train_spec(self, pos: Position, train: Train) -> TrainSpec:
        """The rows `train` runs with in this position (a title may change them with the
        game's state, e.g. a leased or nationalized train); by default its own spec."""
        return train.spec

    def may_run(self, pos: Position, train: Train) -> str:
        """Why `train` may not run this round (e.g. no permit for its kind); "" if it may."""
        return ""

    def hex_subsidy(self, pos: Position, train: Train) -> int:
        """Subsidy per hex the train's route covers; a hex pays once across all the company's
        routes with such a subsidy."""
        return 0

    def set_role(self, pos: Position, train: Train) -> int:
        """Whether the train's routes form *sets* with others joined end to end (`SET_NONE`,
        `SET_PERMANENT` or `SET_TEMPORARY`). A set member is paid only for the ends of its set,
        plus `set_bonus` of those ends."""
        return SET_NONE

    def set_bonus(self, pos: Position, a: tuple[Hex, Node, Hex], b: tuple[Hex, Node, Hex]) -> int:
        """What a set with end stops `a` and `b` earns on top of the two stops' values. Each end
        is ``(hex, node, entry hex)``: the entry hex is the hex the set's track reaches the end
        from (the end's own hex when the route has no track beyond it). A set has no direction:
        the bonus is the same with `a` and `b` swapped (the solver asks each pair once)."""
        return 0

    # -- stops, per train -----------------------------------------------------------------
    def stop_rule(self, pos: Position, train: Train, hex_: Hex, node: Node) -> StopRule:
        """What `node` is to `train` (`StopRule`), under the generic rules: a stop pays its
        value in the phase times the train's multipliers (or the train's own value for it),
        counts unless marked optional, uses its visit cost; a city closed to the company
        (`Hex.full_for`) is passed only with a bypass, an offboard never; any stop may end a
        route; a city with the company's station anchors it. A title changes what differs,
        on the record this method returns (`StopRule._replace`)."""
        block = PASSABLE
        anchor = False
        if node.kind == "offboard":
            block = BLOCKS
        elif node.kind in ("city", "pass"):
            anchor = hex_.tokened_by(node.index, pos.company)
            if not anchor and hex_.full_for(node.index, pos.company, self.tokens_letting_by,
                                            pos.closed_companies):
                block = BYPASS
        if not node.is_stop:
            return StopRule(block=block, may_end=False, anchor=anchor)
        return StopRule(value=stop_value(pos, train, hex_, node),
                        count=OPTIONAL if node.route == "optional" else MANDATORY,
                        cost=node.visit_cost, block=block, anchor=anchor)

    def stop_columns(self, pos: Position, train: Train) -> StopColumns:
        """`stop_rule` of every node at once (`hexrail.rules.columns`): what the compiler
        reads. A title changing `stop_rule` changes these the same way, on the columns this
        method returns; the tests hold the two equal. One that does not is asked node by node
        (`stop_columns`, the function)."""
        return generic_columns(pos, train, self.tokens_letting_by)

    def pay_rule(self, pos: Position, train: Train) -> PayRule:
        """How `train`'s routes are paid beyond its rows (`PayRule`); by default bonuses count
        the visited stops and any paid stops do."""
        return PayRule()

    def tally_limits(self, pos: Position, train: Train) -> tuple[tuple[str, int, int], ...]:
        """``(name, at_least, at_most)``: a route of `train` is legal only if the tallies of its
        visited stops (`StopRule.tallies`) summed per name lie within these bounds. None by
        default."""
        return ()

    # -- routes ---------------------------------------------------------------------------
    def reentry_forbidden(self, pos: Position, hex_: Hex) -> bool:
        """May a route not leave this hex and come back into it?"""
        return False

    def hex_tags(self, pos: Position, train: Train, hex_: Hex) -> tuple[str, ...]:
        """Tags the stops of this hex carry for bonuses (icons by default)."""
        return hex_.icons

    def bonuses(self, pos: Position, train: Train) -> tuple[RouteBonus, ...]:
        """Per-route bonuses this train can earn (`Bonus`, `SetsBonus`, `HexBonus`, `EndBonus`,
        `TrackBonus`)."""
        return ()

    def span_bonuses(self, pos: Position, train: Train) -> tuple[OnceBonus, ...]:
        """Bonuses each paid once per round, to one route of the company: for running from one
        stop to another (`SpanBonus`), per visited stop of the longest route (`VisitBonus`),
        for visiting given stops (`VisitAllBonus`), a subsidy by the route's ends
        (`EndsSubsidy`)."""
        return ()

    def cyclic_runs(self, pos: Position, train: Train) -> tuple[CyclicRun, ...]:
        """Runs over fixed cyclic patterns the train may make instead of a route (`CyclicRun`);
        the solver weighs them against its routes. None by default."""
        return ()

    def plan_rules(self, pos: Position) -> PlanRules:
        return PlanRules()

    def track_group(self, pos: Position, train: Train) -> str:
        """The train's track group: routes of trains in different groups may share track
        (1822: E trains and the others); within a group they may not, unless the plan rules
        let all trains share track. One group by default."""
        return ""

    def revisits(self, pos: Position) -> tuple[Revisit, ...]:
        """Stops a route may run to twice, on a condition (`Revisit`). None by default."""
        return ()

    def choices(self, pos: Position) -> tuple[Choice, ...]:
        """The other ways the company may still set the position up before it runs, each as
        the position it makes (`Choice`; `hexrail.solve` weighs them with ``choices=True``).
        None by default: the position is as it runs."""
        return ()

    def facts(self, pos: Position) -> dict[str, Any]:
        """Facts the profile derives from the board and the plan reports (``Plan.stats["facts"]``),
        e.g. whether a conditional stop bonus applies; JSON-ready. None by default."""
        return {}


def state_bonuses(raw: Any, where: str = "state.route_bonuses") -> tuple[RouteBonus, ...]:
    """Route bonuses given in the 18xx.games export's normalised form (``title_state``'s
    ``route_bonuses``: ``{"id", "type", "count", "hexes" | "sets", "amount"}``):
    ``stop_in_hexes`` once (`SetsBonus` of one set) or ``per_hex`` (`HexBonus`),
    ``stops_in_all_sets`` (`SetsBonus`), ``end_stop_in_hex_doubled`` (`EndBonus`).

    >>> state_bonuses([{"id": "port", "type": "stop_in_hexes", "count": "once",
    ...                 "hexes": ["C14"], "amount": 20}])
    (SetsBonus(name='port', amount=20, sets=(('C14',),)),)
    """
    raw = raw or ()
    if not isinstance(raw, (list, tuple)):
        raise HexrailError("route bonuses must be a list", where=where)
    out: list[RouteBonus] = []
    for i, b in enumerate(raw):
        at = f"{where}[{i}]"
        if not isinstance(b, Mapping):
            raise HexrailError("a route bonus must be an object", where=at)
        kind = b.get("type")
        name = str(b.get("id", kind))

        def hexes(field: Any) -> tuple[str, ...]:
            if not isinstance(field, (list, tuple)) or not all(isinstance(h, str) for h in field):
                raise HexrailError("hexes must be a list of hex ids", where=at)
            return tuple(field)

        def amount() -> int:
            value = b.get("amount")
            if not isinstance(value, int) or isinstance(value, bool):
                raise HexrailError("amount must be an integer", where=at)
            return value

        if kind == "stop_in_hexes" and b.get("count", "once") == "once":
            out.append(SetsBonus(name, amount(), (hexes(b.get("hexes")),)))
        elif kind == "stop_in_hexes" and b.get("count") == "per_hex":
            out.append(HexBonus(name, amount(), hexes(b.get("hexes"))))
        elif kind == "stops_in_all_sets":
            sets = b.get("sets")
            if not isinstance(sets, (list, tuple)) or not sets:
                raise HexrailError("sets must be a non-empty list of hex lists", where=at)
            out.append(SetsBonus(name, amount(), tuple(hexes(s) for s in sets)))
        elif kind == "end_stop_in_hex_doubled":
            out.append(EndBonus(name, hexes(b.get("hexes"))))
        else:
            raise HexrailError(f"unknown route bonus type {kind!r} (count {b.get('count')!r})",
                               where=at)
    return tuple(out)


def per_position(helper: Callable[..., Any]) -> Callable[..., Any]:
    """A rules helper ``helper(pos, *args)`` that reads the position (its state, mostly),
    computed once per position and arguments: the hooks asked per node and train call such
    helpers thousands of times a solve. Its arguments must be hashable."""
    name = (helper.__module__, helper.__qualname__)

    @wraps(helper)
    def once(pos: Position, *args: Any) -> Any:
        return pos.derived((name, args), helper, *args)

    return once


def stop_columns(pos: Position, train: Train, profile: Profile) -> StopColumns:
    """The profile's stop rules for `train` as columns: its `Profile.stop_columns` where the
    class that gives them also gives its `Profile.stop_rule` (so the two say the same), else
    `stop_rule` asked node by node."""
    cls = type(profile)
    if _owner(cls, "stop_columns") is _owner(cls, "stop_rule"):
        return profile.stop_columns(pos, train)
    return rules_columns(pos, train, profile)


def _owner(cls: type, name: str) -> type:
    return next(c for c in cls.__mro__ if name in c.__dict__)


def stop_value(pos: Position, train: Train, hex_: Hex, node: Node) -> int:
    """A stop's value to `train` under the generic rules: the train's own value for it (the
    18xx.games ``train_revenue``), else its value in the phase times the train's multipliers."""
    if train.revenue_overrides:
        ref = f"{hex_.id}-{node.index}"
        if ref in train.revenue_overrides:
            return int(train.revenue_overrides[ref])
    return node.value(pos.phase.colors) * train.spec.factor(node.kind)


RUN_IGNORED = 4096


def _rewritten(h: Hex) -> Hex:
    paths = tuple(replace(p, ignore=False) for p in h.tile.paths)
    return replace(h, tile=replace(h.tile, paths=paths))


# Hexes with track marked ``ignore`` as a profile running it sees them: each is rewritten once,
# and stays the same object for `cached_track`.
_rewrite = ByIdentity(_rewritten, RUN_IGNORED)


def _running_ignored(h: Hex) -> Hex:
    return _rewrite(h) if any(p.ignore for p in h.tile.paths) else h


def decided(pos: Position, decisions: Mapping[str, str]) -> Position:
    """The position as a plan's ``choices`` set it up: the way its profile lists with those
    decisions (`Profile.choices`); the position itself for none."""
    wanted = {str(k): str(v) for k, v in decisions.items()}
    if not wanted or pos.meta.get("choices") == wanted:
        return pos  # (none, or the position they set up already: a plan's own)
    profile = get_profile(pos.rules.profile)(pos)
    check_state(pos, profile)
    for way in profile.choices(pos):
        if dict(way.decisions) == wanted:
            return way.decided()
    said = "; ".join(f"{k} {v}" for k, v in wanted.items())
    raise HexrailError(f"the company cannot decide {said} here", where="plan.choices")


def ruled(pos: Position) -> tuple[Position, Profile]:
    """The position as its rules profile runs it (every train with the spec the profile gives
    it) and the profile: the one entry to the rules for the solver, validator and oracle."""
    profile = get_profile(pos.rules.profile)(pos)
    check_state(pos, profile)
    trains = tuple(replace(t, spec=profile.train_spec(pos, t)) for t in pos.trains)
    changed = trains != pos.trains
    if changed:
        pos = pos.with_trains(trains)
    if profile.runs_ignored_track:
        hexes = tuple(map(_running_ignored, pos.hexes))
        if any(a is not b for a, b in zip(hexes, pos.hexes)):
            pos, changed = pos.unchecked(hexes=hexes), True
    if changed:
        profile = type(profile)(pos)
    return pos, profile


# The JSON kinds of `Profile.state_types` (state is frozen: objects are mappings, arrays tuples).
OBJECT = (Mapping,)
ARRAY = (tuple, list)
NUMBER = (int, float)
TEXT = (str,)
BOOL = (bool,)
_KIND_NAMES = {OBJECT: "an object", ARRAY: "an array", NUMBER: "a number", TEXT: "text",
               BOOL: "true or false", TEXT + ARRAY: "a hex id or an array",
               TEXT + OBJECT: "text or an object", OBJECT + ARRAY: "an object or an array"}


def check_state(pos: Position, profile: Profile) -> None:
    """Raise `HexrailError` naming ``state.<key>`` when a key the profile reads holds the wrong
    kind of value (`Profile.state_types`)."""
    for key, kinds in profile.state_types.items():
        value = pos.state.get(key)
        if value is None:
            continue
        if (isinstance(value, bool) and kinds != BOOL) or not isinstance(value, kinds):
            got = json.dumps(thaw(value), default=str)[:40]
            raise HexrailError(f"must be {_KIND_NAMES.get(kinds, 'of another kind')}, not {got}",
                               where=f"state.{key}")


_REGISTRY: dict[str, type[Profile]] = {}


def register(cls: type[Profile]) -> type[Profile]:
    """Class decorator: make a profile available by its name."""
    _REGISTRY[cls.name] = cls
    return cls


def get_profile(name: str) -> type[Profile]:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise HexrailError(f"unknown rules profile {name!r}; known: {sorted(_REGISTRY)}",
                           where="rules.profile") from None


def profiles() -> dict[str, type[Profile]]:
    return dict(_REGISTRY)


register(Profile)
