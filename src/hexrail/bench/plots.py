"""Bench plots (matplotlib, drawn off screen): time distribution per algorithm, time against
board size (hexes with track) and against the number of trains; each as PNG and SVG."""

from __future__ import annotations

from pathlib import Path


def _timed(results: list[dict], algorithm: str) -> list[dict]:
    return [r for r in results if r["algorithm"] == algorithm and "seconds" in r
            and r.get("status") in ("ok", "illegal")]


def write_plots(results: list[dict], algorithms: list[str], folder: str | Path) -> list[Path]:
    """Draw the three plots into `folder` (created); the files written."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def save(fig, stem: str) -> None:
        fig.tight_layout()
        for ext in ("png", "svg"):
            path = folder / f"{stem}.{ext}"
            fig.savefig(path, dpi=120)
            written.append(path)
        plt.close(fig)

    # time distribution per algorithm: box plot with every run as a dot
    fig, ax = plt.subplots(figsize=(1.6 + 1.4 * len(algorithms), 4.2))
    data = [[max(r["seconds"], 1e-6) for r in _timed(results, a)] for a in algorithms]
    ax.boxplot([d or [float("nan")] for d in data], showfliers=False)
    for k, d in enumerate(data, 1):
        ax.scatter([k + 0.08 * ((i % 5) - 2) for i in range(len(d))], d, s=8, alpha=0.5)
    ax.set_xticks(range(1, len(algorithms) + 1), [_short(a) for a in algorithms])
    ax.set_yscale("log")
    ax.set_ylabel("seconds per position")
    ax.set_title("time per position")
    ax.grid(True, axis="y", alpha=0.3)
    save(fig, "time_distribution")

    for key, label, stem in (("hexes", "hexes with track", "time_vs_board_size"),
                             ("trains", "trains", "time_vs_trains")):
        fig, ax = plt.subplots(figsize=(6, 4.2))
        for a in algorithms:
            rs = _timed(results, a)
            ax.scatter([r[key] for r in rs], [max(r["seconds"], 1e-6) for r in rs], s=12, alpha=0.6,
                       label=_short(a))
        ax.set_yscale("log")
        ax.set_xlabel(label)
        ax.set_ylabel("seconds")
        ax.set_title(f"time against {label}")
        ax.grid(True, alpha=0.3)
        ax.legend()
        save(fig, stem)
    return written


def _short(spec: str) -> str:
    return spec if len(spec) <= 24 else "…" + spec[-23:]
