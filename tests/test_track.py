"""The compiled track: `compile_track` (rows per hex, stitched by a kernel) gives exactly the
graph of its slow twin `compile_track_twin`, on random boards (lanes, single track meeting
double, towns at a hex side, gauges, ignored and terminal track, twins) and on real positions.
"""

from __future__ import annotations

import json
from dataclasses import fields, replace

import numpy as np
import pytest
from conftest import corpus_lines, corpus_missing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import positions

from hexrail.graph.track import TrackGraph, compile_track, compile_track_twin
from hexrail.io.g18xx import position_from_18xx
from hexrail.io.native import position_from_json

GAUGES = ("broad", "narrow", "dual")


def differences(a: TrackGraph, b: TrackGraph) -> list[str]:
    out = []
    names = [f.name for f in fields(TrackGraph)] + ["node_ref", "path_ref", "node_index",
                                                     "path_index"]
    out += [f"ref({v}): {a.ref(v)} != {b.node_ref[v]}" for v in range(a.n_nodes)
            if a.ref(v) != b.node_ref[v]]
    out += [f"path_name({p}): {a.path_name(p)} != {b.path_ref[p]}" for p in range(a.n_paths)
            if a.path_name(p) != b.path_ref[p]]
    for name in names:
        x, y = getattr(a, name), getattr(b, name)
        if isinstance(x, np.ndarray):
            if x.dtype != y.dtype or x.shape != y.shape or not np.array_equal(x, y):
                out.append(f"{name}: {x.dtype}{x.shape} {x.tolist()} != {y.dtype}{y.shape} {y.tolist()}")
        elif x != y:
            out.append(f"{name}: {x} != {y}")
    return out


@st.composite
def boards(draw):
    """A random position, its paths' gauges and ignore marks shuffled, with twins, a gauge and
    the single-joins-double fact."""
    doc = draw(positions(single_double=draw(st.booleans()), town_sides=draw(st.booleans())))
    pos = position_from_json(doc)
    hexes = []
    for h in pos.hexes:
        paths = tuple(replace(p, track=draw(st.sampled_from(GAUGES)) if draw(st.integers(0, 3)) == 0
                              else p.track, terminal=p.terminal or draw(st.integers(0, 7)) == 0,
                              ignore=draw(st.integers(0, 9)) == 0)
                      for p in h.tile.paths)
        hexes.append(replace(h, tile=replace(h.tile, paths=paths)))
    pos = replace(pos, hexes=tuple(hexes))
    stops = [f"{h.id}-{n.index}" for h in pos.hexes for n in h.tile.nodes if n.kind != "junction"]
    twins = tuple(draw(st.lists(st.sampled_from(stops), max_size=3))) if stops else ()
    return pos, draw(st.sampled_from(("broad", "narrow"))), draw(st.booleans()), twins


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boards(), st.integers(0, 3))
def test_the_kernel_builds_the_twins_graph(board, extra):
    pos, gauge, joins, twins = board
    fast = compile_track(pos, gauge, extra, single_joins_double=joins, twins=twins)
    slow = compile_track_twin(pos, gauge, extra, single_joins_double=joins, twins=twins)
    assert not differences(fast, slow)


def test_a_board_without_track():
    pos = position_from_json({"layout": "flat", "company": "A", "companies": [{"id": "A"}],
                              "trains": ["2"], "hexes": {"A1": {}, "A3": {}}})
    fast, slow = compile_track(pos), compile_track_twin(pos)
    assert not differences(fast, slow) and fast.n_chains == 0 and fast.n_paths == 0


@pytest.mark.parametrize("title", ["generic", "1822", "1867", "18USA", "1870", "1861"])
def test_real_positions(title):
    reason = corpus_missing()
    if reason:
        pytest.skip(reason)
    for line in corpus_lines(title)[::9]:
        pos = position_from_18xx(json.loads(line))
        for gauge in sorted({t.spec.track for t in pos.trains} | {"broad"}):
            assert not differences(compile_track(pos, gauge, 1), compile_track_twin(pos, gauge, 1))


def test_the_store_of_hex_rows_starts_again_between_boards(monkeypatch):
    """Past its limit the store of hexes' rows empties, also in the midst of a board: every
    board still compiles to the twin's graph."""
    from hexrail.graph import hexrows

    monkeypatch.setattr(hexrows, "_STORE", hexrows._Store())
    monkeypatch.setattr(hexrows._STORE, "LIMIT", 7)  # (boards of 3)
    def line(k: int) -> dict:  # A1 - A3 - A5, the middle a city or a town
        middle = "city=revenue:20" if k % 2 else "town=revenue:10"
        return {"A1": {"tile": "city=revenue:20;path=a:0,b:_0"},
                "A3": {"tile": f"{middle};path=a:3,b:_0;path=a:0,b:_0"},
                "A5": {"tile": "city=revenue:30;path=a:3,b:_0"}}

    boards = [position_from_json({"layout": "flat", "company": "A", "companies": [{"id": "A"}],
                                  "trains": ["2"], "hexes": line(k)}) for k in range(4)]
    for pos in boards * 2:
        assert not differences(compile_track(pos), compile_track_twin(pos))
    assert hexrows._STORE.generation >= 2 and compile_track(boards[0]).n_chains


def test_ever_new_names_and_track_kinds_start_every_number_again(monkeypatch):
    """A service fed boards of ever new hex names and track kinds keeps a bounded count of
    them: past the limits everything is numbered again, and every board still compiles to
    the twin's graph."""
    from hexrail.graph import hexrows

    monkeypatch.setattr(hexrows, "NAME_LIMIT", 12)
    monkeypatch.setattr(hexrows, "TRACK_LIMIT", 5)
    generation = hexrows._STORE.generation
    for k in range(6):
        kind = f"gauge{k}"
        hexes = {f"A{r + 10 * k}": {"tile": f"city=revenue:20;path=a:0,b:_0,track:{kind}"}
                 for r in (1,)}
        hexes.update({f"A{3 + 10 * k}": {"tile": f"city=revenue:30;path=a:3,b:_0,track:{kind}"}})
        pos = position_from_json({"layout": "flat", "company": "A", "companies": [{"id": "A"}],
                                  "trains": ["2"], "hexes": hexes})
        for gauge in (kind, "broad"):
            assert not differences(compile_track(pos, gauge), compile_track_twin(pos, gauge))
        assert len(hexrows._NAME_IDS) <= 12 + 2 * 7 and len(hexrows._TRACK_CODES) <= 5 + 1
    assert compile_track(pos, kind).n_chains == 1 and hexrows._STORE.generation >= generation + 2
