"""Many positions at once: `hexrail.batch.solve_many` and ``hexrail solve --from 18xx --workers``.

Results come back in input order whatever the number of workers, a bad item gives its error in
its place, and a worker that dies costs only the item that killed it.
"""

from __future__ import annotations

import json
import os

import pytest
from conftest import corpus_lines, corpus_missing
from test_cli_ux import line_board

import hexrail
from hexrail.batch import solve_many
from hexrail.cli import main
from hexrail.examples import example_names, example_path


class Killer:
    """An item whose unpickling ends the process that receives it (a worker killed mid-batch)."""

    def __reduce__(self):
        return os._exit, (9,)


def items() -> list:
    """Examples as paths, a Position, native JSON text, an 18xx.games document and bad input."""
    demo = hexrail.load_position(example_path("demo"))
    return ([example_path(n) for n in example_names()]
            + [demo, json.dumps(hexrail.position_to_json(demo)), line_board(), "{bad", {"schema": 7}])


def expected(item) -> int | str:
    try:
        return hexrail.solve(item).total
    except hexrail.HexrailError as err:
        return str(err)


def outcome(result) -> int | str:
    return str(result) if isinstance(result, hexrail.HexrailError) else result.total


@pytest.mark.parametrize("workers", [1, 2])
def test_results_in_input_order_with_errors_in_place(workers):
    given = items()
    got = list(solve_many(given, workers=workers))
    assert [outcome(r) for r in got] == [expected(i) for i in given]
    assert all(r.optimal for r in got if not isinstance(r, hexrail.HexrailError))
    assert isinstance(got[-2], hexrail.HexrailError) and "malformed JSON" in str(got[-2])


def test_plans_from_workers_carry_the_position_only_when_given_one():
    given = items()
    got = list(solve_many(given, workers=2))
    for item, plan in zip(given, got):
        if isinstance(plan, hexrail.HexrailError):
            continue
        assert (plan.position is item) if isinstance(item, hexrail.Position) else plan.position is None
    assert got[len(example_names())]._repr_svg_().startswith("<svg")  # drawn in a notebook


def test_a_killed_worker_costs_only_its_item():
    demo = example_path("demo")
    got = list(solve_many([demo, Killer(), demo, demo], workers=2))
    assert [outcome(r) for r in got[:1] + got[2:]] == [480, 480, 480]
    assert isinstance(got[1], hexrail.HexrailError) and "worker process died" in str(got[1])


def test_the_input_is_read_lazily():
    taken = []

    def endless():
        while True:
            taken.append(1)
            yield example_path("demo")

    stream = solve_many(endless(), workers=2)
    assert [next(stream).total for _ in range(3)] == [480] * 3
    stream.close()
    assert len(taken) < 1000  # a few chunks ahead, not the whole (endless) input


@pytest.mark.parametrize("workers", [0, -1, 1.5, True])
def test_workers_must_be_a_positive_integer(workers):
    with pytest.raises(hexrail.HexrailError, match="workers"):
        next(solve_many([example_path("demo")], workers=workers))


# -- the command line ---------------------------------------------------------------------------


def _lines(capsys, argv: list[str]) -> tuple[int, list[dict]]:
    status = main(argv)
    out = capsys.readouterr().out
    return status, [json.loads(line) for line in out.splitlines()]


def _same(a: dict, b: dict) -> bool:
    return {k: v for k, v in a.items() if k != "seconds"} == {k: v for k, v in b.items() if k != "seconds"}


def test_cli_workers_write_the_lines_of_one_process(capsys, tmp_path):
    reason = corpus_missing()
    sample = list(corpus_lines("generic")[:40]) if not reason else []
    lines = sample + [json.dumps(line_board()), "{bad", json.dumps({"schema": 1})]
    path = tmp_path / "positions.jsonl"
    path.write_text("\n".join(lines) + "\n")
    one = _lines(capsys, ["solve", "--from", "18xx", str(path), "--format", "json"])
    two = _lines(capsys, ["solve", "--from", "18xx", str(path), "--format", "json", "--workers", "2"])
    assert one[0] == two[0] == 2  # some lines were bad
    assert len(one[1]) == len(two[1]) == len(lines)
    assert all(_same(a, b) for a, b in zip(one[1], two[1]))
    assert [r["line"] for r in two[1]] == list(range(1, len(lines) + 1))


def test_cli_workers_read_one_document_over_several_lines(capsys, tmp_path):
    path = tmp_path / "one.json"
    path.write_text(json.dumps(line_board(), indent=2))
    status, records = _lines(capsys, ["solve", "--from", "18xx", str(path), "--format", "json",
                                      "--workers", "2"])
    assert status == 0 and len(records) == 1 and records[0]["total"] == 50


@pytest.mark.parametrize("argv, says", [
    (["solve", "--from", "18xx", "--workers", "0", "x"], "processes must be 1 to 256"),
    (["solve", "--workers", "2", "x"], "--workers goes with --from 18xx"),
    (["solve", "--from", "18xx", "--workers", "2", "/no/such/file"], "cannot read file"),
])
def test_cli_workers_bad_use_is_one_line(capsys, argv, says):
    try:
        status = main(argv)
    except SystemExit as stop:
        status = stop.code
    assert status == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1


def test_cli_workers_on_empty_input(capsys, tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n")
    assert main(["solve", "--from", "18xx", str(path), "--workers", "2"]) == 2
    assert "input is empty" in capsys.readouterr().err


@pytest.mark.parametrize("workers", ["1", "2"])
def test_numbers_json_has_not_are_refused_by_line(capsys, tmp_path, workers):
    """NaN, Infinity and 1e999 are no JSON numbers: their line gets an error, the others solve."""
    good = json.dumps(line_board())
    bad = [good.replace("}", ', "x": NaN}', 1),
           good.replace("}", ', "x": -Infinity}', 1), good.replace("}", ', "x": 1e999}', 1)]
    path = tmp_path / "numbers.jsonl"
    path.write_text("\n".join([good, *bad, good]) + "\n")
    status, records = _lines(capsys, ["solve", "--from", "18xx", str(path), "--format", "json",
                                      "--workers", workers])
    assert status == 2 and [r["line"] for r in records] == [1, 2, 3, 4, 5]
    assert records[0]["total"] == records[4]["total"] == 50
    assert "NaN is not a JSON number" in records[1]["error"]
    assert "-Infinity is not a JSON number" in records[2]["error"]
    assert "1e999 is too large" in records[3]["error"]
    assert all(r["error"].startswith(f"line {k + 2}:") for k, r in enumerate(records[1:4]))
