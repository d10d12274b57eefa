"""The route calculator page end to end: real headless Chromium (Playwright) against a real
``hexrail serve`` on a loopback port.

Each state is saved as a screenshot in ``tests/artifacts/web/`` (``$HEXRAIL_ARTIFACTS`` to put
them elsewhere; the folder is not committed). The tests skip, with the reason, when the
``playwright`` package or a Chromium is missing: ``pip install playwright`` and
``apt-get install chromium`` (Playwright's own browser download is not needed; another
Chromium is named with ``$HEXRAIL_CHROMIUM``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path

import httpx
import pytest
from test_server import big_board, started, stopped
from test_web import MIN_DELTA_E, bridge_game, closest_colours, example_doc, g18xx_line

from hexrail.examples import example_names

CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WAIT_MS = 90_000  # a solve has its own time limit; this only stops a test that would hang
ARTIFACTS = Path(os.environ.get("HEXRAIL_ARTIFACTS") or Path(__file__).parent / "artifacts" / "web")


def chromium() -> str | None:
    return os.environ.get("HEXRAIL_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="playwright is not installed (pip install playwright)")
    path = chromium()
    if path is None:
        pytest.skip("no Chromium found (apt-get install chromium, or set HEXRAIL_CHROMIUM)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_FLAGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def server(browser, warm_solver):
    s = started("--workers", "2", "--light-workers", "1", "--time-limit", "20", "--max-time-limit", "30")
    yield s
    stopped(s)


@pytest.fixture(scope="module")
def api(server) -> httpx.Client:
    with httpx.Client(base_url=server.url, timeout=60) as client:
        yield client


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(WAIT_MS)
    problems: list[str] = []
    pg.on("pageerror", lambda err: problems.append(f"page error: {err}"))
    pg.on("console", lambda msg: problems.append(f"console {msg.type}: {msg.text}")
          if msg.type == "error" else None)
    pg.base = server.url
    pg.problems = problems
    yield pg
    context.close()


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def solved(page, count: int = 1) -> None:
    """Wait for the page's `count`-th finished solve."""
    page.wait_for_selector(f'body[data-solves="{count}"]')


def shown_total(page) -> int:
    return int(page.inner_text("#total-value"))


def board_routes(page, holder: str = "#board") -> list[dict]:
    return page.eval_on_selector_all(f"{holder} svg g.route", """els => els.map(g => ({
        train: g.dataset.train, stroke: g.getAttribute('stroke'),
        dash: g.getAttribute('stroke-dasharray'), paths: g.querySelectorAll('path').length}))""")


# ------------------------------------------------------------------------------------------------
# Loading and solving


@pytest.mark.parametrize("name", example_names())
def test_example_url_loads_solves_and_draws_routes(page, api, name):
    page.goto(f"{page.base}/?example={name}")
    solved(page)
    answer = api.post("/solve", json={"position": example_doc(name)}).json()
    routes = board_routes(page)
    assert [r["train"] for r in routes] == [r["train"] for r in answer["routes"]]
    assert all(r["paths"] > 0 for r in routes)
    assert shown_total(page) == answer["total"]
    assert page.inner_text("#optimality").startswith("optimal: true")
    rows = page.eval_on_selector_all("#legend tbody tr", "rows => rows.map(r => r.dataset.train)")
    assert rows == [r["train"] for r in answer["routes"]]
    assert page.locator("#board svg").count() == 1  # the board is inline SVG, not a picture
    shot(page, f"example-{name}")
    assert not page.problems, page.problems


def test_18xx_position_line_beside_the_players_routes(page, api):
    data = g18xx_line()
    page.goto(page.base + "/")
    page.fill("#paste", json.dumps(data))
    page.click("#load-paste")
    solved(page)
    # (attached: a route along one straight row of hexes has a box of no height)
    page.wait_for_selector("#theirs:not([hidden]) svg g.route", state="attached")
    answer = api.post("/solve", json={"position": data}).json()
    assert shown_total(page) == answer["total"]
    assert len(board_routes(page)) == len(answer["routes"]) > 0
    assert len(board_routes(page, "#recorded-board")) == len(data["submitted"]["routes"])
    assert f"revenue {data['submitted']['revenue']}" in page.inner_text("#recorded-summary")
    assert data["title"] in page.inner_text("#position-name")
    shot(page, "g18xx-position")
    assert not page.problems, page.problems


def test_a_whole_game_replayed_then_a_round_and_company_picked(page, api, tmp_path):
    """The bridge flow: a game's data file, replayed on the server, one run picked and solved."""
    game = bridge_game()
    path = tmp_path / "962.json"
    path.write_text(json.dumps(game))
    page.goto(page.base + "/")
    page.click("#game summary")
    page.wait_for_function("() => !document.querySelector('#load-game').disabled")
    assert "18xx.games engine" in page.inner_text("#bridge-note")
    page.set_input_files("#game-file", str(path))
    page.click("#load-game")
    page.wait_for_function("() => !document.querySelector('#game-round').disabled", timeout=600_000)
    rounds = page.eval_on_selector_all("#game-round option", "os => os.map(o => o.value)")
    assert len(rounds) > 5 and all("Operating Round" in r for r in rounds)
    page.select_option("#game-round", rounds[-1])
    companies = page.eval_on_selector_all("#game-company option", "os => os.map(o => o.text)")
    assert companies and len(companies) == len(set(companies))
    page.select_option("#game-company", label=companies[-1])
    page.click("#load-run")
    solved(page)
    positions = api.post("/game", json={"game": game}, timeout=600).json()["positions"]
    position = next(p for p in positions if f"{p['turn']}.{p['round_num']} {p['round']}" == rounds[-1]
                    and p["entity"]["id"] == companies[-1])
    answer = api.post("/solve", json={"position": position}).json()
    assert shown_total(page) == answer["total"] >= position["submitted"]["revenue"]
    assert page.inner_text("#optimality").startswith("optimal: true")
    assert len(board_routes(page)) == len(answer["routes"])
    assert f"revenue {position['submitted']['revenue']}" in page.inner_text("#recorded-summary")
    assert not page.problems, page.problems
    shot(page, "game-replayed")


def test_position_files_native_and_of_several_lines(page, api, tmp_path):
    """A native file loads and solves; a file of several position lines gives a picker."""
    page.goto(page.base + "/")
    page.set_input_files("#file", str(Path(__file__).resolve().parents[1] / "src" / "hexrail" / "examples"
                                      / "1862usa.json"))
    solved(page)
    assert shown_total(page) == api.post("/solve", json={"position": example_doc("1862usa")}).json()["total"]
    assert page.locator("#file-line").is_hidden()
    lines = tmp_path / "positions.jsonl"
    lines.write_text(json.dumps(example_doc("demo")) + "\n" + json.dumps(example_doc("1831")) + "\n")
    page.set_input_files("#file", str(lines))
    solved(page, 2)
    assert shown_total(page) == 480 and page.locator("#file-line option").count() == 2
    page.select_option("#file-line", "1")
    solved(page, 3)
    assert shown_total(page) == api.post("/solve", json={"position": example_doc("1831")}).json()["total"]
    assert not page.problems, page.problems


def test_a_changed_train_is_solved_again(page, api):
    page.goto(f"{page.base}/?example=demo")
    solved(page)
    first = shown_total(page)
    page.fill("#trains li:nth-child(3) input", "8")  # the D becomes an 8
    page.dispatch_event("#trains li:nth-child(3) input", "change")
    page.click("#trains li:nth-child(2) button")  # the 2+2 goes
    page.click("#add-train")
    page.fill("#trains li:nth-child(3) input", "3")
    page.dispatch_event("#trains li:nth-child(3) input", "change")
    page.click("#solve")
    solved(page, 2)
    doc = example_doc("demo") | {"trains": ["4", "8", "3"]}
    answer = api.post("/solve", json={"position": doc}).json()
    assert shown_total(page) == answer["total"] != first
    assert [r["train_name"] for r in answer["routes"]] == ["4", "8", "3"]
    assert len(board_routes(page)) == 3
    names = page.eval_on_selector_all("#legend tbody th", "ths => ths.map(t => t.textContent)")
    assert any("(8)" in n for n in names) and not any("2+2" in n for n in names)
    shot(page, "changed-trains")
    assert not page.problems, page.problems


def test_a_state_flag_and_the_phase_change_the_answer(page, api):
    """1862: without the London link, the London stops are off limits (`london_link`)."""
    page.goto(f"{page.base}/?example=1862")
    solved(page)
    box = page.locator('#flags input[data-flag="london_link"]')
    assert box.is_checked()
    box.uncheck()
    page.click("#solve")
    solved(page, 2)
    doc = example_doc("1862")
    doc["state"] = doc["state"] | {"london_link": False}
    assert shown_total(page) == api.post("/solve", json={"position": doc}).json()["total"]
    page.uncheck('#phase-colours input[value="brown"]')
    page.click("#solve")
    solved(page, 3)
    doc["phase"] = {"name": "D", "colors": ["yellow", "green"]}
    assert shown_total(page) == api.post("/solve", json={"position": doc}).json()["total"]
    shot(page, "flag-and-phase")


def test_open_choices_are_weighed_when_asked(page, api, tmp_path):
    """1846: the steamboat moved to the hex of two ports, said beside the total."""
    from test_choices import CELLS, PORTS, steamboat

    doc = steamboat(CELLS, PORTS, "A5", ["A5", "A7"], ["3"])
    path = tmp_path / "steamboat.json"
    path.write_text(json.dumps(doc))
    page.goto(page.base + "/")
    page.set_input_files("#file", str(path))
    solved(page)
    assert shown_total(page) == 120 and "Choices" not in page.inner_text("#optimality")
    page.check("#choices")
    page.click("#solve")
    solved(page, 2)
    answer = api.post("/solve", json={"position": doc, "choices": True}).json()
    assert shown_total(page) == answer["total"] == 140
    assert "Choices: Steamboat Company hex A7." in page.inner_text("#optimality")
    shot(page, "choices")
    assert not page.problems, page.problems


def test_a_drawn_illegal_route_shows_the_rule_it_breaks(page):
    page.goto(f"{page.base}/?example=demo")
    solved(page)
    page.select_option("#draw-train", "4-0")
    page.click('#board svg .nodes [data-node="B2-0"]')
    page.click('#board svg g.revenue[data-node="E5-0"]')  # its revenue bubble picks it too
    assert page.input_value("#draw-stops") == "B2-0 E5-0"
    page.click("#draw-validate")
    page.wait_for_selector("#draw-result.illegal")
    text = page.inner_text("#draw-result")
    assert text.startswith("Illegal:") and "B2-0" in text and "E5-0" in text
    page.wait_for_selector("#mine:not([hidden]) svg g.route", state="attached")
    shot(page, "drawn-illegal")
    # a legal one: the 4's optimal route, clicked stop by stop, pays its revenue
    page.click("#draw-clear")
    for stop in ("A1-0", "B2-0", "D4-0", "E5-0"):
        page.click(f'#board svg [data-node="{stop}"]')
    page.click("#draw-validate")
    page.wait_for_selector("#draw-result.legal")
    assert page.inner_text("#draw-result").startswith("Legal: revenue 150")
    shot(page, "drawn-legal")
    assert not page.problems, page.problems


def test_a_solve_cut_short_shows_optimal_false_and_its_bound(page, api):
    board = big_board(4, ["8", "8", "8"])
    page.goto(page.base + "/")
    page.fill("#time-limit", "0.05")
    page.fill("#paste", json.dumps(board))
    page.click("#load-paste")
    solved(page)
    text = page.inner_text("#optimality")
    assert text.startswith("optimal: false"), text
    assert "not proven optimal" in page.inner_text("#status")
    bound = int(re.search(r"more than (\d+)", text).group(1))
    best = api.post("/solve", json={"position": board}).json()
    assert best["optimal"] and shown_total(page) <= best["total"] <= bound
    shot(page, "cut-short")


def test_cancel_stops_a_long_solve(page, api):
    page.goto(page.base + "/")
    page.fill("#time-limit", "25")
    page.fill("#paste", json.dumps(big_board(5, ["D", "D"])))
    page.click("#load-paste")
    page.wait_for_selector("#progress:not([hidden])")
    page.wait_for_selector("#board svg")  # the bare board, while the solve runs
    page.wait_for_function("() => document.querySelector('#progress').value > 0.04")
    assert page.inner_text("#status").startswith("solving")
    shot(page, "solving")
    page.click("#cancel")
    page.wait_for_selector('body[data-cancelled="1"]')
    assert page.inner_text("#status").startswith("cancelled")
    assert page.locator("#progress").is_hidden() and page.locator("#solve").is_enabled()
    # the server stopped the job: nothing is pending long before its 25 s would be up
    deadline = time.monotonic() + 10
    while api.get("/health").json()["pending"] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert api.get("/health").json()["pending"] == 0
    shot(page, "cancelled")


def test_errors_from_the_server_are_shown_in_one_line(page):
    page.goto(page.base + "/?example=nope")
    page.wait_for_function("() => document.querySelector('#error').textContent.includes('no example')")
    assert "demo" in page.inner_text("#error")
    page.goto(page.base + "/")
    page.fill("#paste", json.dumps(example_doc("demo") | {"trains": ["9Z"]}))
    page.click("#load-paste")
    page.wait_for_function("() => document.querySelector('#error').textContent.length > 0")
    assert "trains[0]" in page.inner_text("#error") and "\n" not in page.inner_text("#error")
    page.fill("#paste", "{not json")
    page.click("#load-paste")
    page.wait_for_function("() => document.querySelector('#error').textContent.includes('not JSON')")
    bridge = page.inner_text("#bridge-note")
    if "not available" in bridge:
        assert page.locator("#load-game").is_disabled() and "HEXRAIL_18XX_ENGINE" in bridge
    shot(page, "errors")


# ------------------------------------------------------------------------------------------------
# Phone and accessibility


def test_phone_screen(browser, server):
    context = browser.new_context(viewport={"width": 375, "height": 740}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    try:
        page.goto(f"{server.url}/?example=1862usa")
        page.wait_for_selector('body[data-solves="1"]')
        # nothing runs off the side: the page is no wider than the screen
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        svg = page.locator("#board svg").bounding_box()
        assert 300 <= svg["width"] <= 375
        for sel in ("#solve", "#add-train", "#draw-validate"):
            box = page.locator(sel).bounding_box()
            assert box["height"] >= 32 and box["x"] >= 0 and box["x"] + box["width"] <= 375, sel
        page.locator('#board svg .nodes [data-node="E5-0"]').tap()
        assert page.input_value("#draw-stops") == "E5-0"
        shot(page, "phone")
        page.locator("#ours").screenshot(path=str(ARTIFACTS / "phone-routes.png"))
    finally:
        context.close()


def test_controls_have_labels_and_names_and_a_visible_focus(page):
    page.goto(f"{page.base}/?example=demo")
    solved(page)
    unnamed = page.evaluate("""() => {
        const out = [];
        for (const el of document.querySelectorAll('input, select, textarea')) {
          const named = (el.labels && el.labels.length && [...el.labels].some(l => l.textContent.trim()))
            || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby');
          if (!named) out.push(el.outerHTML.slice(0, 80));
        }
        for (const el of document.querySelectorAll('button, [role=button]')) {
          const name = (el.getAttribute('aria-label') || el.textContent || '').trim();
          if (!name) out.push(el.outerHTML.slice(0, 80));
        }
        return out;
    }""")
    assert unnamed == []
    # the first control takes the keyboard focus, and shows it
    page.keyboard.press("Tab")
    focused = page.evaluate("""() => { const el = document.activeElement; const s = getComputedStyle(el);
        return [el.tagName, s.outlineStyle, parseFloat(s.outlineWidth)]; }""")
    assert focused[0] in ("SELECT", "BUTTON", "A", "INPUT") and focused[1] != "none" and focused[2] >= 2
    shot(page, "focus")


def test_stops_are_picked_with_the_keyboard(page):
    page.goto(f"{page.base}/?example=demo")
    solved(page)
    page.focus("#solve")
    # the next Tab (Cancel is disabled) reaches the board's one tabbable stop, the first
    page.keyboard.press("Tab")
    first = page.evaluate("document.activeElement.dataset.node")
    assert first == page.eval_on_selector("#board svg .nodes [data-node]", "el => el.dataset.node")
    page.keyboard.press("Enter")
    page.keyboard.press("ArrowRight")
    second = page.evaluate("document.activeElement.dataset.node")
    page.keyboard.press(" ")
    assert page.input_value("#draw-stops") == f"{first} {second}"
    assert page.get_attribute(f'#board svg [data-node="{second}"]', "aria-pressed") == "true"
    assert second in page.inner_text("#stop-focus")
    shot(page, "keyboard-stops")


def test_route_colours_are_safe_for_colour_blind_eyes(page):
    """On the board as drawn: every pair of routes differs in dash pattern, and in colour by at
    least `MIN_DELTA_E` under protanopia, deuteranopia and tritanopia."""
    page.goto(f"{page.base}/?example=1862usa")
    solved(page)
    routes = board_routes(page)
    page.goto(f"{page.base}/?example=demo")
    solved(page)
    routes += board_routes(page)
    colours = sorted({r["stroke"] for r in routes})
    assert len(colours) >= 3
    delta, vision, a, b = closest_colours(colours)
    assert delta >= MIN_DELTA_E, (vision, a, b, delta)
    demo = board_routes(page)
    assert len({r["dash"] for r in demo}) == len(demo)
    swatches = page.eval_on_selector_all("#legend tbody svg line",
                                         "ls => ls.map(l => l.getAttribute('stroke'))")
    assert swatches == [r["stroke"] for r in demo]
