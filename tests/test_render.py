"""hexrail.render: board and plan pictures.

Geometry is checked by invariants (neighbouring hexes meet at the same side point, lane for
mirrored lane); every example and a sample of the 18xx.games corpus draw as well-formed SVG with
one element per hex, path and route track; three pictures are compared with reviewed golden
files in tests/golden (``HEXRAIL_UPDATE_GOLDEN=1`` rewrites them after a deliberate change: look
at them before committing).
"""

from __future__ import annotations

import itertools
import json
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import corpus_missing, corpus_positions, corpus_titles

import hexrail
from hexrail.errors import HexrailError
from hexrail.examples import example_names
from hexrail.io.g18xx import plan_from_18xx_routes, position_from_18xx
from hexrail.model.hexgrid import Layout, opposite
from hexrail.plan import plan_from_json
from hexrail.render import render_png, render_svg, save_picture
from hexrail.render.geometry import HexGeometry, TileLayout, split_curve
from hexrail.validate import check_plan

GOLDEN = Path(__file__).parent / "golden"
NS = {"s": "http://www.w3.org/2000/svg"}
POINTY = GOLDEN / "pointy.json"


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)  # raises on malformed XML
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


def by_class(root: ET.Element, cls: str) -> list[ET.Element]:
    return [el for el in root.iter() if el.get("class") == cls]


def check_drawing(pos: hexrail.Position, svg: str, plan=None) -> ET.Element:
    """The picture has one polygon per hex, one track element per path, one route group per
    train with one element per track reference, and a ring per distinct stop of each route."""
    root = parse(svg)
    assert len(by_class(root, "hex")) == len(pos.hexes)
    drawn = {el.get("data-path") for el in by_class(root, "path")}
    expected = {f"{h.id}:{k}" for h in pos.hexes for k, p in enumerate(h.tile.paths) if not p.ignore}
    assert drawn == expected
    if plan is not None:
        groups = by_class(root, "route")
        assert [g.get("data-train") for g in groups] == [r.train for r in plan.routes]
        for g, route in zip(groups, plan.routes):
            if route.paths:
                assert [el.get("data-path") for el in g] == list(route.paths)
        rings = by_class(root, "stop")
        assert len(rings) == sum(len(set(r.stops)) for r in plan.routes)
        assert len(by_class(root, "legend-row")) == len(plan.routes)
    return root


# ------------------------------------------------------------------------------------------------
# Geometry


@pytest.mark.parametrize("orientation", ["flat", "pointy"])
def test_neighbours_meet_at_the_same_side_point(orientation):
    layout, geo = Layout(orientation), HexGeometry(orientation, 10.0)
    names = [layout.name(x, y) for x in range(1, 6) for y in range(1, 8) if (x + y) % 2 == 0]
    for name in names:
        centre = geo.centre(*layout.xy(name))
        for side in range(6):
            other = layout.neighbour(name, side)
            other_centre = geo.centre(*layout.xy(other))
            for width, lane in ((1, 0), (2, 0), (2, 1), (3, 2)):
                a = geo.side_point(centre, side, (width, lane))
                b = geo.side_point(other_centre, opposite(side), (width, width - 1 - lane))
                assert math.dist(a, b) < 1e-9, (name, side, width, lane)
            # the side's corners are shared too
            assert {tuple(round(v, 6) for v in p) for p in geo.side_segment(centre, side)} == \
                {tuple(round(v, 6) for v in p) for p in geo.side_segment(other_centre, opposite(side))}


@pytest.mark.parametrize("orientation", ["flat", "pointy"])
def test_track_curves_leave_sides_straight_inwards(orientation):
    geo = HexGeometry(orientation, 10.0)
    for a in range(6):
        for b in range(6):
            if a == b:
                continue
            p0, p1, p2, p3 = geo.edge_curve((0.0, 0.0), a, b)
            assert math.dist(p0, geo.side_point((0.0, 0.0), a)) < 1e-9
            assert math.dist(p3, geo.side_point((0.0, 0.0), b)) < 1e-9
            for p, q, side in ((p0, p1, a), (p3, p2, b)):
                d = geo.direction(side)
                v = (q[0] - p[0], q[1] - p[1])
                assert abs(v[0] * d[1] - v[1] * d[0]) < 1e-9  # control on the side's normal
                assert v[0] * d[0] + v[1] * d[1] <= 1e-9  # pointing inwards


def test_town_between_two_sides_sits_on_the_curve():
    pos = hexrail.load_position(hexrail.example_path("demo"))
    hex_ = pos.hex("C1")  # town on track from side 1 to side 5
    layout = TileLayout(HexGeometry("flat", 50.0), hex_, (0.0, 0.0))
    first, _ = split_curve(layout.geo.edge_curve((0.0, 0.0), 1, 5))
    assert layout.points[hex_.tile.nodes[0].index] == first[3]
    ends = [layout.path_curve(p) for p in hex_.tile.paths]
    assert all(math.dist(c[3], first[3]) < 1e-9 for c in ends)


def test_several_cities_on_a_tile_do_not_overlap():
    pos = hexrail.load_position(POINTY)
    hex_ = pos.hex("B4")  # two cities
    layout = TileLayout(HexGeometry("pointy", 50.0), hex_, (0.0, 0.0))
    a, b = (layout.points[n.index] for n in hex_.tile.nodes)
    assert math.dist(a, b) >= 2 * 0.25 * 50.0


# ------------------------------------------------------------------------------------------------
# Drawing positions and plans


@pytest.mark.parametrize("name", example_names())
def test_every_example_draws(name, warm_solver):
    pos = hexrail.load_position(hexrail.example_path(name))
    check_drawing(pos, render_svg(pos))
    plan = hexrail.solve(pos)
    check_drawing(pos, render_svg(pos, plan), plan)


def test_pointy_board_draws(warm_solver):
    pos = hexrail.load_position(POINTY)
    plan = hexrail.solve(pos)
    assert plan.revenue == 180
    root = check_drawing(pos, render_svg(pos, plan), plan)
    assert [b.get("data-hex") for b in by_class(root, "border")] == ["B2"]


def test_svg_shows_tokens_revenues_labels_and_names():
    pos = hexrail.load_position(hexrail.example_path("demo"))
    root = parse(render_svg(pos))
    tokens = sorted(el.get("data-company") for el in by_class(root, "token"))
    assert tokens == ["NYC", "NYC", "PRR", "PRR"]
    texts = [el.text for el in root.iter("{http://www.w3.org/2000/svg}text")]
    tspans = [el.text for el in root.iter("{http://www.w3.org/2000/svg}tspan")]
    assert "OO" in texts  # the label of F4
    assert {"Pittsburgh", "Chicago", "Baltimore"} <= set(tspans)
    current = [el for el in root.iter() if el.get("data-current") == "1"]
    assert len(current) == 3  # three offboards, their green-phase value marked
    offboard_a1 = next(g for g in by_class(root, "offboard") if g.get("data-node") == "A1-0")
    assert "40" in [t.text for t in offboard_a1.iter("{http://www.w3.org/2000/svg}text")]


def test_stops_only_plan_is_drawn_over_the_track_the_validator_finds():
    plan = plan_from_json({"routes": [{"train": "4-0", "stops": ["A1-0", "B2-0", "D4-0", "E5-0"]}]})
    pos = hexrail.load_position(hexrail.example_path("demo"))
    root = parse(render_svg(pos, plan))
    (group,) = by_class(root, "route")
    assert [el.get("data-path") for el in group] == \
        ["A1:0", "B2:0", "B2:1", "C3:0", "D4:0", "D4:2", "E5:0"]


def test_bad_plan_names_the_track_at_fault():
    pos = hexrail.load_position(hexrail.example_path("demo"))
    plan = plan_from_json({"routes": [{"train": "4-0", "paths": ["A1:0", "Z9:0"]}]})
    with pytest.raises(HexrailError, match="Z9:0"):
        render_svg(pos, plan)
    plan = plan_from_json({"routes": [{"train": "4-0", "paths": ["A1:7"]}]})
    with pytest.raises(HexrailError, match="train 4-0.*A1:7"):
        render_svg(pos, plan)


def test_plan_and_position_show_themselves_in_jupyter(warm_solver):
    plan = hexrail.solve(hexrail.example_path("demo"))
    check_drawing(plan.position, plan._repr_svg_(), plan)
    check_drawing(plan.position, plan.position._repr_svg_())
    assert plan_from_json(plan.to_json())._repr_svg_() is None  # no position to draw on


def test_png_output(tmp_path, warm_solver):
    plan = hexrail.solve(hexrail.example_path("demo"))
    png = render_png(plan.position, plan, scale=1.0)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    out = save_picture(tmp_path / "board.png", plan.position, plan)
    assert out.read_bytes().startswith(b"\x89PNG")


# ------------------------------------------------------------------------------------------------
# Golden pictures (reviewed by eye; see the module docstring)


@pytest.mark.parametrize("name, position, plan", [
    ("demo_board", hexrail.example_path("demo"), None),
    ("demo_plan", hexrail.example_path("demo"), "demo_plan.json"),
    ("pointy_plan", POINTY, "pointy_plan.json"),
])
def test_golden_pictures(name, position, plan):
    plan_doc = json.loads((GOLDEN / plan).read_text()) if plan else None
    svg = render_svg(position, plan_doc)
    path = GOLDEN / f"{name}.svg"
    if os.environ.get("HEXRAIL_UPDATE_GOLDEN"):
        path.write_text(svg, encoding="utf-8")
    assert path.exists(), f"missing golden file {path}; run with HEXRAIL_UPDATE_GOLDEN=1 and review it"
    assert svg == path.read_text(encoding="utf-8"), \
        f"{name} differs from {path}; if the change is deliberate, regenerate and look at it"


# ------------------------------------------------------------------------------------------------
# 18xx.games positions


def corpus_sample(step: int = 10) -> list:
    reason = corpus_missing()
    if reason:
        return [pytest.param(None, marks=pytest.mark.skip(reason=reason), id="no-corpus")]
    out = []
    for title in corpus_titles():
        for k, data in enumerate(corpus_positions(title)):
            if k % step == 0:
                out.append(pytest.param(data, id=f"{title}-{k}"))
    return out


@pytest.mark.parametrize("data", corpus_sample())
def test_corpus_positions_draw_with_their_recorded_routes(data):
    """Every sampled position draws, with the auto-router's stored routes (track references
    into the export's own path lists) over it."""
    pos = position_from_18xx(data)
    check_drawing(pos, render_svg(data))
    routes = (data.get("auto_router") or {}).get("routes") or []
    plan = plan_from_18xx_routes([r for r in routes if r.get("track")])
    if plan.routes:
        check_drawing(pos, render_svg(pos, plan), plan)


def test_corpus_both_layouts_present():
    reason = corpus_missing()
    if reason:
        pytest.skip(reason)
    layouts = {d["layout"]["orientation"] for t in corpus_titles() for d in corpus_positions(t)[:1]}
    assert layouts == {"flat", "pointy"}


# ------------------------------------------------------------------------------------------------
# Command line


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hexrail.cli", "render", *args],
                          capture_output=True, text=False, check=False)


def test_cli_render_svg_png_and_plan(tmp_path):
    demo = str(hexrail.example_path("demo"))
    proc = run_cli(demo, "--solve", "-o", str(tmp_path / "best.png"))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "best.png").read_bytes().startswith(b"\x89PNG")
    proc = run_cli(demo, "--plan", str(GOLDEN / "demo_plan.json"))
    assert proc.returncode == 0, proc.stderr
    root = parse(proc.stdout.decode())
    assert len(by_class(root, "route")) == 3
    proc = run_cli(demo, "--plan", str(GOLDEN / "missing.json"))
    assert proc.returncode == 2 and b"missing.json" in proc.stderr and b"Traceback" not in proc.stderr
    proc = run_cli(demo, "-o", str(tmp_path / "x.gif"))
    assert proc.returncode == 2 and b"gif" in proc.stderr


def test_cli_render_one_line_of_a_json_lines_file(tmp_path):
    lines = tmp_path / "positions.jsonl"
    docs = [json.loads(Path(hexrail.example_path("demo")).read_text()), json.loads(POINTY.read_text())]
    lines.write_text("".join(json.dumps(d) + "\n" for d in docs))
    proc = run_cli(str(lines), "--line", "2")
    assert proc.returncode == 0, proc.stderr
    assert len(by_class(parse(proc.stdout.decode()), "hex")) == len(docs[1]["hexes"])
    proc = run_cli(str(lines), "--line", "3")
    assert proc.returncode == 2 and b"fewer than 3 lines" in proc.stderr


# ------------------------------------------------------------------------------------------------
# Regressions


SVG = "{http://www.w3.org/2000/svg}"


def crowded_hex(layout: str, location: str, label: str) -> dict:
    """One hex with a two-slot city holding two tokens, track on every side, a location name,
    a label and a tile number."""
    tile = "city=revenue:40,slots:2;" + ";".join(f"path=a:{k},b:_0" for k in range(6))
    return {"format": "hexrail-position/1", "layout": layout,
            "phase": {"name": "2", "colors": ["yellow", "green"]}, "company": "PRR",
            "companies": [{"id": "PRR"}, {"id": "NYC"}], "trains": [{"id": "2-0", "spec": "2"}],
            "hexes": {"B2": {"name": "X12", "color": "green", "location": location, "tile": tile,
                             "labels": [label], "tokens": ["PRR", "NYC"]}}}


def text_boxes(root: ET.Element) -> list[tuple[str, tuple[float, float, float, float]]]:
    """Boxes of the hex texts: 0.6 em per character, from 0.8 em above the baseline to 0.1 below."""
    out = []
    for el in root.iter(SVG + "text"):
        if el.get("class") not in ("label", "location", "tile-name", "hex-id"):
            continue
        font = float(el.get("font-size"))
        for row in list(el.iter(SVG + "tspan")) or [el]:
            x, y, w = float(row.get("x")), float(row.get("y")), 0.6 * font * len(row.text)
            out.append((row.text, (x - w / 2, y - 0.8 * font, x + w / 2, y + 0.1 * font)))
    return out


def box_meets_circle(box, circle) -> bool:
    (x0, y0, x1, y1), (cx, cy, r) = box, circle
    return math.hypot(max(x0 - cx, 0.0, cx - x1), max(y0 - cy, 0.0, cy - y1)) < r


@pytest.mark.parametrize("layout", ["flat", "pointy"])
@pytest.mark.parametrize("location, label", [("Philadelphia", "NY"), ("Trenton / Newark City", "OO")])
def test_crowded_hex_text_clears_tokens_and_other_text(layout, location, label):
    root = parse(render_svg(crowded_hex(layout, location, label)))
    (city,) = by_class(root, "city")
    circles = [(float(c.get("cx")), float(c.get("cy")), float(c.get("r"))) for c in city.iter(SVG + "circle")]
    assert len(by_class(root, "token")) == 2 and len(circles) == 4  # two slots, two tokens
    boxes = text_boxes(root)
    assert {t for t, _ in boxes} >= {label, "X12", "B2"}
    for text, box in boxes:
        assert not any(box_meets_circle(box, c) for c in circles), text
    for (a, p), (b, q) in itertools.combinations(boxes, 2):
        assert p[2] <= q[0] or q[2] <= p[0] or p[3] <= q[1] or q[3] <= p[1], (a, b)


def svg_texts(root: ET.Element, cls: str) -> list[str]:
    return [el.text for el in root.iter(SVG + "text") if el.get("class") == cls]


def test_freight_sets_are_listed_in_the_legend(warm_solver):
    plan = hexrail.solve(hexrail.example_path("1862"))
    bonus = [x for x in plan.sets if x.bonus]
    assert bonus, "the 1862 example's best plan has a freight set with a bonus"
    root = check_drawing(plan.position, render_svg(plan.position, plan), plan)
    shown = svg_texts(root, "legend-set")
    for x in bonus:
        assert f"set {' + '.join(x.trains)}: {x.ends[0]} to {x.ends[1]}, bonus {x.bonus}" in shown
    # the legend grew to hold them: the set lines lie inside the picture, above the total
    (total,) = [el for el in root.iter(SVG + "text") if el.get("class") == "total"]
    ys = [float(el.get("y")) for el in root.iter(SVG + "text") if el.get("class") == "legend-set"]
    assert max(ys) < float(total.get("y")) < float(root.get("height"))


@pytest.mark.parametrize("how", ["title", "name"])
def test_long_title_does_not_widen_the_picture(how):
    doc = json.loads(Path(hexrail.example_path("demo")).read_text())
    long = "A very long title " * 17  # 306 characters
    if how == "name":
        short = parse(render_svg({**doc, "name": "Demo"}))
        root = parse(render_svg({**doc, "name": long}))
    else:
        short = parse(render_svg(doc, title="Demo"))
        root = parse(render_svg(doc, title=long))
    assert root.get("width") == short.get("width") and root.get("viewBox") == short.get("viewBox")
    (title,) = [el for el in root.iter(SVG + "text") if el.get("class") == "title"]
    font = float(title.get("font-size"))
    assert title.text.endswith("…") and long.startswith(title.text[:-1])
    assert float(title.get("x")) + 0.62 * font * len(title.text) <= float(root.get("width"))
    assert long.strip() in title.find(SVG + "title").text  # the whole text as a tooltip


@pytest.mark.parametrize("routes, error", [
    # two trains on the track between B2 and D4
    ([{"train": "4-0", "paths": ["A1:0", "B2:0", "B2:1", "C3:0", "D4:0"]},
      {"train": "D-0", "paths": ["B2:1", "C3:0", "D4:0", "D4:2", "E5:0"]}], "both use track C3:0"),
    # stops no track joins
    ([{"train": "4-0", "stops": ["A1-0", "F8-0"]}], "no track joins the stops A1-0"),
])
def test_illegal_hand_drawn_plan_is_marked(tmp_path, routes, error):
    doc = {"format": "hexrail-plan/1", "routes": routes}
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc))
    proc = run_cli(str(hexrail.example_path("demo")), "--plan", str(path))
    assert proc.returncode == 0, proc.stderr
    root = parse(proc.stdout.decode())
    groups = by_class(root, "route")
    assert [g.get("data-train") for g in groups] == [r["train"] for r in routes]
    assert all(g.get("data-legal") == "0" and g.get("stroke-dasharray") for g in groups)
    assert all(r.get("data-legal") == "0" for r in by_class(root, "legend-row"))
    errors = " ".join(svg_texts(root, "legend-error"))
    assert errors.startswith("illegal:") and error in errors
    assert svg_texts(root, "total") == ["illegal plan: the validator refuses it"]
    assert "total 0" not in svg_texts(root, "total")


def test_legal_hand_drawn_plan_is_not_marked():
    plan = plan_from_json(json.loads((GOLDEN / "demo_plan.json").read_text()))
    root = parse(render_svg(hexrail.example_path("demo"), plan))
    assert not any(el.get("data-legal") for el in root.iter())
    assert not svg_texts(root, "legend-error")


def test_a_legal_hand_drawn_plan_shows_what_the_validator_pays():
    # a plan written by hand claims nothing (or anything): the legend gives each route's pay
    # as the validator finds it, and the total, unproven
    data = json.loads((GOLDEN / "demo_plan.json").read_text())
    truth = check_plan(hexrail.example_path("demo"), plan_from_json(data))
    bare = {"routes": [{"train": r["train"], "paths": r["paths"]} for r in data["routes"]]}
    root = parse(render_svg(hexrail.example_path("demo"), plan_from_json(bare)))
    text = " ".join(el.text or "" for el in root.iter(SVG + "text"))
    for rr in truth.routes:
        assert str(rr.revenue) in text
    assert svg_texts(root, "total") == [f"total {truth.revenue}"]
