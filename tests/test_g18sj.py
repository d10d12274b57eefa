"""The 18SJ rules profile (docs/rules.md (18SJ)), rule by rule, then on real 18xx.games positions.

Every hand-made board is solved, checked against the brute-force oracle and re-scored by the
independent validator. Boards are strings of hexes joined by explicit neighbours (`board`), so
that the hex ids the rules name (H9, A2, A10) can sit next to each other.

The corpus part reads ``../shared/corpus/18SJ.jsonl`` (or ``$HEXRAIL_CORPUS``) at run time and
skips when it is absent.
"""

from __future__ import annotations

import json

import pytest
from conftest import corpus_missing, corpus_params, corpus_positions, position_id

import hexrail
from hexrail.validate import check_plan

OP = "OP"


# -- boards ------------------------------------------------------------------------------------

def _end(text: str) -> tuple[str, int]:
    hex_id, _, node = text.partition("/")
    return hex_id, int(node or 0)


def board(nodes: dict[str, str | list[str]], links: list[str], trains: list, *,
          tokens: dict | None = None, icons: dict | None = None, state: dict | None = None,
          colors: tuple = ("yellow",)) -> dict:
    """A native 18SJ position.

    `nodes` maps hex ids to node parts in tile notation (a list for several nodes, ``""`` for
    plain track); `links` are ``"C1-C3"`` (``"C3/1-C5"``: node 1 of C3) joins made of track from
    the node to a free side and across to the neighbour. `tokens` maps hex ids to slot lists
    (node 0) or ``{node index: slots}``.
    """
    parts = {h: ([v] if isinstance(v, str) and v else list(v) if v else []) for h, v in nodes.items()}
    sides: dict[str, dict[int, int]] = {h: {} for h in nodes}  # hex → side → node index (-1 none)
    neighbours: dict[str, list] = {h: [None] * 6 for h in nodes}
    for link in links:
        (a, na), (b, nb) = (_end(x) for x in link.split("-"))
        side = next(s for s in range(6) if s not in sides[a] and (s + 3) % 6 not in sides[b])
        sides[a][side], sides[b][(side + 3) % 6] = na, nb
        neighbours[a][side], neighbours[b][(side + 3) % 6] = b, a
    hexes = {}
    for h, node_parts in parts.items():
        used = sorted(sides[h])
        if node_parts:
            code = node_parts + [f"path=a:{s},b:_{sides[h][s]}" for s in used]
        elif len(used) == 2:
            code = [f"path=a:{used[0]},b:{used[1]}"]
        else:
            code = ["junction"] + [f"path=a:{s},b:_0" for s in used]
        doc: dict = {"tile": ";".join(code), "neighbours": neighbours[h]}
        if icons and h in icons:
            doc["icons"] = list(icons[h])
        if tokens and h in tokens:
            doc["tokens"] = tokens[h]
        hexes[h] = doc
    companies = {OP} | {t if isinstance(t, str) else t["company"]
                        for slots in (tokens or {}).values()
                        for group in (slots.values() if isinstance(slots, dict) else [slots])
                        for t in group if t is not None}
    return {
        "format": "hexrail-position/1", "layout": "flat",
        "phase": {"name": str(len(colors)), "colors": list(colors)},
        "rules": {"profile": "18SJ"}, "company": OP,
        "companies": [{"id": c} for c in sorted(companies)],
        "trains": list(trains), "hexes": hexes, "state": state or {},
    }


def line(*hexes: tuple[str, str], trains: list, **kw) -> dict:
    """Hexes joined one after the other: ``("C1", "city=revenue:20"), ("C3", ...)...``."""
    ids = [h for h, _ in hexes]
    return board(dict(hexes), [f"{a}-{b}" for a, b in zip(ids, ids[1:])], trains, **kw)


def city(revenue: int, slots: int = 1) -> str:
    return f"city=revenue:{revenue},slots:{slots}"


def solve_checked(doc: dict) -> hexrail.Plan:
    """Solve, and require the oracle and the validator to agree with the plan."""
    reference = pytest.importorskip("hexrail.oracle")
    text = json.dumps(doc)
    plan = hexrail.solve(doc)
    assert plan.optimal, text
    assert reference.reference_solve(doc).value == plan.total, text
    report = check_plan(doc, plan)
    assert report.legal, f"{report}\n{text}"
    assert report.revenue == plan.revenue, f"{report}\n{text}"
    for ours, theirs in zip(plan.routes, report.routes):
        assert sorted(ours.bonuses) == sorted(theirs.bonuses), text
    return plan


def bonuses(plan: hexrail.Plan) -> list[tuple[str, int]]:
    return sorted(b for r in plan.routes for b in r.bonuses)


@pytest.fixture(scope="module", autouse=True)
def warm():
    hexrail.solve(hexrail.example_path("demo"))


# -- trains ------------------------------------------------------------------------------------

def test_profile_is_found_by_title_and_reads_e_trains():
    from hexrail.io.g18xx import rules_for_title

    assert rules_for_title("18SJ")[:2] == ("18SJ", True)
    pos = hexrail.load_position(line(("C1", city(20)), ("C3", city(30)), trains=["E", "D", "6"],
                                     tokens={"C1": [OP]}))
    assert [t.name for t in pos.trains] == ["E", "D", "6"]
    assert pos.trains[0].spec == pos.trains[1].spec  # E runs like D; it differs in pay only


E_LINE = (("C1", city(20)), ("C3", city(30)), ("C5", city(40)), ("C7", city(10)))
E_TOKENS = {"C1": [OP], "C5": [OP], "C7": ["SJ"]}


@pytest.mark.parametrize(("train", "revenue"), [
    ("E", 2 * 20 + 30 + 2 * 40 + 10),  # doubled where OP has a token; never for an SJ token
    ("D", 20 + 30 + 40 + 10),
    ("4", 100),
    ("3", 90),  # C1-C3-C5: the SJ city could only end the route
])
def test_e_train_pays_double_in_own_token_hexes(train, revenue):
    assert solve_checked(line(*E_LINE, trains=[train], tokens=E_TOKENS)).revenue == revenue


def test_e_doubling_is_per_hex():
    # C3 holds two cities; OP's token is in the one the route does not visit.
    doc = board({"C1": city(20), "C3": [city(10), city(30)], "C5": city(40)},
                ["C1-C3/1", "C3/1-C5"], ["E"], tokens={"C1": [OP], "C3": {"0": [OP]}})
    assert solve_checked(doc).revenue == 2 * 20 + 2 * 30 + 40


SJ_LINE = (("C1", city(20)), ("C3", city(30)), ("C5", city(40)))


@pytest.mark.parametrize(("token", "train", "revenue"), [
    (["SJ"], "E", 2 * 20 + 30 + 40),  # SJ tokens never block an E train
    (["SJ", "XX"], "E", 2 * 20 + 30 + 40),  # not even beside another company's token
    (["SJ", "XX"], "D", 20 + 30),
    ({"company": "SJ", "flag": "neutral"}, "E", 2 * 20 + 30 + 40),
    (["SJ"], "D", 20 + 30),
    (["SJ"], "6", 20 + 30),
    ({"company": "SJ", "flag": "neutral"}, "D", 20 + 30),  # as exported while OP owns an E
    (["XX"], "E", 2 * 20 + 30),  # other companies' tokens block E trains as usual
    (["XX"], "D", 20 + 30),
])
def test_sj_tokens_block_every_train_but_e(token, train, revenue):
    slots = token if isinstance(token, list) else [token]
    doc = board({"C1": city(20), "C3": city(30, len(slots)), "C5": city(40)}, ["C1-C3", "C3-C5"],
                [train], tokens={"C1": [OP], "C3": slots})
    assert solve_checked(doc).revenue == revenue


@pytest.mark.parametrize(("owns_e", "revenue"), [(False, 90), (True, 50)])
def test_e_owner_other_trains_blocked_by_any_full_city(owns_e, revenue):
    # A neutral (non-SJ) token never blocks, unless the company owns an E train: then its
    # other trains may not pass a city full of tokens that are not its own.
    neutral = {"company": "XX", "flag": "neutral"}
    doc = line(*SJ_LINE, trains=["D"], tokens={"C1": [OP], "C3": [neutral]},
               state={"electric_train_owned": owns_e})
    assert solve_checked(doc).revenue == revenue


def test_e_and_d_split_so_that_e_takes_the_sj_city():
    # C1 50 — C3 SJ 30 — C5 OP 20 — C7 40 — C9 10: the trains cannot share track, so one runs
    # north and one south; only the E train may pass the SJ city: E north 50+30+40 = 120,
    # D south 20+40+10 = 70 (the other way: D 20+30, E 40+40+10).
    doc = line(("C1", city(50)), ("C3", city(30)), ("C5", city(20, 2)), ("C7", city(40)),
               ("C9", city(10)), trains=["E", "D"],
               tokens={"C3": [{"company": "SJ", "flag": "neutral"}], "C5": [OP]},
               state={"electric_train_owned": True})
    plan = solve_checked(doc)
    assert plan.revenue == 190
    assert plan.route("E-0").revenue == 120


# -- route bonuses -----------------------------------------------------------------------------

BONUS_LINE = ("C1", "C3", "C5", "C7")


def bonus_line(icons: dict, trains=("D",), state=None, values=(20, 10, 10, 10)) -> dict:
    hexes = [(h, city(v)) for h, v in zip(BONUS_LINE, values)]
    return line(*hexes, trains=list(trains), tokens={"C1": [OP]}, icons=icons, state=state)


@pytest.mark.parametrize(("icons", "expected"), [
    ({"C3": ["N"], "C5": ["S"]}, [("N/S", 100)]),
    ({"C3": ["N"], "C5": ["N"]}, []),
    ({"C3": ["S"]}, []),
    ({"C3": ["B"], "C5": ["b_lower_case"]}, [("b/B", 50)]),
    ({"C3": ["B"], "C5": ["b_lower_case"], "C7": ["b_lower_case"]}, [("b/B/b", 100)]),
    ({"C3": ["B"], "C5": ["b_lower_case", "b_lower_case"]}, [("b/B/b", 100)]),  # icons count
    ({"C3": ["b_lower_case"], "C5": ["b_lower_case"]}, []),
    ({"C3": ["B"]}, []),
    ({"C3": ["M"], "C5": ["m_lower_case"]}, [("m/M", 50)]),
    ({"C3": ["M"], "C5": ["m_lower_case"], "C7": ["m_lower_case"]}, [("m/M/m", 100)]),
    ({"C3": ["M", "m_lower_case", "m_lower_case"]}, [("m/M/m", 100)]),
    ({"C3": ["m_lower_case"], "C7": ["m_lower_case"]}, []),
    ({"C3": ["N", "B"], "C5": ["S", "b_lower_case"], "C7": ["M", "m_lower_case"]},
     [("N/S", 100), ("b/B", 50), ("m/M", 50)]),
    ({"C3": ["port", "port"]}, []),  # a port pays only with the marker
])
def test_icon_bonuses_and_thresholds(icons, expected):
    plan = solve_checked(bonus_line(icons))
    assert bonuses(plan) == sorted(expected)
    assert plan.revenue == 50 + sum(a for _, a in expected)


def test_bonuses_count_only_the_route_stops():
    # A 2 train reaches C3 (N) but not C5 (S).
    plan = solve_checked(bonus_line({"C3": ["N"], "C5": ["S"]}, trains=["2"]))
    assert (plan.revenue, bonuses(plan)) == (30, [])
    plan = solve_checked(bonus_line({"C1": ["N"], "C3": ["S"]}, trains=["2"]))
    assert (plan.revenue, bonuses(plan)) == (130, [("N/S", 100)])


def test_bonuses_are_not_doubled_by_e_trains():
    plan = solve_checked(bonus_line({"C3": ["N"], "C5": ["S"]}, trains=["E"]))
    assert plan.revenue == 2 * 20 + 30 + 100


OFFBOARD = "offboard=revenue:{}"


@pytest.mark.parametrize(("west", "east", "icons", "bonus"), [
    ("A2", "H9", {"A2": ["V"], "H9": ["O"]}, 120),
    ("A10", "H9", {"A10": ["V"], "H9": ["O"]}, 120),
    ("A4", "H9", {"A4": ["V"], "H9": ["O"]}, 0),  # V somewhere else than A2/A10
    ("A2", "H7", {"A2": ["V"], "H7": ["O"]}, 0),  # O somewhere else than H9
    ("A2", "H9", {"H9": ["O"]}, 0),  # the icons are needed too
    ("A2", "H9", {"A2": ["V"]}, 0),
])
def test_east_west_bonus(west, east, icons, bonus):
    doc = line((west, OFFBOARD.format(20)), ("C1", city(20)), (east, OFFBOARD.format(30)),
               trains=["D"], tokens={"C1": [OP]}, icons=icons)
    plan = solve_checked(doc)
    assert plan.revenue == 70 + bonus
    assert bonuses(plan) == ([("Ö/V", 120)] if bonus else [])


@pytest.mark.parametrize(("marked", "owner", "bonus"), [
    ("C3", OP, 60),  # two port icons on the marked hex
    ("C5", OP, 30),
    ("C3", "XX", 0),  # another company owns the steamship private
    ("C3", "14510", 0),  # a player owns it: only a corporation earns
    ("C3", None, 0),
    ("C7", OP, 0),  # the marked hex has no port icon
])
def test_port_marker(marked, owner, bonus):
    state = {"assignments": {marked: ["SB"]}, "port_marker": "SB", "port_marker_owner": owner}
    plan = solve_checked(bonus_line({"C3": ["port", "port"], "C5": ["port"]}, state=state))
    assert plan.revenue == 50 + bonus
    assert bonuses(plan) == ([("Port", bonus)] if bonus else [])


@pytest.mark.parametrize(("owner", "expected"), [
    (OP, [("GKB30(C5)", 30), ("GKB50(C3)", 50)]),
    ("XX", []),
    (None, []),
])
def test_bonus_tokens(owner, expected):
    state = {"assignments": {"C3": ["GKB50"], "C5": ["GKB30"], "D9": ["GKB20"]},
             "bonus_tokens": {"GKB50": 50, "GKB30": 30, "GKB20": 20}, "bonus_tokens_owner": owner}
    plan = solve_checked(bonus_line({}, state=state))
    assert bonuses(plan) == expected
    assert plan.revenue == 50 + sum(a for _, a in expected)


def test_bonus_token_weighs_in_the_choice_of_route():
    # OP in the middle; a 2 train takes the 50 token over the richer city.
    doc = line(("C1", city(10)), ("C3", city(20)), ("C5", city(40)), trains=["2"],
               tokens={"C3": [OP]},
               state={"assignments": {"C1": ["GKB50"]}, "bonus_tokens_owner": OP})
    plan = solve_checked(doc)
    assert (plan.revenue, bonuses(plan)) == (80, [("GKB50(C1)", 50)])


# -- the search weighs bonuses ------------------------------------------------------------------

def fork(mine_icons: dict, trains=("D",)) -> dict:
    """OP (20, one exit) — junction J1; from J1 a long run of three 30s (L1-L3-L5) or a short
    run to three 10s (K1-K3-K5) carrying the Bergslagen icons. A route takes one branch."""
    nodes = {"C1": city(20), "J1": "", "L1": city(30), "L3": city(30), "L5": city(30),
             "K1": city(10), "K3": city(10), "K5": city(10)}
    links = ["C1-J1", "J1-L1", "L1-L3", "L3-L5", "J1-K1", "K1-K3", "K3-K5"]
    return board(nodes, links, list(trains), tokens={"C1": [OP]}, icons=mine_icons)


def test_d_train_swings_to_the_mines_over_a_longer_run():
    both = {"K1": ["B"], "K3": ["b_lower_case"], "K5": ["b_lower_case"]}
    plan = solve_checked(fork(both))
    assert plan.revenue == 20 + 30 + 100 > 20 + 90
    assert plan.routes[0].bonuses == (("b/B/b", 100),)
    assert plan.to_json()["routes"][0]["bonuses"] == [{"name": "b/B/b", "amount": 100}]


def test_one_mine_is_not_enough_to_swing():
    one = {"K1": ["B"], "K3": ["b_lower_case"]}
    plan = solve_checked(fork(one))
    assert plan.revenue == 20 + 90
    assert bonuses(plan) == []


def test_two_trains_share_out_the_branches():
    # The D takes the mines (150); the 4 train cannot reuse C1-J1, so the best plan is D alone
    # or the 4 on the long run: 110 < 150.
    both = {"K1": ["B"], "K3": ["b_lower_case"], "K5": ["b_lower_case"]}
    plan = solve_checked(fork(both, trains=("D", "4")))
    assert plan.revenue == 150 and len(plan.routes) == 1


# -- 18xx.games positions ----------------------------------------------------------------------

def recorded(data: dict) -> int:
    """max(players' revenue, auto-router's rescored revenue)."""
    ar = data.get("auto_router") or {}
    figures = [data["submitted"]["revenue"]] if "revenue" in data["submitted"] else []
    if "revenue_rescored" in ar and not ar.get("rescore_error"):
        figures.append(ar["revenue_rescored"])
    return max(figures)


POSITIONS = corpus_params("18SJ")


def _g18xx():
    return pytest.importorskip("hexrail.io.g18xx")


@pytest.mark.parametrize("data", POSITIONS)
def test_corpus_optimum_at_least_recorded(data):
    g18xx = _g18xx()
    pos = g18xx.position_from_18xx(data)
    assert pos.rules.profile == "18SJ" and pos.meta["rules_covered"]
    plan = hexrail.solve(pos)
    assert plan.optimal
    assert plan.revenue >= recorded(data), (plan.revenue, recorded(data))
    report = check_plan(pos, plan)
    assert report.legal and report.revenue == plan.revenue, report.table()


@pytest.mark.parametrize("data", POSITIONS)
def test_corpus_players_routes_score_as_recorded(data):
    g18xx = _g18xx()
    sub = data["submitted"]
    if sub.get("error"):
        pytest.skip(f"18xx.games could not rebuild the players' routes: {sub['error'][:80]}")
    report = check_plan(g18xx.position_from_18xx(data), g18xx.plan_from_18xx_routes(sub["routes"]))
    assert report.legal, [e for r in report.routes for e in r.errors]
    assert report.revenue == sub["revenue"], report.table()


@pytest.mark.parametrize("data", POSITIONS)
def test_corpus_auto_router_routes_score_as_recorded(data):
    g18xx = _g18xx()
    ar = data.get("auto_router") or {}
    if "revenue_rescored" not in ar or ar.get("rescore_error"):
        pytest.skip("no rescored auto-router result")
    report = check_plan(g18xx.position_from_18xx(data), g18xx.plan_from_18xx_routes(ar["routes"]))
    assert report.legal, [e for r in report.routes for e in r.errors]
    assert report.revenue == ar["revenue_rescored"], report.table()


def corpus_summary() -> dict:
    """Our optimum against the players' revenue (equal / higher / lower / not scored), and the
    positions where it beats both recorded figures."""
    g18xx = _g18xx()
    counts = {"equal": 0, "higher": 0, "lower": 0, "not scored": 0}
    beats = []
    for data in corpus_positions("18SJ"):
        plan = hexrail.solve(g18xx.position_from_18xx(data))
        players = data["submitted"].get("revenue")
        if players is None:
            counts["not scored"] += 1
        else:
            counts["equal" if plan.revenue == players else
                   "higher" if plan.revenue > players else "lower"] += 1
        if plan.revenue > recorded(data):
            beats.append((position_id(data), plan.revenue, recorded(data)))
    return {"counts": counts, "beats": beats}


@pytest.mark.skipif(corpus_missing() is not None, reason=corpus_missing() or "")
def test_corpus_summary(record_property):
    summary = corpus_summary()
    record_property("18SJ", json.dumps(summary))
    print(json.dumps(summary, ensure_ascii=False))
    assert summary["counts"]["lower"] == 0
    assert sum(summary["counts"].values()) == len(corpus_positions("18SJ"))
