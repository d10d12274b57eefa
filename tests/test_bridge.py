"""The 18xx.games bridge: `hexrail import 18xx`, `solve --from 18xx-game` and the auto-router adapter.

Tests that replay games need Ruby and a checkout of the 18xx.games engine named by
``HEXRAIL_18XX_ENGINE``; without them they skip, saying so. The rest (bad input) run everywhere.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hexrail.bridge import ENGINE_ENV, RUBY_DIR, engine_dir, export
from hexrail.cli import main
from hexrail.errors import HexrailError
from hexrail.io.g18xx import position_from_18xx, score_record, solve_record

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
ENGINE = os.environ.get(ENGINE_ENV)
HAVE_ENGINE = bool(ENGINE) and (Path(ENGINE) / "lib" / "engine.rb").is_file() and shutil.which("ruby")
needs_engine = pytest.mark.skipif(
    not HAVE_ENGINE, reason=f"needs Ruby and an 18xx.games engine checkout named by {ENGINE_ENV}")

# Fixture games of the titles the importer is checked on: (title directory, fixture file)
GAMES = [
    ("1830", "1830_game_end_bank.json"), ("1830", "26855.json"),
    ("1889", "962.json"), ("18SJ", "167041.json"), ("18SJ", "18SJ_game_end_stock_market.json"),
    ("1860", "1860_game_end_bank.json"), ("1862", "1862_game_end_stock_market.json"),
    ("1846", "10264.json"), ("1846", "1846_game_end_reason_all_closed.json"),
]
# Keys that say how and when a position was written, not what it is
NOT_COMPARED = {"engine", "export_time_s", "auto_router"}


def fixture(title: str, name: str) -> Path:
    return Path(ENGINE) / "public" / "fixtures" / title / name


# -- bad input: one line, exit status 2, wherever it runs -------------------------------------


def _error(capsys, argv: list[str]) -> str:
    try:
        status = main(argv)
    except SystemExit as stop:  # usage errors leave through argparse
        status = stop.code
    assert status == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_no_engine_named(capsys, monkeypatch, tmp_path):
    monkeypatch.delenv(ENGINE_ENV, raising=False)
    game = tmp_path / "game.json"
    game.write_text("{}")
    err = _error(capsys, ["import", "18xx", str(game)])
    assert "--engine DIR" in err and ENGINE_ENV in err


def test_an_engine_directory_that_is_not_one(capsys, tmp_path):
    err = _error(capsys, ["import", "18xx", "game.json", "--engine", str(tmp_path)])
    assert str(tmp_path) in err and "not an 18xx.games engine checkout" in err


def test_missing_ruby(capsys, monkeypatch, tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "engine.rb").write_text("")
    monkeypatch.setenv("HEXRAIL_RUBY", "no-such-ruby-here")
    err = _error(capsys, ["import", "18xx", "game.json", "--engine", str(tmp_path)])
    assert "Ruby is not installed" in err


def test_action_and_all_exclude_each_other(capsys, tmp_path):
    err = _error(capsys, ["import", "18xx", "g.json", "--engine", str(tmp_path), "--action", "3", "--all"])
    assert "not allowed with" in err


def test_engine_options_only_with_a_game(capsys, tmp_path):
    position = ROOT / "src" / "hexrail" / "examples" / "demo.json"
    err = _error(capsys, ["solve", str(position), "--engine", str(tmp_path)])
    assert "--from 18xx-game" in err


def test_a_negative_action_index(tmp_path):
    with pytest.raises(HexrailError, match="0 or more"):
        list(export("g.json", engine=tmp_path, action=-1))


def test_engine_dir_from_the_environment(monkeypatch, tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "engine.rb").write_text("")
    monkeypatch.setenv(ENGINE_ENV, str(tmp_path))
    assert engine_dir() == tmp_path


def test_the_ruby_files_ship_with_the_package():
    for name in ("export.rb", "auto_router.rb", "require_all.rb", "hexrail/position.rb",
                 "hexrail/routes.rb", "hexrail/replay.rb", "hexrail/engine.rb", "hexrail/titles.rb"):
        assert (RUBY_DIR / name).is_file(), name


@needs_engine
@pytest.mark.parametrize("content, says", [
    ("[1, 2]", "not an 18xx.games game"),
    ('{"title": "1999", "actions": []}', 'unknown title "1999"'),
    ("{not json", "not JSON"),
])
def test_a_file_that_is_not_a_game(capsys, tmp_path, content, says):
    game = tmp_path / "game.json"
    game.write_text(content)
    err = _error(capsys, ["import", "18xx", str(game), "--engine", ENGINE])
    assert says in err and "game.json" in err


@needs_engine
def test_an_action_that_is_not_a_run_routes(capsys):
    err = _error(capsys, ["import", "18xx", str(fixture("1889", "962.json")), "--engine", ENGINE,
                          "--action", "3"])
    assert "action 3 is a bid, not a run_routes" in err


@needs_engine
def test_a_finished_game_has_no_current_position(capsys):
    err = _error(capsys, ["solve", "--from", "18xx-game", str(fixture("1889", "962.json")),
                          "--engine", ENGINE])
    assert "the game is over" in err and "--action N" in err


# -- replaying real games -----------------------------------------------------------------------


@needs_engine
@pytest.mark.parametrize("title, name", GAMES)
def test_fixture_games(title, name):
    """Every position parses; our scoring of the players' routes is the engine's; our optimum is
    proven and at least what they ran; the replay reaches the game's recorded result."""
    positions = list(export(fixture(title, name), engine=ENGINE, all_runs=True, check_result=True))
    assert positions and all(p["fixture"] == name for p in positions)
    for data in positions:
        where = f"{name} action {data['action_index']}"
        position_from_18xx(data)
        scored = score_record(data)
        assert "error" not in scored, (where, scored)
        if "revenue" in data["submitted"]:
            assert scored["submitted"]["agree"], (where, scored["submitted"])
        solved = solve_record(data, time_limit=30)
        assert solved["optimal"], where
        ran = solved["submitted_revenue"]
        if ran is not None:
            assert solved["total"] >= ran + (solved["submitted_subsidy"] or 0), where


def _differences(ours, theirs, path=""):
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in sorted(set(ours) | set(theirs)):
            if not path and key in NOT_COMPARED:
                continue
            if key not in ours or key not in theirs:
                yield f"{path}.{key}: {'missing' if key not in ours else 'extra'}"
            else:
                yield from _differences(ours[key], theirs[key], f"{path}.{key}")
    elif isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for k, (a, b) in enumerate(zip(ours, theirs)):
            yield from _differences(a, b, f"{path}[{k}]")
    elif isinstance(theirs, str) and theirs.startswith("#<Engine::Depot") and ours == "depot":
        return  # the corpus wrote the depot (a leased train's owner) as a Ruby object's inspect
    elif ours != theirs:
        yield f"{path}: ours {json.dumps(ours)[:120]}, corpus {json.dumps(theirs)[:120]}"


def _corpus_games(every: bool) -> list[tuple[str, str]]:
    """(corpus file, fixture) pairs; one game per title unless `every`."""
    if not CORPUS.is_dir():
        return []
    pairs = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        names = sorted({json.loads(line)["fixture"] for line in path.open()})
        pairs += [(path.name, n) for n in (names if every else names[:1])]
    return pairs


def _agree_with_corpus(corpus_file: str, name: str) -> None:
    if not CORPUS.is_dir():
        pytest.skip(f"the shared corpus is not here ({CORPUS})")
    theirs = {}
    for line in (CORPUS / corpus_file).open():
        d = json.loads(line)
        if d["fixture"] == name:
            theirs[d["action_index"]] = d
    title = next(iter(theirs.values()))["title"]
    found = sorted(Path(ENGINE, "public", "fixtures").glob(f"*/{name}"))
    found = [f for f in found if json.loads(f.read_text())["title"] == title]
    if not found:
        pytest.skip(f"this engine checkout has no fixture {name}")
    compared = 0
    for ours in export(found[0], engine=ENGINE, all_runs=True):
        if ours["action_index"] in theirs:
            diffs = list(_differences(ours, theirs[ours["action_index"]]))
            assert not diffs, (name, ours["action_index"], diffs[:5])
            compared += 1
    assert compared == len(theirs), f"{compared} of the corpus's {len(theirs)} positions exported"


@needs_engine
@pytest.mark.parametrize("corpus_file, name", _corpus_games(every=False))
def test_positions_agree_with_the_corpus(corpus_file, name):
    """Field by field with the shared corpus's positions of the same game and action."""
    _agree_with_corpus(corpus_file, name)


@needs_engine
@pytest.mark.slow
@pytest.mark.parametrize("corpus_file, name", _corpus_games(every=True))
def test_every_corpus_game_agrees(corpus_file, name):
    _agree_with_corpus(corpus_file, name)


# -- the auto-router adapter -------------------------------------------------------------------


def _adapter_lines(title: str, name: str, *, every: int, process: int, url: str = "") -> list[dict]:
    env = {**os.environ, "HEXRAIL_CMD": f"{sys.executable} -m hexrail", "HEXRAIL_URL": url}
    out = subprocess.run(["ruby", str(ROOT / "tests" / "bridge" / "check_adapter.rb"), "--engine", ENGINE,
                          str(fixture(title, name)), "--every", str(every), "--process", str(process)],
                         capture_output=True, text=True, env=env, timeout=1800, check=True)
    return [json.loads(line) for line in out.stdout.splitlines()]


@needs_engine
@pytest.mark.parametrize("title, name, every", [
    ("1889", "962.json", 8), ("1860", "1860_game_end_bank.json", 12), ("1846", "10264.json", 10),
])
def test_adapter_routes_are_the_engines(title, name, every):
    """hexrail in place of Engine::AutoRouter: the engine rebuilds its routes, scores them as
    hexrail claims, takes them as a run_routes action, and the game still ends as recorded."""
    lines = _adapter_lines(title, name, every=every, process=3)
    *runs, end = lines
    assert end == {"result": True}
    assert runs
    for line in runs:
        assert "error" not in line, line
        revenue, subsidy, optimal = line["hexrail"]
        assert line["engine"] == [revenue, subsidy or 0], line
        assert optimal, line
        players = line["players"]
        if players[0] is not None:
            assert revenue + (subsidy or 0) >= players[0] + (players[1] or 0), line
        if line.get("submitted"):
            assert line["submitted_error"] is None, line
    assert any(line.get("submitted") for line in runs)


@needs_engine
def test_adapter_over_http(warm_solver):
    """The same through a running ``hexrail serve``: the engine's figures are hexrail's."""
    from test_server import Server

    server = Server("--workers", "1")
    try:
        server.wait_ready()
        *runs, end = _adapter_lines("1889", "962.json", every=6, process=0, url=server.url)
    finally:
        server.stop()
    assert end == {"result": True} and runs
    for line in runs:
        assert "error" not in line, line
        assert line["engine"] == [line["hexrail"][0], line["hexrail"][1] or 0], line


@needs_engine
def test_a_game_in_progress_gives_the_company_about_to_run(tmp_path, capsys):
    """A game copied mid-round (as from the Tools tab): its current position, solved."""
    data = json.loads(fixture("1889", "962.json").read_text())
    runs = [k for k, a in enumerate(data["actions"]) if a["type"] == "run_routes"]
    stop = runs[20]
    live = {**data, "actions": data["actions"][:stop], "status": "active"}
    live.pop("result", None)
    game = tmp_path / "live.json"
    game.write_text(json.dumps(live))
    (position,) = export(game, engine=ENGINE)
    assert position["action_index"] == stop
    assert position["entity"]["id"] == data["actions"][stop]["entity"]
    assert position["submitted"]["routes"] == []
    assert main(["solve", "--from", "18xx-game", str(game), "--engine", ENGINE, "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["optimal"] and record["entity"] == position["entity"]["id"]


@needs_engine
def test_an_e_train_ends_in_france_with_a_token_in_the_channel_city():
    """1822's E-train exception, which no recorded game has: a copy of a real game given the
    Channel tile and the running company's token there; the engine scores hexrail's routes as
    hexrail claims, and an E route ends in France."""
    name = "1822_game_end_stock_market.json"
    if not fixture("1822", name).is_file():
        pytest.skip(f"this engine checkout has no fixture 1822/{name}")
    env = {**os.environ, "HEXRAIL_CMD": f"{sys.executable} -m hexrail"}
    out = subprocess.run(["ruby", str(ROOT / "tests" / "bridge" / "channel_token.rb"), "--engine", ENGINE,
                          str(fixture("1822", name))], capture_output=True, text=True, env=env,
                         timeout=600, check=True)
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert lines
    for line in lines:
        assert "error" not in line, line
        revenue, subsidy, optimal = line["hexrail"]
        assert optimal and line["engine"] == [revenue, subsidy or 0], line
    assert any(train == "E" and hexes[-1] == "Q44" for line in lines for train, hexes in line["routes"])


@needs_engine
def test_weighed_upgrades_are_what_the_engine_pays_once_attached(tmp_path):
    """18USA: the position before PRR's run in 109372.json leaves the Extender unattached;
    weighing it, hexrail puts it on the train that earns most, and the engine, attaching it
    there as a player does, pays hexrail's routes what hexrail says."""
    name, action = "109372.json", 1067
    if not fixture("18USA", name).is_file():
        pytest.skip(f"this engine checkout has no fixture 18USA/{name}")
    (position,) = export(fixture("18USA", name), engine=ENGINE, action=action)
    stands = position_from_18xx(position)
    import hexrail

    plan = hexrail.solve(stands, choices=True)
    assert plan.optimal and plan.choices and plan.total > hexrail.solve(stands).total
    env = {**os.environ, "HEXRAIL_CMD": f"{sys.executable} -m hexrail"}
    out = subprocess.run(["ruby", str(ROOT / "tests" / "bridge" / "attach_upgrade.rb"), "--engine", ENGINE,
                          str(fixture("18USA", name)), str(action),
                          *(f"{k}={v}" for k, v in plan.choices.items())],
                         capture_output=True, text=True, env=env, timeout=600, check=True)
    line = json.loads(out.stdout)
    assert line["hexrail"] == [plan.revenue, True] and line["engine"] == plan.revenue, line
    names = dict(line["trains"])
    assert all(names[r.train] == r.train_name for r in plan.routes), (names, plan.routes)


# one game of every title with a rules profile of its own, through a live service
ADAPTER_GAMES = [
    ("18SJ", "167041.json"), ("1862", "1862_game_end_bank.json"), ("1817", "1817_game_end_bankrupt.json"),
    ("18USA", "18USA_game_end_bankrupt.json"), ("1822", "1822_game_end_stock_market.json"), ("1856", "1856_game_end_bank.json"),
    ("1861", "167259.json"), ("1867", "21268.json"),
    ("1870", "1870_game_end_bank.json"), ("1882", "5585.json"), ("1846", "12666.json"),
    ("1830", "26855.json"),
]


@pytest.fixture(scope="module")
def service(warm_solver):
    from test_server import Server

    server = Server("--workers", "2", "--max-time-limit", "30")
    try:
        server.wait_ready()
        yield server.url
    finally:
        server.stop()


@needs_engine
@pytest.mark.slow
@pytest.mark.parametrize("title, name", ADAPTER_GAMES)
def test_adapter_on_every_title(service, title, name):
    if not fixture(title, name).is_file():
        pytest.skip(f"this engine checkout has no fixture {title}/{name}")
    *runs, end = _adapter_lines(title, name, every=5, process=4, url=service)
    assert end == {"result": True} and runs
    for line in runs:
        assert "error" not in line, line
        revenue, subsidy, optimal = line["hexrail"]
        assert line["engine"] == [revenue, subsidy or 0], line
        if line.get("submitted"):
            assert line["submitted_error"] is None, line
