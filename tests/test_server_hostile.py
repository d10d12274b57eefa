"""hexrail serve under attack: bodies built to break the worker pool, clients that send slowly
or hold many connections, floods of heavy solves, workers killed from outside.

Each case runs a real ``hexrail serve`` process (or, where the test must reach inside to break
the pool, a real uvicorn server in a thread of this process) and talks to it over real sockets
from 127.0.0.1; an "attacker" binds its sockets to 127.0.0.2 so the server sees two client
addresses. Waits are bounded so a regression fails instead of hanging; nothing asserts speed.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import signal
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from test_server import DEMO, big_board, free_port, started, stopped

from hexrail.io.limits import MAX_DEPTH
from hexrail.server.models import HealthAnswer

ATTACKER = "127.0.0.2"  # another loopback address: the server counts it as another client
HEAVY = big_board(6, ["D", "D", "D"])  # small body, runs to any time limit


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def worker_pids(server_pid: int) -> list[int]:
    """The server's solver processes (spawned children), read from /proc."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == server_pid and b"spawn_main" in cmdline:
            pids.append(int(entry.name))
    return pids


# ------------------------------------------------------------------------------------------------
# Bodies that broke the pool


@pytest.fixture(scope="module")
def plain(warm_solver):
    server = started("--workers", "1", "--time-limit", "5", "--max-time-limit", "5")
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            yield server, client
    finally:
        stopped(server)


def test_a_deeply_nested_body_is_refused_and_the_pool_lives_on(plain):
    """Issue: a 1 KB position with a value nested 500 deep killed the pool's scheduler while it
    pickled the job (RecursionError); every later job answered 500 while /health said ok."""
    _, client = plain
    r = client.post("/solve", json={"position": {**DEMO, "name": nested(500)}})
    assert r.status_code == 422, r.text
    assert r.json()["where"].startswith("position.name") and f"{MAX_DEPTH} levels" in r.json()["error"]
    for endpoint in ("/validate", "/render"):
        r = client.post(endpoint, json={"position": DEMO, "plan": {"routes": nested(500)}})
        assert r.status_code == 422 and r.json()["where"].startswith("plan.routes"), r.text
    # deeper than Python's own parser goes: refused by the parser's limit, not a crash
    text = '{"position": ' + "[" * 100_000 + "]" * 100_000 + "}"
    r = client.post("/solve", content=text, headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["where"] == "body", r.text
    for body, where in ((b'{"position": {"a": NaN}}', "position.a"),
                        (b'{"position": {"a": ' + b"9" * 5000 + b"}}", "body"),
                        (b'{"position": {"a": "\xff"}}', "body")):
        r = client.post("/solve", content=body, headers={"content-type": "application/json"})
        assert r.status_code in (400, 422) and r.json()["where"] == where, r.text

    assert client.post("/solve", json={"position": DEMO}).json()["revenue"] == 480
    big = {"position": {**DEMO, "name": "x" * 200_000}}  # (checked off the event loop)
    assert client.post("/solve", json=big).json()["revenue"] == 480
    health = client.get("/health")
    assert health.status_code == 200 and health.json()["status"] == "ok"
    assert all(lane["healthy"] and lane["rebuilds"] == 0 for lane in health.json()["lanes"].values())


def test_a_worker_killed_mid_job_does_not_fail_the_request(plain):
    """Every solver process killed from outside (kill -9) while one holds a job: the job runs
    again on a fresh worker and the request gets its answer; the pool whose idle worker died
    (pebble then gives up the pool) is rebuilt without a request asking."""
    server, client = plain
    board = big_board(4, ["8", "8", "8"])  # about a second of solving
    expected = client.post("/solve", json={"position": board}).json()["total"]
    with ThreadPoolExecutor(1) as pool:
        answer = pool.submit(client.post, "/solve", json={"position": board})
        time.sleep(0.4)  # (the job is running by now; if not, the kill only tests replacement)
        for pid in worker_pids(server.proc.pid):
            os.kill(pid, signal.SIGKILL)
        r = answer.result(timeout=120)
    assert r.status_code == 200, r.text
    assert r.json()["total"] == expected
    deadline = time.monotonic() + 30
    while client.get("/health").status_code != 200:
        assert time.monotonic() < deadline, client.get("/health").text
        time.sleep(0.2)
    assert client.post("/validate", json={"position": DEMO, "plan": {"routes": []}}).status_code == 200


# ------------------------------------------------------------------------------------------------
# A pool that fails anyway: reported, then rebuilt


class ThreadServer:
    """A uvicorn server for `create_app` in a thread of this process, so a test can reach the
    application's worker lanes while real HTTP clients call it."""

    def __init__(self, config):
        import uvicorn

        from hexrail.server.app import create_app

        self.app = create_app(config)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(self.app, host="127.0.0.1", port=self.port,
                                                    log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ThreadServer:
        self.thread.start()
        deadline = time.monotonic() + 180
        while not self.server.started:
            assert time.monotonic() < deadline and self.thread.is_alive(), "server did not start"
            time.sleep(0.1)
        return self

    def __exit__(self, *_) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=60)


BROKEN_POOL = pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")


@BROKEN_POOL
def test_a_failed_pool_is_reported_by_health_and_rebuilt(warm_solver, monkeypatch):
    """Should a job still break a pool's scheduler (here: one scheduled straight into the pool,
    past the server's checks), /health answers 503 and the next request gets a fresh pool."""
    from hexrail.server import lanes
    from hexrail.server.app import ServerConfig

    monkeypatch.setattr(lanes, "WATCH_SECONDS", 3600.0)  # the requests find the failure first
    with ThreadServer(ServerConfig(workers=1, light_workers=1)) as server, \
            httpx.Client(base_url=server.url, timeout=120) as client:
        heavy = server.app.state.lanes.heavy
        heavy.pool.schedule(len, args=(nested(5000),))  # pickling it kills the scheduler thread
        deadline = time.monotonic() + 30
        while heavy.pool.active and time.monotonic() < deadline:
            time.sleep(0.05)
        r = client.get("/health")
        assert r.status_code == 503 and r.json()["status"] == "failing", r.text
        assert r.json()["lanes"]["heavy"]["healthy"] is False
        assert client.post("/solve", json={"position": DEMO}).json()["revenue"] == 480
        r = client.get("/health")
        assert r.status_code == 200 and r.json()["lanes"]["heavy"]["rebuilds"] == 1, r.text


@BROKEN_POOL
def test_jobs_lost_with_their_pool_run_on_the_new_one(warm_solver):
    """Jobs waiting in a pool whose scheduler dies are run once more on a rebuilt pool."""
    from hexrail.server.jobs import Lane
    from hexrail.server.work import solve_job

    async def scenario() -> list:
        lane = Lane("test", 1, 8)
        try:
            await lane.ready()
            lane.pool.schedule(len, args=(nested(5000),))
            jobs = [lane.run(solve_job, {"position": DEMO}, timeout=120) for _ in range(3)]
            return await asyncio.gather(*jobs)
        finally:
            lane.close()

    answers = asyncio.run(scenario())
    assert [a["ok"]["revenue"] for a in answers] == [480] * 3


# ------------------------------------------------------------------------------------------------
# Slow and greedy clients


@pytest.fixture(scope="module")
def guarded(warm_solver):
    server = started("--workers", "1", "--body-timeout", "1", "--header-timeout", "1", "--keep-alive", "1",
                     "--max-client-connections", "6", "--time-limit", "5", "--max-time-limit", "5")
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            yield server, client
    finally:
        stopped(server)


def trickle(port: int, head: bytes, rest: bytes, every: float, limit: float = 15.0) -> tuple[bytes, float]:
    """From the attacker's address, send `head` at once, then `rest` a byte every `every`
    seconds; what the server answered (b"" if it only closed) and after how many seconds."""
    sock = socket.socket()
    sock.bind((ATTACKER, 0))
    sock.connect(("127.0.0.1", port))
    start, answer, sent = time.monotonic(), b"", 0
    try:
        sock.sendall(head)
        while time.monotonic() - start < limit:
            if sent < len(rest):
                sock.sendall(rest[sent:sent + 1])
                sent += 1
            readable, _, _ = select.select([sock], [], [], every)
            if readable:
                answer = sock.recv(4096)
                break
    except OSError:  # reset by the server: it closed
        pass
    finally:
        sock.close()
    return answer, time.monotonic() - start


def slow_post(port: int, every: float = 0.3) -> tuple[bytes, float]:
    body = json.dumps({"position": DEMO}).encode()
    head = (f"POST /solve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    return trickle(port, head, body, every=every)


def test_slow_bodies_and_headers_get_408_while_others_are_served(guarded):
    """Issue: 143 partial POSTs at one byte every 3 s made /health and valid solves answer 503
    to everyone, for as long as the senders kept going."""
    server, client = guarded
    with ThreadPoolExecutor(160) as pool:
        bodies = [pool.submit(slow_post, server.port, 3.0) for _ in range(143)]
        heads = [pool.submit(trickle, server.port, b"", b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n", 0.3)
                 for _ in range(6)]
        time.sleep(0.5)  # the slow clients hold their connections now
        assert client.get("/health").status_code == 200
        assert client.post("/solve", json={"position": DEMO}).json()["revenue"] == 480
        answers = [f.result(timeout=60) for f in bodies + heads]
    for answer, seconds in answers:
        status = answer.split(b" ", 2)[1] if answer.startswith(b"HTTP/1.1 ") else b"closed"
        assert status in (b"408", b"429", b"closed"), answer[:200]
        assert seconds < 10, (answer[:200], seconds)  # 1 s limits, answered long before
    assert any(a.startswith(b"HTTP/1.1 408") for a, _ in answers)
    assert client.get("/health").status_code == 200


def test_a_silent_connection_is_closed(guarded):
    server, _ = guarded
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        assert sock.recv(4096).startswith(b"HTTP/1.1 408")  # nothing sent: 408 after 1 s
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = b""
        while True:  # the answer, then the idle keep-alive connection is closed
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 200")


def test_one_client_address_holds_a_bounded_share_of_connections(guarded):
    server, client = guarded
    transport = httpx.HTTPTransport(local_address=ATTACKER)
    with httpx.Client(base_url=server.url, timeout=30, transport=transport) as attacker:
        holders = []
        for _ in range(6):  # its share: idle connections, each with a partial request
            sock = socket.socket()
            sock.bind((ATTACKER, 0))
            sock.connect(("127.0.0.1", server.port))
            sock.sendall(b"GET /health HTTP/1.1\r\n")
            holders.append(sock)
        try:
            r = attacker.get("/health")
            assert r.status_code == 429 and r.headers["retry-after"], r.text
            assert "connections" in r.json()["error"]
            assert client.get("/health").status_code == 200  # other addresses are served
        finally:
            for sock in holders:
                sock.close()
        deadline = time.monotonic() + 10
        while attacker.get("/health").status_code != 200:  # its share is free again
            assert time.monotonic() < deadline
            time.sleep(0.1)


# ------------------------------------------------------------------------------------------------
# Heavy work does not hold up light work


@pytest.fixture(scope="module")
def lanes(warm_solver):
    server = started("--workers", "1", "--light-workers", "1", "--max-pending", "2", "--time-limit", "4",
                     "--max-time-limit", "4", "--light-time-limit", "0.3", "--grace", "5")
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            yield server, client
    finally:
        stopped(server)


def test_light_requests_do_not_wait_behind_heavy_ones(lanes):
    """Issue: heavy solves (small bodies, capped long solves) queued light requests behind
    them. The heavy lane takes two; a third heavy request is refused with Retry-After; light
    ones are answered while the heavy ones still run."""
    _, client = lanes
    with ThreadPoolExecutor(4) as pool:
        heavy = [pool.submit(client.post, "/solve", json={"position": HEAVY, "time_limit": 4})]
        time.sleep(0.3)
        heavy.append(pool.submit(client.post, "/solve", json={"position": HEAVY, "time_limit": 4}))
        time.sleep(1.0)  # the second has probed the light lane and waits in the heavy one
        refused = client.post("/solve", json={"position": HEAVY, "time_limit": 3.5})
        assert refused.status_code == 503 and int(refused.headers["retry-after"]) > 0, refused.text
        light = [client.get("/health"), client.get("/profiles"),
                 client.post("/solve", json={"position": DEMO}),
                 client.post("/validate", json={"position": DEMO, "plan": {"routes": []}}),
                 client.post("/render", json={"position": DEMO})]
        assert not any(f.done() for f in heavy)  # the heavy ones run for seconds yet
        assert [r.status_code for r in light] == [200] * 5, [r.text[:200] for r in light]
        assert light[2].json()["revenue"] == 480
        for f in heavy:
            r = f.result(timeout=60)
            assert r.status_code == 200 and r.json()["optimal"] is False, r.text


def test_heavy_jobs_leave_a_worker_to_the_others(warm_solver):
    """In a lane of two workers, jobs known to be heavy (priority 1, capped at one running)
    never take the second worker: a job not known heavy starts at once, however many heavy ones
    wait, and the heavy ones still run in their turn."""
    from hexrail.server.jobs import Lane

    async def scenario() -> list[str]:
        lane = Lane("test", 2, 8, caps={1: 1})
        finished: list[str] = []

        async def job(name: str, seconds: float, priority: int) -> None:
            await lane.run(time.sleep, seconds, timeout=60, priority=priority)
            finished.append(name)

        try:
            await lane.ready()
            heavy = [asyncio.ensure_future(job(f"heavy{k}", 1.5, 1)) for k in range(2)]
            await asyncio.sleep(0.2)
            await job("light", 0.01, 0)
            await asyncio.gather(*heavy)
        finally:
            lane.close()
        return finished

    assert asyncio.run(scenario()) == ["light", "heavy0", "heavy1"]


def test_health_validates_against_its_model(lanes):
    _, client = lanes
    HealthAnswer.model_validate(client.get("/health").json())
