"""The 18xx.games tile notation, every part at every rotation."""

import pytest

from hexrail import HexrailError
from hexrail.model.notation import parse_tile
from hexrail.model.tile import ANY_COLOR

PARTS = [
    ("city=revenue:20;path=a:0,b:_0", "city"),
    ("town=revenue:10;path=a:0,b:_0;path=a:_0,b:2", "town"),
    ("offboard=revenue:yellow_30|brown_60;path=a:0,b:_0,terminal:1", "offboard"),
    ("halt=symbol:£;path=a:0,b:_0;path=a:3,b:_0", "halt"),
    ("junction;path=a:0,b:_0;path=a:2,b:_0;path=a:4,b:_0", "junction"),
]


@pytest.mark.parametrize("rotation", range(6))
@pytest.mark.parametrize("code,kind", PARTS)
def test_node_tiles_rotate_their_sides(code, kind, rotation):
    base = parse_tile(code)
    turned = parse_tile(code, rotation=rotation)
    assert [n.kind for n in turned.nodes] == [kind]
    assert turned.nodes == base.nodes  # nodes do not move
    for p0, p1 in zip(base.paths, turned.paths):
        for e0, e1 in zip(p0.ends, p1.ends):
            if e0.is_edge:
                assert e1.edge == (e0.edge + rotation) % 6
                assert e1.lane == e0.lane
            else:
                assert e1.node == e0.node
        assert p1.terminal == p0.terminal


@pytest.mark.parametrize("rotation", range(6))
def test_lanes_and_straights_rotate(rotation):
    t = parse_tile("path=a:0,b:3;path=a:1,b:4,lanes:2", rotation=rotation)
    sides = [(p.a.edge, p.b.edge, p.a.lane, p.b.lane) for p in t.paths]
    r = rotation
    assert sides == [((0 + r) % 6, (3 + r) % 6, (1, 0), (1, 0)),
                     ((1 + r) % 6, (4 + r) % 6, (2, 0), (2, 1)),
                     ((1 + r) % 6, (4 + r) % 6, (2, 1), (2, 0))]


def test_revenue_forms():
    t = parse_tile("offboard=revenue:yellow_30|brown_60;city=revenue:20,slots:2")
    assert t.nodes[0].revenue == (("yellow", 30), ("brown", 60))
    assert t.nodes[0].value(("yellow", "green")) == 30
    assert t.nodes[0].value(("yellow", "green", "brown", "gray")) == 60
    assert t.nodes[1].revenue == ((ANY_COLOR, 20),) and t.nodes[1].slots == 2


def test_node_references_count_parts_in_order():
    t = parse_tile("city=revenue:20;label=OO;city=revenue:20;path=a:0,b:_0;path=a:3,b:_1")
    assert [n.index for n in t.nodes] == [0, 2]
    assert [p.b.node for p in t.paths] == [0, 2]


def test_keys_and_parts_kept():
    t = parse_tile("city=revenue:20,slots:1,groups:NY|Big,visit_cost:0,loc:1.5,boom:1;"
                   "path=a:1,b:_0,track:narrow;label=Z;icon=image:port,name:port;"
                   "upgrade=cost:80,terrain:mountain;border=edge:5;frame=color:red")
    city = t.nodes[0]
    assert city.groups == ("NY", "Big") and city.visit_cost == 0 and city.loc == "1.5"
    assert dict(city.extra) == {"boom": "1"}
    assert t.paths[0].track == "narrow"
    assert t.labels == ("Z",) and t.icons == ("port",)
    assert [b.edge for b in t.borders] == [5] and t.borders[0].type == "impassable"
    assert t.extra["parts"] == ("upgrade=cost:80,terrain:mountain", "frame=color:red")


def test_halts_are_optional_stops():
    halt = parse_tile("halt=symbol:£;path=a:0,b:_0").nodes[0]
    assert halt.kind == "halt" and halt.route == "optional" and halt.is_stop


@pytest.mark.parametrize("code,message", [
    ("path=a:0,b:_1;city=revenue:10", "_1"),
    ("city=revenue:ten;path=a:0,b:_0", "revenue"),
    ("path=a:7,b:_0", "a:7"),
    ("path=a:0", "'b'"),
    ("city=revenue:20,slots:x", "slots"),
])
def test_errors_name_the_part(code, message):
    with pytest.raises(HexrailError, match=message) as err:
        parse_tile(code, name="X1")
    assert "X1" in str(err.value)
