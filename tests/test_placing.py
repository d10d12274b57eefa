"""The walk's placing of a route's stops in rows sharing a kind (`search._kernels.select_placed`)
against its slow twin, every placing tried (`search.rows.placed_pay`), on random rows and
stops: the same feasibility and the same pay (objective, then revenue)."""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from hexrail.graph.trains import _placed_rows
from hexrail.model.trains import UNLIMITED, Row, TrainSpec
from hexrail.rules.columns import COUNT_CODE, FIRST, KIND_INDEX, MANDATORY, OPTIONAL
from hexrail.search import _kernels as K
from hexrail.search.rows import placed_pay

KINDS = sorted(KIND_INDEX, key=KIND_INDEX.get)


@st.composite
def placings(draw):
    rows = []
    for _ in range(draw(st.integers(1, 3))):
        kinds = draw(st.sets(st.sampled_from(KINDS), min_size=1, max_size=3))
        visit = draw(st.sampled_from([0, 1, 2, 3, 4, UNLIMITED]))
        pay = draw(st.sampled_from([0, 1, 2, 3, UNLIMITED]))
        rows.append(Row(kinds=frozenset(kinds), pay=pay, visit=visit))
    n = draw(st.integers(0, 7))
    kidx = np.array([KIND_INDEX[draw(st.sampled_from(KINDS))] for _ in range(n)], np.int8)
    cost = np.array([draw(st.sampled_from([1, 1, 1, 2, 0])) for _ in range(n)], np.int64)
    count = np.array([COUNT_CODE[draw(st.sampled_from([MANDATORY, MANDATORY, OPTIONAL, FIRST]))]
                      for _ in range(n)], np.int8)
    value = np.array([draw(st.integers(0, 6)) * 10 for _ in range(n)], np.int64)
    subsidy = np.array([draw(st.sampled_from([0, 0, 10])) for _ in range(n)], np.int64)
    return TrainSpec(rows=tuple(rows)), kidx, cost, count, value, subsidy


@settings(max_examples=500, deadline=None)
@given(case=placings(), income=st.booleans())
def test_walk_placing_is_the_best_placing(case, income):
    spec, kidx, cost, count, value, subsidy = case
    n = len(kidx)
    stops = list(range(n))
    slow = placed_pay(spec, stops, kidx, cost, count, value, subsidy, income)
    rows = _placed_rows(spec.rows, kidx, cost)  # (the board's stops: this route's)
    assume(rows)  # (loads too many to weigh: placed afterwards, by `placed_pay` alone)
    visit, pay = rows["row_visit"], rows["row_pay"]
    states = int(np.prod([(v + 1 if v >= 0 else 1) * (p + 1 if p >= 0 else 1)
                          for v, p in zip(visit, pay)]))
    weight = value + (subsidy if income else 0)
    paid = np.zeros(n, np.bool_)
    ok = K.select_placed(np.arange(n, dtype=np.int64), n, kidx, cost, count, weight, value,
                         rows["row_kinds"], visit, pay, paid, np.empty(n, np.int64),
                         np.empty((2, states), np.int64), np.empty((max(n, 1), states), np.int8))
    assert ok == (slow is not None)
    if slow is None:
        return
    got = (int(weight[paid].sum()), int(value[paid].sum()))
    slow_paid = list(slow[0])
    want = (int(weight[slow_paid].sum()), int(value[slow_paid].sum()))
    assert got == want
