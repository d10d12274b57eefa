"""Paid stops by placing a route's stops in the train's rows, one row each.

The walk chooses a route's paid stops by kinds of rows (`_kernels.select_paid`): the stops it
counts must fit the rows' visit units, the stops it pays their pay caps, each checked on its
own. That is the rule wherever no two rows hold one kind, or every row pays all it visits. It is
not where they do and one pays fewer than it visits (`TrainSpec.rows_share_kinds`; 1867's
trains as rows: cities, offboards and towns in a row paying all, towns beyond them in a row
paying none). There every stop goes to one row, and a row pays only its own best stops: a town
in the paying row leaves no room for a city, which no other row holds. So what a route is paid
is at most the walk's worth of it, and may be less.

Where the row paying nothing cannot be filled and the others pay all they visit (1867's shape),
the walk counts its stops as optional in the paying rows, which is exact
(`graph.trains._free_riders`). Otherwise the walk places each route's stops in the rows itself
(`_kernels.select_placed`, exact) where the rows' loads are few enough to weigh
(`graph.trains.PLACE_STATES`). For the other such trains the solver places the chosen routes'
stops here, every way the rows allow, and pays the best placing (`placed_pay`). A route paid
less than the walk said leaves the plan unproven: the walk's worth of the plan stays its bound
(`hexrail.solve`).
"""

from __future__ import annotations

import numpy as np

from hexrail.model.trains import UNLIMITED, TrainSpec
from hexrail.rules.columns import COUNT_CODE, FIRST, KIND_INDEX, MANDATORY, OPTIONAL

_KIND_NAME = {i: k for k, i in KIND_INDEX.items()}


def placed_pay(spec: TrainSpec, stops: list[int], kidx: np.ndarray, cost: np.ndarray,
               count: np.ndarray, value: np.ndarray, subsidy: np.ndarray,
               income: bool) -> tuple[tuple[int, ...], int, int] | None:
    """The best placing of the route's `stops` (node ids) in the rows: ``(paid, revenue,
    subsidy)``, each row paying its best ``row.pay`` stops (best for the objective, then
    revenue), or None if the mandatory stops fit no placing. Optional stops may stay
    uncounted; a FIRST stop left out leaves every OPTIONAL one out (1860)."""
    rows = spec.rows
    load = [0] * len(rows)
    members: list[list[int]] = [[] for _ in rows]
    best: tuple[tuple[int, int], tuple[int, ...], int, int] | None = None

    def worth(s: int) -> tuple[int, int]:
        return int(value[s]) + (int(subsidy[s]) if income else 0), int(value[s])

    def settle() -> None:
        nonlocal best
        placed = {s for m in members for s in m}
        if any(count[s] == COUNT_CODE[FIRST] and s not in placed for s in stops) and any(
                count[s] == COUNT_CODE[OPTIONAL] and s in placed for s in stops):
            return
        paid = []
        for row, mine in zip(rows, members):
            paid += sorted(mine, key=worth, reverse=True)[:row.pay]
        revenue = sum(int(value[s]) for s in paid)
        earned = sum(int(subsidy[s]) for s in paid)
        score = (revenue + earned if income else revenue, revenue)
        if best is None or score > best[0]:
            best = (score, tuple(sorted(paid)), revenue, earned)

    def place(i: int) -> None:
        if i == len(stops):
            settle()
            return
        s = stops[i]
        if count[s] != COUNT_CODE[MANDATORY]:
            place(i + 1)
        kind = _KIND_NAME[int(kidx[s])]
        for r, row in enumerate(rows):
            if kind in row.kinds and (row.visit >= UNLIMITED or load[r] + cost[s] <= row.visit):
                load[r] += int(cost[s])
                members[r].append(s)
                place(i + 1)
                members[r].pop()
                load[r] -= int(cost[s])

    place(0)
    return None if best is None else best[1:]
