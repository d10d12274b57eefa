"""1860 (Isle of Wight): N+M trains, halts paid as subsidies, one bypass per round.

The rules, as docs/rules.md states them, seen through the profile hooks.

**Trains.** An N+M train counts every city and offboard it visits (at most N) and may count towns
and halts in an allowance of M plus whatever of N the cities left unused. As rows, whose Hall
capacities the search checks: ``[{town, halt}: M] + [{city, offboard, town, halt}: N]``. Towns may
be passed without counting (optional stops) unless towns may not be skipped (``no_skip_towns``
or ``original_game``), when each town passed counts; under nationalization the best towns fill
the allowance before any halt (`Game1860.town_count`).

**Halts** pay no revenue; each counted halt pays ``halt_subsidy`` (10) to the treasury; a route
never starts or ends at one. The search decides how many halts each train counts, for the
objective: revenue + subsidy (default) or revenue alone, where counting a halt is worth nothing.

**Plan rules.** One train per round may pass through one city full of other companies' tokens
(flipped tokens of bankrupt companies and neutral tokens never block:
`Game1860.tokens_letting_by`; elsewhere flipped markers block); one route includes the home
token; the routes' stops form one connected graph; no route leaves a hex and comes back
(unless ``re_enter_hexes``).

**State** (`Position.state`, filled from the 18xx.games ``title_state``; options also from
``Position.rules.options``, filled from ``optional_rules``):

- ``ignore_halts``: halts count for nothing (no subsidy); they still may not end a route.
- ``nationalization``: trains run as N trains: towns and halts share only the unused city
  allowance; the best towns fill it, towns beyond it are passed without pay, and a halt counts
  only in allowance the towns passed leave free (18xx.games ``use_all_towns``; with
  ``no_skip_towns`` every town passed must fit and counts).
- ``insolvent``: the company runs a train leased from the bank (also recognised by a train whose
  ``train_info`` owner is not the company). It counts every stop within N (no town allowance),
  earns 40 + 20 per stop counted and no halt subsidy. With ``original_insolvency`` it runs as an
  N+M train for half the normal revenue (exact: every 1860 value is even) and full subsidies.

**Rows from the state.** A train's rows depend on the state (nationalized and leased trains lose
the M allowance), and the 18xx.games export gives the engine's distance
(``[{city, offboard}: N] + [{town, halt}: M, visit 99]``: no shared allowance); `Game1860.train_spec`
gives the rows a train runs with in a position, and the solver, validator and oracle ask it.

>>> spec = Game1860().parse_train("3+2", "train")
>>> [(sorted(r.kinds), r.pay, r.visit) for r in spec.rows]
[(['halt', 'town'], 2, 2), (['city', 'halt', 'offboard', 'town'], 3, 3)]
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

import numpy as np

from hexrail.errors import HexrailError
from hexrail.model.frozen import FrozenMap
from hexrail.model.position import Hex, Position, Train
from hexrail.model.tile import Node
from hexrail.model.trains import ALL_KINDS, UNLIMITED, Row, TrainSpec, parse_spec
from hexrail.rules.base import FIRST, MANDATORY, OPTIONAL, Bonus, PlanRules, Profile, StopRule, register
from hexrail.rules.base import NUMBER, OBJECT
from hexrail.rules.columns import COUNT_CODE, KIND_INDEX, StopColumns

TOWN_KINDS = frozenset({"town", "halt"})
CITY_KINDS = frozenset({"city", "offboard"})

HALT_SUBSIDY = 10  # per counted halt, unless the state says otherwise
LEASE_BASE = 40  # a leased train's revenue: 40 + 20 per stop counted
LEASE_PER_STOP = 20


def _truthy(value: Any) -> bool:
    return value not in (None, False, 0, "0", "", "false")


def rows_1860(n: int, m: int) -> tuple[Row, ...]:
    """The rows of an N+M train: towns and halts share M plus the cities' unused allowance.

    >>> [(sorted(r.kinds), r.pay) for r in rows_1860(2, 0)]
    [(['city', 'halt', 'offboard', 'town'], 2)]
    """
    every = (Row(ALL_KINDS, n, n),)
    return ((Row(TOWN_KINDS, m, m),) + every) if m else every


def train_size(spec: TrainSpec, where: str = "train") -> tuple[int, int]:
    """``(N, M)`` of an 1860 train, from any of the row shapes it arrives in.

    Accepted: the shape of `rows_1860`; the 18xx.games distance
    ``[{city, offboard}: N] + [{town, halt}: pay M, visit any]``; a plain N train (one row of
    every kind).
    """
    rows = spec.rows
    if any(r.multiplier != 1 for r in rows) or spec.multiplier != 1 or spec.hexes:
        raise HexrailError("1860 trains are N+M trains (2+1 ... 9+5), without multipliers or hex "
                           "limits", where=where)
    def pays_all(row: Row) -> bool:  # an N row: pays all it visits (pay N or unlimited)
        return row.visit < UNLIMITED and row.pay in (row.visit, UNLIMITED)

    if len(rows) == 1 and rows[0].kinds == ALL_KINDS and pays_all(rows[0]):
        return rows[0].visit, 0
    if len(rows) == 2:
        cities = [r for r in rows if "city" in r.kinds]
        towns = [r for r in rows if "city" not in r.kinds]
        if len(cities) == 1 and len(towns) == 1:
            c, t = cities[0], towns[0]
            city_ok = c.kinds in (CITY_KINDS, ALL_KINDS) and pays_all(c)
            # the engine writes the town row as pay M of visit 99 (it checks the towns itself)
            town_ok = t.kinds == TOWN_KINDS and (pays_all(t) or c.kinds == CITY_KINDS)
            m = t.visit if t.pay >= UNLIMITED else t.pay
            if city_ok and town_ok and m < UNLIMITED:
                return c.visit, m
    shown = " + ".join(f"{'/'.join(sorted(r.kinds))} {r.pay}/{r.visit}" for r in rows)
    raise HexrailError(f"1860 trains are N+M trains (2+1 ... 9+5); rows {shown} are not one",
                       where=where)


@register
class Game1860(Profile):
    """1860 (Isle of Wight), docs/rules.md (1860)."""

    state_types: ClassVar[dict[str, tuple[type, ...]]] = {
        "train_info": OBJECT, "halt_subsidy": NUMBER,
    }

    name = "1860"
    description = ("1860 Isle of Wight: N+M trains sharing the city allowance, optional towns, "
                   "halts paying subsidies, one bypass per round, home route, intersecting routes")
    train_types = ("N+M",)
    options: ClassVar[dict[str, str]] = {
        "re_enter_hexes": "routes may leave a hex and enter it again (over other track)",
        "no_skip_towns": "every town a route passes counts (first-edition rule)",
        "original_insolvency": "a leased train runs as N+M for half revenue, with full subsidies",
        "original_game": "first-edition rules: original insolvency and no skipping towns",
    }
    # bankrupt companies' flipped tokens never block here, unlike in other titles
    tokens_letting_by: ClassVar[frozenset[str]] = frozenset({"neutral", "flipped"})
    # Position.state keys read (the 18xx.games title_state): ignore_halts, nationalization,
    # insolvent, use_all_towns, no_skip_towns, original_insolvency, simplified_insolvency,
    # halt_subsidy; and train_info[train id].owner for leased trains.

    # -- reading the position -------------------------------------------------------------
    @staticmethod
    def flag(pos: Position, name: str) -> bool:
        """An option or state flag, from ``state`` or ``rules.options`` (either may carry it)."""
        if _truthy(pos.state.get(name)) or _truthy(pos.rules.options.get(name)):
            return True
        implied_by_original = ("original_insolvency", "no_skip_towns")
        return name in implied_by_original and (_truthy(pos.state.get("original_game"))
                                                or _truthy(pos.rules.options.get("original_game")))

    def leased(self, pos: Position, train: Train) -> bool:
        """Does `train` belong to the bank (an insolvent company's leased train)?"""
        info = pos.state.get("train_info") or FrozenMap()
        owner = (info.get(train.id) or FrozenMap()).get("owner")
        return self.flag(pos, "insolvent") or (owner is not None and owner != pos.company)

    def lease_rules(self, pos: Position, train: Train) -> str:
        """``""`` for an own train; ``"new"`` (40 + 20 per stop) or ``"original"`` (half
        revenue) for a leased one."""
        if not self.leased(pos, train):
            return ""
        if self.flag(pos, "simplified_insolvency"):
            raise HexrailError("the simplified insolvency option (fixed amounts per train) is not "
                               "implemented", where=f"train {train.id}")
        return "original" if self.flag(pos, "original_insolvency") else "new"

    def town_count(self, pos: Position) -> str:
        """How a town passed counts: `MANDATORY` when towns may not be skipped (the route is
        illegal if they do not fit); `FIRST` under nationalization (the 18xx.games
        ``use_all_towns``): the best towns fill the allowance before any halt and the rest are
        passed unpaid; else `OPTIONAL`, chosen freely with the halts."""
        if self.flag(pos, "no_skip_towns"):
            return MANDATORY
        if self.flag(pos, "nationalization") or self.flag(pos, "use_all_towns"):
            return FIRST
        return OPTIONAL

    def halts_count(self, pos: Position) -> bool:
        """Do halts count at all (not after the Southern forms)?"""
        return not self.flag(pos, "ignore_halts")

    # -- trains ---------------------------------------------------------------------------
    def parse_train(self, spec: Any, where: str) -> TrainSpec:
        """An N+M train from ``"3+2"``, a rows object, the engine's distance list or a spec."""
        if isinstance(spec, (list, tuple)):  # the 18xx.games distance rows
            spec = {"rows": list(spec)}
        parsed = parse_spec(spec, where=where)
        n, m = train_size(parsed, where)
        return replace(parsed, rows=rows_1860(n, m))

    def train_spec(self, pos: Position, train: Train) -> TrainSpec:
        """The rows `train` runs with in `pos`: N+M, or N alone for nationalized and (new-rules)
        leased trains, whose towns and halts share only the cities' unused allowance."""
        n, m = train_size(train.spec, f"train {train.id}")
        if self.flag(pos, "nationalization") or self.lease_rules(pos, train) == "new":
            m = 0
        return replace(train.spec, rows=rows_1860(n, m))

    # -- stops ----------------------------------------------------------------------------
    def stop_rule(self, pos: Position, train: Train, hex_: Hex, node: Node) -> StopRule:
        """Halts pay only their subsidy and end no route; towns count as `town_count` says; a
        leased train (new rules) earns 20 a stop, halts included, and no subsidy."""
        rule = super().stop_rule(pos, train, hex_, node)
        if not node.is_stop:
            return rule
        lease = self.lease_rules(pos, train)
        value, subsidy = rule.value, 0
        if node.kind == "halt":
            value = LEASE_PER_STOP if lease == "new" and self.halts_count(pos) else 0
            if lease != "new" and self.halts_count(pos):
                subsidy = int(pos.state.get("halt_subsidy", HALT_SUBSIDY))
        elif lease == "new":
            value = LEASE_PER_STOP
        elif lease == "original":
            if value % 2:
                # Half a route's total is the sum of half of each stop only for even values
                # (every 1860 value is a multiple of 10). The rule book rounds an odd total up,
                # 18xx.games (integer division) down; per-stop values can express neither.
                raise HexrailError(f"a leased train (original insolvency) pays half a route's "
                                   f"revenue; stop value {value} is odd, which per-stop values "
                                   "cannot halve exactly", where=f"hex {hex_.id} node {node.index}")
            value //= 2
        if node.kind == "halt":
            return rule._replace(value=value, subsidy=subsidy, count=OPTIONAL, may_end=False)
        if node.kind == "town":
            return rule._replace(value=value, count=self.town_count(pos))
        return rule if value == rule.value else rule._replace(value=value)

    def stop_columns(self, pos: Position, train: Train) -> StopColumns:
        cols = super().stop_columns(pos, train)
        lease = self.lease_rules(pos, train)
        halt = cols.stop & (cols.kind == KIND_INDEX["halt"])
        rest = cols.stop & ~halt
        if lease == "new":
            cols.value[rest] = LEASE_PER_STOP
        elif lease == "original":
            odd = np.flatnonzero(rest & (cols.value % 2 != 0))
            if len(odd):
                hex_id, _, index = cols.refs[odd[0]].rpartition("-")
                raise HexrailError(f"a leased train (original insolvency) pays half a route's "
                                   f"revenue; stop value {cols.value[odd[0]]} is odd, which "
                                   "per-stop values cannot halve exactly",
                                   where=f"hex {hex_id} node {index}")
            cols.value[rest] //= 2
        halts = self.halts_count(pos)
        cols.value[halt] = LEASE_PER_STOP if lease == "new" and halts else 0
        if lease != "new" and halts:
            cols.subsidy[halt] = int(pos.state.get("halt_subsidy", HALT_SUBSIDY))
        cols.count[halt] = COUNT_CODE[OPTIONAL]
        cols.may_end[halt] = False
        cols.count[cols.stop & (cols.kind == KIND_INDEX["town"])] = COUNT_CODE[self.town_count(pos)]
        return cols

    # -- routes and plans -----------------------------------------------------------------
    def reentry_forbidden(self, pos: Position, hex_: Hex) -> bool:
        return not self.flag(pos, "re_enter_hexes")

    def bonuses(self, pos: Position, train: Train) -> tuple[Bonus, ...]:
        if self.lease_rules(pos, train) == "new":
            return (Bonus("leased train", LEASE_BASE, ()),)
        return ()

    def plan_rules(self, pos: Position) -> PlanRules:
        return PlanRules(home_route=True, intersect=True, max_bypass=1)
