"""Synthetic late-game boards for benchmarks: dense track, many tokens, long trains.

`dense_board` lays track links between neighbouring hexes of a region (every hex with track gets
2-6 links), then builds each hex's tile from its links: cities and towns join all their sides to
the node; plain hexes pair their sides into paths, and an odd side out branches off another
path's side, as green and brown track does. Deterministic for a seed.
"""

from __future__ import annotations

import random

from hexrail.model.hexgrid import Layout


def region(layout: Layout, n_hexes: int, rng: random.Random) -> list[str]:
    """A compact blob of `n_hexes` hex names grown from the middle of the map."""
    start = layout.name(10, 10)
    cells = [start]
    seen = {start}
    while len(cells) < n_hexes:
        base = rng.choice(cells)
        nb = layout.neighbour(base, rng.randrange(6))
        if not nb or nb in seen:
            continue  # off the map's lettered edge, or taken
        x, y = layout.xy(nb)
        if x >= 0 and y >= 0:
            seen.add(nb)
            cells.append(nb)
    return cells


def dense_board(n_hexes: int = 70, *, seed: int = 1, trains=("6", "8", "D"),
                orientation: str = "flat", n_tokens: int = 8, link_p: float = 0.55) -> dict:
    rng = random.Random(seed)
    layout = Layout(orientation)
    cells = region(layout, n_hexes, rng)
    inside = set(cells)
    links: dict[str, set[int]] = {h: set() for h in cells}
    for h in cells:
        for side in range(6):
            nb = layout.neighbour(h, side)
            if nb in inside and h < nb and rng.random() < link_p:
                links[h].add(side)
                links[nb].add((side + 3) % 6)
    kinds = {}
    for h in cells:
        r = rng.random()
        kinds[h] = "city" if r < 0.28 else "town" if r < 0.40 else "plain"
    # a few offboards on the rim
    rim = [h for h in cells if sum(layout.neighbour(h, s) in inside for s in range(6)) <= 3]
    for h in rng.sample(rim, min(4, len(rim))):
        kinds[h] = "offboard"
    hexes: dict[str, dict] = {}
    city_hexes = []
    for h in cells:
        sides = sorted(links[h])
        kind = kinds[h]
        if not sides:
            hexes[h] = {}
            continue
        if kind == "offboard":
            value = rng.choice([30, 40, 50])
            code = f"offboard=revenue:yellow_{value}|brown_{value + 30}"
            code += "".join(f";path=a:{s},b:_0" for s in sides)
            hexes[h] = {"tile": code, "color": "red"}
        elif kind == "city":
            value = rng.choice([30, 40, 50, 60])
            slots = rng.choice([1, 2, 2, 3])
            code = f"city=revenue:{value},slots:{slots}" + "".join(f";path=a:{s},b:_0" for s in sides)
            hexes[h] = {"tile": code, "color": "brown"}
            city_hexes.append((h, slots))
        elif kind == "town":
            code = f"town=revenue:{rng.choice([10, 20])}" + "".join(f";path=a:{s},b:_0" for s in sides)
            hexes[h] = {"tile": code, "color": "green"}
        else:
            rng.shuffle(sides)
            paths = [f"path=a:{sides[i]},b:{sides[i + 1]}" for i in range(0, len(sides) - 1, 2)]
            if len(sides) % 2:
                other = sides[0] if len(sides) > 1 else None
                if other is not None:
                    paths.append(f"path=a:{sides[-1]},b:{other}")
            if paths:
                hexes[h] = {"tile": ";".join(paths), "color": "green"}
            else:
                hexes[h] = {}
    # tokens: the operating company X, and others filling some cities
    rng.shuffle(city_hexes)
    own = city_hexes[:n_tokens // 2]
    others = city_hexes[n_tokens // 2:n_tokens + 4]
    for h, slots in own:
        hexes[h]["tokens"] = ["X"] + [None] * (slots - 1)
    for h, slots in others:
        if "tokens" not in hexes[h]:
            hexes[h]["tokens"] = [rng.choice(["Y", "Z"]) for _ in range(slots)]
    return {
        "name": f"synthetic dense board ({n_hexes} hexes, seed {seed})",
        "layout": orientation,
        "phase": {"name": "6", "colors": ["yellow", "green", "brown"]},
        "company": "X",
        "companies": [{"id": "X", "home": own[0][0]}, {"id": "Y"}, {"id": "Z"}],
        "trains": list(trains),
        "hexes": hexes,
    }
