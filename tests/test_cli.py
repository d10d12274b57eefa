"""The command line as a user meets it (real subprocesses)."""

from __future__ import annotations

import json
import subprocess
import sys

import hexrail

DEMO = str(hexrail.example_path("demo"))


def run(*args: str, ok: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "hexrail.cli", *args], capture_output=True, text=True)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_demo_prints_table_and_proof():
    out = run("demo").stdout
    assert "total 480" in out and "proven optimal" in out
    for train in ("4-0", "2+2-0", "D-0"):
        assert train in out


def test_solve_defaults_to_json_when_piped():
    doc = json.loads(run("solve", DEMO).stdout)
    assert doc["revenue"] == 480 and doc["optimal"] is True and doc["upper_bound"] == 480
    assert {r["train"] for r in doc["routes"]} == {"4-0", "2+2-0", "D-0"}


def test_solve_table_and_limits():
    out = run("solve", DEMO, "--format", "table", "--time-limit", "5").stdout
    assert "total 480" in out
    doc = json.loads(run("solve", DEMO, "--objective", "revenue").stdout)
    assert doc["objective"] == "revenue"


def test_validate_round_trip(tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(run("solve", DEMO).stdout)
    proc = run("validate", DEMO, str(plan), "--format", "json")
    report = json.loads(proc.stdout)
    assert report["legal"] is True and report["revenue"] == 480


def test_validate_reports_broken_routes(tmp_path):
    doc = json.loads(run("solve", DEMO).stdout)
    route = doc["routes"][0]
    route["paths"] = route["paths"][:2] + route["paths"][3:]  # cut the track
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(doc))
    proc = run("validate", DEMO, str(plan), ok=False)
    assert proc.returncode == 1
    assert route["train"] in proc.stdout


def test_missing_position_file():
    proc = run("solve", "no-such-file.json", ok=False)
    assert proc.returncode == 2 and "no-such-file.json" in proc.stderr


def test_docs_state_every_profile():
    """docs/rules.md has a section for every shipped rules profile."""
    from pathlib import Path

    import hexrail.rules.base as base
    from hexrail.rules import profiles

    text = (Path(__file__).resolve().parents[1] / "docs" / "rules.md").read_text(encoding="utf-8")
    shipped = [name for name, cls in profiles().items() if cls.__module__.startswith("hexrail.rules")]
    assert base.Profile.name in shipped and len(shipped) >= 6
    for name in shipped:
        assert f"\n## {name}" in text, name
