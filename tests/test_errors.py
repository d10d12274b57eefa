"""Bad input gets one clear error naming the hex, tile, company, train or field — case by case."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest

import hexrail
from hexrail import HexrailError

BASE = {
    "layout": "flat",
    "company": "A",
    "companies": [{"id": "A", "home": "A1"}, {"id": "B"}],
    "trains": ["2"],
    "hexes": {
        "A1": {"tile": "city=revenue:20,slots:2;path=a:0,b:_0", "tokens": ["A"]},
        "A3": {"tile": "city=revenue:30;path=a:3,b:_0"},
    },
}


def broken(**changes) -> dict:
    doc = copy.deepcopy(BASE)
    for path, value in changes.items():
        *keys, last = path.split("__")
        target = doc
        for k in keys:
            target = target[k]
        if value is None:
            del target[last]
        else:
            target[last] = value
    return doc


def test_base_is_fine():
    assert hexrail.solve(BASE).revenue == 50


@pytest.mark.parametrize("doc,names", [
    (broken(companies=[{"id": "A", "home": "Z9"}]), ["company A", "Z9"]),
    (broken(hexes__A3__neighbours=["Q7", None, None, None, None, None]), ["hex A3", "Q7"]),
    (broken(hexes__A3={"tile": "city=revenue:30;path=a:3,b:_1"}), ["hex A3", "_1"]),
    (broken(hexes__A3={"nodes": [{"kind": "city"}], "paths": [{"a": "e3", "b": "n4"}]}), ["hex A3", "n4"]),
    (broken(hexes__A1__tokens=["A", "B", "B"]), ["hex A1", "3 tokens in 2 slots"]),
    (broken(hexes__A3__tokens=["C"]), ["hex A3", "'C'"]),
    (broken(trains=["2", "4Q"]), ["trains[1]", "4Q"]),
    (broken(trains=[{"spec": {"rows": [{"nodes": ["village"], "pay": 3}]}}]), ["trains[0]", "village"]),
    (broken(trains=[{"spec": {"rows": []}}]), ["trains[0]"]),
    (broken(hexes__A3={"tile": "city=revenue:30;path=a:9,b:_0"}), ["hex A3", "a:9"]),
    (broken(hexes__A3={"nodes": [{"kind": "city"}], "paths": [{"a": "e7", "b": "n0"}]}), ["hexes.A3.paths[0].a"]),
    (broken(hexes__A3={"tile": "town=revenue:10;path=a:3,b:_0", "tokens": ["A"]}), ["hex A3", "no city"]),
    (broken(company="Q"), ["company", "'Q'"]),
    (broken(rules={"profile": "1899"}), ["rules.profile", "1899"]),
    (broken(hexes__A3__rotation=7), ["hexes.A3.rotation"]),
    (broken(hexes__A3__colour="red"), ["hexes.A3", "colour"]),
    (broken(trains=None), ["trains"]),
    (broken(hexes={"3A": {}}), ["'3A'"]),
    (broken(hexes__A3={"tile": "city=revenue:30;path=a:3,b:_0", "nodes": []}), ["hex A3", "not both"]),
])
def test_bad_positions_name_the_culprit(doc, names):
    with pytest.raises(HexrailError) as err:
        hexrail.solve(doc)
    for name in names:
        assert name in str(err.value)


def test_malformed_json_names_line_and_column(tmp_path):
    path = tmp_path / "pos.json"
    path.write_text('{"layout": "flat",\n "hexes": {,}}')
    with pytest.raises(HexrailError, match="line 2 column"):
        hexrail.load_position(path)


def test_missing_file(tmp_path):
    with pytest.raises(HexrailError, match="cannot read"):
        hexrail.load_position(str(tmp_path / "nope.json"))


def test_cli_prints_one_line_and_exits_2(tmp_path):
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(broken(trains=["4Q"])))
    run = subprocess.run([sys.executable, "-m", "hexrail.cli", "solve", str(path)],
                         capture_output=True, text=True)
    assert run.returncode == 2
    assert run.stderr.startswith("hexrail: error: trains[0]")
    assert "Traceback" not in run.stderr and run.stdout == ""


def test_plan_input_errors(tmp_path):
    from hexrail.plan import plan_from_json

    with pytest.raises(HexrailError, match="routes"):
        plan_from_json({"revenue": 3})
    with pytest.raises(HexrailError, match=r"plan.routes\[0\]"):
        plan_from_json({"routes": [{"paths": ["A1:0"]}]})
