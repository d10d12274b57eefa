"""Reading an 18xx.games position with its hexes apart (`native.read_json_apart`,
`_scan_kernels.json_scan`): the objects' texts are cut exactly where the document holds them,
never where it might hold something else, and the position read so is the one read whole,
faults named as before."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hexrail.errors import HexrailError
from hexrail.io._scan_kernels import json_scan
from hexrail.io.g18xx import position_from_18xx
from hexrail.io.g18xx.streams import read_positions, solve_records
from hexrail.io.limits import INT_DIGITS, MAX_DEPTH, MAX_STRING
from hexrail.io.native import load_position, read_json, read_json_apart

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def spans(text: str, key: str = "hexes") -> tuple[bool, list[str]]:
    raw = text.encode("utf-8", "surrogatepass")
    within, found = json_scan(np.frombuffer(raw, np.uint8), MAX_DEPTH, INT_DIGITS, MAX_STRING,
                              np.frombuffer(key.encode(), np.uint8), raw.count(b"{"))
    return within, [raw[a:b].decode("utf-8", "surrogatepass") for a, b in found.tolist()]


names = st.text(max_size=6).filter(lambda s: "\x00" not in s)  # (a NUL: beyond the limits)
values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | names,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(names, inner, max_size=3),
    max_leaves=12)
objects = st.dictionaries(names, values, max_size=4)


@settings(max_examples=300, deadline=None)
@given(st.lists(objects, max_size=5), st.dictionaries(names, values, max_size=3),
       st.booleans())
def test_the_objects_are_cut_where_the_document_holds_them(hexes, others, spaced):
    doc = {**{k: v for k, v in others.items() if k != "hexes"}, "hexes": hexes}
    text = json.dumps(doc, indent=1 if spaced else None, ensure_ascii=False)
    within, found = spans(text)
    assert within
    data, apart = read_json_apart(text, "hexes")
    if any(json.dumps(k, ensure_ascii=False) != f'"{k}"' for k in doc):
        # a name written with an escape might be the member's: the document is read whole
        assert found == [] and apart is None and data == doc
        return
    assert json.loads(found[0]) == hexes
    assert [json.loads(t) for t in found[1:]] == hexes
    assert apart is not None and data == {**doc, "hexes": []}
    assert apart.whole() == hexes


@pytest.mark.parametrize("text", [
    '[{"hexes": [{}]}]',  # the outermost value is no object
    '{"a": {"hexes": [{}]}}',  # a member further in
    '{"hexes": [{}], "hexes": [{}]}',  # twice: which one JSON readers keep is theirs to say
    '{"hex\\u0065s": [{}]}',  # the name, written otherwise
    '{"x\\n": 1, "hexes": [{}]}',  # a name with an escape: it might be that name
    '{"hexes": [{}, 1]}', '{"hexes": [{}, "a"]}', '{"hexes": [[{}]]}', '{"hexes": {"a": {}}}',
    '{"hexes": [{} {}]}', '{"hexes": [{},, {}]}', '{"hexes": [{},]}', '{"hexes": [,{}]}',
    '{"hexes": [{}]',  # never closed
    '{"hexes": 3}', '{"other": "hexes"}', '{"a": ["hexes", [{}]]}',
])
def test_no_objects_are_cut_where_the_document_might_hold_something_else(text):
    assert spans(text)[1] == []


def test_a_value_named_like_the_member_is_no_member():
    assert spans('{"a": "hexes", "hexes": [{"b": 1}]}')[1] == ['[{"b": 1}]', '{"b": 1}']


def test_an_empty_array_and_the_limits():
    assert spans('{"hexes": []}') == (True, ["[]"])
    assert spans('{"hexes": [{"a": NaN}]}')[0] is False
    assert spans('{"hexes": [{"a": ' + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "}]}")[0] \
        is False


def test_a_hex_that_is_no_json_is_reported_as_the_document_read_whole_is():
    text = '{"schema": "18xx-route-position/1", "hexes": [{"id": "A1", "x": 1,, "y": 2}]}'
    with pytest.raises(HexrailError) as whole:
        read_json(text)
    data, apart = read_json_apart(text, "hexes")
    assert apart is not None  # (the text outside the hexes is JSON)
    with pytest.raises(HexrailError) as read:
        load_position(text)
    assert str(read.value) == str(whole.value)


def corpus_lines(per_title: int):
    if not CORPUS.is_dir():
        pytest.skip(f"no {CORPUS}: the shared corpus is not on this machine")
    for path in sorted(CORPUS.glob("*.jsonl")):
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        yield from lines[:: max(1, len(lines) // per_title)]


def test_a_position_read_apart_is_the_position_read_whole():
    for line in corpus_lines(6):
        whole = position_from_18xx(json.loads(line))
        assert load_position(line) == whole
        # spaced out: no hex text was read before, each is read from its own
        spaced = json.dumps(json.loads(line), indent=2)
        assert load_position(spaced) == whole


def test_hex_assignments_are_read_from_the_hexes_apart():
    for line in corpus_lines(40):
        doc = json.loads(line)
        if any(h.get("assignments") for h in doc["hexes"]):
            break
    else:
        doc = json.loads(next(corpus_lines(1)))
        doc["hexes"][0]["assignments"] = {"X": True}
    whole = position_from_18xx(doc)
    assert whole.state.get("assignments")
    assert load_position(json.dumps(doc)) == whole
    # the name written with an escape is still that name
    text = json.dumps(doc).replace('"assignments"', '"assign\\u006dents"')
    assert load_position(text) == whole


def test_the_streams_read_apart_and_give_the_same_documents(tmp_path):
    lines = list(corpus_lines(1))[:3]
    path = tmp_path / "positions.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert [d for _, d in read_positions(path)] == [json.loads(line) for line in lines]
    records = list(solve_records(str(path)))
    assert [r["line"] for r in records] == [1, 2, 3]
    assert all("error" not in r and r["optimal"] for r in records)
