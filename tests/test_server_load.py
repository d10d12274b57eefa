"""hexrail serve under load: 50 concurrent clients, some slow clients, one worker killed.

50 client threads (127.0.0.1, a keep-alive connection each) send a mix for `SECONDS`: 45 send
light requests (/health, /profiles, small solves, a validation, an SVG), one every `THINK`
seconds after the last answer; five send heavy solves that run to their time limit, back to
back. Ten slow clients (127.0.0.2) trickle request bodies a byte at a
time and reconnect when refused. Part way through, the solver process doing the most work is
killed with SIGKILL. Every valid request must get an answer, none a 5xx, and every answer must
be right; the slow ones must be refused (408, 429) or closed. The latency percentiles are
printed, not asserted (run with ``-s`` to see them among other output).
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from test_server import DEMO, POINTY, big_board
from test_server_hostile import slow_post, started, stopped, worker_pids

from hexrail.corpus import percentile

pytestmark = pytest.mark.slow

CLIENTS, HEAVY_CLIENTS, SLOW_CLIENTS = 50, 5, 10
SECONDS = 25.0
THINK = 0.5  # seconds a light client waits between requests (heavy clients send back to back)
KILL_AT = 8.0  # seconds into the run


def cpu_ticks(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])  # utime + stime


def busiest_worker(server_pid: int) -> int | None:
    """The solver process that used the most CPU over the last half second."""
    pids = worker_pids(server_pid)
    before = {pid: cpu_ticks(pid) for pid in pids}
    time.sleep(0.5)
    grown = {pid: cpu_ticks(pid) - before[pid] for pid in pids}
    return max(grown, key=grown.get) if grown else None


def test_load_with_slow_clients_and_a_killed_worker(warm_solver, capsys):
    server = started("--workers", "2", "--light-workers", "1", "--time-limit", "10", "--max-time-limit", "10",
                     "--body-timeout", "2", "--header-timeout", "2", "--max-client-connections", "64")
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            demo_plan = client.post("/solve", json={"position": DEMO}).json()
        light = [
            ("GET", "/health", None, lambda r: r.json()["status"] == "ok"),
            ("GET", "/profiles", None, lambda r: any(p["name"] == "generic" for p in r.json())),
            ("POST", "/solve", {"position": DEMO}, lambda r: r.json()["total"] == 480 and r.json()["optimal"]),
            ("POST", "/solve", {"position": POINTY}, lambda r: r.json()["total"] == 180),
            ("POST", "/validate", {"position": DEMO, "plan": demo_plan},
             lambda r: r.json()["legal"] and r.json()["revenue"] == 480),
            ("POST", "/render", {"position": POINTY}, lambda r: "<svg" in r.text[:500]),
        ]
        heavy = ("POST", "/solve", {"position": big_board(5, ["D", "D"]), "time_limit": 2},
                 lambda r: r.json()["revenue"] > 0 and r.json()["revenue"] <= r.json()["upper_bound"])
        start = time.monotonic()
        stop = start + SECONDS
        results: list[tuple[str, float, bool, str, float]] = []  # kind, seconds, ok, note, sent at
        slow_answers: list[bytes] = []
        lock = threading.Lock()

        def client_loop(k: int) -> None:
            cases = [heavy] if k < HEAVY_CLIENTS else light
            with httpx.Client(base_url=server.url, timeout=120) as http:
                n = k
                while time.monotonic() < stop:
                    method, path, body, check = cases[n % len(cases)]
                    n += 1
                    t0 = time.perf_counter()
                    try:
                        r = http.request(method, path, json=body)
                        ok, note = r.status_code == 200 and check(r), f"{path} {r.status_code} {r.text[:160]}"
                    except (httpx.HTTPError, ValueError, KeyError) as err:
                        ok, note = False, f"{path} no answer: {type(err).__name__}: {err}"
                    with lock:
                        results.append((path if k >= HEAVY_CLIENTS else "heavy", time.perf_counter() - t0,
                                        ok, note, time.monotonic() - start))
                    if k >= HEAVY_CLIENTS:
                        time.sleep(THINK)

        def slow_loop() -> None:
            while time.monotonic() < stop:
                answer, _ = slow_post(server.port)
                with lock:
                    slow_answers.append(answer)

        killed = []

        def killer() -> None:
            time.sleep(KILL_AT)
            pid = busiest_worker(server.proc.pid)
            if pid is not None:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

        with ThreadPoolExecutor(CLIENTS + SLOW_CLIENTS + 1) as pool:
            futures = [pool.submit(client_loop, k) for k in range(CLIENTS)]
            futures += [pool.submit(slow_loop) for _ in range(SLOW_CLIENTS)]
            futures.append(pool.submit(killer))
            for f in futures:
                f.result(timeout=SECONDS + 300)
        wall = time.monotonic() - start
    finally:
        stopped(server)

    assert killed, "no worker to kill"
    failures = [note for _, _, ok, note, _ in results if not ok]
    assert not failures, failures[:5]
    statuses = [a.split(b" ", 2)[1] if a.startswith(b"HTTP/1.1 ") else b"closed" for a in slow_answers]
    assert set(statuses) <= {b"408", b"429", b"closed"}, set(statuses)
    light_s = [s for kind, s, *_ in results if kind != "heavy"]
    heavy_s = [s for kind, s, *_ in results if kind == "heavy"]
    calm = [s for kind, s, _, _, at in results if kind != "heavy" and not KILL_AT <= at < KILL_AT + 10]
    assert light_s and heavy_s and calm
    summary = {
        "clients": CLIENTS, "heavy_clients": HEAVY_CLIENTS, "slow_clients": SLOW_CLIENTS,
        "seconds": round(wall, 1), "requests": len(results), "failures": len(failures),
        "worker_killed_at_s": KILL_AT,
        "light": {"n": len(light_s), "p50_ms": round(percentile(light_s, 50) * 1000, 1),
                  "p99_ms": round(percentile(light_s, 99) * 1000, 1)},
        "heavy": {"n": len(heavy_s), "p50_ms": round(percentile(heavy_s, 50) * 1000, 1),
                  "p99_ms": round(percentile(heavy_s, 99) * 1000, 1)},
        "light_by_path": {path: {"n": len(v), "p50_ms": round(percentile(v, 50) * 1000, 1),
                                 "p99_ms": round(percentile(v, 99) * 1000, 1)}
                          for path in sorted({kind for kind, *_ in results} - {"heavy"})
                          for v in [[s for kind, s, *_ in results if kind == path]]},
        # light requests sent outside the 10 s after the kill (a worker takes seconds to start)
        "light_away_from_kill": {"n": len(calm), "p50_ms": round(percentile(calm, 50) * 1000, 1),
                                 "p99_ms": round(percentile(calm, 99) * 1000, 1)},
        "slow_refused": {s.decode(): statuses.count(s) for s in sorted(set(statuses))},
    }
    with capsys.disabled():
        print("\nload:", json.dumps(summary))
