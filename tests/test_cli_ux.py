"""What a Python user expects of the command line and the package (real subprocesses)."""

from __future__ import annotations

import copy
import importlib.metadata
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import hexrail
from hexrail.cli import EXTRAS, require, seconds
from hexrail.errors import HexrailError

ROOT = Path(__file__).resolve().parents[1]
DEMO = str(hexrail.example_path("demo"))

FLAT = {"orientation": "flat", "axes": {"x": "letter", "y": "number"},
        "directions": {"0": [0, 2], "1": [-1, 1], "2": [-1, -1], "3": [0, -2], "4": [1, -1], "5": [1, 1]}}


def line_board(title: str = "1830") -> dict:
    """An 18xx.games export: X's city A1 (20) joined to a city A3 (30), a 2-train to run."""
    return {
        "schema": "18xx-route-position/1", "title": title, "fixture": "ux.json", "game_id": 1,
        "action_index": 3, "entity": {"id": "X", "kind": "corporation", "home": "A1"},
        "phase": {"name": "2", "tiles": ["yellow"]}, "layout": copy.deepcopy(FLAT),
        "trains": [{"id": "2-0", "name": "2", "distance": 2, "runnable": True, "owner": "X"}],
        "hexes": [
            {"id": "A1", "x": 0, "y": 0, "tile": "57", "color": "yellow", "rot": 0,
             "nb": ["A3", None, None, None, None, None],
             "nodes": [{"i": 0, "kind": "city", "revenue": 20, "slots": 1, "tokens": ["X"]}],
             "paths": [{"a": "e0", "b": "n0"}]},
            {"id": "A3", "x": 0, "y": 2, "tile": "57", "color": "yellow", "rot": 0,
             "nb": [None, None, None, "A1", None, None],
             "nodes": [{"i": 0, "kind": "city", "revenue": 30, "slots": 1, "tokens": [None]}],
             "paths": [{"a": "e3", "b": "n0"}]},
        ],
        "submitted": {"revenue": 50, "routes": [{"train": "2-0", "train_name": "2",
                                                  "track": ["A1:0", "A3:0"], "revenue": 50}]},
    }


def hexrail_cli(*args: str, stdin: str | None = None, python: tuple[str, ...] = ("-m", "hexrail"),
                ) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *python, *args], input=stdin, capture_output=True,
                          text=True, timeout=300)


def jsonl(tmp_path: Path, *docs: dict, name: str = "positions.jsonl") -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    return str(path)


# -- 1. --version and python -m hexrail ----------------------------------------------------------


def test_version_comes_from_the_package_metadata():
    expected = importlib.metadata.version("hexrail")
    proc = hexrail_cli("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"hexrail {expected}"
    assert hexrail.__version__ == expected


def test_python_m_hexrail_runs_commands():
    proc = hexrail_cli("solve", DEMO)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["revenue"] == 480


# -- 2. no numba for --help; the package's names load on use ------------------------------------


def test_help_does_not_import_numba():
    """Nor numpy, the schema checker or the renderer: ``--help`` stays near Python's own start."""
    script = (
        "import sys\n"
        "from hexrail.cli import main\n"
        "for argv in (['--help'], ['--version'], *([c, '--help'] for c in\n"
        "             ('demo', 'solve', 'validate', 'score', 'corpus', 'render', 'serve', 'bench'))):\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit as stop:\n"
        "        assert stop.code == 0, argv\n"
        "heavy = [m for m in ('numba', 'numpy', 'jsonschema', 'ortools', 'hexrail.solve',\n"
        "                     'hexrail.render.svg', 'hexrail.bench.runner', 'matplotlib', 'uvicorn')\n"
        "         if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    proc = hexrail_cli(python=("-c", script))
    assert proc.returncode == 0, proc.stderr


def test_package_names_load_on_use_and_keep_their_meaning():
    script = (
        "import sys, types\n"
        "import hexrail\n"
        "assert 'numba' not in sys.modules\n"
        "import hexrail.solve, hexrail.validate\n"  # binds the submodules on the package
        "assert callable(hexrail.solve) and not isinstance(hexrail.solve, types.ModuleType)\n"
        "assert callable(hexrail.validate) and not isinstance(hexrail.validate, types.ModuleType)\n"
        "from hexrail.solve import solve\n"
        "assert hexrail.solve is solve\n"
        "assert all(getattr(hexrail, name) is not None for name in hexrail.__all__)\n"
        "assert set(hexrail.__all__) <= set(dir(hexrail))\n"
        "plan = hexrail.solve(hexrail.example_path('demo'))\n"
        "assert hexrail.validate(hexrail.example_path('demo'), plan).revenue == plan.revenue == 480\n"
        "try:\n"
        "    hexrail.no_such_name\n"
        "except AttributeError:\n"
        "    pass\n"
        "else:\n"
        "    raise AssertionError('unknown names must raise AttributeError')\n"
    )
    proc = hexrail_cli(python=("-c", script))
    assert proc.returncode == 0, proc.stderr


# -- 3. py.typed and LICENSE --------------------------------------------------------------------


def test_typed_marker_and_license_ship():
    assert (ROOT / "src" / "hexrail" / "py.typed").is_file()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["hexrail"]
    license_text = (ROOT / "LICENSE").read_text()
    assert project["project"]["license"] == "MIT"  # an SPDX expression
    assert "MIT License" in license_text and "the hexrail authors" in license_text


# -- 4. extras ----------------------------------------------------------------------------------


def test_require_names_the_extra_to_install():
    require("json", "serve")  # present: nothing happens
    with pytest.raises(HexrailError) as caught:
        require("hexrail_no_such_module", "serve")
    message = str(caught.value)
    assert "hexrail_no_such_module" in message and 'pip install "hexrail[serve]"' in message
    assert "\n" not in message


@pytest.mark.parametrize("command, module, extra",
                         sorted({(c, m, e) for c, _, m, e in EXTRAS}))
def test_every_extra_the_cli_asks_for_exists_and_is_in_the_readme(command, module, extra):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wanted = project["project"]["optional-dependencies"][extra]
    distribution = {"distributed": "dask[distributed]"}.get(module, module)
    assert any(req.lower().startswith(distribution.lower()) for req in wanted), (extra, wanted)
    assert f'pip install "hexrail[{extra}]"' in (ROOT / "README.md").read_text()


# Python's own way to make a module unimportable: a None entry in sys.modules.
BLOCKED = "import sys; sys.modules[{module!r}] = None; from hexrail.cli import main; sys.exit(main({argv!r}))"


def test_bench_plots_without_matplotlib_stops_before_any_work(tmp_path):
    plots = tmp_path / "plots"
    argv = ["bench", DEMO, "--algorithm", "greedy", "--plots", str(plots), "--no-progress"]
    proc = hexrail_cli(python=("-c", BLOCKED.format(module="matplotlib", argv=argv)))
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and 'pip install "hexrail[plots]"' in proc.stderr
    assert proc.stdout == "" and not plots.exists()


def test_serve_without_uvicorn_stops_at_once():
    argv = ["serve", "--port", "1"]
    proc = hexrail_cli(python=("-c", BLOCKED.format(module="uvicorn", argv=argv)))
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and 'pip install "hexrail[serve]"' in proc.stderr


# -- 5. --time-limit ----------------------------------------------------------------------------


@pytest.mark.parametrize("text, value", [("0", 0.0), ("2.5", 2.5), ("1e3", 1000.0)])
def test_seconds_accepts_finite_non_negative(text, value):
    assert seconds(text) == value


@pytest.mark.parametrize("command", [["solve", DEMO], ["demo"], ["corpus", DEMO], ["bench", DEMO],
                                     ["render", DEMO]])
@pytest.mark.parametrize("bad", ["-1", "nan", "inf", "-inf", "soon"])
def test_time_limit_rejects_negative_nan_inf(command, bad):
    proc = hexrail_cli(*command, f"--time-limit={bad}")
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert "--time-limit" in line and bad in line


# -- 6. streams ---------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["solve", "--from", "18xx"], ["score", "--from", "18xx"]])
@pytest.mark.parametrize("content", ["", "\n  \n\n"])
def test_empty_stream_input_is_an_error(tmp_path, command, content):
    path = tmp_path / "empty.jsonl"
    path.write_text(content)
    for proc in (hexrail_cli(*command, str(path)), hexrail_cli(*command, "-", stdin=content)):
        assert proc.returncode == 2 and proc.stdout == ""
        assert "empty" in proc.stderr and proc.stderr.count("\n") == 1


def test_stream_lines_have_stable_keys_and_warm_up_goes_to_stderr(tmp_path):
    path = jsonl(tmp_path, line_board(), line_board())
    proc = hexrail_cli("solve", "--from", "18xx", path)
    assert proc.returncode == 0, proc.stderr
    first, second = (json.loads(line) for line in proc.stdout.splitlines())
    assert set(first) == set(second) and "warm_up_seconds" not in first
    assert (first["revenue"], first["line"], second["line"]) == (50, 1, 2)
    assert "warm-up" not in proc.stderr
    loud = hexrail_cli("solve", "--from", "18xx", path, "-v")
    assert loud.returncode == 0 and loud.stderr.count("warm-up") == 1
    assert loud.stdout.splitlines()[0].startswith("{")


def test_stream_table_format(tmp_path):
    path = jsonl(tmp_path, line_board(), {"schema": "nope"})
    proc = hexrail_cli("solve", "--from", "18xx", path, "--format", "table")
    assert proc.returncode == 2  # the second line is bad; the first is still written
    head, rule, good, bad = proc.stdout.splitlines()
    assert head.split()[:2] == ["line", "title"] and set(rule) == {"-"}
    assert good.split()[:2] == ["1", "1830"] and " 50 " in good and "optimal" in good
    assert bad.split()[:2] == ["2", "error:"]
    score = hexrail_cli("score", "--from", "18xx", path, "--format", "table")
    assert score.returncode == 2
    assert "50 / 50 ok" in score.stdout.splitlines()[2]


# -- 7. the generic-rules fallback is said where a person looks ---------------------------------


def test_generic_fallback_in_table_and_stderr(tmp_path):
    path = jsonl(tmp_path, line_board("18ZZ"), line_board("18ZZ"), line_board("1830"))
    proc = hexrail_cli("solve", "--from", "18xx", path, "--format", "table")
    assert proc.returncode == 0, proc.stderr
    rows = proc.stdout.splitlines()
    assert "generic (fallback)" in rows[2] and "generic (fallback)" in rows[3]
    assert "fallback" not in rows[4] and rows[4].rstrip().endswith("generic")
    assert proc.stderr.count("18ZZ has no rules profile") == 1 and "warning" in proc.stderr
    assert "1830" not in proc.stderr
    records = [json.loads(line) for line in hexrail_cli("solve", "--from", "18xx", path).stdout.splitlines()]
    assert [r["rules_covered"] for r in records] == [False, False, True]
    quiet = hexrail_cli("-q", "solve", "--from", "18xx", path)
    assert quiet.returncode == 0 and quiet.stderr == ""
    score = hexrail_cli("score", "--from", "18xx", path, "--format", "table")
    assert "not covered: generic (fallback)" in score.stdout and "18ZZ" in score.stderr


def test_generic_fallback_for_one_exported_position(tmp_path):
    path = tmp_path / "one.json"
    path.write_text(json.dumps(line_board("18ZZ")))
    proc = hexrail_cli("solve", str(path), "--format", "table")
    assert proc.returncode == 0, proc.stderr
    assert "total 50" in proc.stdout and "solved under the generic rules" in proc.stdout
    assert "18ZZ has no rules profile" in proc.stderr


# -- 8. validate compares the totals a plan claims ----------------------------------------------


def test_validate_reports_claimed_totals_that_differ(tmp_path):
    doc = json.loads(hexrail_cli("solve", DEMO).stdout)
    honest = tmp_path / "honest.json"
    honest.write_text(json.dumps(doc))
    assert hexrail_cli("validate", DEMO, str(honest)).returncode == 0
    doc["revenue"], doc["total"] = 500, 500
    inflated = tmp_path / "inflated.json"
    inflated.write_text(json.dumps(doc))
    proc = hexrail_cli("validate", DEMO, str(inflated), "--format", "table")
    assert proc.returncode == 1
    assert "plan: the plan claims revenue 500, its routes earn 480" in proc.stdout
    report = json.loads(hexrail_cli("validate", DEMO, str(inflated), "--format", "json").stdout)
    assert report["errors"] == ["the plan claims revenue 500, its routes earn 480",
                                "the plan claims total 500, its routes earn 480"]
    assert all(r["legal"] for r in report["routes"]) and report["revenue"] == 480


def test_validate_routes_only_plan_claims_nothing(tmp_path):
    doc = json.loads(hexrail_cli("solve", DEMO).stdout)
    drawn = tmp_path / "drawn.json"
    drawn.write_text(json.dumps({"routes": [{"train": r["train"], "paths": r["paths"]}
                                            for r in doc["routes"]]}))
    proc = hexrail_cli("validate", DEMO, str(drawn), "--format", "json")
    assert proc.returncode == 0, proc.stdout
    assert json.loads(proc.stdout)["errors"] == []


# -- 9. -v / -q ---------------------------------------------------------------------------------


@pytest.mark.parametrize("flags", [["-q", "solve", DEMO], ["solve", DEMO, "-q"], ["-v", "solve", DEMO, "-v"]])
def test_verbosity_flags_before_or_after_the_command(flags):
    proc = hexrail_cli(*flags)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["revenue"] == 480


def test_a_cold_kernel_cache_is_announced_before_the_first_solve(tmp_path, warm_solver):
    """Without the built kernels and with numba's cache empty the first solve compiles for a
    minute: the CLI says so first."""
    import os
    import subprocess
    import sys

    from hexrail.compiled import NOTICE, cold

    assert not cold()  # this process loaded the kernels from a populated cache
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "HEXRAIL_KERNELS": "jit"}
    probe = subprocess.run([sys.executable, "-c", "from hexrail.compiled import cold; print(cold())"],
                           env=env, capture_output=True, text=True, timeout=120)
    assert probe.stdout.strip() == "True", probe.stderr
    # and the command line says so, as a warning (shown unless -q), before it solves
    for quiet, shown in (([], True), (["-q"], False)):
        result = subprocess.run(
            [sys.executable, "-c", "import sys, hexrail.compiled as c; c.cold = lambda: True; "
             "from hexrail.cli import main; sys.exit(main(sys.argv[1:]))", *quiet, "solve",
             str(hexrail.example_path("demo"))], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0 and (NOTICE in result.stderr) == shown, result.stderr
    # but not where nothing is solved: bad input gets its one line alone
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    for workers in ("1", "2"):
        result = subprocess.run(
            [sys.executable, "-c", "import sys, hexrail.compiled as c; c.cold = lambda: True; "
             "from hexrail.cli import main; sys.exit(main(sys.argv[1:]))", "solve", "--from", "18xx",
             str(empty), "--workers", workers], capture_output=True, text=True, timeout=120)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert "input is empty" in result.stderr
