"""hexrail bench: built-in algorithms, plugins (callable and external command), reports, plots,
the local process pool and a real Dask distributed cluster, on a tiny corpus of hand-made
positions (tests/bench_positions)."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest

from hexrail.bench import bench, parse_spec
from hexrail.bench.algorithms import TooBig, solve_oracle
from hexrail.bench.report import best_known, conflicts
from hexrail.cli import main
from hexrail.errors import HexrailError
from hexrail.io.native import load_position

POSITIONS = sorted((Path(__file__).parent / "bench_positions").glob("*.json"))
# the optimum of each tiny position (income), checked against the oracle below
OPTIMA = {"demo_6_33.json": 330, "fork.json": 280, "line.json": 60}

CALLABLE = '''
from hexrail import solve

def solve_it(position, time_limit):
    return solve(position, time_limit)
'''

COMMAND = '''
import sys
from hexrail import solve
from hexrail.io.native import position_from_json
import json

position = position_from_json(json.load(sys.stdin))
sys.stdout.write(solve(position).dumps())
'''


def _by_case(doc: dict, algorithm: str) -> dict[str, dict]:
    return {Path(r["source"].rsplit(":", 1)[0]).name: r for r in doc["runs"] if r["algorithm"] == algorithm}


@pytest.fixture(scope="module")
def builtins_doc() -> dict:
    return bench(POSITIONS, ["exact", "greedy", "cpsat", "oracle"])


def test_tiny_corpus_is_small():
    assert 1 <= len(POSITIONS) <= 6
    assert {p.name for p in POSITIONS} == set(OPTIMA)


@pytest.mark.parametrize("algorithm", ["exact", "cpsat", "oracle"])
def test_exact_algorithms_reach_the_optimum(builtins_doc, algorithm):
    runs = _by_case(builtins_doc, algorithm)
    for name, optimum in OPTIMA.items():
        r = runs[name]
        assert r["status"] == "ok", r.get("error")
        assert r["optimal"] and r["value"] == optimum == r["claimed"]


def test_greedy_is_legal_and_never_above_the_optimum(builtins_doc):
    s = builtins_doc["summary"]["greedy"]
    assert s["solved"] == len(POSITIONS)
    for name, r in _by_case(builtins_doc, "greedy").items():
        assert r["value"] <= OPTIMA[name]
    assert s["gap_max"] == max(OPTIMA[n] - r["value"] for n, r in _by_case(builtins_doc, "greedy").items())


def test_summary_fields(builtins_doc):
    s = builtins_doc["summary"]["exact"]
    assert s["positions"] == s["solved"] == s["optimal"] == len(POSITIONS)
    assert s["gap_max"] == 0 and s["at_best"] == len(POSITIONS)
    assert 0 < s["p50"] <= s["p90"] <= s["p99"] <= s["max"]
    assert s["cold"] > 0 and s["memory_peak_mb"] > 0
    assert builtins_doc["conflicts"] == []
    facts = {Path(p["source"].rsplit(":", 1)[0]).name: p for p in builtins_doc["positions"]}
    assert facts["line.json"]["hexes"] == 4 and facts["line.json"]["trains"] == 2


def test_best_known_prefers_proven_values():
    runs = [{"case": 0, "algorithm": "a", "status": "ok", "value": 90, "optimal": False},
            {"case": 0, "algorithm": "b", "status": "ok", "value": 80, "optimal": True},
            {"case": 1, "algorithm": "a", "status": "ok", "value": 70, "optimal": False},
            {"case": 1, "algorithm": "b", "status": "error"}]
    assert best_known(runs) == {0: 80, 1: 70}
    runs.append({"case": 0, "algorithm": "c", "status": "ok", "value": 85, "optimal": True})
    assert conflicts(runs) == [{"case": 0, "values": {"b": 80, "c": 85}}]


def test_oracle_declines_big_boards():
    sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))
    try:
        from boards import dense_board
    finally:
        sys.path.pop(0)
    with pytest.raises(TooBig, match="too big"):
        solve_oracle(load_position(dense_board(80, seed=1)), None)


def test_parse_spec_rejects_unknown_names():
    assert parse_spec("./x.py:solve") == ("callable", "./x.py:solve")
    with pytest.raises(HexrailError, match="unknown algorithm"):
        parse_spec("fastest")


def test_callable_and_command_plugins(tmp_path):
    (tmp_path / "my_solver.py").write_text(CALLABLE)
    (tmp_path / "my_cmd.py").write_text(COMMAND)
    algorithms = [f"{tmp_path / 'my_solver.py'}:solve_it", f"cmd:{sys.executable} {tmp_path / 'my_cmd.py'}",
                  "hexrail.bench.algorithms:solve_greedy"]
    doc = bench(POSITIONS, algorithms)
    for spec in doc["settings"]["algorithms"][:2]:
        runs = _by_case(doc, spec)
        for name, optimum in OPTIMA.items():
            assert runs[name]["status"] == "ok", runs[name].get("error")
            assert runs[name]["value"] == optimum
    assert doc["summary"][doc["settings"]["algorithms"][2]]["solved"] == len(POSITIONS)


def test_broken_plugin_is_reported_not_raised(tmp_path):
    (tmp_path / "bad.py").write_text("def solve(position, time_limit):\n    return {'routes': "
                                     "[{'train': '2-0', 'stops': ['A1-0', 'Z9-0']}]}\n")
    doc = bench(POSITIONS[-1:], [f"{tmp_path / 'bad.py'}:solve"])
    (run,) = doc["runs"]
    assert run["status"] in ("illegal", "error") and run["error"]


def test_command_line_with_json_and_plots(tmp_path, capsys):
    out_json, plots = tmp_path / "bench.json", tmp_path / "plots"
    status = main(["bench", *map(str, POSITIONS), "--algorithm", "exact", "--algorithm", "greedy",
                   "--workers", "2", "--json", str(out_json), "--plots", str(plots), "--no-progress"])
    assert status == 0
    table = capsys.readouterr().out
    assert table.splitlines()[0].split()[:4] == ["algorithm", "positions", "solved", "optimal"]
    assert "exact" in table and "greedy" in table
    doc = json.loads(out_json.read_text())
    assert doc["format"] == "hexrail-bench/1"
    assert doc["summary"]["exact"]["optimal"] == len(POSITIONS)
    assert len({r["pid"] for r in doc["runs"]}) >= 1
    for stem in ("time_distribution", "time_vs_board_size", "time_vs_trains"):
        assert (plots / f"{stem}.png").stat().st_size > 1000
        assert (plots / f"{stem}.svg").read_text().lstrip().startswith("<?xml")


def test_progress_off_a_terminal_is_one_line_and_quiet_is_silent(capsys):
    bench(POSITIONS[-1:], ["greedy", "exact"], progress=True)
    err = capsys.readouterr().err  # captured: no terminal, so no bar and no carriage returns
    assert re.fullmatch(r"bench: 2/2 runs in \d+\.\ds\n", err), err
    assert main(["-q", "bench", str(POSITIONS[-1]), "--algorithm", "greedy"]) == 0
    assert capsys.readouterr().err == ""


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal():
    from hexrail.corpus import Progress

    stream = _Terminal()
    with Progress(2, label="bench", unit="run", stream=stream) as bar:
        bar.update()
        bar.update()
    text = stream.getvalue()
    assert text.startswith("\rbench:") and "2/2" in text and "runs in" not in text
    silent = _Terminal()
    with Progress(2, enabled=False, stream=silent) as bar:
        bar.update(2)
    assert silent.getvalue() == ""


def test_command_line_names_a_bad_algorithm(capsys):
    assert main(["bench", str(POSITIONS[0]), "--algorithm", "nope"]) == 2
    assert "unknown algorithm" in capsys.readouterr().err


def test_dask_cluster(tmp_path):
    distributed = pytest.importorskip("distributed", reason="the cluster extra (dask[distributed]) "
                                                            "is not installed")
    (tmp_path / "my_solver.py").write_text(CALLABLE)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        doc = bench(POSITIONS, ["exact", "greedy", f"{tmp_path / 'my_solver.py'}:solve_it"],
                    cluster=cluster.scheduler_address)
    assert doc["settings"]["cluster"].startswith("tcp://127.0.0.1")
    assert doc["summary"]["exact"]["optimal"] == len(POSITIONS)
    assert doc["summary"]["greedy"]["solved"] == len(POSITIONS)
    for name, r in _by_case(doc, doc["settings"]["algorithms"][2]).items():
        assert r["value"] == OPTIMA[name]


def test_corpus_positions_run():
    import os

    root = Path(os.environ.get("HEXRAIL_CORPUS", Path(__file__).parents[2] / "shared" / "corpus"))
    path = root / "generic.jsonl"
    if not path.is_file():
        pytest.skip(f"the 18xx.games corpus is not at {root} (set HEXRAIL_CORPUS)")
    doc = _bench_lines(path.read_text().splitlines()[:3])  # read at run time, never copied
    assert doc["summary"]["exact"]["solved"] == 3
    assert doc["positions"][0]["kind"] == "18xx"


def _bench_lines(lines: list[str]) -> dict:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "some.jsonl"
        path.write_text("\n".join(lines) + "\n")
        return bench([path], ["exact", "greedy"])


def test_greedy_plans_are_legal_and_paid_as_the_validator_finds():
    # the built-in greedy once claimed 710 for 1862 plans the validator priced at 470, and
    # ignored the home-route rule
    from conftest import corpus_missing, corpus_path

    from hexrail.bench.algorithms import solve_greedy
    from hexrail.validate import check_plan

    if corpus_missing():
        pytest.skip(corpus_missing())
    with (corpus_path() / "1862.jsonl").open() as f:
        rows = [json.loads(line) for _, line in zip(range(12), f)]
    for row in rows:
        pos = load_position(row)
        plan = solve_greedy(pos, None)
        report = check_plan(pos, plan)
        assert report.legal and (report.revenue, report.subsidy) == (plan.revenue, plan.subsidy)


def test_the_first_call_on_each_rules_profile_is_cold():
    # "warm" times once included loading a profile's own kernels (1.43 s for the first 1862
    # position after a generic one): the first call per algorithm and profile is cold
    from hexrail.bench import runner
    from hexrail.examples import example_path

    cases = [runner.Case(k, f"{name}:1", "native", json.loads(example_path(name).read_text()))
             for k, name in enumerate(["demo", "demo", "1862", "1862"])]
    runner._CALLED.clear()
    records = runner.run_local(runner.units_for(cases, ["greedy"], None), progress=False)
    assert [r["first"] for r in records] == [True, False, True, False]
