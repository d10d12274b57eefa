"""hexrail serve: the real server process on a loopback port, called with a real HTTP client.

Two servers run for this module: ``main`` with generous limits, and ``tight`` with a 64 KiB body
limit, a 0.3 s time limit cap and a 0.5 s grace before a job is killed. Every request goes to
127.0.0.1 only; the load test is bounded in request count and in time and prints its throughput
and latency percentiles (no timing asserts).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from conftest import corpus_missing, corpus_positions

import hexrail
from hexrail.corpus import percentile
from hexrail.io.g18xx import SCHEMA, solve_record

DEMO = json.loads(Path(hexrail.example_path("demo")).read_text())
POINTY = json.loads((Path(__file__).parent / "golden" / "pointy.json").read_text())
START_TIMEOUT = 180.0  # a fresh machine compiles the numba kernels on first use


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A ``hexrail serve`` subprocess on 127.0.0.1, its log in a temporary file."""

    def __init__(self, *options: str):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.NamedTemporaryFile("w+", suffix=".log", delete=False)  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hexrail.cli", "serve", "--host", "127.0.0.1", "--port", str(self.port),
             "--log-level", "warning", *options],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

    def wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.output()}")
            try:
                if httpx.get(self.url + "/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"server not ready within {START_TIMEOUT} s:\n{self.output()}")

    def output(self) -> str:
        self.log.flush()
        return Path(self.log.name).read_text()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)  # the session this test started
                self.proc.wait()
        self.log.close()
        os.unlink(self.log.name)


def started(*options: str) -> Server:
    """A `Server` with `options`, ready (stopped again if it never gets ready)."""
    server = Server(*options)
    try:
        server.wait_ready()
    except Exception:
        server.stop()
        raise
    return server


def stopped(server: Server) -> None:
    """Stop `server`; its log must hold no traceback."""
    log = server.output() if server.proc.poll() is None else ""
    server.stop()
    assert "Traceback" not in log, log


@pytest.fixture(scope="module")
def servers(warm_solver):  # compiled kernels on disk first, so the workers only load them
    main = Server("--workers", "2", "--max-body", "4M", "--time-limit", "20", "--max-time-limit", "20")
    tight = Server("--workers", "1", "--max-body", "64k", "--time-limit", "0.3", "--max-time-limit", "0.3",
                   "--grace", "0.5", "--worker-memory", "3G")
    try:
        main.wait_ready()
        tight.wait_ready()
        yield main, tight
    finally:
        for s in (main, tight):
            log = s.output() if s.proc.poll() is None else ""
            s.stop()
            assert "Traceback" not in log, log


@pytest.fixture(scope="module")
def main(servers) -> httpx.Client:
    with httpx.Client(base_url=servers[0].url, timeout=60) as client:
        yield client


@pytest.fixture(scope="module")
def tight(servers) -> httpx.Client:
    with httpx.Client(base_url=servers[1].url, timeout=60) as client:
        yield client


def g18xx_doc() -> dict:
    """A three-hex 18xx.games export: X's city A1, a town A3, an empty city A5."""
    def nb(**sides):
        return [sides.get(f"e{k}") for k in range(6)]

    def hex_(hex_id, y, node, paths, **sides):
        return {"id": hex_id, "x": 0, "y": y, "tile": "t", "color": "yellow", "rot": 0, "nb": nb(**sides),
                "nodes": [node], "paths": paths}

    return {
        "schema": SCHEMA, "title": "1830", "fixture": "hand.json", "game_id": 1, "action_index": 3,
        "entity": {"id": "X", "name": "X Railway", "home": "A1"},
        "phase": {"name": "2", "tiles": ["yellow"]},
        "layout": {"orientation": "flat", "axes": {"x": "letter", "y": "number"}},
        "trains": [{"id": "3-0", "name": "3", "distance": 3, "runnable": True}],
        "hexes": [
            hex_("A1", 0, {"i": 0, "kind": "city", "revenue": 20, "slots": 1, "tokens": ["X"]},
                 [{"a": "e0", "b": "n0"}], e0="A3"),
            hex_("A3", 2, {"i": 0, "kind": "town", "revenue": 10},
                 [{"a": "e3", "b": "n0"}, {"a": "n0", "b": "e0"}], e3="A1", e0="A5"),
            hex_("A5", 4, {"i": 0, "kind": "city", "revenue": 30, "slots": 1, "tokens": [None]},
                 [{"a": "e3", "b": "n0"}], e3="A3"),
        ],
    }


def big_board(n: int, trains: list[str]) -> dict:
    """n x n hexes, each a town with track to all six sides, one tokened city: routes explode."""
    hexes = {}
    for col in range(n):
        for row in range(n):
            hexes[f"{chr(65 + col)}{2 * row + col % 2 + 1}"] = {
                "tile": "town=revenue:10;" + ";".join(f"path=a:{k},b:_0" for k in range(6))}
    hexes["A1"] = {"tile": "city=revenue:20;" + ";".join(f"path=a:{k},b:_0" for k in range(6)),
                   "tokens": ["A"]}
    return {"layout": "flat", "company": "A", "companies": [{"id": "A"}], "trains": trains, "hexes": hexes}


def svg_routes(text: str) -> int:
    root = ET.fromstring(text)
    return sum(1 for el in root.iter() if el.get("class") == "route")


# ------------------------------------------------------------------------------------------------
# Answers


def test_health_profiles_and_schema(main):
    health = main.get("/health").json()
    assert health["status"] == "ok" and health["max_body_bytes"] == 4 * 1024 ** 2
    profiles = {p["name"]: p for p in main.get("/profiles").json()}
    assert "generic" in profiles
    assert all(p["description"] and p["train_types"] for p in profiles.values())
    registered = hexrail.rules.profiles()  # (other tests may have registered test profiles here)
    for name, doc in profiles.items():
        assert doc["description"] == registered[name].description
        assert doc["train_types"] == list(registered[name].train_types)
    schema = main.get("/openapi.json").json()
    assert {"/solve", "/validate", "/render", "/health", "/profiles"} <= set(schema["paths"])


def test_answers_are_what_the_openapi_schema_says(main):
    """/openapi.json names a model for each answer, and the answers have only documented keys."""
    from hexrail.server.models import HealthAnswer, ProfileAnswer, SolveAnswer, ValidateAnswer

    paths = main.get("/openapi.json").json()["paths"]
    for path, method, model in (("/solve", "post", "SolveAnswer"), ("/validate", "post", "ValidateAnswer"),
                                ("/health", "get", "HealthAnswer")):
        ok = paths[path][method]["responses"]["200"]["content"]["application/json"]["schema"]
        assert ok["$ref"].endswith(f"/{model}"), (path, ok)
        assert "ErrorAnswer" in json.dumps(paths[path][method]["responses"].get("422", {})) or path == "/health"

    def documented(answer: dict, model) -> None:
        model.model_validate(answer)
        assert set(answer) <= set(model.model_fields), set(answer) - set(model.model_fields)

    for position in (DEMO, g18xx_doc()):
        solved = main.post("/solve", json={"position": position}).json()
        documented(solved, SolveAnswer)
        for route in solved["routes"]:
            documented(route, SolveAnswer.model_fields["routes"].annotation.__args__[0])
    report = main.post("/validate", json={"position": DEMO, "plan": main.post("/solve", json={"position": DEMO}).json()})
    documented(report.json(), ValidateAnswer)
    HealthAnswer.model_validate(main.get("/health").json())
    for profile in main.get("/profiles").json():
        documented(profile, ProfileAnswer)


def test_docs_need_nothing_from_outside(main):
    """Issue: /docs was blank offline (Swagger UI came from a CDN). Every script, style and icon
    the page names is served by this server; without the package that ships Swagger UI the page
    lists the endpoints itself."""
    import re

    page = main.get("/docs")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    urls = re.findall(r"""(?:src|href)=["']([^"']+)""", page.text)
    assert urls and all(u.startswith("/") for u in urls), urls
    for url in urls:
        assert main.get(url).status_code == 200, url
    if "swagger-ui-bundle.js" in page.text:
        assert "validatorUrl" in page.text
        redoc = main.get("/redoc")
        assert redoc.status_code == 200
        assert all(u.startswith("/") for u in re.findall(r"""(?:src|href)=["']([^"']+)""", redoc.text))
    else:
        assert all(path in page.text for path in ("/solve", "/validate", "/render", "/health"))


def test_solve_native_and_18xx_with_the_keys_of_the_cli_line(main, tmp_path, warm_solver):
    doc = g18xx_doc()
    src = tmp_path / "one.jsonl"
    src.write_text(json.dumps(doc) + "\n")
    proc = subprocess.run([sys.executable, "-m", "hexrail.cli", "solve", "--from", "18xx", str(src)],
                          capture_output=True, text=True, check=True)
    line = json.loads(proc.stdout)
    stream_only = {"line"}  # where the line sits in a stream, not the answer
    keys = set(line) - stream_only

    r = main.post("/solve", json={"position": doc})
    assert r.status_code == 200, r.text
    assert set(r.json()) == keys
    assert r.json()["revenue"] == line["revenue"] == solve_record(doc)["revenue"]

    r = main.post("/solve", json={"position": DEMO})
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == keys
    assert (body["revenue"], body["optimal"], body["entity"]) == (480, True, "PRR")
    assert all("g18xx" in route and route["paths"] for route in body["routes"])
    r = main.post("/solve", json={"position": POINTY, "objective": "revenue"})
    assert (r.json()["revenue"], r.json()["objective"]) == (180, "revenue")
    # the company's choices, weighed when asked (`test_choices`)
    from test_choices import CELLS, PORTS, steamboat

    doc = steamboat(CELLS, PORTS, "A5", ["A5", "A7"], ["3"])
    r = main.post("/solve", json={"position": doc, "choices": True})
    assert (r.json()["total"], r.json()["choices"]) == (140, {"Steamboat Company hex": "A7"})
    assert "choices" not in main.post("/solve", json={"position": doc}).json()


def test_solve_corpus_positions_match_the_library(main, warm_solver):
    reason = corpus_missing()
    if reason:
        pytest.skip(reason)
    for title in ("generic", "18SJ", "1860"):
        for data in corpus_positions(title)[::40]:
            r = main.post("/solve", json={"position": data})
            assert r.status_code == 200, r.text
            assert r.json()["total"] == hexrail.solve(data).total
            assert r.json()["title"] == data["title"]


def test_validate_plans_ours_and_18xx_form(main):
    plan = main.post("/solve", json={"position": DEMO}).json()
    r = main.post("/validate", json={"position": DEMO, "plan": plan})
    assert r.status_code == 200 and r.json()["legal"] and r.json()["revenue"] == 480
    g18 = {"routes": [route["g18xx"] for route in plan["routes"]]}
    r = main.post("/validate", json={"position": DEMO, "plan": g18})
    assert r.status_code == 200 and r.json()["legal"] and r.json()["revenue"] == 480
    broken = {"routes": [{"train": "4-0", "paths": ["A1:0", "C3:0"]}]}
    r = main.post("/validate", json={"position": DEMO, "plan": broken})
    assert r.status_code == 200 and not r.json()["legal"]
    assert any("C3" in e for e in r.json()["routes"][0]["errors"])


def test_render_svg_and_png(main):
    r = main.post("/render", json={"position": DEMO, "solve": True})
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert svg_routes(r.text) == 3
    plan = json.loads((Path(__file__).parent / "golden" / "pointy_plan.json").read_text())
    r = main.post("/render", json={"position": POINTY, "plan": plan, "format": "png"})
    assert r.status_code == 200 and r.headers["content-type"] == "image/png"
    assert r.content.startswith(b"\x89PNG")
    r = main.post("/render", json={"position": g18xx_doc()})
    assert r.status_code == 200 and svg_routes(r.text) == 0


# ------------------------------------------------------------------------------------------------
# Bad input: a 4xx naming the field, hex, company or train at fault


def with_hex(hex_id: str, value: dict) -> dict:
    return {**DEMO, "hexes": {**DEMO["hexes"], hex_id: value}}


def g18xx_with(**changes) -> dict:
    doc = g18xx_doc()
    doc.update(changes)
    return doc


BAD = [
    # (endpoint, body, status, words the message must contain)
    ("/solve", b'{"position": {', 400, ["malformed JSON"]),
    ("/solve", b"[1, 2]", 422, ["JSON object"]),
    ("/solve", {}, 422, ["position", "Field required"]),
    ("/solve", {"position": DEMO, "speed": 3}, 422, ["speed"]),
    ("/solve", {"position": DEMO, "time_limit": "soon"}, 422, ["time_limit"]),
    ("/solve", {"position": DEMO, "time_limit": -1}, 422, ["time_limit"]),
    ("/solve", {"position": DEMO, "objective": "fun"}, 422, ["objective"]),
    ("/solve", {"position": [1]}, 422, ["position"]),
    ("/solve", {"position": {**DEMO, "colour": 1}}, 422, ["colour"]),
    ("/solve", {"position": {**DEMO, "company": "B&O"}}, 422, ["B&O"]),
    ("/solve", {"position": with_hex("E5", {"tile": "city=revenue:30;path=a:0,b:_0", "tokens": ["XYZ"]})},
     422, ["E5", "XYZ"]),
    ("/solve", {"position": with_hex("Q", {})}, 422, ["'Q'"]),
    ("/solve", {"position": with_hex("C3", {"tile": "path=a:0,b:9"})}, 422, ["C3", "b:9"]),
    ("/solve", {"position": {**DEMO, "trains": ["4", "7Q"]}}, 422, ["7Q"]),
    ("/solve", {"position": g18xx_with(entity={"name": "no id"})}, 422, ["entity", "id"]),
    ("/solve", {"position": g18xx_with(trains=[{"id": "3-0", "distance": "far", "runnable": True}])},
     422, ["train 3-0", "distance"]),
    ("/validate", {"position": DEMO, "plan": {"paths": []}}, 422, ["plan", "routes"]),
    ("/validate", {"position": DEMO}, 422, ["plan"]),
    ("/render", {"position": DEMO, "format": "gif"}, 422, ["format"]),
    ("/render", {"position": DEMO, "format": "png", "size": 500, "scale": 4}, 422, ["scale", "million pixels"]),
    ("/render", {"position": DEMO, "plan": {"routes": [{"train": "4-0", "paths": ["Z9:0"]}]}}, 422,
     ["Z9:0", "4-0"]),
]


@pytest.mark.parametrize("endpoint, body, status, words", BAD,
                         ids=[f"{b[0]}-{k}" for k, b in enumerate(BAD)])
def test_bad_input_gets_4xx_naming_the_fault(main, endpoint, body, status, words):
    if isinstance(body, bytes):
        r = main.post(endpoint, content=body, headers={"content-type": "application/json"})
    else:
        r = main.post(endpoint, json=body)
    assert r.status_code == status, r.text
    error = r.json()["error"]
    for word in words:
        assert word in error, error
    assert "Traceback" not in r.text


def test_wrong_method_path_and_content_type(main):
    assert main.get("/solve").status_code == 405
    assert main.get("/nowhere").status_code == 404
    r = main.post("/solve", content=json.dumps({"position": DEMO}), headers={"content-type": "text/plain"})
    assert r.status_code == 422 and "Content-Type" in r.json()["error"]


def test_oversized_bodies_are_refused(tight):
    big = {"position": {**DEMO, "name": "x" * 70_000}}
    r = tight.post("/solve", json=big)
    assert r.status_code == 413 and "65536" in r.json()["error"]

    def chunks():  # no Content-Length: the server counts what arrives
        yield b'{"position": {"name": "'
        for _ in range(20):
            yield b"y" * 4096
        yield b'"}}'
    r = tight.post("/solve", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert tight.post("/solve", json={"position": DEMO}).json()["revenue"] == 480  # still serving


# ------------------------------------------------------------------------------------------------
# Time limits and runaway jobs


def test_time_limit_cuts_a_solve_short_with_an_honest_bound(main, tight):
    board = big_board(4, ["8", "8", "8"])
    full = main.post("/solve", json={"position": board}).json()
    assert full["optimal"] is True
    short = main.post("/solve", json={"position": board, "time_limit": 0.05}).json()
    assert short["optimal"] is False and short["revenue"] <= full["revenue"] <= short["upper_bound"]
    # the tight server caps any request (and its default) at 0.3 s
    for body in ({"position": board}, {"position": board, "time_limit": 1000}):
        capped = tight.post("/solve", json=body).json()
        assert capped["optimal"] is False and capped["revenue"] <= full["revenue"] <= capped["upper_bound"]


def test_a_board_with_millions_of_routes_answers_within_its_limit(tight):
    """A board whose routes run into the millions: the solve stops at its time limit and
    answers with the best plan and an honest bound; the server carries on. (Jobs that overrun
    their limit by the grace period are killed and answered 503: the safety net for a solve
    that could not stop itself.)"""
    r = tight.post("/solve", json={"position": big_board(5, ["D", "D"]), "time_limit": 0.1})
    assert r.status_code == 200, r.text
    answer = r.json()
    assert answer["optimal"] is False and 0 < answer["revenue"] <= answer["upper_bound"]
    assert tight.get("/health").json()["status"] == "ok"
    assert tight.post("/solve", json={"position": DEMO}).json()["revenue"] == 480


# ------------------------------------------------------------------------------------------------
# Load


def test_concurrent_load_no_errors_no_wrong_answers(main, capsys, warm_solver):
    """200 requests (bounded also by 60 s) from 8 threads over a mix of solves, validations and
    renders; every answer is checked."""
    demo_plan = main.post("/solve", json={"position": DEMO}).json()
    cases = [
        ("/solve", {"position": DEMO}, lambda r: r.json()["total"] == 480 and r.json()["optimal"]),
        ("/solve", {"position": POINTY}, lambda r: r.json()["total"] == 180),
        ("/solve", {"position": g18xx_doc()}, lambda r: r.json()["total"] == solve_record(g18xx_doc())["total"]),
        ("/validate", {"position": DEMO, "plan": demo_plan}, lambda r: r.json()["legal"] and r.json()["revenue"] == 480),
        ("/render", {"position": POINTY, "solve": True}, lambda r: svg_routes(r.text) == 2),
    ]
    if not corpus_missing():
        for data in corpus_positions("generic")[::30]:
            total = hexrail.solve(data).total
            cases.append(("/solve", {"position": data}, lambda r, t=total: r.json()["total"] == t))
    n_requests, threads, budget = 200, 8, 60.0
    deadline = time.monotonic() + budget
    local = threading.local()
    clients = []

    def one(k: int):
        if time.monotonic() > deadline:
            return None
        if not hasattr(local, "client"):  # one keep-alive connection per client thread
            local.client = httpx.Client(base_url=main.base_url, timeout=60)
            clients.append(local.client)
        endpoint, body, check = cases[k % len(cases)]
        t0 = time.perf_counter()
        r = local.client.post(endpoint, json=body)
        latency = time.perf_counter() - t0
        ok = r.status_code == 200 and check(r)
        return latency, ok, f"{endpoint} {r.status_code} {r.text[:200]}"

    start = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        results = [x for x in pool.map(one, range(n_requests)) if x is not None]
    wall = time.perf_counter() - start
    for client in clients:
        client.close()
    failures = [msg for _, ok, msg in results if not ok]
    assert not failures, failures[:3]
    assert len(results) >= min(n_requests, 40)
    latencies = [lat for lat, _, _ in results]
    with capsys.disabled():
        print(f"\nload: {len(results)} requests, {threads} concurrent clients, {wall:.2f} s, "
              f"{len(results) / wall:.1f} req/s; latency p50 {percentile(latencies, 50) * 1000:.1f} ms, "
              f"p90 {percentile(latencies, 90) * 1000:.1f} ms, p99 {percentile(latencies, 99) * 1000:.1f} ms")
