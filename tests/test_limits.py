"""The document limits: the one-pass scan (`limits.surely_within`) never clears what the walk
(`limits.walk_document`) refuses, clears the documents people send, and `check_document`
names the place of every fault either way."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hexrail
from hexrail.errors import HexrailError
from hexrail.io.limits import (INT_DIGITS, MAX_DEPTH, MAX_INT, check_document, surely_within,
                               walk_document)

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def refused_by_walk(data) -> bool:
    try:
        walk_document(data)
    except HexrailError:
        return True
    return False


def texts(data) -> list[str]:
    """`data` as JSON text, compact and spaced out (NaN and Infinity as Python writes them)."""
    return [json.dumps(data, separators=(",", ":")), json.dumps(data, indent=1)]


def nest(levels: int, inner=1):
    for _ in range(levels):
        inner = [inner]
    return inner


scalars = (st.none() | st.booleans() | st.floats() | st.text(max_size=12)
           | st.integers(min_value=-(2**70), max_value=2**70)
           | st.sampled_from([MAX_INT, MAX_INT + 1, -MAX_INT - 1, 10**15, 10**16, "\x00",
                              "a\\\"[[[", '"]]]', "\\", 1e300, -1e-300, 1e308]))
documents = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6),
                                                                         inner, max_size=4),
    max_leaves=40)


@settings(max_examples=400, deadline=None)
@given(documents, st.integers(min_value=0, max_value=MAX_DEPTH + 2))
def test_the_scan_never_clears_what_the_walk_refuses(data, depth):
    data = nest(depth, data)
    if refused_by_walk(data):
        assert not surely_within(data)
        for text in texts(data):
            assert not surely_within(json.loads(text), text)


@pytest.mark.parametrize("data, cleared", [
    (nest(MAX_DEPTH), True),  # the innermost list at depth MAX_DEPTH - 1
    (nest(MAX_DEPTH + 1), False),
    ({"a": nest(MAX_DEPTH - 1)}, True),
    ({"a": nest(MAX_DEPTH)}, False),
    ({"s": "[" * 200 + '"\\' + "{" * 200}, True),  # brackets, quotes, backslashes in strings
    ({"n": 10**(INT_DIGITS - 1) - 1}, True),
    ({"n": MAX_INT + 1}, False),
    ({"x": 1.5e300}, False),  # an exponent of three digits: the walk decides
    ({"x": 2.5, "t": True, "f": False, "e": "1e999"}, True),
    ({"s": "a\x00b"}, False),
])
def test_the_scan_at_the_edges(data, cleared):
    assert surely_within(data) is cleared
    for text in texts(data):
        assert surely_within(json.loads(text), text) is cleared
    if cleared:
        walk_document(data)


@pytest.mark.parametrize("text", ['{"x": NaN}', '{"x": [Infinity]}', '{"x": -Infinity}',
                                  '{"x": 1e400}', '{"x": -1E+999}'])
def test_numbers_json_has_not_are_left_to_the_walk(text):
    data = json.loads(text)
    assert not surely_within(data, text)
    assert not surely_within(data)
    with pytest.raises(HexrailError, match="not a finite number") as err:
        check_document(data, "position", text)
    assert err.value.where == "position.x" or err.value.where == "position.x[0]"


def test_a_float_written_as_null_is_told_from_null():
    assert surely_within({"x": None, "y": [None]})
    assert not surely_within({"x": None, "y": [math.nan]})
    assert not surely_within({"x": None, "y": (1, 2)})  # (a tuple reads back as a list)


def test_faults_are_named_by_their_place_whichever_path_clears():
    doc = {"hexes": [{"id": "A1"}, {"id": "B2", "tokens": [2**60]}]}
    for text in (None, json.dumps(doc)):
        with pytest.raises(HexrailError, match="2\\^53") as err:
            check_document(doc, "position", text)
        assert err.value.where == "position.hexes[1].tokens[0]"


def test_the_documents_people_send_are_cleared_by_the_scan():
    demo = hexrail.example_path("demo").read_text()
    assert surely_within(json.loads(demo), demo)
    assert surely_within(json.loads(demo))
    if not CORPUS.is_dir():
        pytest.skip(f"no {CORPUS}: the shared corpus is not on this machine")
    for path in sorted(CORPUS.glob("*.jsonl")):
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        for line in lines[:: max(1, len(lines) // 8)]:
            data = json.loads(line)
            assert surely_within(data, line), path.name
            assert surely_within(data), path.name
