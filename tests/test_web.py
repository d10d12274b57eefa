"""The route calculator page's server side, without a browser: the page and its files, the
endpoints it uses (``/examples``, ``/position``, ``/bridge``, ``/game``, ``/render``'s palette),
refusals of bad input, a job stopped when its client goes away, and ``hexrail web``.

One real ``hexrail serve`` process on a loopback port (`test_server.Server`) answers them all.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest
from conftest import corpus_lines, corpus_missing
from test_server import big_board, free_port, started, stopped

import hexrail
from hexrail.bridge import ENGINE_ENV
from hexrail.examples import example_names
from hexrail.render import style
from hexrail.server.web import STATIC_DIR

PAGE_BUDGET = 100 * 1024  # bytes: the page, its script and its style together


@pytest.fixture(scope="module")
def server(warm_solver):
    s = started("--workers", "1", "--light-workers", "1", "--time-limit", "20", "--max-time-limit", "30")
    yield s
    stopped(s)


@pytest.fixture(scope="module")
def api(server) -> httpx.Client:
    with httpx.Client(base_url=server.url, timeout=60) as client:
        yield client


def example_doc(name: str) -> dict:
    return json.loads(Path(hexrail.example_path(name)).read_text())


def g18xx_line() -> dict:
    """A real 18xx.games position (1830, ``generic.jsonl``) with two or more recorded routes."""
    reason = corpus_missing()
    if reason:
        pytest.skip(reason)
    for line in corpus_lines("generic"):
        data = json.loads(line)
        routes = (data.get("submitted") or {}).get("routes") or []
        if len(routes) >= 2 and all(r.get("track") for r in routes):
            return data
    pytest.skip("no 1830 position with two recorded routes in the corpus")


# ------------------------------------------------------------------------------------------------
# The page and its files


class _Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.refs += [v for k, v in attrs if k in ("src", "href") and v]


def test_page_and_its_files_are_served_small_and_local(api):
    page = api.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    refs = _Refs()
    refs.feed(page.text)
    files = [r for r in refs.refs if r.startswith("/static/")]
    assert sorted(files) == ["/static/app.css", "/static/app.js"]
    # nothing from elsewhere: every reference is on this server (or inline data)
    assert all(r.startswith(("/", "data:", "#")) for r in refs.refs), refs.refs
    weight = len(page.content)
    for ref, kind in (("/static/app.js", "javascript"), ("/static/app.css", "text/css")):
        answer = api.get(ref)
        assert answer.status_code == 200 and kind in answer.headers["content-type"]
        assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", answer.text), ref
        weight += len(answer.content)
    print(f"page weight: {weight} bytes")
    assert weight < PAGE_BUDGET
    assert api.get("/static/nope.js").status_code == 404


def test_static_files_are_package_data():
    """The page ships with the package (pyproject's package data), not only in a checkout."""
    data = Path(__file__).resolve().parents[1] / "pyproject.toml"
    assert '"server/static/*"' in data.read_text()
    assert {p.name for p in STATIC_DIR.iterdir()} >= {"index.html", "app.js", "app.css"}


def test_docs_still_offline(api):
    page = api.get("/docs")
    assert page.status_code == 200
    assert not re.search(r"(src|href)=['\"]https?://", page.text)


# ------------------------------------------------------------------------------------------------
# Examples and positions


def test_examples_list_and_documents(api):
    listed = api.get("/examples").json()
    assert [e["name"] for e in listed] == example_names()
    assert all(e["title"] for e in listed)
    assert api.get("/examples/demo").json() == example_doc("demo")
    missing = api.get("/examples/nope")
    assert missing.status_code == 404
    assert missing.json() == {"error": "no example 'nope'; examples: 1831, 1862, 1862usa, demo",
                              "where": "example"}


@pytest.mark.parametrize("name", example_names())
def test_position_native_document_solves_alike(api, name):
    """What the page edits (the native document of /position) solves to the same total as the
    position it came from."""
    doc = example_doc(name)
    info = api.post("/position", json={"position": doc}).json()
    assert info["source"] == "native" and info["company"] == doc["company"]
    assert [t["id"] for t in info["trains"]] == [t["id"] for t in doc["trains"]]
    assert info["phase"]["colors"] == doc["phase"]["colors"] and info["recorded"] is None
    given = api.post("/solve", json={"position": doc}).json()
    edited = api.post("/solve", json={"position": info["native"]}).json()
    assert (edited["total"], edited["optimal"]) == (given["total"], given["optimal"])


def test_position_of_an_18xx_line_has_the_players_routes(api):
    data = g18xx_line()
    info = api.post("/position", json={"position": data}).json()
    assert info["source"] == "18xx" and info["company"] == data["entity"]["id"]
    assert info["recorded"]["routes"] == data["submitted"]["routes"] and info["recorded"]["drawable"]
    assert info["recorded"]["revenue"] == data["submitted"]["revenue"]
    assert data["title"] in info["name"]
    given = api.post("/solve", json={"position": data}).json()
    native = api.post("/solve", json={"position": info["native"]}).json()
    assert native["total"] == given["total"]
    drawn = api.post("/render", json={"position": data, "plan": {"routes": info["recorded"]["routes"]},
                                      "legend": False, "palette": "okabe-ito"})
    assert drawn.status_code == 200
    assert sum(1 for el in ET.fromstring(drawn.text).iter() if el.get("class") == "route") == \
        len(data["submitted"]["routes"])


# ------------------------------------------------------------------------------------------------
# Route colours


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


# Machado, Oliveira and Fernandes (2009), full severity, on linear RGB
CVD = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
    "normal vision": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
}
MIN_DELTA_E = 15.0  # CIE76: clearly different at a glance


def _lab(rgb: list[float]) -> tuple[float, float, float]:
    r, g, b = (min(1.0, max(0.0, x)) for x in rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
    f = [t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in (x, y, z)]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def closest_colours(colours: list[str]) -> tuple[float, str, str, str]:
    """The smallest CIE76 difference between two of `colours` as people with each common
    colour-vision deficiency see them: (difference, vision, colour, colour)."""
    out = (math.inf, "", "", "")
    for vision, m in CVD.items():
        seen = {}
        for c in colours:
            rgb = [_linear(int(c[i:i + 2], 16)) for i in (1, 3, 5)]
            seen[c] = _lab([sum(m[i][j] * rgb[j] for j in range(3)) for i in range(3)])
        for a, b in itertools.combinations(colours, 2):
            out = min(out, (math.dist(seen[a], seen[b]), vision, a, b))
    return out


def test_okabe_ito_routes_differ_for_colour_blind_eyes_and_in_dashes():
    colours = list(style.PALETTES["okabe-ito"][0])
    delta, vision, a, b = closest_colours(colours)
    assert delta >= MIN_DELTA_E, (vision, a, b, delta)
    dashes = [style.train_dash(i, "okabe-ito", 50.0) for i in range(len(colours))]
    assert len(set(dashes)) == len(dashes)
    # the check tells palettes apart: the classic hues fail it (blue and purple)
    assert closest_colours(list(style.PALETTES["classic"][0]))[0] < MIN_DELTA_E


def test_render_palette_draws_each_train_its_own_colour_and_dash(api):
    doc = example_doc("demo")
    svg = api.post("/render", json={"position": doc, "solve": True, "legend": False,
                                    "palette": "okabe-ito"}).text
    routes = [el for el in ET.fromstring(svg).iter() if el.get("class") == "route"]
    assert len(routes) == 3
    looks = {(g.get("stroke"), g.get("stroke-dasharray")) for g in routes}
    assert len(looks) == 3 and {c for c, _ in looks} <= set(style.OKABE_ITO)
    assert 'class="legend"' not in svg
    classic = api.post("/render", json={"position": doc, "solve": True}).text
    assert 'class="legend"' in classic and style.TRAIN_COLOURS[0] in classic


# ------------------------------------------------------------------------------------------------
# Bad input: one line naming the field, never a traceback


@pytest.mark.parametrize("endpoint, body, status, words", [
    ("/position", {}, 422, ["position", "Field required"]),
    ("/position", {"position": example_doc("demo") | {"hexes": 5}}, 422, ["hexes"]),
    ("/position", {"position": {"schema": "18xx-route-position/1"}}, 422, ["position"]),
    ("/position", {"position": example_doc("demo") | {"trains": ["9Z"]}}, 422, ["trains[0]", "9Z"]),
    ("/position", {"position": example_doc("demo"), "extra": 1}, 422, ["extra"]),
    ("/render", {"position": example_doc("demo"), "palette": "rainbow"}, 422, ["palette"]),
    ("/render", {"position": example_doc("demo"), "legend": "maybe"}, 422, ["legend"]),
    ("/game", {"game": "x"}, 422, ["game"]),
    ("/validate", {"position": example_doc("demo"), "plan": {"routes": [{"train": "4-0"}]}}, 422,
     ["plan.routes[0]", "stops"]),
])
def test_bad_input_gets_one_line_naming_the_field(api, endpoint, body, status, words):
    answer = api.post(endpoint, json=body)
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert "\n" not in error and "Traceback" not in error
    for word in words:
        assert word in error, error


def test_malformed_json_is_a_400(api):
    answer = api.post("/position", content=b'{"position": {', headers={"content-type": "application/json"})
    assert answer.status_code == 400 and answer.json()["where"] == "body"


def test_bridge_says_plainly_when_not_configured(api):
    status = api.get("/bridge").json()
    if status["configured"]:
        pytest.skip("this server has the 18xx.games bridge configured")
    assert "not configured" in status["message"] and "HEXRAIL_18XX_ENGINE" in status["message"]
    answer = api.post("/game", json={"game": {"actions": []}})
    assert answer.status_code == 501
    assert answer.json()["where"] == "game" and "not configured" in answer.json()["error"]


def bridge_game(name: str = "962.json", title: str = "1889") -> dict:
    """An 18xx.games game's data (an engine fixture), where the server has the bridge."""
    engine = os.environ.get(ENGINE_ENV)
    path = Path(engine or "") / "public" / "fixtures" / title / name
    if not engine or not shutil.which("ruby") or not path.is_file():
        pytest.skip(f"needs Ruby and an 18xx.games engine checkout named by {ENGINE_ENV}")
    return json.loads(path.read_text())


def test_a_game_replayed_gives_every_run_and_each_solves(api):
    game = bridge_game()
    assert api.get("/bridge").json()["configured"]
    answer = api.post("/game", json={"game": game}, timeout=600)
    assert answer.status_code == 200, answer.text
    positions = answer.json()["positions"]
    assert len(positions) > 10
    assert all(p["schema"] == "18xx-route-position/1" and p["title"] == "1889" for p in positions)
    assert {p["fixture"] for p in positions} == {f"{game['id']}.json"}  # named by the game, not a temp file
    for p in positions:  # each is the position before one of the game's runs (undone runs have none)
        action = game["actions"][p["action_index"]]
        assert action["type"] == "run_routes" and action["entity"] == p["entity"]["id"]
    last = positions[-1]
    solved = api.post("/solve", json={"position": last}).json()
    assert solved["optimal"] and solved["total"] >= last["submitted"]["revenue"]


def test_a_game_without_runs_is_refused_by_name(api):
    game = bridge_game()
    first_run = next(k for k, a in enumerate(game["actions"]) if a["type"] == "run_routes")
    answer = api.post("/game", json={"game": game | {"actions": game["actions"][:first_run]}},
                      timeout=600)
    assert answer.status_code == 422 and answer.json()["where"] == "game"
    assert "no runs of trains" in answer.json()["error"]


# ------------------------------------------------------------------------------------------------
# A client that goes away


def test_a_job_whose_client_went_away_is_stopped(api, server):
    """The page's Cancel aborts its request; the server stops the solve (its only heavy worker
    would otherwise stay busy until the 25 s limit) and answers the next request."""
    board = big_board(5, ["D", "D"])
    with pytest.raises(httpx.TimeoutException):
        httpx.post(server.url + "/solve", json={"position": board, "time_limit": 25}, timeout=2)
    deadline = time.monotonic() + 10
    while api.get("/health").json()["pending"] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert api.get("/health").json()["pending"] == 0
    assert api.post("/solve", json={"position": example_doc("demo")}).json()["total"] == 480


# ------------------------------------------------------------------------------------------------
# hexrail web


def test_hexrail_web_opens_the_page_in_the_browser(tmp_path, warm_solver):
    """``hexrail web`` serves and opens the page; the browser here is a script ($BROWSER) that
    writes down the address it was given."""
    seen = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\necho "$1" > "{seen}"\n')
    browser.chmod(0o755)
    port = free_port()
    log = tmp_path / "web.log"
    env = {**os.environ, "BROWSER": f"{browser} %s"}
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "hexrail.cli", "web", "--port", str(port),
                                 "--workers", "1", "--example", "1862", "--log-level", "warning"],
                                stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while not (seen.exists() and seen.read_text().strip()) and time.monotonic() < deadline:
            assert proc.poll() is None, log.read_text()
            time.sleep(0.2)
        url = seen.read_text().strip()
        assert url == f"http://127.0.0.1:{port}/?example=1862"
        assert "route calculator" in httpx.get(url).text
        assert f"the route calculator is at {url}" in log.read_text()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert "Traceback" not in log.read_text()


def test_hexrail_web_refuses_an_unknown_example():
    proc = subprocess.run([sys.executable, "-m", "hexrail.cli", "web", "--example", "nope", "--port", "1"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("hexrail: error: --example: no example 'nope'; examples: 1831, 1862, "
                                   "1862usa, demo")
