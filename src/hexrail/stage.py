"""The contract between the pipeline's stages: what search hands the combiners.

`Prepared` holds, for one position, the rules as the profile gives them, every train's lowered
arrays (`hexrail.graph.trains.TrainData`) and its candidate routes
(`hexrail.search.routes.Candidates`). The combiners read it and nothing else; the functions
here are the facts about it that more than one combiner needs: which resources a candidate
claims, the home station's nodes, and how the objective orders plans.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hexrail.errors import HexrailError

from hexrail.graph.track import KIND_CODES, TrackGraph
from hexrail.graph.trains import TrainData
from hexrail.model.position import Position
from hexrail.rules import PlanRules, Profile
from hexrail.search.routes import Candidates

OBJECTIVES = ("income", "revenue")
TIE_SCALE = 1 << 24  # income * TIE_SCALE + revenue orders plans by income, then revenue


@dataclass(frozen=True, eq=False)
class Prepared:
    """Everything up to the combiner: per train its lowered arrays and candidate routes."""

    position: Position
    profile: Profile
    rules: PlanRules
    graphs: dict[str, TrackGraph]
    trains: list[TrainData]
    candidates: list[Candidates]
    groups: list[int]  # equal for trains whose candidates are the same
    objective: str
    timings: dict
    hex_subsidy: list[int]  # per train: subsidy per hex its route covers (paid once per hex)
    set_role: list[int]  # per train: how its route joins sets (rules.base SET_*)
    # The candidates are only the routes that can be in a plan worth at least `floor` (to the
    # objective); None: every route.
    floor: int | None = None
    # Stops paying once: may a route be paid for an optional stop its own best pay leaves out
    # (`payable_stops`)? Only to bound the best plan.
    relax_optional: bool = False
    # Where a plan is worth the sum of its routes: per train, at most what its route earns
    # (its best route where the walk for it finished, else its walk's bound), and last what
    # bonuses paid once per round add at most (`solve.once_extra`); None: unknown.
    route_bounds: list[int] | None = None
    # Does a model of track (`search.relax`) bound its plans? (Plans worth the sum of their
    # routes, on one graph, in one track group, of trains `search.relax.applies` to.)
    relaxable: bool = False

    @property
    def track_groups(self) -> list[str]:
        """The trains' track groups (`Profile.track_group`), the first group first: routes of
        different groups may share track."""
        return sorted({self.profile.track_group(self.position, td.train) for td in self.trains})

    @property
    def span_names(self) -> list[str]:
        """The span bonuses of all trains by name: each pays once per round (a claim bit)."""
        return sorted({b.name for td in self.trains for b in td.span_bonuses})

    def graph_of(self, t: int) -> TrackGraph:
        return self.graphs[self.trains[t].train.spec.track]

    @property
    def coupled(self) -> bool:
        """Do the routes' earnings depend on each other (beyond sharing no track)?"""
        return (self.rules.stops_pay_once or self.rules.max_bypass > 1 or any(self.hex_subsidy)
                or any(self.set_role))

    @property
    def complete(self) -> bool:
        return all(c.complete for c in self.candidates)


def payable_stops(prep: Prepared, t: int, i: int) -> list[int]:
    """The stops candidate i of train t may be paid for when stops pay once: those it visits,
    but an optional stop its own best pay leaves unpaid only when `Prepared.relax_optional`
    (it may not fit the train's rows beside the stops that must count). Without it the plan is
    legal but maybe not the best; with it the plan's value bounds the best (`solve.choose`
    compares the two)."""
    cands, td = prep.candidates[t], prep.trains[t]
    nodes = cands.route_nodes(i).tolist()
    if prep.relax_optional:
        return nodes
    paid = cands.route_paid(i).tolist()
    return [s for s, p in zip(nodes, paid) if p or not td.node_optional[s]]


def optional_left_unpaid(prep: Prepared) -> bool:
    """Does some candidate leave an optional stop worth something unpaid (`payable_stops`)?"""
    for t, (cands, td) in enumerate(zip(prep.candidates, prep.trains)):
        if not (td.node_optional != 0).any():
            continue
        flags = cands.paid[:int(cands.node_ptr[-1])]
        nodes = cands.nodes[:int(cands.node_ptr[-1])]
        if ((td.node_optional[nodes] != 0) & ~flags & (td.node_weight[nodes] > 0)).any():
            return True
    return False


def resources(prep: Prepared, t: int) -> np.ndarray:
    """The bits train t's candidates must not share with another train's choice."""
    cands = prep.candidates[t]
    graph = prep.graph_of(t)
    res = cands.res.copy() if not prep.rules.share_track else np.zeros_like(cands.res)
    if prep.rules.max_bypass == 1:
        # the round's one bypass is a resource: a claim bit after the track bits
        bit = graph.n_resources
        res[cands.bypass > 0, bit >> 6] |= np.uint64(1) << np.uint64(bit & 63)
    spans = prep.trains[t].span_bonuses
    if spans and cands.span is not None:
        # each span bonus pays once per round: a claim bit after the bypass bit
        names = prep.span_names
        bits = [graph.n_resources + 1 + names.index(b.name) for b in spans]
        words = max(bits) // 64 + 1
        if words > res.shape[1]:
            res = np.concatenate([res, np.zeros((len(res), words - res.shape[1]), np.uint64)], axis=1)
        for k, bit in enumerate(bits):
            res[cands.span[:, k] > 0, bit >> 6] |= np.uint64(1) << np.uint64(bit & 63)
    groups = prep.track_groups
    group = groups.index(prep.profile.track_group(prep.position, prep.trains[t].train))
    width = max(g.n_resources for g in prep.graphs.values())
    sides_at = width + 1 + len(prep.span_names) + (len(groups) - 1) * width
    res, after = _side_claims(prep, t, res, sides_at)
    res = _city_claims(prep, t, res, after)
    if group and len(res):
        # trains of another track group may share track: their track bits go to a range of
        # their own, after the track and claim bits of the first group
        res = _moved_bits(res, graph.n_resources, width + 1 + len(prep.span_names) + (group - 1) * width)
    return res


def side_masks(graph: TrackGraph, pos: Position, rules: PlanRules) -> list[list[np.ndarray]]:
    """Per rule of `PlanRules.exclusive_sides`, per side: the bits of the paths of that hex
    with an end at that side (a candidate's track bits meet them when it uses the side)."""
    words = graph.chain_res.shape[1]
    index = {ref: k for k, ref in enumerate(graph.path_ref)}
    out = []
    for hex_id, sides in rules.exclusive_sides:
        h = pos.hex_by_id.get(hex_id)
        masks = []
        for side in sides:
            mask = np.zeros(words, np.uint64)
            for k, p in enumerate(h.tile.paths if h else ()):
                bit = index.get(f"{hex_id}:{k}")
                if bit is not None and any(e.is_edge and e.edge == side for e in p.ends):
                    mask[bit >> 6] |= np.uint64(1) << np.uint64(bit & 63)
            masks.append(mask)
        out.append(masks)
    return out


def sides_used(cands: Candidates, masks: list[np.ndarray]) -> np.ndarray:
    """bool[candidates, sides]: which of the sides each candidate's track uses."""
    used = np.zeros((len(cands), len(masks)), np.bool_)
    for k, mask in enumerate(masks):
        used[:, k] = (cands.res[:, :len(mask)] & mask).any(axis=1)
    return used


def _side_claims(prep: Prepared, t: int, res: np.ndarray, start: int
                 ) -> tuple[np.ndarray, int]:
    """Claim bits that keep a plan to one side of each `PlanRules.exclusive_sides` rule: per
    pair of sides i < j and pair of trains a, b one bit, claimed by a's routes using side i
    and b's using side j. Routes of two trains on one side share none (one side may carry
    both: lanes, or trains that may share track). With the first bit after them."""
    if not prep.rules.exclusive_sides:
        return res, start
    cands = prep.candidates[t]
    n = len(prep.trains)
    bits: list[tuple[np.ndarray, int]] = []
    at = start
    for masks in side_masks(prep.graph_of(t), prep.position, prep.rules):
        used = sides_used(cands, masks)
        for i in range(len(masks)):
            for j in range(i + 1, len(masks)):
                for a in range(n):
                    for b in range(n):
                        if a == b:
                            continue  # (one route per train: `_one_side_each` keeps it to one)
                        if t == a:
                            bits.append((used[:, i], at))
                        if t == b:
                            bits.append((used[:, j], at))
                        at += 1
    words = at // 64 + 1
    if words > res.shape[1]:
        res = np.concatenate([res, np.zeros((len(res), words - res.shape[1]), np.uint64)], axis=1)
    for rows, bit in bits:
        res[rows, bit >> 6] |= np.uint64(1) << np.uint64(bit & 63)
    return res, at


def _city_claims(prep: Prepared, t: int, res: np.ndarray, start: int) -> np.ndarray:
    """Claim bits that keep the routes of `PlanRules.apart_cities` trains off each other's
    cities: per node one bit, claimed by such a train's routes of two stops or more at each
    city they visit."""
    if prep.trains[t].train.id not in prep.rules.apart_cities:
        return res
    cands, graph = prep.candidates[t], prep.graph_of(t)
    words = (start + graph.n_nodes) // 64 + 1
    if words > res.shape[1]:
        res = np.concatenate([res, np.zeros((len(res), words - res.shape[1]), np.uint64)], axis=1)
    lengths = np.diff(cands.node_ptr)[cands.src]
    city = graph.node_kind == KIND_CODES["city"]
    for i in np.flatnonzero(lengths >= 2).tolist():
        for v in cands.route_nodes(i).tolist():
            if city[v]:
                bit = start + v
                res[i, bit >> 6] |= np.uint64(1) << np.uint64(bit & 63)
    return res


def _moved_bits(res: np.ndarray, n_bits: int, offset: int) -> np.ndarray:
    """Each row's first `n_bits` bits moved to start at bit `offset`; the others kept."""
    bits = np.unpackbits(np.ascontiguousarray(res).view(np.uint8), axis=1, bitorder="little")
    total = -(-max(bits.shape[1], offset + n_bits) // 64) * 64
    out = np.zeros((len(res), total), np.uint8)
    out[:, :bits.shape[1]] = bits
    out[:, :n_bits] = 0
    out[:, offset:offset + n_bits] = bits[:, :n_bits]
    return np.packbits(out, axis=1, bitorder="little").view(np.uint64)


# The plan rules "when any route runs, one route must ...", as bits of a candidate's mask.
HOME_ROUTE = 1  # ... include the home station
CONNECTION = 2  # ... have both end stops in the connection hexes
REGION = 4  # bit REGION << r: the route has a stop in region r (`PlanRules.regions`)
MAX_REGIONS = 16
MUST_USE = REGION << MAX_REGIONS  # bit MUST_USE << k: the route uses `PlanRules.must_use[k]`
MAX_MUST_USE = 16


def required(prep: Prepared) -> int:
    """The bits of the "one route must ..." rules in force."""
    if len(prep.rules.must_use) > MAX_MUST_USE:
        raise HexrailError(f"at most {MAX_MUST_USE} items a plan must use",
                           where="rules.must_use")
    return ((HOME_ROUTE if prep.rules.home_route else 0)
            | (CONNECTION if prep.rules.connection else 0)
            | sum(MUST_USE << k for k in range(len(prep.rules.must_use))))


def must_use_nodes(prep: Prepared, t: int) -> list[list[int]]:
    """Per item of `PlanRules.must_use`, the nodes whose counting uses it for train t
    (`StopRule.uses`)."""
    items = prep.rules.must_use
    if not items:
        return []
    pos, graph, train = prep.position, prep.graph_of(t), prep.trains[t].train
    out: list[list[int]] = [[] for _ in items]
    for v, ref in enumerate(graph.node_ref):
        hex_id, _, index = ref.rpartition("-")
        hex_ = pos.hex(hex_id)
        node = hex_.tile.node(int(index))
        if node.is_stop:
            for name in prep.profile.stop_rule(pos, train, hex_, node).uses:
                if name in items:
                    out[items.index(name)].append(v)
    return out


def region_limits(prep: Prepared) -> np.ndarray:
    """Per region of `PlanRules.regions`, how many routes may have a stop in it."""
    if len(prep.rules.regions) > MAX_REGIONS:
        raise HexrailError(f"at most {MAX_REGIONS} regions", where="rules.regions")
    return np.array([k for _, k in prep.rules.regions], np.int64)


def meets(prep: Prepared, t: int, count: int | None = None) -> np.ndarray:
    """Per candidate of train t (the first `count`, if given) the bits of the "one route
    must ..." rules it meets, of the regions it has a stop in, and of the must-use items it
    uses (int64)."""
    cands, graph = prep.candidates[t], prep.graph_of(t)
    n = len(cands) if count is None else count
    out = np.zeros(n, np.int64)
    if prep.rules.home_route:
        bits = cands.stop_bits(graph.n_nodes, n)
        mask = np.zeros(bits.shape[1], np.uint64)
        for node in home_nodes(prep, t):
            mask[node >> 6] |= np.uint64(1) << np.uint64(node & 63)
        out[(bits & mask).any(axis=1)] |= HOME_ROUTE
    if prep.rules.connection and n:
        wanted = {graph.hex_ids.index(h) for h in prep.rules.connection if h in graph.hex_ids}
        inside = np.isin(graph.node_hex, sorted(wanted))
        ends = cands.ends()[:n]
        several = np.diff(cands.node_ptr)[cands.src[:n]] >= 2  # a one-stop route has no two ends
        out[inside[ends[:, 0]] & inside[ends[:, 1]] & several] |= CONNECTION
    for r, (hexes, _) in enumerate(prep.rules.regions):
        if not n:
            break
        nodes = np.flatnonzero(np.isin(graph.node_hex, [graph.hex_ids.index(h) for h in hexes
                                                        if h in graph.hex_ids]))
        bits = cands.stop_bits(graph.n_nodes, n)
        mask = np.zeros(bits.shape[1], np.uint64)
        for node in nodes:
            mask[node >> 6] |= np.uint64(1) << np.uint64(node & 63)
        out[(bits & mask).any(axis=1)] |= REGION << r
    for k, nodes in enumerate(must_use_nodes(prep, t)):
        if not n:
            break
        bits = cands.stop_bits(graph.n_nodes, n)
        mask = np.zeros(bits.shape[1], np.uint64)
        for node in nodes:
            mask[node >> 6] |= np.uint64(1) << np.uint64(node & 63)
        out[(bits & mask).any(axis=1)] |= MUST_USE << k
    return out


def home_nodes(prep: Prepared, t: int) -> set[int]:
    """Node ids of the operating company's home station (`Position.home_stops`)."""
    graph = prep.graph_of(t)
    return {graph.node_index[ref] for ref in prep.position.home_stops() if ref in graph.node_index}


# Incomes are exact below this: the combiners pack income and revenue into one int64 key
# (income × TIE_SCALE + revenue).
MAX_INCOME = 2**38


def check_magnitude(trains: list[TrainData], pos: Position) -> None:
    """Refuse a position whose plans could earn `MAX_INCOME` or more (stop values far beyond
    any game's), naming the hex of the largest stop value, rather than overflow."""
    bound = trains_bound(trains)
    if bound < MAX_INCOME:
        return
    where = "position"
    best = max(((int(td.node_weight.max(initial=0)), td) for td in trains), key=lambda x: x[0],
               default=(0, None))
    if best[1] is not None and best[0] > 0:
        td = best[1]
        node = int(np.argmax(td.node_weight))
        for h in pos.hexes:
            for n in h.tile.nodes:
                if node == 0:
                    where = f"hex {h.id} node {n.index}"
                node -= 1
    raise HexrailError(f"stop values too large: the trains could earn up to {bound}; incomes "
                       f"are computed exactly below 2^38 ({MAX_INCOME})", where=where)


def loose_bound(prep: Prepared) -> int:
    """A bound that holds even when enumeration was cut short: the sum of `route_bounds`,
    where the plan is worth the sum of its routes, else `trains_bound`."""
    if prep.route_bounds is not None:
        return sum(prep.route_bounds)
    return trains_bound(prep.trains)


def route_bound(td: TrainData, best: Candidates | None, objective: str) -> int:
    """At most what one route of the train earns (to the objective): its best route's worth
    where the walk for its best routes finished (`best`), else the walk's cut at its start
    (every route is worth at most the best stops its distance holds and the bonuses at their
    most), else `trains_bound`."""
    if best is not None and best.complete:
        return int(best.value(objective)[0]) if len(best) else 0
    if len(td.cut_top):
        return int(td.cut_top[-1]) + td.cut_extra
    return trains_bound([td])


def trains_bound(trains: list[TrainData]) -> int:
    """Every train earns at most the sum of its best-paying reachable stops (times the pay
    rows) plus every bonus it could get."""
    total = 0
    for td in trains:
        pay = int(td.pay_cap[15])
        values = np.sort(td.node_weight[td.node_kidx >= 0])[::-1]
        best_stops = _sum(values[:min(pay, len(values))])
        bonus = _sum(td.bonus_amount[td.bonus_amount > 0]) * max(1, len(values))
        bonus += int(td.node_end_bonus.max(initial=0)) + _sum(td.hex_track_bonus[td.hex_track_bonus > 0])
        bonus += sum(b.at_most(len(values)) for b in td.span_bonuses)  # (visits: at most every stop)
        if td.cyclic_runs and len(values):  # a cyclic run may visit its best stop again and again
            best_stops = max(best_stops, max(r.max_visits for r in td.cyclic_runs) * int(values[0]))
        total += best_stops + bonus
    return total


def _sum(values: np.ndarray) -> int:
    """The sum of `values` as a Python integer: the bound must not wrap where they are huge."""
    if not len(values):
        return 0
    if float(np.abs(values.astype(np.float64)).max()) * len(values) < 2.0 ** 62:
        return int(values.sum())
    return sum(int(v) for v in values.tolist())
