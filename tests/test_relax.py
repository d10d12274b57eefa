"""The model of track (`hexrail.search.relax`) against the oracle and the corpus.

Its bound must hold for every legal plan (else `solve` would call a plan proven that is not):
on random boards of every profile whose plans it bounds it is at least the oracle's optimum,
and on every shared position it admits at least the solver's proven optimum. A plan proven by
the model (its track walked for real) must be the oracle's optimum and pass the validator.
"""

from __future__ import annotations

import importlib
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from conftest import corpus_missing, corpus_positions, position_id
from hypothesis import given, settings
from hypothesis import strategies as st
from test_g1817 import boards_1817
from test_g1822 import boards_1822
from test_g1846 import boards_1846
from test_g18usa import boards_18usa
from test_oracle import BOARDS, BOARDS_1860, EXTRAS_BOARDS, MAX_ROUTES, ORACLE, _show

import hexrail
from hexrail.oracle import reference_solve
from hexrail.search import relax
from hexrail.search.routes import _track_view
from hexrail.solve import prepare
from hexrail.validate import check_plan

sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))
from boards import dense_board  # noqa: E402

solve_module = importlib.import_module("hexrail.solve")  # (`hexrail.solve` is the function)
routes_module = importlib.import_module("hexrail.search.routes")

ALL_BOARDS = st.one_of(BOARDS, EXTRAS_BOARDS, BOARDS_1860, boards_18usa(), boards_1817(),
                       boards_1846(), boards_1822())
OBJECTIVES = st.sampled_from(["income", "revenue"])


@pytest.fixture(scope="module", autouse=True)
def warm_up():
    hexrail.solve(hexrail.example_path("demo"))


def model_of(position, objective: str = "income", seconds: float | None = None):
    """``(prepared, (bound, found, chains))`` of the model in this process (one worker); the
    second None where the model does not bound the position's plans."""
    prep = prepare(position, objective=objective, narrow=True)
    if not prep.relaxable:
        return prep, None
    deadline = None if seconds is None else time.perf_counter() + seconds
    return prep, relax.relaxed_plan(*_job(prep), deadline, workers=1)


def _job(prep) -> tuple[relax.Track, list[relax.Route]]:
    tds = [td for td in prep.trains if not prep.profile.may_run(prep.position, td.train)]
    graph = next(iter(prep.graphs.values()))
    return relax.Track.of(graph), [relax.Route.of(td, _track_view(graph, td.junctions_twice)[-1])
                                   for td in tds]


def _value(plan: hexrail.Plan, objective: str) -> int:
    return plan.total if objective == "income" else plan.revenue


def test_the_model_bounds_every_plan_on_random_boards():
    """Bound ≥ the oracle's optimum, on the boards the model admits (most of them: counted)."""
    admitted = []

    @settings(ORACLE, max_examples=max(1, ORACLE.max_examples // 3))
    @given(doc=ALL_BOARDS, objective=OBJECTIVES)
    def run(doc, objective):
        text = _show(doc)
        prep, got = model_of(doc, objective)
        admitted.append(got is not None)
        if got is None:
            return
        bound, found, chains = got
        expected = reference_solve(doc, objective=objective, max_routes=MAX_ROUTES)
        assert found and bound >= expected.value, f"bound {bound}, oracle {expected.value}: {text}"
        assert len(chains) == sum(not prep.profile.may_run(prep.position, td.train)
                                  for td in prep.trains)

    run()
    assert sum(admitted) >= len(admitted) // 2, (sum(admitted), len(admitted))


class _Answered:
    """A model's run that has answered `got` (or never answers), as `relax.Apart` says so; it
    notes whether it was stopped."""

    def __init__(self, got, ready: bool = True) -> None:
        self.got, self.ready, self.stopped = got, ready, False

    def done(self) -> bool:
        return self.ready

    def answer(self, timeout=None):
        return self.got if self.ready else None

    def stop(self) -> None:
        self.stopped = True


@contextmanager
def _model_here(answer=None):
    """`solve` runs the model in this process, with one worker, or takes `answer` (a function
    of nothing giving an `_Answered`) for its run; each run is listed."""
    was = solve_module.relaxed_plan_beside
    runs = []

    def here(track, routes, deadline, workers=1):
        run = answer() if answer else _Answered(relax.relaxed_plan(track, routes, deadline, workers=1))
        runs.append(run)
        return run

    solve_module.relaxed_plan_beside = here
    try:
        yield runs
    finally:
        solve_module.relaxed_plan_beside = was


def test_a_plan_proven_by_the_model_is_the_oracles():
    """The plan `solve` takes from the model's track (`ModelBeside.take`): where proven (1
    board in 10 of these small mixed ones, whose rules the model leaves out most), the
    oracle's optimum; legal and paid as the validator pays it on all."""
    proven = []

    @settings(ORACLE, max_examples=max(1, ORACLE.max_examples // 5))
    @given(doc=ALL_BOARDS, objective=OBJECTIVES)
    def run(doc, objective):
        text = _show(doc)
        prep, got = model_of(doc, objective)
        if got is None:
            return
        beside = solve_module.ModelBeside(time.perf_counter(), None)
        beside.offer(prep)
        plan = beside.take(got)
        bound = got[0]
        expected = reference_solve(doc, objective=objective, max_routes=MAX_ROUTES)
        proven.append(plan.optimal)
        if plan.optimal:
            assert _value(plan, objective) == expected.value == bound, \
                f"solver {_value(plan, objective)}, oracle {expected.value}: {text}"
        else:
            assert _value(plan, objective) <= expected.value <= plan.upper_bound == bound, text
        report = check_plan(doc, plan, objective=objective)
        assert report.legal and report.revenue == plan.revenue, f"{report}\n{text}"

    run()
    assert sum(proven) >= len(proven) // 20, (sum(proven), len(proven))  # (14 of 135)


@contextmanager
def _model_at_once(answer=None):
    """`solve` starts the model at the first pause of its walks, which pause every few steps,
    in this process (`_model_here`)."""
    was = solve_module.RELAX_AFTER, routes_module.STEPS, routes_module.ARM_AFTER
    solve_module.RELAX_AFTER, routes_module.STEPS, routes_module.ARM_AFTER = 0.0, 16, 16
    try:
        with _model_here(answer) as runs:
            yield runs
    finally:
        solve_module.RELAX_AFTER, routes_module.STEPS, routes_module.ARM_AFTER = was


def test_where_the_model_proves_nothing_the_search_proves_the_plan():
    """A model's run that fails, finds nothing, or finds a plan whose track holds less than
    its bound: the search, going on, proves the plan (long trains on a large board)."""
    doc = dense_board(120, trains=("8", "8", "10"))
    best = hexrail.solve(doc)
    assert best.optimal and "model" not in best.stats
    chains = len(next(iter(prepare(doc).graphs.values())).chain_ends)
    nothing = [np.zeros(chains, np.bool_)] * 3
    for got in (None, (None, False, []), (5000, True, nothing)):
        with _model_at_once(lambda: _Answered(got)) as runs:
            plan = hexrail.solve(doc)
        assert len(runs) == 1
        assert plan.optimal and plan.total == plan.upper_bound == best.total
        assert plan.stats["model"] == {"bound": got and got[0], "proved": False}


def test_a_model_that_never_answers_costs_the_search_nothing_and_ends_with_it():
    """The search goes on beside a model that never answers (after waiting for it a while),
    proves the plan, and stops the model's run."""
    doc = dense_board(120, trains=("8", "8", "10"))
    best = hexrail.solve(doc)
    was = solve_module.MODEL_ALONE
    solve_module.MODEL_ALONE = 0.0
    try:
        with _model_at_once(lambda: _Answered(None, ready=False)) as runs:
            plan = hexrail.solve(doc)
    finally:
        solve_module.MODEL_ALONE = was
    assert plan.optimal and plan.total == best.total
    assert plan.stats["model"] == {"bound": None, "proved": False}
    assert len(runs) == 1 and runs[0].stopped


def test_a_model_proves_the_plan_in_the_midst_of_the_search():
    """A model whose track holds a plan worth its bound ends the search at its next pause:
    the plan is the search's optimum, said proven by the model."""
    doc = dense_board(30, seed=1, trains=("5", "8"))
    best = hexrail.solve(doc)
    prep, got = model_of(doc)
    assert got is not None and got[0] == best.total, "the model does not prove this board"
    with _model_at_once() as runs:
        plan = hexrail.solve(doc)
    assert len(runs) == 1
    assert plan.optimal and plan.total == best.total
    assert plan.stats["model"] == {"bound": best.total, "proved": True}


def test_a_search_cut_short_waits_for_the_models_answer():
    """A search that ended unproven (here cut at once) before the model had started: the
    model starts then (`ModelBeside.finish`), its bound bounds the plan, and its track's plan
    is among those compared."""
    doc = dense_board(30, seed=1, trains=("5", "8"))
    best = hexrail.solve(doc)
    with _model_at_once() as runs:  # (the walks pausing at once, to be cut)
        start = time.perf_counter()
        prep = prepare(doc, narrow=True, deadline=start)
        sel = solve_module.choose(prep)
        cut = solve_module._plan(prep, sel, start)
        assert prep.relaxable and not cut.optimal
        plan = solve_module.ModelBeside(start, None).finish(prep, sel)
    assert len(runs) == 1
    assert plan.optimal and plan.total == best.total
    assert plan.stats["model"] == {"bound": best.total, "proved": True}


def test_under_a_short_time_limit_the_model_starts_sooner_and_is_due_before_the_end():
    """Under a time limit of two seconds the model starts at a tenth of it, not after
    RELAX_AFTER (which would leave it less), and is told to answer a tenth before the end
    (`MODEL_MARGIN` at least), so that its answer, taken and walked, makes the plan in time.
    Without a limit it starts after RELAX_AFTER, with no deadline."""
    prep = prepare(dense_board(30, seed=1, trains=("5", "8")), narrow=True)
    deadlines = []
    with _model_here(lambda: _Answered(None, ready=False)) as runs:
        here = solve_module.relaxed_plan_beside

        def seen(track, routes, deadline, workers=1):
            deadlines.append(deadline)
            return here(track, routes, deadline, workers)

        solve_module.relaxed_plan_beside = seen
        start = time.perf_counter() - 0.2  # (a solve 0.2 s in: the model's time has come)
        beside = solve_module.ModelBeside(start, start + 2.0)
        beside.offer(prep)
        assert beside.at - start == pytest.approx(solve_module.RELAX_SHARE * 2.0)
        beside.paused()
        beside.stop()
        unlimited = solve_module.ModelBeside(start, None)
    assert len(runs) == 1 and runs[0].stopped
    assert start + 1.6 < deadlines[0] <= start + 2.0 - solve_module.MODEL_MARGIN
    assert unlimited.at - start == pytest.approx(solve_module.RELAX_AFTER)


def test_the_model_runs_in_a_process_of_its_own():
    """`relaxed_plan_apart` (``python -m hexrail.search.relax``) gives what the model in this
    process gives; a process that fails gives None."""
    prep, got = model_of(dense_board(40, trains=("5", "8")))
    track, routes = _job(prep)
    apart = relax.relaxed_plan_apart(track, routes, time.perf_counter() + 30, workers=2)
    assert apart is not None and apart[:2] == got[:2] and got[1]
    assert [c.shape for c in apart[2]] == [c.shape for c in got[2]]
    assert relax.relaxed_plan_apart(track, "not routes", time.perf_counter() + 30) is None


# -- the corpus -------------------------------------------------------------------------------

TITLES = ("generic", "18SJ", "1856", "1860", "1861", "1862", "1867", "1870", "1882", "1817",
          "1846", "18USA", "1822")
SAMPLE = 6  # positions per title in the default run


def _corpus(sample: int | None) -> list:
    reason = corpus_missing()
    if reason:
        return [pytest.param(None, None, marks=pytest.mark.skip(reason=reason), id="no-corpus")]
    out = []
    for title in TITLES:
        positions = corpus_positions(title)
        step = 1 if sample is None else max(1, len(positions) // sample)
        out += [pytest.param(data, title, id=f"{title}-{position_id(data)}")
                for data in positions[::step]]
    return out


def _bound_holds(data: dict) -> None:
    from hexrail.io.g18xx import position_from_18xx

    from test_g18usa import HEAVY, _key
    if _key(data) in HEAVY:
        pytest.skip("an 18USA heavy position: test_g18usa checks it (slow)")
    pos = position_from_18xx(data)
    prep, got = model_of(pos, seconds=5.0)  # (cut short, its bound still holds)
    if got is None:
        pytest.skip("the model does not bound this position's plans")
    plan = hexrail.solve(pos)
    assert plan.optimal and got[0] is not None and got[0] >= plan.total, (got[0], plan.total)


@pytest.mark.parametrize("data, title", _corpus(SAMPLE))
def test_the_model_bounds_the_proven_optimum_on_sampled_positions(data, title, warm_solver):
    _bound_holds(data)


@pytest.mark.slow
@pytest.mark.parametrize("data, title", _corpus(None))
def test_the_model_bounds_the_proven_optimum_on_every_position(data, title, warm_solver):
    _bound_holds(data)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_the_models_process_ends_with_its_caller(tmp_path):
    """A caller killed mid-model (a server's worker) leaves no model process running."""
    import os
    import signal
    import subprocess

    script = tmp_path / "caller.py"
    script.write_text(f"""
import sys, time
sys.path.insert(0, {str(Path(__file__).parents[1] / "benchmarks")!r})
from boards import dense_board
from hexrail.solve import prepare
from hexrail.search import relax
from hexrail.search.routes import _track_view
prep = prepare(dense_board(200, trains=("8", "8", "10")), narrow=True)
graph = next(iter(prep.graphs.values()))
routes = [relax.Route.of(td, _track_view(graph, td.junctions_twice)[-1]) for td in prep.trains]
print("ready", flush=True)
relax.relaxed_plan_apart(relax.Track.of(graph), routes, time.perf_counter() + 120)
""")
    caller = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert caller.stdout.readline().strip() == "ready"

    def children() -> list[int]:
        out = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == caller.pid:
                out.append(int(stat.parent.name))
        return out

    deadline = time.monotonic() + 30
    while not children() and time.monotonic() < deadline:
        time.sleep(0.05)
    model = children()
    assert model, "the model's process never started"
    time.sleep(1.0)  # (the model loaded and solving)
    os.kill(caller.pid, signal.SIGKILL)
    caller.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and Path(f"/proc/{model[0]}").exists():
        time.sleep(0.05)
    assert not Path(f"/proc/{model[0]}").exists(), "the model's process outlived its caller"
