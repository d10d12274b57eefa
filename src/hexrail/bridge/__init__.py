"""The 18xx.games bridge: positions of a real game, replayed with the open-source engine.

The engine (github.com/tobymao/18xx) is Ruby; hexrail ships the Ruby code that drives it
(``bridge/ruby``): `export` runs ``export.rb`` over a game's data (the JSON 18xx.games lets a
player copy, the engine's fixture form) and yields positions of schema ``18xx-route-position/1``
(docs/18xx-position-format.md), which `hexrail.io.g18xx` reads and solves. ``auto_router.rb``
puts hexrail in place of the engine's own auto-router (docs/18xx-games-bridge.md).

The engine checkout is named by ``--engine DIR`` or once by ``HEXRAIL_18XX_ENGINE``; Ruby ≥ 3.1
must be on the PATH. The engine's one gem dependency (require_all) is stood in for.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from hexrail.errors import HexrailError
from hexrail.io.limits import loads

ENGINE_ENV = "HEXRAIL_18XX_ENGINE"
RUBY_DIR = Path(__file__).parent / "ruby"
MIN_RUBY = (3, 1)
_GET_ENGINE = "git clone https://github.com/tobymao/18xx"


def engine_dir(given: str | os.PathLike | None = None) -> Path:
    """The engine checkout: `given`, else ``$HEXRAIL_18XX_ENGINE``; checked to be one."""
    raw = given if given is not None else os.environ.get(ENGINE_ENV)
    if not raw:
        raise HexrailError(f"no 18xx.games engine: name its checkout with --engine DIR or "
                           f"{ENGINE_ENV}=DIR (get it with: {_GET_ENGINE})")
    path = Path(raw).expanduser()
    if not (path / "lib" / "engine.rb").is_file():
        raise HexrailError(f"{path} is not an 18xx.games engine checkout (no lib/engine.rb; get one "
                           f"with: {_GET_ENGINE})", where="--engine")
    return path


def ruby() -> str:
    """The ``ruby`` to run, checked for its version."""
    found = shutil.which(os.environ.get("HEXRAIL_RUBY", "ruby"))
    if not found:
        raise HexrailError("Ruby is not installed; the 18xx.games bridge needs Ruby >= 3.1 "
                           "(apt-get install ruby)")
    try:
        version = subprocess.run([found, "-e", "print RUBY_VERSION"], capture_output=True, text=True,
                                 timeout=30, check=True).stdout.strip()
        numbers = tuple(int(x) for x in version.split(".")[:2])
    except (OSError, subprocess.SubprocessError, ValueError):
        raise HexrailError(f"{found} does not run as Ruby") from None
    if numbers < MIN_RUBY:
        raise HexrailError(f"Ruby {version} is too old; the 18xx.games bridge needs Ruby >= 3.1")
    return found


def _which_args(action: int | None, all_runs: bool) -> list[str]:
    if all_runs and action is not None:
        raise HexrailError("--action and --all exclude each other")
    if all_runs:
        return ["--all"]
    if action is not None:
        if action < 0:
            raise HexrailError(f"an action index is 0 or more, not {action}", where="--action")
        return ["--action", str(action)]
    return []


def export(game: str | os.PathLike, *, engine: str | os.PathLike | None = None,
           action: int | None = None, all_runs: bool = False,
           check_result: bool = False) -> Iterator[dict]:
    """Positions of `game` (a game's JSON file, ``-`` for stdin), replayed with the engine.

    By default the current position (the company about to run); `action`: the position before
    the run_routes action of that index (0-based, into the game's actions); `all_runs`: before
    every run_routes action, in game order. `check_result`: after the last position, replay the
    rest and check the game reaches the result it records. Errors (not a game, unknown title, an
    action that is not a run_routes, the engine stopping) raise `HexrailError` in one line.
    """
    which = _which_args(action, all_runs)
    directory = engine_dir(engine)
    command = [ruby(), str(RUBY_DIR / "export.rb"), "--engine", str(directory), str(game), *which]
    if check_result:
        command.append("--check-result")
    if str(game) != "-" and not Path(game).is_file():
        raise HexrailError("no such file", where=str(game))
    # stderr to a file: a pipe nobody reads until the end could fill and stall the replay
    with tempfile.TemporaryFile("w+", encoding="utf-8") as err, subprocess.Popen(
            command, stdin=subprocess.DEVNULL if str(game) != "-" else None, stdout=subprocess.PIPE,
            stderr=err, text=True, encoding="utf-8") as proc:
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                if line.strip():
                    yield loads(line)
        except GeneratorExit:  # the caller stopped reading: so does the replay
            proc.kill()
            raise
        status = proc.wait()
        err.seek(0)
        errors = err.read()
    if status != 0:
        raise HexrailError(_one_line(errors) or f"the bridge stopped (exit status {status})")


def _one_line(stderr: str) -> str:
    """The bridge's error line, without its prefix; else the last line Ruby printed."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if line.startswith("hexrail-bridge: error: "):
            return line.removeprefix("hexrail-bridge: error: ")
    return f"the bridge failed: {lines[0][:300]}" if lines else ""
