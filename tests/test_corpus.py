"""Real positions from 18xx.games (../shared/corpus) as external truth.

For every position of a title whose rules we cover — ``generic.jsonl`` (1830 and 1889 games,
the generic profile) and every title with a registered profile of its own — we must reach at
least the better of the players' and the 18xx.games auto-router's figures, prove it optimal, and
score the recorded routes exactly as 18xx.games did.

Every title of the corpus (1860, 1862, 18SJ) has its profile. Titles without one would join in
part: positions whose recorded routes all pay the plain sum of their stops follow the generic
route rules (`PLAIN_SUM_TITLES`).
"""

from __future__ import annotations

import json
import time

import pytest
from conftest import corpus_params, corpus_path, corpus_titles

from hexrail import solve
from hexrail.corpus import run_corpus
from hexrail.io.g18xx import plan_from_18xx_routes, position_from_18xx, rules_for_title
from hexrail.solve import _plan, choose, prepare
from hexrail.validate import check_plan


def recorded(data: dict, objective: str = "income") -> int:
    """max(players' figure, auto-router's rescored figure), with subsidies for income."""
    figures = []
    sub, ar = data["submitted"], data.get("auto_router") or {}
    if "revenue" in sub:
        figures.append(sub["revenue"] + (sub.get("subsidy", 0) if objective == "income" else 0))
    if "revenue_rescored" in ar and not ar.get("rescore_error"):
        figures.append(ar["revenue_rescored"] + (ar.get("subsidy", 0) if objective == "income" else 0))
    return max(figures)


def pays_plain_sum(data: dict) -> bool:
    """Every recorded route pays exactly the sum of its scored stops (no title bonus, no subsidy)."""
    if data["submitted"].get("error"):
        return False
    value = {}
    for h in data["hexes"]:
        for n in h.get("nodes", []):
            value[f"{h['id']}-{n['i']}"] = (n.get("train_revenue") or {}), n["revenue"]
    for source in ("submitted", "auto_router"):
        rec = data.get(source) or {}
        if rec.get("subsidy"):
            return False
        for r in rec.get("routes", []):
            plain = sum(value[s][0].get(r["train"], value[s][1]) for s in r["stops"])
            if plain != r["revenue"] or r.get("subsidy"):
                return False
    return True


# Titles whose route rules, apart from revenue bonuses, are the generic profile's.
PLAIN_SUM_TITLES = ("18SJ",)
# Titles whose every position its own module checks the same way (tests/test_g<title>.py),
# with what must stay out of the default run (18USA's heavy positions) in the slow sweep there.
OWN_MODULE_TITLES = ("1846", "1817", "18USA", "1822")


def covered_positions() -> list:
    """Params: generic.jsonl, titles with their own profile, plain-sum positions of the rest."""
    params = corpus_params("generic")
    for name in corpus_titles():
        if name == "generic" or name in OWN_MODULE_TITLES:
            continue
        if rules_for_title(name)[1]:
            params += corpus_params(name)
        elif name in PLAIN_SUM_TITLES:
            params += [p for p in corpus_params(name, pays_plain_sum) if p.values != (None,)]
    return params


POSITIONS = covered_positions()


@pytest.mark.parametrize("data", POSITIONS)
def test_optimum_at_least_recorded(data, warm_solver):
    pos = position_from_18xx(data)
    if data["title"] in ("1830", "1889"):
        assert pos.meta["rules_covered"] and pos.rules.profile == "generic"
    elif pos.meta["rules_covered"]:
        assert pos.rules.profile == data["title"]
    plan = solve(pos)
    assert plan.optimal
    assert plan.total >= recorded(data), (plan.total, recorded(data))
    by_revenue = solve(pos, objective="revenue")
    assert by_revenue.optimal and by_revenue.revenue >= recorded(data, "revenue")


@pytest.mark.parametrize("data", POSITIONS)
def test_players_routes_score_the_same(data):
    sub = data["submitted"]
    if sub.get("error"):
        pytest.skip(f"18xx.games could not rebuild the players' routes: {sub['error'][:80]}")
    report = check_plan(position_from_18xx(data), plan_from_18xx_routes(sub["routes"]))
    errors = [e for r in report.routes for e in r.errors]
    assert report.legal, errors
    assert (report.revenue, report.subsidy) == (sub["revenue"], sub.get("subsidy", 0))


@pytest.mark.parametrize("data", POSITIONS)
def test_auto_router_routes_score_the_same(data):
    ar = data.get("auto_router") or {}
    if "revenue_rescored" not in ar or ar.get("rescore_error"):
        pytest.skip("no rescored auto-router result")
    report = check_plan(position_from_18xx(data), plan_from_18xx_routes(ar["routes"]))
    errors = [e for r in report.routes for e in r.errors]
    assert report.legal, errors
    assert (report.revenue, report.subsidy) == (ar["revenue_rescored"], ar.get("subsidy", 0))


def every_position(sample: int = 10) -> list:
    """Params: every position of every corpus title, one in `sample` of each title in the
    default run and the others in the slow sweep."""
    params = []
    for name in corpus_titles():
        for k, p in enumerate(corpus_params(name)):
            if k % sample and p.values != (None,):
                p = pytest.param(*p.values, id=p.id, marks=(*p.marks, pytest.mark.slow))
            params.append(p)
    return params


@pytest.mark.parametrize("data", every_position())
def test_narrowed_search_equals_every_route_combined(data, warm_solver):
    """The solver narrows the walks to the routes a plan as good as a floor can hold, walks
    one train beside the others' routes, bounds arms and walks by their reach; its twin lists
    every legal route and combines them all. Where that listing takes under a second, both
    reach the same worth, proven."""
    pos = position_from_18xx(data)
    start = time.perf_counter()
    every = prepare(pos, narrow=False, deadline=start + 1.0)
    if not every.complete:
        pytest.skip("more routes than a second lists")
    twin = _plan(every, choose(every), start)
    assert twin.optimal
    plan = solve(pos)
    assert plan.optimal and plan.total == twin.total, (plan.total, twin.total)


def test_run_corpus_summary(corpus_dir, tmp_path, capsys, warm_solver):
    import io

    out = io.StringIO()
    json_out = tmp_path / "generic-results.jsonl"
    status = run_corpus([str(corpus_path() / "generic.jsonl")], out, progress=False,
                        json_out=str(json_out))
    text = out.getvalue()
    assert status == 0, text
    assert "no discrepancies" in text
    rows = {line.split()[0]: line.split() for line in text.splitlines() if line[:4] in ("1830", "1889")}
    assert set(rows) == {"1830", "1889"}
    for title, cells in rows.items():
        positions, solved, optimal = map(int, cells[1:4])
        assert positions == solved == optimal
        lower_players, lower_router = cells[4].split("/")[2], cells[5].split("/")[2]
        assert lower_players == lower_router == "0"
    results = [json.loads(line) for line in json_out.read_text().splitlines()]
    assert len(results) == sum(int(cells[1]) for cells in rows.values())
    assert capsys.readouterr().err == ""  # no progress bar when asked not to
