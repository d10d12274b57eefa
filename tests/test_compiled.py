"""The kernels built ahead of time (`hexrail.compiled`): used when built from this very source and
only for calls of the types they were built for; numba's JIT otherwise, with the same answers."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest

import hexrail
import hexrail.compiled as C
from tests.conftest import corpus_missing, corpus_positions

SRC = str(Path(__file__).resolve().parents[1] / "src")


def _buildable() -> str:
    """Why this installation has no built module, or "" when it should have one."""
    if os.environ.get("HEXRAIL_KERNELS") == "jit":
        return "HEXRAIL_KERNELS=jit"
    if importlib.util.find_spec("numba.pycc") is None:
        return "this numba has no pycc: the kernels compile on first use"
    if not shutil.which(sysconfig.get_config_var("CC").split()[0]):
        return "no C compiler: the install could not build the module"
    return ""


def _python(code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "PYTHONPATH": SRC, **env})


def _sample() -> list[dict]:
    """A few 18xx.games positions of every title in the corpus (none when it is absent)."""
    if corpus_missing():
        return []
    out = []
    for path in sorted(Path(os.environ.get("HEXRAIL_CORPUS") or
                            Path(__file__).resolve().parents[2] / "shared" / "corpus").glob("*.jsonl")):
        out += corpus_positions(path.name)[::97][:3]
    return out


def test_the_built_module_runs_every_kernel_call():
    """A fresh install built the module; a solve uses it on every title without numba, and no
    call falls back: `kernel_types.json` names every entry and type the solver calls."""
    why = _buildable()
    if why:
        pytest.skip(why)
    assert C.status() == "aot", f"{C.AOT_MODULE} is missing or stale: python -m hexrail.compiled build"
    code = (
        "import json, sys, hexrail, hexrail.compiled as C\n"
        "from hexrail.io.g18xx.reader import position_from_18xx\n"
        "from hexrail.examples import example_names, example_path\n"
        "totals = [hexrail.solve(example_path(n)).total for n in example_names()]\n"
        "totals += [hexrail.solve(position_from_18xx(d)).total for d in json.load(sys.stdin)]\n"
        "print(json.dumps([C.status(), 'numba' in sys.modules, dict(C.misses), totals]))\n")
    sample = _sample()
    proc = subprocess.run([sys.executable, "-c", code], input=json.dumps(sample), capture_output=True,
                          text=True, timeout=600, env={**os.environ, "PYTHONPATH": SRC})
    assert proc.returncode == 0, proc.stderr
    status, numba_loaded, misses, totals = json.loads(proc.stdout)
    assert (status, numba_loaded, misses) == ("aot", False, {})
    assert len(totals) == len(hexrail.examples.example_names()) + len(sample)


def test_numba_compiles_the_same_answers():
    """The JIT twin: the same source compiled by numba (what an install without the module
    runs) gives every plan the built module gives: the examples and a corpus sample."""
    if C.status() != "aot":
        pytest.skip("this process runs numba's JIT itself: nothing to compare with")
    from hexrail.examples import example_names, example_path
    from hexrail.io.g18xx.reader import position_from_18xx

    sample = _sample()
    ours = [hexrail.solve(example_path(n)).to_json() for n in example_names()]
    ours += [hexrail.solve(position_from_18xx(d)).to_json() for d in sample]
    code = (
        "import json, sys, hexrail, hexrail.compiled as C\n"
        "from hexrail.io.g18xx.reader import position_from_18xx\n"
        "from hexrail.examples import example_names, example_path\n"
        "plans = [hexrail.solve(example_path(n)).to_json() for n in example_names()]\n"
        "plans += [hexrail.solve(position_from_18xx(d)).to_json() for d in json.load(sys.stdin)]\n"
        "print(json.dumps([C.status(), plans]))\n")
    proc = subprocess.run([sys.executable, "-c", code], input=json.dumps(sample), capture_output=True,
                          text=True, timeout=900, env={**os.environ, "PYTHONPATH": SRC,
                                                       "HEXRAIL_KERNELS": "jit"})
    assert proc.returncode == 0, proc.stderr
    status, theirs = json.loads(proc.stdout)
    assert status == "jit"

    def answer(plan: dict) -> tuple:  # all but the timings
        return (plan["revenue"], plan["subsidy"], plan["optimal"], plan["upper_bound"],
                json.dumps(plan["routes"], sort_keys=True))

    assert [answer(p) for p in ours] == [answer(p) for p in theirs]


def test_a_call_of_other_types_goes_to_numba_not_to_the_module():
    """The built code reads memory as the types it was built for: a call with others (int64
    arrays where int32 are built) must not reach it. It falls back to numba, gives the answer
    of the right types, and the process stays on numba."""
    if C.status() != "aot":
        pytest.skip("the module is not in use here")
    code = (
        "import numpy as np, hexrail.compiled as C\n"
        "from hexrail.search import _kernels as K\n"
        "ptr, chain, end = np.array([0, 1, 2], np.int32), np.array([0, 0], np.int32), "
        "np.array([0, 1], np.int8)\n"
        "ends = np.array([[0, 1]], np.int32)\n"
        "step, shut = np.ones(2, np.int64), np.zeros(2, np.bool_)\n"
        "right = K.reach_distances(ptr, chain, end, ends, 2, step, shut)\n"
        "before = C.status()\n"
        "other = K.reach_distances(ptr.astype(np.int64), chain, end, ends, 2, step, shut)\n"
        "print(before, C.status(), dict(C.misses), (right == other).all())\n")
    proc = _python(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["aot", "jit", "{'hexrail.search._kernels.reach_distances':", "1}",
                                   "True"]
    assert "does not fit this call" in proc.stderr


SPECS = ["int32[::1]", ["int64[:, ::1]", "bool[::1]", "int64"],
         {"tuple": "hexrail.search._kernels.WalkWork", "of": ["uint64[::1]"]}, "float64"]


@pytest.mark.parametrize("change", ["none", "dtype", "byte order", "ndim", "list", "short tuple",
                                    "long tuple", "member dtype", "strided"])
def test_the_type_check_of_an_entry(change):
    ok = C._checker(SPECS)
    args = [np.zeros(3, np.int32), (np.zeros((2, 2), np.int64), np.zeros(2, np.bool_), 7),
            (np.zeros(4, np.uint64),), 1.5]
    if change == "dtype":
        args[0] = np.zeros(3, np.int64)
    elif change == "byte order":
        args[0] = np.zeros(3, ">i4")
    elif change == "ndim":
        args[0] = np.zeros((3, 1), np.int32)
    elif change == "list":
        args[0] = [0, 0, 0]
    elif change == "short tuple":
        args[1] = args[1][:2]
    elif change == "long tuple":
        args[1] = (*args[1], 8)
    elif change == "member dtype":
        args[1] = (np.zeros((2, 2), np.int32), *args[1][1:])
    elif change == "strided":  # the module reads contiguous arrays
        args[0] = np.zeros(6, np.int32)[::2]
    assert ok(*args) == (change == "none")


def test_a_tuple_that_passed_is_not_checked_again_but_a_new_one_is():
    ok = C._checker([["int64[::1]"]])
    good = (np.zeros(2, np.int64),)
    assert ok(good)
    assert ok(good)  # remembered: the same object
    assert not ok((np.zeros(2, np.int32),))  # another tuple is checked
    for k in range(C.MEMO + 5):  # the memory is bounded
        assert ok((np.zeros(1, np.int64),))
    assert not ok((np.zeros(2, np.int32),))


@pytest.mark.parametrize("other", ["source", "processor"])
def test_a_module_built_from_another_source_or_for_another_processor_is_not_used(monkeypatch, other):
    """Its code is the old kernels', or uses instructions this processor may lack."""
    if C.status() != "aot":
        pytest.skip("the module is not in use here")
    assert C._load_module() is not None
    monkeypatch.setattr(C, f"{'source' if other == 'source' else 'cpu'}_key", lambda: 12345)
    assert C._load_module() is None
    monkeypatch.setenv("HEXRAIL_KERNELS", "aot")
    with pytest.raises(RuntimeError, match=f"built for another processor|built from another {other}"):
        C._load_module()


def test_the_key_follows_the_kernel_types(tmp_path, monkeypatch):
    key = C.source_key()
    types = tmp_path / "kernel_types.json"
    types.write_text(C.KERNEL_TYPES.read_text())
    monkeypatch.setattr(C, "KERNEL_TYPES", types)
    assert C.source_key() == key
    types.write_text(C.KERNEL_TYPES.read_text() + " ")
    assert C.source_key() != key


def test_specs_and_numba_types_round_trip():
    """The JSON notation of kernel types and numba's types, both ways."""
    pytest.importorskip("numba")
    for spec in json.loads(C.KERNEL_TYPES.read_text()).values():
        for item in [*spec["args"], spec["result"]]:
            assert C.spec_of(C.type_of(item)) == item


def test_the_kernels_import_with_only_what_building_them_needs():
    """The install builds the kernels where only the build requirements are installed
    (numba, numpy): importing every kernel module and the source key must need nothing more,
    or the install quietly leaves the kernels to numba's JIT."""
    blocked = ["ortools", "jsonschema", "tqdm", "orjson", "networkx", "hypothesis"]
    result = _python(
        "import sys\n"
        f"for name in {blocked!r}: sys.modules[name] = None  # (import fails)\n"
        "import importlib\n"
        "from hexrail.compiled import KERNEL_MODULES, source_key\n"
        "for name in KERNEL_MODULES: importlib.import_module(name)\n"
        "print(source_key())\n")
    assert result.returncode == 0, result.stderr[-2000:]
