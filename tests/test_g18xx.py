"""hexrail.io.g18xx: the 18xx.games position reader, the route-form writer, and the streams.

Hand-made positions pin the reader's details and its errors; the corpus (../shared/corpus, see
conftest.py) checks every exported tile against our notation parser, our blocking against the
engine's, and our writer against every stored route.
"""

from __future__ import annotations

import copy
import io
import json
import re
import subprocess
import sys
from collections import Counter
from functools import lru_cache

import pytest
from conftest import REPO_ROOT, corpus_lines, corpus_positions, corpus_titles

from hexrail.errors import HexrailError
from hexrail.io.g18xx import (
    SCHEMA,
    connections_from_track,
    plan_from_18xx_routes,
    position_from_18xx,
    route_to_18xx,
    rules_for_title,
    score_stream,
    solve_stream,
)
from hexrail.model.notation import parse_tile
from hexrail.model.position import Train
from hexrail.model.tile import End, Token
from hexrail.model.trains import ALL_KINDS, UNLIMITED, Row, parse_spec
from hexrail.plan import RoutePlan
from hexrail.rules import Profile, profiles, register
import hexrail.rules.base as rules_base
from hexrail.rules.base import PASSABLE

FLAT = {"orientation": "flat", "axes": {"x": "letter", "y": "number"},
        "directions": {"0": [0, 2], "1": [-1, 1], "2": [-1, -1], "3": [0, -2], "4": [1, -1], "5": [1, 1]}}
NONE6 = [None] * 6


def nb(**sides: str) -> list:
    out = list(NONE6)
    for side, hex_id in sides.items():
        out[int(side[1:])] = hex_id
    return out


ROUTE = {  # the 3-train's best run on `board()`: A1 (20) - A3 town (10) - A7 (30)
    "train": "3-0", "train_name": "3", "connections": [["A1", "A3"], ["A3", "A5", "A7"]],
    "hexes": ["A1", "A3", "A7"], "visits": ["A1-0", "A3-0", "A7-2"],
    "track": ["A1:0", "A3:0", "A3:1", "A5:0", "A7:0"], "revenue": 60,
    "stops": ["A1-0", "A3-0", "A7-2"],
}


def board() -> dict:
    """A column of four hexes: X's city A1, a town A3, plain track A5, a city A7 (node index 2)."""
    return {
        "schema": SCHEMA, "title": "1830", "fixture": "hand.json", "game_id": 1, "action_index": 5,
        "action_id": 6, "action_entity": "X", "round": "Operating Round", "turn": 2, "round_num": 1,
        "entity": {"id": "X", "kind": "corporation", "type": None, "name": "X Railway", "home": "A1",
                   "token_nodes": ["A1-0"]},
        "phase": {"name": "3", "tiles": ["yellow", "green"]},
        "optional_rules": [],
        "layout": copy.deepcopy(FLAT),
        "train_autoroute_groups": None,
        "trains": [
            {"id": "3-0", "name": "3", "distance": 3, "runnable": True, "owner": "X"},
            {"id": "2-0", "name": "2", "distance": 2, "runnable": False, "owner": "X", "rusted": True},
        ],
        "hexes": [
            {"id": "A1", "x": 0, "y": 0, "tile": "57", "color": "yellow", "rot": 0,
             "code": "city=revenue:20;path=a:0,b:_0", "nb": nb(e0="A3"),
             "nodes": [{"i": 0, "kind": "city", "revenue": 20, "slots": 1, "tokens": ["X"]}],
             "paths": [{"a": "e0", "b": "n0"}]},
            {"id": "A3", "x": 0, "y": 2, "tile": "3", "color": "yellow", "rot": 0,
             "code": "town=revenue:10;path=a:3,b:_0;path=a:_0,b:0", "nb": nb(e0="A5", e3="A1"),
             "nodes": [{"i": 0, "kind": "town", "revenue": 10}],
             "paths": [{"a": "e3", "b": "n0"}, {"a": "n0", "b": "e0"}]},
            {"id": "A5", "x": 0, "y": 4, "tile": "9", "color": "yellow", "rot": 0,
             "code": "path=a:0,b:3", "nb": nb(e0="A7", e3="A3"),
             "paths": [{"a": "e3", "b": "e0"}]},
            {"id": "A7", "x": 0, "y": 6, "tile": "A7", "color": "gray", "rot": 0,
             "code": "label=Z;upgrade=cost:20;city=revenue:30,slots:2;path=a:3,b:_0,terminal:1",
             "preprinted": True, "nb": nb(e3="A5"), "label": "Z",
             "nodes": [{"i": 2, "kind": "city", "revenue": 30, "slots": 2, "tokens": ["Y", None]}],
             "paths": [{"a": "e3", "b": "n2", "terminal": "1"}]},
        ],
        "submitted": {"routes": [dict(ROUTE)], "revenue": 60, "extra_revenue": 0, "revenue_fixture": 60},
        "auto_router": {"revenue": 60, "revenue_rescored": 60, "routes": [dict(ROUTE)], "time_s": 0.001},
    }


def details_hex() -> dict:
    """An isolated hex using every reader feature the column does not."""
    return {
        "id": "C1", "x": 2, "y": 0, "tile": "X9", "color": "green", "rot": 2,
        "code": "city=revenue:yellow_30|green_40,slots:3,groups:North", "label": "OO",
        "location": "Somewhere", "nb": list(NONE6),
        "icons": [{"name": "port", "image": "1889/port", "sticky": True}],
        "borders": [{"edge": 3, "type": "water", "cost": 40}, {"edge": 4}],
        "assignments": ["SB"],
        "nodes": [
            {"i": 1, "kind": "city", "revenue": 40, "revenues": {"yellow": 30, "green": 40}, "slots": 3,
             "tokens": ["Y", "Z", "W"], "groups": ["North"],
             "token_flags": {"0": {"type": "neutral"}, "1": {"type": "normal", "status": "flipped"},
                             "2": {"type": "blocking"}}},
            {"i": 3, "kind": "halt", "revenue": 0, "route": "optional", "symbol": "£", "visit_cost": 0},
            {"i": 4, "kind": "offboard", "revenue": 50, "blocks_entity": True,
             "train_revenue": {"3-0": 100}},
        ],
        "paths": [
            {"a": "e0", "b": "n1"},
            {"a": "e1", "b": "e4", "lanes": [[2, 0], [2, 1]]},
            {"a": "e2", "b": "n3", "track": "narrow"},
            {"a": "n3", "b": "n1", "ignore": True},
            {"a": "e5", "b": "n4", "terminal": "1"},
        ],
    }


# -- reading -------------------------------------------------------------------------------------


def test_reader_board_and_geometry():
    pos = position_from_18xx(board())
    assert pos.layout.orientation == "flat" and pos.layout.x_from == "letter"
    assert pos.neighbour("A3", 0) == "A5" and pos.neighbour("A3", 3) == "A1"
    assert pos.neighbour("A3", 1) is None
    a7 = pos.hex("A7")
    assert [(n.index, n.kind) for n in a7.tile.nodes] == [(2, "city")]
    assert a7.tile.paths[0].a == End(edge=3) and a7.tile.paths[0].b == End(node=2)
    assert a7.tile.paths[0].terminal
    assert a7.tile.code.startswith("label=Z") and a7.tile.rotation == 0 and a7.tile.labels == ("Z",)
    assert a7.slots(2) == (Token("Y"), None)
    assert pos.company == "X" and [c.id for c in pos.companies] == ["X", "Y"]
    assert pos.operating().home == ("A1",) and pos.operating().name == "X Railway"
    assert pos.phase.name == "3" and pos.phase.colors == ("yellow", "green")


def test_reader_trains_runnable_only():
    pos = position_from_18xx(board())
    assert [t.id for t in pos.trains] == ["3-0"]
    spec = pos.trains[0].spec
    # an integer distance limits visit units; every stop visited pays
    assert spec.rows == (Row(ALL_KINDS, UNLIMITED, 3),) and spec.min_stops == 2 and spec.requires_token


def test_reader_details():
    data = board()
    data["hexes"].append(details_hex())
    data["title_state"] = {"port_marker": "SB", "bonus_tokens": {"GKB50": 50}}
    data["optional_rules"] = ["re_enter_hexes"]
    pos = position_from_18xx(data)
    h = pos.hex("C1")
    city, halt, off = h.tile.nodes
    assert [(n.index, n.kind) for n in (city, halt, off)] == [(1, "city"), (3, "halt"), (4, "offboard")]
    assert city.value(pos.phase.colors) == 40 and city.revenue == (("*", 40),)  # the stored current value
    assert city.slots == 3 and city.groups == ("North",)
    assert halt.route == "optional" and halt.visit_cost == 0
    assert h.slots(1) == (Token("Y", "neutral"), Token("Z", "flipped"), Token("W", "blocking"))
    assert [t.blocks for t in h.slots(1)] == [False, False, True]
    p = h.tile.paths
    assert p[1].a.lane == (2, 0) and p[1].b.lane == (2, 1)
    assert p[2].track == "narrow" and p[3].ignore and p[4].terminal and not p[0].terminal
    assert h.icons == ("port",) and h.location == "Somewhere"
    assert h.tile.rotation == 2 and h.tile.name == "X9" and h.tile.color == "green"
    assert [(b.edge, b.type, b.cost) for b in h.tile.borders] == [(3, "water", 40), (4, "impassable", 0)]
    assert {c.id for c in pos.companies} == {"X", "Y", "Z", "W"}
    assert pos.trains[0].revenue_overrides == {"C1-4": 100}
    assert pos.state["port_marker"] == "SB" and pos.state["assignments"] == {"C1": ("SB",)}
    assert pos.rules.options == {"re_enter_hexes": True}
    assert pos.meta["fixture"] == "hand.json" and pos.meta["action_index"] == 5


def test_reader_train_specs():
    data = board()
    data["trains"] = [
        {"id": "D-0", "name": "D", "distance": 999, "multiplier": 2, "runnable": True},
        {"id": "2+1-0", "name": "2+1", "runnable": True, "distance": [
            {"nodes": ["city", "offboard"], "pay": 2, "visit": 2},
            {"nodes": ["town"], "pay": 1}]},
        {"id": "3/4E-0", "name": "3/4E", "runnable": True,
         "distance": [{"nodes": ["city", "offboard"], "pay": 3, "visit": 4, "multiplier": 2},
                      {"nodes": ["town"], "pay": 0, "visit": 99}]},
        {"id": "1L-0", "name": "1L", "distance": 1, "local": True, "requires_token": False,
         "track_type": "narrow", "runnable": True},
    ]
    pos = position_from_18xx(data)
    d, two_one, express, local = (t.spec for t in pos.trains)
    assert d.rows == (Row(ALL_KINDS, UNLIMITED, UNLIMITED),) and d.multiplier == 2 and d.unlimited
    # rows with fewer kinds first (the engine's fill order), visit defaults to pay
    assert two_one.rows == (Row(frozenset({"town"}), 1, 1), Row(frozenset({"city", "offboard"}), 2, 2))
    assert express.rows[1] == Row(frozenset({"city", "offboard"}), 3, 4, 2)
    assert local.min_stops == 1 and not local.requires_token and local.track == "narrow"


@pytest.mark.parametrize("title", ["1860", "1862", "18SJ", "1846", "18ZZ"])
def test_title_with_rules_of_its_own(title):
    """Its profile when one is registered; else generic, and the note says so."""
    profile, covered, note = rules_for_title(title)
    if title in profiles():
        assert (profile, covered) == (title, True)
    else:
        assert (profile, covered) == ("generic", False)
        assert title in note and "solved under the generic rules" in note


def test_title_to_profile(monkeypatch):
    assert rules_for_title("1830") == ("generic", True, "1830 uses the generic rules")
    assert rules_for_title("1889")[:2] == ("generic", True)
    assert rules_for_title("18ZZ")[:2] == ("generic", False)
    # the profile registered here is gone after the test (others ask for "1899" as unknown)
    monkeypatch.setattr(rules_base, "_REGISTRY", dict(rules_base._REGISTRY))

    @register
    class Title1899(Profile):
        name = "1899"

    data = board()
    data["title"] = "1899"
    pos = position_from_18xx(data)
    assert pos.rules.profile == "1899" and pos.meta["rules_covered"]


def test_title_meta_says_rules_not_covered():
    data = board()
    data["title"] = "1860"
    if "1860" in profiles():
        pytest.skip("1860 has a profile now")
    pos = position_from_18xx(data)
    assert pos.rules.profile == "generic" and pos.meta["rules_covered"] is False
    assert "1860" in pos.meta["rules_note"]


def _set(path: str, value):
    """A mutation of `board()`: set the item at a dotted path (``hexes.1.nb``) to `value`."""
    def apply(data):
        *keys, last = path.split(".")
        target = data
        for k in keys:
            target = target[int(k)] if isinstance(target, list) else target[k]
        if value is _DELETE:
            del target[int(last) if isinstance(target, list) else last]
        elif isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value
    return apply


_DELETE = object()

BAD_INPUTS = {
    "schema": (_set("schema", "18xx-route-position/0"), ["schema"]),
    "no layout": (_set("layout", _DELETE), ["layout"]),
    "orientation": (_set("layout.orientation", "round"), ["layout", "orientation"]),
    "hexes not a list": (_set("hexes", {}), ["hexes"]),
    "nb length": (_set("hexes.1.nb", [None] * 5), ["hex A3", "nb"]),
    "nb off map": (_set("hexes.1.nb.0", "Z9"), ["hex A3", "Z9"]),
    "path end node": (_set("hexes.1.paths.1.b", "n7"), ["hex A3 path A3:1", "n7"]),
    "path end side": (_set("hexes.1.paths.0.a", "e6"), ["hex A3 path A3:0", "0-5"]),
    "path end form": (_set("hexes.1.paths.0.a", "x1"), ["hex A3 path A3:0", "'e<side>'"]),
    "path lanes": (_set("hexes.2.paths.0.lanes", [[2, 2], [2, 0]]), ["hex A5 path A5:0", "lanes"]),
    "node kind": (_set("hexes.0.nodes.0.kind", "castle"), ["hex A1 node A1-0", "castle"]),
    "node revenue": (_set("hexes.0.nodes.0.revenue", "ten"), ["hex A1 node A1-0", "revenue"]),
    "node index": (_set("hexes.0.nodes.0.i", -1), ["hex A1", "i"]),
    "node route": (_set("hexes.1.nodes.0.route", "maybe"), ["hex A3 node A3-0", "route"]),
    "tokens overflow": (_set("hexes.3.nodes.0.tokens", ["Y", None, "Z"]), ["hex A7 node A7-2", "slots"]),
    "tokens on a town": (_set("hexes.1.nodes.0.tokens", ["X"]), ["hex A3 node A3-0", "town"]),
    "token flag slot": (_set("hexes.3.nodes.0.token_flags", {"1": {"type": "neutral"}}),
                        ["hex A7 node A7-2", "token_flags"]),
    "hex name": (_set("hexes.2.id", "55"), ["'55'", "hex name"]),
    "hex twice": (_set("hexes.2.id", "A1"), ["hex A1", "twice"]),
    "entity id": (_set("entity.id", _DELETE), ["entity", "id"]),
    "phase tiles": (_set("phase.tiles", "yellow"), ["phase", "tiles"]),
    "train runnable": (_set("trains.0.runnable", _DELETE), ["train 3-0", "runnable"]),
    "train distance": (_set("trains.0.distance", "x"), ["train 3-0", "distance"]),
    "train distance zero": (_set("trains.0.distance", 0), ["train 3-0", "distance"]),
    "row kinds": (_set("trains.0.distance", [{"nodes": ["mine"], "pay": 2}]),
                  ["train 3-0 distance[0]", "nodes"]),
    "row visit": (_set("trains.0.distance", [{"nodes": ["city"], "pay": 3, "visit": -2}]),
                  ["train 3-0 distance[0]", "visit"]),
    "train multiplier": (_set("trains.0.multiplier", "2"), ["train 3-0", "multiplier"]),
    "train_revenue train": (_set("hexes.0.nodes.0.train_revenue", {"9-9": 10}), ["train_revenue", "9-9"]),
    "train_revenue value": (_set("hexes.0.nodes.0.train_revenue", {"3-0": "x"}), ["hex A1 node A1-0"]),
}


@pytest.mark.parametrize("name", list(BAD_INPUTS))
def test_reader_errors_name_the_field(name):
    mutate, expected = BAD_INPUTS[name]
    data = board()
    mutate(data)
    with pytest.raises(HexrailError) as info:
        position_from_18xx(data)
    for text in expected:
        assert text in str(info.value), str(info.value)


def test_reader_rejects_non_objects():
    with pytest.raises(HexrailError, match="position"):
        position_from_18xx([])  # type: ignore[arg-type]


# -- writing -------------------------------------------------------------------------------------


def test_writer_segments_per_node():
    pos = position_from_18xx(board())
    route = RoutePlan(train="3-0", train_name="3", stops=("A1-0", "A3-0", "A7-2"),
                      paid=("A1-0", "A3-0", "A7-2"), paths=tuple(ROUTE["track"]), revenue=60)
    out = route_to_18xx(pos, route)
    assert out["connections"] == [["A1", "A3"], ["A3", "A5", "A7"]]
    assert out["visits"] == out["nodes"] == ["A1-0", "A3-0", "A7-2"]
    assert out["hexes"] == ["A1", "A3", "A7"] and out["track"] == ROUTE["track"]
    assert out["stops"] == ["A1-0", "A3-0", "A7-2"] and out["revenue"] == 60
    assert out["revenue_str"] == "A1-A3-A7"
    # the other way round, and with the first node read from the track
    back = list(reversed(ROUTE["track"]))
    assert connections_from_track(pos, back) == [["A7", "A5", "A3"], ["A3", "A1"]]
    assert connections_from_track(pos, back, "A7-2") == [["A7", "A5", "A3"], ["A3", "A1"]]


def test_writer_local_route():
    pos = position_from_18xx(board())
    out = route_to_18xx(pos, RoutePlan(train="3-0", train_name="3", stops=("A1-0",), paid=("A1-0",)))
    assert out["connections"] == [["local", "A1"]] and out["visits"] == ["A1-0"]


def test_writer_ambiguous_intra_tile_paths():
    """A tile with two node-to-node paths: segments on them are named ``"F2 0.1"`` (sorted)."""
    data = board()
    data["hexes"].append({
        "id": "F2", "x": 5, "y": 1, "tile": "787", "color": "yellow", "rot": 0, "nb": list(NONE6),
        "code": "city=revenue:20;town=revenue:10;halt=symbol:£;path=a:0,b:_2;path=a:_2,b:_1;path=a:_0,b:_1",
        "nodes": [{"i": 0, "kind": "city", "revenue": 20, "slots": 1, "tokens": ["X"]},
                  {"i": 1, "kind": "town", "revenue": 10},
                  {"i": 2, "kind": "halt", "revenue": 0, "route": "optional"}],
        "paths": [{"a": "e0", "b": "n2"}, {"a": "n2", "b": "n1"}, {"a": "n0", "b": "n1"}]})
    pos = position_from_18xx(data)
    assert connections_from_track(pos, ["F2:2", "F2:1"], "F2-0") == [["F2 0.1"], ["F2 1.2"]]
    assert connections_from_track(pos, ["F2:1", "F2:2"], "F2-2") == [["F2 1.2"], ["F2 0.1"]]
    # one node-to-node path on a tile is not ambiguous: the hex id alone names it
    data["hexes"][-1]["paths"] = [{"a": "e0", "b": "n2"}, {"a": "n0", "b": "n1"}]
    assert connections_from_track(position_from_18xx(data), ["F2:1"], "F2-0") == [["F2"]]


def test_writer_walks_through_junctions():
    """A junction is no segment end; the hex of the path leaving it is not repeated."""
    data = board()
    data["hexes"][2]["nodes"] = [{"i": 0, "kind": "junction", "revenue": 0}]
    data["hexes"][2]["paths"] = [{"a": "e3", "b": "n0"}, {"a": "n0", "b": "e0"}]
    pos = position_from_18xx(data)
    track = ["A1:0", "A3:0", "A3:1", "A5:0", "A5:1", "A7:0"]
    out = route_to_18xx(pos, RoutePlan(train="3-0", train_name="3", stops=("A1-0", "A3-0", "A7-2"),
                                       paths=tuple(track)))
    assert out["connections"] == [["A1", "A3"], ["A3", "A5", "A7"]]
    assert out["visits"] == ["A1-0", "A3-0", "A7-2"]


@pytest.mark.parametrize("track, start, message", [
    (["A3:1", "A5:0"], "A1-0", "does not continue from node A1-0"),
    (["A1:0", "A3:0", "A3:1", "A5:0"], "A1-0", "does not end at a node"),
    (["A5:0"], None, "does not start at a node"),
    (["A1:9"], None, "A1 has 1 paths"),
    (["A1-0"], None, "track reference"),
])
def test_writer_errors(track, start, message):
    pos = position_from_18xx(board())
    with pytest.raises(HexrailError, match=re.escape(message)):
        connections_from_track(pos, track, start)


@pytest.mark.parametrize("axes", [{"x": [0], "y": "number"}, {"x": "letter", "y": {"a": 1}},
                                  {"x": "letter", "y": "letter"}])
def test_a_layout_of_other_axes_is_refused_naming_them(axes):
    """Axes that are not one 'letter' and one 'number' (a list, an object) get the reader's
    one-line error, not a TypeError from comparing them."""
    data = board()
    data["layout"]["axes"] = axes
    with pytest.raises(HexrailError, match="axes must map") as info:
        position_from_18xx(data)
    assert info.value.where == "layout.axes"


# -- the corpus: tiles, blocking, routes ----------------------------------------------------------


@lru_cache(maxsize=None)
def _parsed(code: str, rot: int):
    return parse_tile(code, rotation=rot)


@lru_cache(maxsize=None)
def _corpus_models(name: str) -> tuple:
    """``(data, position)`` for every position of one corpus file, read once per session."""
    return tuple((data, position_from_18xx(data)) for data in corpus_positions(name))


def corpus_models():
    for name in corpus_titles():
        yield from _corpus_models(name)


def test_corpus_tiles_match_notation(corpus_dir):
    """Every hex of every position: the tile built from nodes/paths equals its code parsed."""
    checked = 0
    for data, pos in corpus_models():
        for h in pos.hexes:
            ref = _parsed(h.tile.code, h.tile.rotation)
            where = f"{position_id_of(data)} hex {h.id}"
            assert [(n.index, n.kind) for n in h.tile.nodes] == [(n.index, n.kind) for n in ref.nodes], where
            # track marked "future" (18SJ) is drawn by the code but is not track yet
            ref_paths = [p for p in ref.paths if p.track != "future"]
            assert [(p.a, p.b, p.terminal) for p in h.tile.paths] == \
                   [(p.a, p.b, p.terminal) for p in ref_paths], where
            checked += 1
    assert checked > 30000


def position_id_of(data: dict) -> str:
    return f"{data['title']} {data['fixture']} action {data['action_index']}"


def test_corpus_blocking_matches_engine(corpus_dir):
    """Our generic blocking (`StopRule.block`) equals the engine's ``blocks_entity`` for every city and offboard."""
    differences = []
    train = Train("probe", "2", parse_spec("2"))
    for data, pos in corpus_models():
        profile = Profile(pos)
        raw = {h["id"]: {n["i"]: n for n in h.get("nodes", [])} for h in data["hexes"]}
        for h in pos.hexes:
            for node in h.tile.nodes:
                if node.kind in ("city", "offboard"):
                    ours = profile.stop_rule(pos, train, h, node).block != PASSABLE
                    theirs = bool(raw[h.id][node.index].get("blocks_entity", False))
                    if ours != theirs:
                        differences.append(f"{position_id_of(data)} {h.id}-{node.index}")
    assert differences == []


def _orientation(ours: list[list[str]], stored: list[list[str]]) -> str:
    """Per segment: s (same either way), f (as we write it), r (reversed), x (different)."""
    out = ""
    for a, b in zip(ours, stored):
        out += "s" if a == b and a == a[::-1] else "f" if a == b else "r" if a[::-1] == b else "x"
    return out


def test_corpus_connections_round_trip(corpus_dir):
    """Rebuild ``connections`` from every stored route's track and visits.

    Auto-router routes: exactly as stored. Players' routes: the same segments in the same order,
    each with the same hexes; the engine writes a segment in the direction it was searched when
    the player drew it (often a leading run reversed, ``r…rf…f``, from extending a route at its
    head, but any mix occurs), and reads either direction.
    """
    counts: Counter = Counter()
    for data, pos in corpus_models():
        for source in ("submitted", "auto_router"):
            for r in (data.get(source) or {}).get("routes", []):
                where = f"{position_id_of(data)} {source} {r['train']}"
                if not r["track"] and len(r["visits"]) == 1:  # a local train's one-city run
                    ours = route_to_18xx(pos, RoutePlan(train=r["train"], train_name=r["train_name"],
                                                        stops=tuple(r["visits"]), paths=()))
                    assert (ours["visits"], ours["connections"]) == (r["visits"], r["connections"]), where
                    counts[source, "local"] += 1
                    continue
                if not r["track"]:
                    assert r.get("error"), r  # only routes the engine could not rebuild
                    counts[source, "no track"] += 1
                    continue
                ours = route_to_18xx(pos, RoutePlan(train=r["train"], train_name=r["train_name"],
                                                    stops=(r["visits"][0],), paths=tuple(r["track"])))
                assert ours["visits"] == r["visits"], where
                assert len(ours["connections"]) == len(r["connections"]), where
                if ours["connections"] == r["connections"]:
                    counts[source, "exact"] += 1
                    continue
                assert source == "submitted", where
                pattern = _orientation(ours["connections"], r["connections"])
                assert "x" not in pattern, (where, pattern)
                counts[source, "reversed segments"] += 1
    assert counts["auto_router", "exact"] > 800 and counts["submitted", "exact"] > 200


def test_corpus_auto_router_hexes(corpus_dir):
    """Our ``hexes`` (hexes of the visited nodes) equal the auto-router routes' for every route."""
    for data, pos in corpus_models():
        for r in (data.get("auto_router") or {}).get("routes", []):
            ours = route_to_18xx(pos, RoutePlan(train=r["train"], train_name=r["train_name"],
                                                stops=(r["visits"][0],), paths=tuple(r["track"])))
            assert ours["hexes"] == r["hexes"], position_id_of(data)


def test_corpus_routes_say_how_many_halts_they_count(corpus_dir):
    """A route past halts carries ``halts``, the number it counts, as the engine stored it for the
    players' routes (1860); without it the engine would count as many as fit. The engine drops
    the number where halts count for nothing (after the Southern forms, or on a leased train)."""
    seen = 0
    for data, pos in corpus_models():
        for r in (data.get("submitted") or {}).get("routes", []):
            if not r.get("track") or "stops" not in r:
                continue
            ours = route_to_18xx(pos, RoutePlan(train=r["train"], train_name=r["train_name"],
                                                stops=(r["visits"][0],), paid=tuple(r["stops"]),
                                                paths=tuple(r["track"])))
            if "halts" in r:
                seen += 1
                assert ours.get("halts") == r["halts"], position_id_of(data)
            elif "halts" in ours:
                state = data.get("title_state") or {}
                assert state.get("ignore_halts") or state.get("insolvent"), position_id_of(data)
    assert seen > 100


# -- streams -------------------------------------------------------------------------------------


def _lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def test_solve_stream_goes_on_after_bad_lines(tmp_path, warm_solver):
    bad_schema = board()
    bad_schema["hexes"][1]["paths"][1]["b"] = "n7"
    good = board()
    path = tmp_path / "positions.jsonl"
    path.write_text("\n".join([json.dumps(good), "{not json", json.dumps(bad_schema), "",
                               json.dumps(good)]) + "\n")
    out = io.StringIO()
    status = solve_stream(str(path), out)
    first, broken, wrong, last = _lines(out.getvalue())
    assert status == 2
    assert broken["error"].startswith("line 2: malformed JSON") and broken["title"] is None
    assert wrong == {"title": "1830", "fixture": "hand.json", "action_index": 5, "line": 3,
                     "error": wrong["error"]}
    assert "hex A3 path A3:1" in wrong["error"]
    for record in (first, last):
        assert {"title", "fixture", "action_index", "profile", "revenue", "subsidy", "optimal",
                "upper_bound", "seconds", "routes", "submitted_revenue", "auto_router_revenue",
                "rules_covered"} <= set(record)
        assert (record["revenue"], record["optimal"], record["profile"]) == (60, True, "generic")
        assert record["submitted_revenue"] == 60 and record["vs_best_recorded"] == 0
        (route,) = record["routes"]
        assert route["g18xx"]["connections"] in ([["A1", "A3"], ["A3", "A5", "A7"]],
                                                 [["A7", "A5", "A3"], ["A3", "A1"]])
    assert set(first) == set(last) and "warm_up_seconds" not in first  # the same keys on every line
    assert (first["line"], last["line"]) == (1, 5)


def _cli_output(capsys, *argv: str) -> tuple[int, str]:
    from hexrail.cli import main

    status = main(list(argv))
    return status, capsys.readouterr().out


def _unclocked(text: str) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "seconds"} for r in _lines(text)]


def test_solve_stream_writes_the_cli_lines(tmp_path, capsys, warm_solver):
    wrong = board()
    wrong["hexes"][1]["paths"][1]["b"] = "n7"
    path = tmp_path / "positions.jsonl"
    path.write_text("\n".join([json.dumps(board()), "{not json", json.dumps(wrong)]) + "\n")
    out = io.StringIO()
    status = solve_stream(str(path), out)
    cli_status, cli_out = _cli_output(capsys, "-q", "solve", "--from", "18xx", str(path),
                                      "--format", "json")
    assert (status, cli_status) == (2, 2)
    assert [list(r) for r in _lines(out.getvalue())] == [list(r) for r in _lines(cli_out)]
    assert _unclocked(out.getvalue()) == _unclocked(cli_out)


def test_score_stream_writes_the_cli_lines(tmp_path, capsys):
    wrong = board()
    wrong["submitted"]["revenue"] = 70
    uncovered = board()
    uncovered["title"] = "18ZZ"
    path = tmp_path / "positions.jsonl"
    path.write_text("\n".join([json.dumps(board()), json.dumps(wrong), "{not json",
                               json.dumps(uncovered)]) + "\n")
    for fmt in ("json", "table"):
        out = io.StringIO()
        status = score_stream(str(path), out, fmt=fmt)
        assert (status, out.getvalue()) == _cli_output(capsys, "-q", "score", "--from", "18xx",
                                                       str(path), "--format", fmt)


@pytest.mark.parametrize("stream", [solve_stream, score_stream])
def test_streams_refuse_empty_input(tmp_path, stream):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n  \n")
    out = io.StringIO()
    with pytest.raises(HexrailError, match="empty"):
        stream(str(path), out)
    assert out.getvalue() == ""


def test_solved_routes_in_18xx_form_validate(warm_solver):
    """What we write reads back: our routes in the 18xx.games form pass our validator."""
    from hexrail.validate import check_plan

    data = board()
    out = io.StringIO()
    solve_stream(_write_tmp(data), out)
    (record,) = _lines(out.getvalue())
    plan = plan_from_18xx_routes([r["g18xx"] for r in record["routes"]])
    report = check_plan(position_from_18xx(data), plan)
    assert report.legal and report.revenue == record["revenue"]


def _write_tmp(data: dict) -> str:
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        f.write(json.dumps(data) + "\n")
        return f.name


def test_solve_stream_reads_one_pretty_document(tmp_path, warm_solver):
    path = tmp_path / "one.json"
    path.write_text(json.dumps(board(), indent=2))
    out = io.StringIO()
    assert solve_stream(str(path), out) == 0
    (record,) = _lines(out.getvalue())
    assert record["revenue"] == 60


def test_score_stream_agrees_on_hand_board(tmp_path):
    data = board()
    wrong = board()
    wrong["submitted"]["revenue"] = 70  # 18xx.games would not say this: we must disagree
    illegal = board()
    illegal["submitted"]["routes"][0]["track"] = ["A1:0", "A3:0", "A3:1", "A5:0"]
    path = tmp_path / "positions.jsonl"
    path.write_text("\n".join(json.dumps(d) for d in (data, wrong, illegal)) + "\n")
    out = io.StringIO()
    assert score_stream(str(path), out, fmt="json") == 1
    same, differ, broken = _lines(out.getvalue())
    assert same["agree"] and same["submitted"]["revenue"] == 60 and same["auto_router"]["agree"]
    assert not differ["agree"] and differ["submitted"]["engine_revenue"] == 70
    assert not broken["submitted"]["legal"] and broken["submitted"]["errors"]
    table = io.StringIO()
    score_stream(str(path), table, fmt="table")
    rows = table.getvalue().splitlines()
    assert "players" in rows[0] and "60 / 60 ok" in rows[2] and "DIFFER" in rows[3]


# -- the command line ----------------------------------------------------------------------------


def _hexrail(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hexrail.cli", *args], input=stdin, text=True,
                          capture_output=True, cwd=REPO_ROOT, timeout=300)


def test_cli_solve_from_18xx(corpus_dir, tmp_path):
    lines = corpus_lines("generic")[:2] + corpus_lines("1860")[:1]
    path = tmp_path / "three.jsonl"
    path.write_text("\n".join(lines) + "\n")
    done = _hexrail("solve", "--from", "18xx", str(path))
    assert done.returncode == 0, done.stderr
    records = _lines(done.stdout)
    inputs = [json.loads(line) for line in lines]
    assert [(r["fixture"], r["action_index"]) for r in records] == \
           [(d["fixture"], d["action_index"]) for d in inputs]
    assert [r["rules_covered"] for r in records] == [rules_for_title(d["title"])[1] for d in inputs]
    assert [r["profile"] for r in records] == [rules_for_title(d["title"])[0] for d in inputs]
    assert all(r["optimal"] and r["routes"] for r in records)
    assert all(r["total"] >= r["best_recorded"] for r in records[:2])
    # the same from stdin
    piped = _hexrail("solve", "--from", "18xx", "-", stdin=lines[0] + "\n")
    assert piped.returncode == 0 and _lines(piped.stdout)[0]["revenue"] == records[0]["revenue"]


def test_cli_score_and_corpus(corpus_dir, tmp_path):
    lines = corpus_lines("generic")[:3]
    path = tmp_path / "three.jsonl"
    path.write_text("\n".join(lines) + "\n")
    done = _hexrail("score", "--from", "18xx", str(path), "--format", "json")
    assert done.returncode == 0, done.stderr
    assert [r["agree"] for r in _lines(done.stdout)] == [True, True, True]
    json_out = tmp_path / "results.jsonl"
    done = _hexrail("corpus", str(path), "--workers", "2", "--json", str(json_out))
    assert done.returncode == 0, done.stderr
    assert re.search(r"^1830\s+3\s+3\s+3\s", done.stdout, re.M), done.stdout
    # captured stderr is no terminal: no bar, no carriage returns, one summary line
    assert re.fullmatch(r"corpus: 3/3 positions in \d+\.\ds\n", done.stderr), done.stderr
    assert len(json_out.read_text().splitlines()) == 3
    quiet = _hexrail("-q", "corpus", str(path))
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr


def test_cli_reports_unreadable_file():
    done = _hexrail("solve", "--from", "18xx", "/nonexistent/positions.jsonl")
    assert done.returncode == 2 and "cannot read file" in done.stderr and "Traceback" not in done.stderr


def test_repeated_hexes_are_read_once_and_shared():
    """A hex seen before (the same JSON) is the same `Hex`; any change reads it again."""
    first, second = position_from_18xx(board()), position_from_18xx(board())
    assert all(a is b for a, b in zip(first.hexes, second.hexes))
    assert first.layout is second.layout
    changed = board()
    changed["hexes"][1]["rot"] = (changed["hexes"][1].get("rot", 0) + 1) % 6
    third = position_from_18xx(changed)
    assert third.hexes[1] is not first.hexes[1] and third.hexes[0] is first.hexes[0]
    assert third.hexes[1].tile.rotation == changed["hexes"][1]["rot"]
    # a bad hex is refused every time, not remembered
    for _ in range(2):
        bad = board()
        bad["hexes"][1]["nb"] = ["A1"]
        with pytest.raises(HexrailError, match="nb must list six"):
            position_from_18xx(bad)


def test_a_board_is_compiled_once_for_positions_that_share_it():
    import importlib

    solve_module = importlib.import_module("hexrail.solve")
    first, second = position_from_18xx(board()), position_from_18xx(board())
    assert solve_module.cached_track(first, "broad") is solve_module.cached_track(second, "broad")
    changed = board()
    changed["hexes"][1]["rot"] = (changed["hexes"][1].get("rot", 0) + 1) % 6
    assert solve_module.cached_track(position_from_18xx(changed), "broad") is not \
        solve_module.cached_track(first, "broad")
