"""Summaries of bench results per algorithm: counts, gaps to the best known value, times, memory.

The *best known* value of a position is the best proven-optimal value any algorithm reached on
it, else the largest legal value found. A position where two algorithms prove different optima
is a *conflict* (one of them is wrong) and is listed.

>>> results = [
...     {"case": 0, "algorithm": "a", "status": "ok", "value": 50, "optimal": True, "seconds": 0.2,
...      "first": True, "memory_mb": 10.0},
...     {"case": 0, "algorithm": "b", "status": "ok", "value": 40, "optimal": False, "seconds": 0.1,
...      "first": True, "memory_mb": 9.0}]
>>> best_known(results)
{0: 50}
>>> s = summarise(results, ["a", "b"])
>>> s["b"]["gap_mean"], s["b"]["gap_max"], s["a"]["optimal"]
(10.0, 10, 1)
"""

from __future__ import annotations

from typing import Any

from hexrail.corpus import _fmt_time, percentile

FORMAT = "hexrail-bench/1"


def best_known(results: list[dict]) -> dict[int, int]:
    """Per case: the best proven value among algorithms, else the largest legal value found."""
    proven: dict[int, int] = {}
    found: dict[int, int] = {}
    for r in results:
        if r.get("status") != "ok":
            continue
        c, v = r["case"], r["value"]
        found[c] = max(found.get(c, v), v)
        if r["optimal"]:
            proven[c] = max(proven.get(c, v), v)
    return {c: proven.get(c, v) for c, v in found.items()}


def conflicts(results: list[dict]) -> list[dict]:
    """Cases where algorithms prove different optimal values."""
    by_case: dict[int, dict[str, int]] = {}
    for r in results:
        if r.get("status") == "ok" and r["optimal"]:
            by_case.setdefault(r["case"], {})[r["algorithm"]] = r["value"]
    return [{"case": c, "values": v} for c, v in sorted(by_case.items()) if len(set(v.values())) > 1]


def summarise(results: list[dict], algorithms: list[str]) -> dict[str, dict[str, Any]]:
    """Per algorithm: positions, solved (legal plan), optimal, statuses, gaps, times, memory.

    Times: percentiles over warm calls (every call but each worker's first of the algorithm
    on each rules profile, when there are any), ``cold`` the slowest first call.
    """
    best = best_known(results)
    out: dict[str, dict[str, Any]] = {}
    for name in algorithms:
        rs = [r for r in results if r["algorithm"] == name]
        ok = [r for r in rs if r.get("status") == "ok"]
        gaps = [best[r["case"]] - r["value"] for r in ok]
        rel = [(best[r["case"]] - r["value"]) / best[r["case"]] for r in ok if best[r["case"]] > 0]
        timed = [r for r in rs if "seconds" in r and r.get("status") in ("ok", "illegal")]
        warm = [r["seconds"] for r in timed if not r.get("first")] or [r["seconds"] for r in timed]
        cold = [r["seconds"] for r in rs if r.get("first") and "seconds" in r]
        memory = [r["memory_mb"] for r in rs if r.get("memory_mb") is not None]
        statuses: dict[str, int] = {}
        for r in rs:
            statuses[r.get("status", "error")] = statuses.get(r.get("status", "error"), 0) + 1
        out[name] = {
            "positions": len(rs), "solved": len(ok), "optimal": sum(bool(r["optimal"]) for r in ok),
            "statuses": statuses,
            "gap_mean": sum(gaps) / len(gaps) if gaps else None, "gap_max": max(gaps) if gaps else None,
            "gap_mean_rel": sum(rel) / len(rel) if rel else None, "gap_max_rel": max(rel) if rel else None,
            "at_best": sum(g == 0 for g in gaps),
            "p50": percentile(warm, 50), "p90": percentile(warm, 90), "p99": percentile(warm, 99),
            "max": max(warm) if warm else None, "mean": sum(warm) / len(warm) if warm else None,
            "cold": max(cold) if cold else None,
            "memory_peak_mb": max(memory) if memory else None,
        }
    return out


def format_table(summary: dict[str, dict[str, Any]]) -> str:
    """One row per algorithm."""
    head = ("algorithm", "positions", "solved", "optimal", "failed", "gap mean/max", "at best",
            "p50", "p90", "p99", "max", "cold", "mem peak")
    rows = [head]
    for name, s in summary.items():
        failed = ", ".join(f"{n} {k}" for k, n in sorted(s["statuses"].items()) if k != "ok") or "-"
        gap = "-" if s["gap_mean"] is None else f"{s['gap_mean']:.1f}/{s['gap_max']}"
        mem = "-" if s["memory_peak_mb"] is None else f"{s['memory_peak_mb']:.0f}MB"
        rows.append((name, str(s["positions"]), str(s["solved"]), str(s["optimal"]), failed, gap,
                     str(s["at_best"]), *(_fmt_time(s[k]) for k in ("p50", "p90", "p99", "max", "cold")),
                     mem))
    widths = [max(len(r[k]) for r in rows) for k in range(len(head))]
    lines = ["  ".join(c.ljust(w) if k in (0, 4) else c.rjust(w) for k, (c, w) in enumerate(zip(r, widths)))
             for r in rows]
    lines.insert(1, "-" * len(lines[0]))
    lines.append("gap: best known value (best proven optimum, else best found) minus the "
                 "algorithm's validated value; times are warm calls, cold is the first call "
                 "in a fresh worker")
    return "\n".join(lines)


def to_document(summary: dict, results: list[dict], cases: list[dict], settings: dict) -> dict:
    """The JSON report: settings, per-algorithm summary, per-position facts and every run."""
    return {"format": FORMAT, "settings": settings, "summary": summary, "best_known": {
        str(k): v for k, v in best_known(results).items()}, "conflicts": conflicts(results),
        "positions": cases, "runs": results}
