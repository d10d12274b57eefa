"""Fuzz of the entry points people and programs call: the ``hexrail`` command line and the HTTP
service, fed the mangled documents of `test_hostile_input` and files and bodies broken in the
ways files and bodies break (cut short, bytes flipped, not UTF-8, empty, not an object, the
wrong content type, huge strings, deep nesting).

The contract, for every input:

- ``hexrail solve`` / ``hexrail validate`` exit 0 with a plan or a report (``validate`` exits 1
  for a plan that breaks the rules), or exit 2 with exactly one line ``hexrail: error: ...`` on
  stderr; never a traceback, never a hang.
- The service answers 200, or a 4xx whose JSON ``error`` is one line; never a 5xx, never a
  dropped connection, and ``/health`` says ok afterwards.
- A plan claimed optimal passes `hexrail.validate.check_plan` with the revenue it claims (and
  ``hexrail validate`` / ``POST /validate`` agree with it).

The default run takes 40 examples of each; the ``slow`` runs take a thousand each and print one
summary line per entry point (inputs, answered, clean errors, tracebacks, hangs, wrong answers).
"""

from __future__ import annotations

import copy
import io
import json
import socket
import subprocess
import sys
import time
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from test_hostile_input import _mangle, mangled
from test_server import g18xx_doc
from test_server_hostile import nested, started, stopped

import hexrail
from hexrail.cli import main
from hexrail.io.limits import MAX_DEPTH, MAX_STRING
from hexrail.validate import check_plan

EXAMPLES = ("demo", "1862", "1831", "1862usa")
BASES = {name: json.loads(hexrail.example_path(name).read_text()) for name in EXAMPLES}
BASES["export"] = g18xx_doc()  # an 18xx.games position export
TIME_LIMIT = 2
HANG_SECONDS = 30.0  # a solve under a 2 s limit that takes this long counts as a hang
ERROR = "hexrail: error: "

FUZZ = {"deadline": None, "derandomize": True, "database": None,
        "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large,
                                  HealthCheck.large_base_example]}

# What each entry point did with each input (a command run or a request sent), for the summary
# lines of the slow runs: each input is answered (exit 0/1, status 200), a clean error, a messy
# one (not one line), a traceback or 5xx, dropped, or a hang; "wrong answers" are those answers
# the checks refused.
TALLY: dict[str, Counter] = {"cli": Counter(), "http": Counter()}
CLI_FIELDS = ("cases", "inputs", "answered", "clean errors", "messy errors", "tracebacks", "hangs",
              "wrong answers", "optimal plans checked")
HTTP_FIELDS = ("cases", "inputs", "answered", "clean errors", "messy errors", "5xx", "dropped",
               "hangs", "wrong answers", "optimal plans checked", "log tracebacks")

def summary(side: str, fields: tuple[str, ...], seconds: float) -> str:
    counts = TALLY[side]
    return f"{side} ({seconds:.1f} s): " + ", ".join(f"{counts[f]} {f}" for f in fields)


def verdict(side: str, ok: bool, message: str) -> None:
    """Check an answer (tallied as answered already): a wrong one is tallied and fails."""
    if not ok:
        TALLY[side]["wrong answers"] += 1
    assert ok, message


def check_claims(position, plan: dict, what: str) -> None:
    """A plan claimed optimal is legal and worth what it says; any plan's bound is honest."""
    if plan["optimal"]:
        TALLY[what]["optimal plans checked"] += 1
        report = check_plan(position, plan)
        ok = report.legal and (report.revenue, report.subsidy) == (plan["revenue"], plan["subsidy"])
        verdict(what, ok, f"optimal plan not confirmed:\n{report.table()}")
    else:
        verdict(what, plan["upper_bound"] >= plan["total"], f"bound below the plan: {plan}")


# ------------------------------------------------------------------------------------------------
# Inputs


@st.composite
def mangled_export(draw) -> dict:
    doc = copy.deepcopy(BASES["export"])
    for _ in range(draw(st.integers(1, 3))):
        doc = _mangle(draw, doc)
    return doc


documents = st.one_of(mangled(), mangled(), mangled_export())
not_objects = st.one_of(st.lists(st.integers(), max_size=3), st.integers(), st.floats(),
                        st.text(max_size=5), st.none(), st.booleans())


def dumps(value) -> bytes:
    return json.dumps(value).encode()  # NaN and Infinity as JavaScript writes them: refused later


@st.composite
def broken_bytes(draw, text: bytes) -> bytes:
    """`text` cut short, with bytes flipped, in another encoding, or nothing at all."""
    how = draw(st.sampled_from(["truncated", "flipped", "flipped", "utf-16", "empty"]))
    if how == "truncated":
        return text[:draw(st.integers(0, len(text) - 1))]
    if how == "flipped":
        out = bytearray(text)
        for _ in range(draw(st.integers(1, 8))):
            out[draw(st.integers(0, len(out) - 1))] = draw(st.integers(0, 255))
        return bytes(out)
    if how == "utf-16":
        return text.decode().encode(draw(st.sampled_from(["utf-16", "utf-32", "latin-1"])),
                                    errors="replace")
    return draw(st.sampled_from([b"", b" \n", b"\xef\xbb\xbf", b"\x00"]))


@st.composite
def position_bytes(draw) -> tuple[str, bytes]:
    """A position file: (kind, its bytes)."""
    kind = draw(st.sampled_from(["mangled"] * 4 + ["broken"] * 2 + ["not an object", "good"]))
    if kind == "good":
        return kind, dumps(BASES[draw(st.sampled_from(sorted(BASES)))])
    if kind == "mangled":
        return kind, dumps(draw(documents))
    if kind == "broken":
        doc = draw(st.one_of(st.sampled_from(sorted(BASES)).map(BASES.get), documents))
        return kind, draw(broken_bytes(dumps(doc)))
    return kind, dumps(draw(not_objects))


# ------------------------------------------------------------------------------------------------
# The command line


def cli(argv: list[str], answers: tuple[int, ...] = (0,)) -> tuple[int, str]:
    """Run ``hexrail ARGV`` in this process: its exit code and stdout. An exit code of 2 must
    come with one error line (tallied as a clean error); others must be among `answers`."""
    TALLY["cli"]["inputs"] += 1
    out, err = io.StringIO(), io.StringIO()
    start = time.monotonic()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(argv)
    except SystemExit as exit_:  # argparse
        code = exit_.code
    except Exception:
        TALLY["cli"]["tracebacks"] += 1
        raise
    seconds = time.monotonic() - start
    if seconds > HANG_SECONDS:
        TALLY["cli"]["hangs"] += 1
        raise AssertionError(f"hexrail {' '.join(argv)} took {seconds:.0f} s")
    text = err.getvalue()
    if "Traceback" in text:
        TALLY["cli"]["tracebacks"] += 1
        raise AssertionError(text)
    if code == 2:
        lines = text.splitlines()
        clean = len(lines) == 1 and lines[0].startswith(ERROR) and lines[0][len(ERROR):].strip()
        TALLY["cli"]["clean errors" if clean else "messy errors"] += 1
        assert clean, f"exit 2 without one error line: {text!r}"
        return code, ""
    TALLY["cli"]["answered"] += 1
    verdict("cli", code in answers, f"exit {code} from hexrail {' '.join(argv)}: {text!r}")
    return code, out.getvalue()


@pytest.fixture(scope="module")
def cli_dir(tmp_path_factory, warm_solver) -> Path:
    return tmp_path_factory.mktemp("cli")


def base_plan(name: str, folder: Path) -> dict:
    """The best plan of a base position (solved once)."""
    path = folder / f"{name}.plan.json"
    if not path.exists():
        (folder / f"{name}.json").write_text(json.dumps(BASES[name]))
        path.write_text(hexrail.solve(BASES[name]).dumps())
    return json.loads(path.read_text())


def validate_cli(position: Path, plan: Path) -> dict | None:
    """``hexrail validate``: its report (checked for shape), or None for a clean error."""
    code, out = cli(["validate", str(position), str(plan), "--format", "json"], answers=(0, 1))
    if code not in (0, 1):
        return None
    report = json.loads(out)
    verdict("cli", isinstance(report.get("legal"), bool) and report["legal"] == (code == 0)
            and isinstance(report.get("revenue"), int), f"exit {code} with report {report}")
    return report


def fuzz_cli(folder: Path, position: tuple[str, bytes], plan_base: str, plan_edit) -> None:
    """One case: solve the position file, validate its plan, a good plan on it, and a mangled
    plan on a good position."""
    TALLY["cli"]["cases"] += 1
    path, plan_path = folder / "position.json", folder / "plan.json"
    path.write_bytes(position[1])
    code, out = cli(["solve", str(path), "--time-limit", str(TIME_LIMIT), "--format", "json"])
    if code == 0:
        plan = json.loads(out)
        check_claims(str(path), plan, "cli")
        plan_path.write_text(out)
        report = validate_cli(path, plan_path)
        verdict("cli", report is not None and report["legal"]
                and (report["revenue"], report["subsidy"]) == (plan["revenue"], plan["subsidy"]),
                f"hexrail validate on the solved plan: {report}")
    good = base_plan(plan_base, folder)
    plan_path.write_text(json.dumps(good))
    validate_cli(path, plan_path)  # a mangled position, a good plan of some position
    plan_path.write_text(json.dumps(plan_edit(good)))
    validate_cli(folder / f"{plan_base}.json", plan_path)  # a good position, a mangled plan


@settings(max_examples=40, **FUZZ)
@given(position=position_bytes(), plan_base=st.sampled_from(sorted(BASES)), data=st.data())
def _cli_short(folder, position, plan_base, data):
    note(repr(position[1][:2000]))
    fuzz_cli(folder, position, plan_base, lambda plan: _mangle(data.draw, plan))


@settings(max_examples=1000, **FUZZ)
@given(position=position_bytes(), plan_base=st.sampled_from(sorted(BASES)), data=st.data())
def _cli_long(folder, position, plan_base, data):
    note(repr(position[1][:2000]))
    fuzz_cli(folder, position, plan_base, lambda plan: _mangle(data.draw, plan))


def test_fuzzed_files_on_the_command_line(cli_dir):
    _cli_short(cli_dir)


@pytest.mark.slow
def test_fuzzed_files_on_the_command_line_longer_run(cli_dir, capsys):
    TALLY["cli"].clear()
    start = time.monotonic()
    try:
        _cli_long(cli_dir)
    finally:
        with capsys.disabled():
            print("\n" + summary("cli", CLI_FIELDS, time.monotonic() - start))


SUBPROCESS_CASES = {
    "mangled": dumps({**BASES["demo"], "trains": [2**70]}),
    "truncated": dumps(BASES["1862"])[:777],
    "not UTF-8": b'{"format": "hexrail-position/1", "name": "\xff\xfe"}',
    "empty": b"",
    "an array": b"[1, 2, 3]",
}


@pytest.mark.parametrize("case", sorted(SUBPROCESS_CASES))
def test_broken_files_from_outside(case, tmp_path, warm_solver):
    """``python -m hexrail``, as a person runs it: exit 2 and one line on stderr."""
    path = tmp_path / "position.json"
    path.write_bytes(SUBPROCESS_CASES[case])
    for argv in (["solve", str(path), "--time-limit", str(TIME_LIMIT)],
                 ["validate", str(hexrail.example_path("demo")), str(path)]):
        proc = subprocess.run([sys.executable, "-m", "hexrail", *argv], capture_output=True, text=True,
                              timeout=120, check=False)
        assert proc.returncode == 2, (proc.returncode, proc.stderr)
        lines = proc.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(ERROR) and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stdout == ""


def test_a_solved_plan_validates_from_outside(tmp_path, warm_solver):
    position = hexrail.example_path("1862usa")
    solved = subprocess.run([sys.executable, "-m", "hexrail", "solve", str(position), "--format", "json"],
                            capture_output=True, text=True, timeout=120, check=False)
    assert solved.returncode == 0 and solved.stderr == "", solved.stderr
    plan = tmp_path / "plan.json"
    plan.write_text(solved.stdout)
    checked = subprocess.run([sys.executable, "-m", "hexrail", "validate", str(position), str(plan),
                              "--format", "json"], capture_output=True, text=True, timeout=120, check=False)
    assert checked.returncode == 0 and json.loads(checked.stdout)["legal"], checked.stdout + checked.stderr
    assert json.loads(checked.stdout)["revenue"] == json.loads(solved.stdout)["revenue"]


# ------------------------------------------------------------------------------------------------
# The HTTP service


@pytest.fixture(scope="module")
def service(warm_solver):
    server = started("--workers", "1", "--time-limit", str(TIME_LIMIT), "--max-time-limit", str(TIME_LIMIT),
                     "--grace", "10", "--body-timeout", "1")
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            yield server, client
    finally:
        stopped(server)


ENDPOINTS = ("/solve", "/validate", "/render")
CONTENT_TYPES = ("application/json", "application/json; charset=utf-8", "application/problem+json",
                 "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                 "application/xml", "application/json; charset=latin-1", "")


def request_body(draw, endpoint: str, position) -> dict:
    """A well-formed body of `endpoint` around `position`."""
    body: dict = {"position": position}
    plan = {"routes": []} if draw(st.booleans()) else base_plan_doc(draw(st.sampled_from(EXAMPLES)))
    if endpoint == "/solve":
        if draw(st.booleans()):
            body["time_limit"] = draw(st.sampled_from([0, 0.5, TIME_LIMIT, 1000]))
    elif endpoint == "/validate":
        body["plan"] = plan
    else:
        which = draw(st.sampled_from(["none", "plan", "solve"]))
        if which == "plan":
            body["plan"] = plan
        elif which == "solve":
            body["solve"] = True
        if draw(st.integers(0, 4)) == 0:
            body.update(format="png", scale=0.5)
    if draw(st.booleans()):
        body["objective"] = draw(st.sampled_from(["income", "revenue"]))
    return body


_PLANS: dict[str, dict] = {}


def base_plan_doc(name: str) -> dict:
    if name not in _PLANS:
        _PLANS[name] = json.loads(hexrail.solve(BASES[name]).dumps())
    return _PLANS[name]


def put_at(draw, doc: dict, value) -> dict:
    """`doc` with `value` in place of a field of some hex, or of the name, company or state."""
    out = copy.deepcopy(doc)
    hexes = out.get("hexes")
    if isinstance(hexes, dict) and hexes and draw(st.booleans()):
        hex_id = draw(st.sampled_from(sorted(hexes)))
        hexes[hex_id] = {**hexes[hex_id], draw(st.sampled_from(["tile", "name", "tokens"])): value}
    else:
        out[draw(st.sampled_from(["name", "company", "state"]))] = value
    return out


@st.composite
def http_case(draw) -> tuple[str, bytes, str | None]:
    """(endpoint, body, content type) of one request."""
    endpoint = draw(st.sampled_from(ENDPOINTS))
    kind = draw(st.sampled_from(["mangled"] * 5 + ["good", "mangled body", "mangled plan", "broken",
                                                    "content type", "huge string", "deep", "not an object"]))
    good = st.sampled_from(EXAMPLES).map(BASES.get)
    content_type: str | None = "application/json"
    if kind == "good":
        body = dumps(request_body(draw, endpoint, BASES[draw(st.sampled_from(sorted(BASES)))]))
    elif kind == "mangled":
        body = dumps(request_body(draw, endpoint, draw(documents)))
    elif kind == "mangled plan":  # a good position, a plan with a part of the wrong kind
        name = draw(st.sampled_from(EXAMPLES))
        endpoint = draw(st.sampled_from(["/validate", "/render"]))
        body = dumps({"position": BASES[name], "plan": _mangle(draw, base_plan_doc(name))})
    elif kind == "mangled body":  # any field of the request, the position's too
        body = dumps(_mangle(draw, request_body(draw, endpoint, draw(good))))
    elif kind == "broken":
        body = draw(broken_bytes(dumps(request_body(draw, endpoint, draw(good)))))
    elif kind == "content type":
        body = dumps(request_body(draw, endpoint, draw(good)))
        content_type = draw(st.sampled_from(CONTENT_TYPES)) or None
    elif kind == "huge string":
        size = draw(st.sampled_from([MAX_STRING - 1, MAX_STRING, MAX_STRING + 1]))
        body = dumps(request_body(draw, endpoint, put_at(draw, draw(good), "x" * size)))
    elif kind == "deep":
        depth = draw(st.sampled_from([MAX_DEPTH - 8, MAX_DEPTH - 3, MAX_DEPTH - 2, MAX_DEPTH - 1,
                                      MAX_DEPTH, 500]))
        if draw(st.integers(0, 5)) == 0:  # past any parser: raw text
            body = b'{"position": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
        else:
            body = dumps(request_body(draw, endpoint, put_at(draw, draw(good), nested(depth))))
    else:
        body = dumps(draw(not_objects))
    return endpoint, body, content_type


def http_post(client: httpx.Client, endpoint: str, body: bytes, content_type: str | None) -> httpx.Response | None:
    """POST one body: the response when it is 200 (a 4xx is checked and tallied here)."""
    TALLY["http"]["inputs"] += 1
    headers = {"content-type": content_type} if content_type else {}
    try:
        r = client.post(endpoint, content=body, headers=headers)
    except httpx.TimeoutException:
        TALLY["http"]["hangs"] += 1
        raise
    except httpx.TransportError:
        TALLY["http"]["dropped"] += 1
        raise
    if r.status_code >= 500:
        TALLY["http"]["5xx"] += 1
        raise AssertionError(f"{r.status_code} {r.text[:2000]}")
    if r.status_code == 200:
        TALLY["http"]["answered"] += 1
        return r
    try:
        error = r.json()
        clean = (400 <= r.status_code < 500 and isinstance(error.get("error"), str) and error["error"]
                 and "\n" not in error["error"] and "where" in error)
    except ValueError:
        clean = False
    TALLY["http"]["clean errors" if clean else "messy errors"] += 1
    assert clean, f"{r.status_code} {r.headers.get('content-type')} {r.text[:2000]}"
    return None


def sent_document(body: bytes):
    return json.loads(body.decode("utf-8-sig"))  # the server read it: so can we


def fuzz_http(client: httpx.Client, case: tuple[str, bytes, str | None]) -> None:
    TALLY["http"]["cases"] += 1
    endpoint, body, content_type = case
    r = http_post(client, endpoint, body, content_type)
    if r is None:
        return
    sent = sent_document(body)
    if endpoint == "/solve":
        answer = r.json()
        check_claims(sent["position"], answer, "http")
        checked = http_post(client, "/validate", dumps({"position": sent["position"], "plan": answer}),
                            "application/json")
        report = checked.json() if checked is not None else None
        verdict("http", report is not None and report["legal"]
                and (report["revenue"], report["subsidy"]) == (answer["revenue"], answer["subsidy"]),
                f"POST /validate on the solved plan: {report}")
    elif endpoint == "/validate":
        report = r.json()
        verdict("http", isinstance(report.get("legal"), bool) and isinstance(report.get("revenue"), int),
                f"report {report}")
    else:
        kind = r.headers.get("content-type", "")
        ok = (kind.startswith("image/svg+xml") and b"<svg" in r.content[:500]) or \
             (kind == "image/png" and r.content.startswith(b"\x89PNG"))
        verdict("http", ok, f"render answered {kind}: {r.content[:200]!r}")


def healthy(service) -> None:
    server, client = service
    r = client.get("/health")
    assert r.status_code == 200 and r.json()["status"] == "ok", r.text
    assert "Traceback" not in server.output()


@settings(max_examples=40, **FUZZ)
@given(case=http_case())
def _http_short(client, case):
    note(repr(case)[:2000])
    fuzz_http(client, case)


@settings(max_examples=1000, **FUZZ)
@given(case=http_case())
def _http_long(client, case):
    note(repr(case)[:2000])
    fuzz_http(client, case)


def test_fuzzed_bodies_over_http(service):
    _http_short(service[1])
    healthy(service)


@pytest.mark.slow
def test_fuzzed_bodies_over_http_longer_run(service, capsys):
    TALLY["http"].clear()
    start = time.monotonic()
    try:
        _http_long(service[1])
    finally:
        TALLY["http"]["log tracebacks"] = service[0].output().count("Traceback")
        with capsys.disabled():
            print("\n" + summary("http", HTTP_FIELDS, time.monotonic() - start))
    healthy(service)


def test_a_body_shorter_than_its_length_gets_408(service):
    """A client that announces more bytes than it sends, then waits: 408 after the body
    timeout, and one that hangs up halfway leaves the server serving."""
    server, client = service
    body = dumps({"position": BASES["demo"]})
    head = (f"POST /solve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(head + body[: len(body) // 2])
        answer = b""
        while chunk := sock.recv(4096):  # the answer comes with "connection: close"
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 408"), answer[:300]
    assert "\n" not in json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(head + body[:100])
    assert client.post("/solve", json={"position": BASES["demo"]}).json()["revenue"] == 480
    healthy(service)


# ------------------------------------------------------------------------------------------------
# Defects found here: a plan's numbers of the wrong kind (int() once raised TypeError)


PLAN_NUMBER_CASES = [{"routes": [], "revenue": None}, {"routes": [], "subsidy": "x" * 50},
                     {"routes": [], "upper_bound": {}},
                     {"routes": [{"train": "4-0", "paths": ["A1:0"], "revenue": []}]},
                     # a route's paid stops null, or holding null (found by the long CLI run)
                     {"routes": [{"train": "4-0", "paths": ["A1:0"], "paid": None}]},
                     {"routes": [{"train": "4-0", "paths": ["A1:0"], "paid": [None]}]}]


@pytest.mark.parametrize("plan", PLAN_NUMBER_CASES)
def test_a_plan_number_of_the_wrong_kind_is_one_error_line(plan, tmp_path):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan))
    code, _ = cli(["validate", str(hexrail.example_path("demo")), str(path)])
    assert code == 2  # (cli() checks the one error line)


@pytest.mark.parametrize("plan", PLAN_NUMBER_CASES)
def test_a_plan_number_of_the_wrong_kind_gets_a_422(plan, service):
    r = service[1].post("/validate", json={"position": BASES["demo"], "plan": plan})
    assert r.status_code == 422 and "\n" not in r.json()["error"], r.text
