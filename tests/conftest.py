"""Shared test helpers: where the 18xx.games corpus lives, and a solver warm-up once per session.

The corpus (real positions exported from 18xx.games, ``../shared/corpus/*.jsonl``) is external
truth read at run time, never copied into the repository. Its directory is ``$HEXRAIL_CORPUS``
when set, else ``<repo root>/../shared/corpus``; tests that need it skip with the reason when it
is absent.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def corpus_path() -> Path:
    """The corpus directory (it may not exist)."""
    env = os.environ.get("HEXRAIL_CORPUS")
    return Path(env) if env else REPO_ROOT.parent / "shared" / "corpus"


def corpus_missing() -> str | None:
    """Why corpus tests must skip, or None when the corpus is there."""
    path = corpus_path()
    if not path.is_dir() or not any(path.glob("*.jsonl")):
        return f"18xx.games corpus not found at {path} (set HEXRAIL_CORPUS to its directory)"
    return None


@cache
def corpus_lines(name: str) -> tuple[str, ...]:
    """The raw lines of ``<corpus>/<name>.jsonl`` (empty when absent)."""
    path = corpus_path() / f"{name}.jsonl"
    if not path.exists():
        return ()
    return tuple(line for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


@cache
def corpus_positions(name: str) -> tuple[dict, ...]:
    return tuple(json.loads(line) for line in corpus_lines(name))


def corpus_titles() -> tuple[str, ...]:
    """Names of the corpus files (``generic``, ``1860``, ...), sorted."""
    path = corpus_path()
    return tuple(sorted(p.stem for p in path.glob("*.jsonl"))) if path.is_dir() else ()


def position_id(data: dict) -> str:
    """A readable test id: title, fixture and action index."""
    return f"{data['title']}-{str(data['fixture']).removesuffix('.json')}-{data['action_index']}"


def corpus_params(name: str, keep=lambda data: True) -> list:
    """pytest params over the positions of one corpus file, or one skipped param when absent."""
    reason = corpus_missing()
    if reason:
        return [pytest.param(None, marks=pytest.mark.skip(reason=reason), id="no-corpus")]
    params = [pytest.param(data, id=position_id(data)) for data in corpus_positions(name) if keep(data)]
    return params or [pytest.param(None, marks=pytest.mark.skip(reason=f"no positions in {name}"),
                                   id="empty")]


def named_params(ids: dict[str, tuple[str, ...]], default: set[str]) -> list:
    """pytest params over the corpus positions of these ids (by title): those in `default` in
    the default run, the others in the slow sweep."""
    out = []
    for title, wanted in ids.items():
        for param in corpus_params(title, lambda data, wanted=wanted: position_id(data) in wanted):
            data = param.values[0]
            if data is not None and position_id(data) not in default:
                param = pytest.param(data, id=param.id, marks=(*param.marks, pytest.mark.slow))
            out.append(param)
    return out


def route_keys(found) -> set[tuple[int, tuple[int, ...]]]:
    """Each route of a walk (`Candidates`) by its worth and its chains, whichever way round the
    walk wrote it."""
    out = set()
    for i in range(len(found)):
        chains = tuple(found.route_chains(i).tolist())
        back = tuple(~c for c in reversed(chains))
        out.add((int(found.value()[i]), min(chains, back)))
    return out


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The corpus directory; skips the test when it is absent."""
    reason = corpus_missing()
    if reason:
        pytest.skip(reason)
    return corpus_path()


@pytest.fixture(scope="session")
def warm_solver() -> float:
    """Load the compiled kernels once per session (numba's disk cache); the seconds it took."""
    from hexrail.io.g18xx import warm_up

    return warm_up()


@pytest.fixture(scope="session", autouse=True)
def kernels_on_disk(warm_solver) -> None:
    """Before any test, the kernels are compiled into numba's disk cache (on a fresh clone
    this session compiles them): a command run in a subprocess then loads them, quickly and
    without the first-run notice on its stderr (`hexrail.compiled`)."""


def random_boards(examples: int, *checks):
    """Hypothesis settings of a random-board test: `examples` boards, drawn deterministically;
    with ``HEXRAIL_ORACLE_RANDOM=1`` new ones, ``HEXRAIL_ORACLE_SCALE`` times as many (as
    `test_oracle` draws with ``HEXRAIL_ORACLE_EXAMPLES``). `checks`: health checks left off
    beside the slow and large data ones."""
    from hypothesis import HealthCheck, settings

    fresh = os.environ.get("HEXRAIL_ORACLE_RANDOM", "") == "1"
    scale = float(os.environ.get("HEXRAIL_ORACLE_SCALE", "1")) if fresh else 1.0
    return settings(max_examples=max(1, round(examples * scale)), deadline=None,
                    derandomize=not fresh, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, *checks])


def line_hexes(cells: list[str], tokens: dict | None = None) -> dict:
    """Hexes A1, A3, ... of a flat map joined north-south. `cells` are node parts in tile
    notation (``""`` for plain track); `tokens` maps hex ids to slot lists (default: X in A1)."""
    hexes = {}
    for k, node in enumerate(cells):
        sides = [s for s, ok in ((3, k > 0), (0, k < len(cells) - 1)) if ok]
        if node:
            code = ";".join([node] + [f"path=a:{s},b:_0" for s in sides])
        else:
            code = f"path=a:{sides[0]},b:{sides[1]}"
        hexes[f"A{2 * k + 1}"] = {"tile": code}
    for hex_id, slots in (tokens or {"A1": ["X"]}).items():
        hexes[hex_id]["tokens"] = slots
    return hexes


def solve_checked(doc: dict, *, max_routes: int = 200_000):
    """Solve; the plan is optimal, legal and scored alike by the validator, and the oracle
    reaches the same optimum (income, then revenue)."""
    import hexrail
    from hexrail.oracle import reference_solve
    from hexrail.validate import check_plan

    plan = hexrail.solve(doc)
    text = json.dumps(doc)
    assert plan.optimal, text
    report = check_plan(doc, plan)
    assert report.legal, f"{report}\n{text}"
    assert (report.revenue, report.subsidy) == (plan.revenue, plan.subsidy), f"{report}\n{text}"
    best = reference_solve(doc, max_routes=max_routes)
    assert (best.value, best.revenue) == (plan.total, plan.revenue), text
    # items the plan must use (track rights): as many used as the oracle manages, the same
    # ones named unused by all three
    assert len(best.unused) == len(plan.unused) and report.unused == plan.unused, text
    return plan
