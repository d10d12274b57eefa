"""numba kernels: a board's paths, as flat rows, stitched into the chains of a `TrackGraph`.

Each hex's rows come from the store of `hexrail.graph.hexrows`, gathered by `compile_board`.
The stitching (`stitch`) takes the same steps as `hexrail.graph.track.compile_track_twin`,
which is what this is tested against, in the same order, so the two give the same arrays: the
hexside points where a path continues into the neighbour's (lanes matched), the branch points
among them, the chains walked from every vertex end, the stretch of track beside towns drawn at
a hex side, the twins' copies, then each chain's resources, hexes and the adjacency.
"""

from __future__ import annotations

import numpy as np

from hexrail.compiled import kernel

TERMINAL = 1  # as `hexrail.graph.track`
STRETCH = 2

# Columns of a path's row (`hexrows.HexRows`); +0/+1 for its end a/b
NODE, EDGE, WIDTH, LANE = 0, 2, 4, 6  # node place in its tile (-1: a side), side, lane
TERMINAL_COL, STRETCH_COL = 8, 9  # terminal track; its town's stretch within the hex, or -1
COLUMNS = 10


@kernel
def _lane_key(hexside, width, lane, lanes):
    return (hexside * lanes + width) * lanes + lane


# Columns of a hex's slot in the store (`hexrows._Store`): its nodes' and rows' start and
# count there, its stretches, the sides its track reaches and its impassable sides (bits),
# whether its neighbours are explicit, whether a city may hold a station or be full (`live`:
# some token, or a city of no slots), whether a node is in a stop group, and its neighbours'
# name ids per side (-1: none)
(S_NODE, S_NODES, S_ROW, S_ROWS, S_STRETCHES, S_EDGES, S_IMPASS, S_EXPLICIT, S_LIVE, S_GROUPS,
 S_NB) = range(11)
SLOT_COLUMNS = S_NB + 6
# A node's columns in the store: its kind (`track.KIND_CODES`), its index in its tile, whether
# it is a stop, an optional one, and its visit cost (0 for no stop); a row's: the path's
# columns above, then its track's code and whether it is ignored
N_KIND, N_INDEX, N_STOP, N_OPTIONAL, N_COST = range(5)
NODE_COLUMNS = 5
R_TRACK, R_IGNORE = COLUMNS, COLUMNS + 1
ROW_COLUMNS = COLUMNS + 2


@kernel
def compile_board(slots, slot_t, node_t, row_t, where, across, gauge, dual_carries, hex_rank,
                  twin_hex, twin_index, single_joins_double, extra_resources):
    """The `TrackGraph` arrays of a board whose hex ``i`` has its part at ``slots[i]`` of the
    store (the tables above): the nodes' hexes, kinds, indices and twins (``node_twin``), the
    paths' hexes and indices, the number of stretches, then `stitch`'s arrays. A path is
    usable on track `gauge`, or on dual track where `dual_carries`, unless ignored. The hex
    across a side of hex i: its explicit neighbour, else the one `across[i]` names, where
    neither side is impassable (`where`: per name id, its hex or -1). The twins (`stitch`):
    the node of index ``twin_index[k]`` in hex ``twin_hex[k]``, each."""
    n_hex = len(slots)
    n_real = 0
    n_paths = 0
    n_stretches = 0
    node_base = np.zeros(n_hex, np.int64)
    stretch_base = np.zeros(n_hex, np.int64)
    for i in range(n_hex):
        s = slots[i]
        node_base[i] = n_real
        stretch_base[i] = n_stretches
        n_real += slot_t[s, S_NODES]
        n_paths += slot_t[s, S_ROWS]
        n_stretches += slot_t[s, S_STRETCHES]
    n_nodes = n_real + len(twin_hex)
    p_hex = np.empty(n_paths, np.int64)
    p_local = np.empty(n_paths, np.int32)
    rows = np.empty((n_paths, COLUMNS), np.int64)
    usable = np.empty(n_paths, np.bool_)
    node_hex = np.empty(n_nodes, np.int32)
    node_kind = np.empty(n_nodes, np.int8)
    node_local = np.empty(n_nodes, np.int32)
    node_twin = np.full(n_nodes, -1, np.int32)
    twin_of = np.full(n_nodes, -1, np.int64)
    hex_nb = np.full((n_hex, 6), -1, np.int64)
    p = 0
    for i in range(n_hex):
        s = slots[i]
        start = slot_t[s, S_NODE]
        for k in range(slot_t[s, S_NODES]):
            v = node_base[i] + k
            node_hex[v] = i
            node_kind[v] = node_t[start + k, N_KIND]
            node_local[v] = node_t[start + k, N_INDEX]
        start = slot_t[s, S_ROW]
        count = slot_t[s, S_ROWS]
        for k in range(count):
            r = start + k
            p_hex[p] = i
            p_local[p] = k
            for c in range(COLUMNS):
                rows[p, c] = row_t[r, c]
            t = row_t[r, R_TRACK]
            usable[p] = row_t[r, R_IGNORE] == 0 and (t == gauge or (t == 0 and dual_carries))
            p += 1
        if count == 0:
            continue
        for e in range(6):
            if not (slot_t[s, S_EDGES] >> e) & 1:
                continue
            if slot_t[s, S_EXPLICIT]:
                name = slot_t[s, S_NB + e]
                if 0 <= name < len(where):
                    hex_nb[i, e] = where[name]
            elif not (slot_t[s, S_IMPASS] >> e) & 1:
                name = across[i, e]
                j = where[name] if 0 <= name < len(where) else -1
                if j >= 0 and not (slot_t[slots[j], S_IMPASS] >> ((e + 3) % 6)) & 1:
                    hex_nb[i, e] = j
    for k in range(len(twin_hex)):
        i = twin_hex[k]
        original = -1
        for place in range(slot_t[slots[i], S_NODES]):
            if node_local[node_base[i] + place] == twin_index[k]:
                original = node_base[i] + place
        v = n_real + k
        node_hex[v] = node_hex[original]
        node_kind[v] = node_kind[original]
        node_local[v] = node_local[original]
        node_twin[v] = original
        twin_of[original] = v
    return (node_hex, node_kind, node_local, node_twin, p_hex, p_local, n_stretches,
            stitch(p_hex, rows, usable, node_base, stretch_base, hex_nb, hex_rank, twin_of,
                   n_stretches, single_joins_double, extra_resources))


@kernel
def stop_facts(slots, slot_t, node_t, plain):
    """Per node of the board whose hex ``i`` has its part at ``slots[i]`` of the store: its
    hex, whether a stop, its kind (-1 for no stop), whether optional, its visit cost, whether
    an offboard, its value in `plain` (per node of the store); and per hex its first node."""
    n_hex = len(slots)
    node_base = np.zeros(n_hex, np.int64)
    n = 0
    for i in range(n_hex):
        node_base[i] = n
        n += slot_t[slots[i], S_NODES]
    node_hex = np.empty(n, np.int64)
    stop = np.empty(n, np.bool_)
    kind = np.empty(n, np.int8)
    optional = np.empty(n, np.int8)
    cost = np.empty(n, np.int64)
    offboard = np.empty(n, np.bool_)
    value = np.empty(n, np.int64)
    for i in range(n_hex):
        s = slots[i]
        start = slot_t[s, S_NODE]
        for k in range(slot_t[s, S_NODES]):
            v = node_base[i] + k
            r = start + k
            node_hex[v] = i
            stop[v] = node_t[r, N_STOP] != 0
            kind[v] = node_t[r, N_KIND] if stop[v] else -1
            optional[v] = node_t[r, N_OPTIONAL]
            cost[v] = node_t[r, N_COST]
            offboard[v] = node_t[r, N_KIND] == 2
            value[v] = plain[r]
    return node_hex, stop, kind, optional, cost, offboard, value, node_base


@kernel
def stitch(p_hex, rows, p_usable, node_base, stretch_base, hex_nb, hex_rank, twin_of, n_stretches,
           single_joins_double, extra_resources):
    """The chains of one board. Path ``p`` lies in hex ``p_hex[p]``, is described by
    ``rows[p]`` (the columns above, in its hex's numbering: `node_base` and `stretch_base` per
    hex turn them global) and is `p_usable` (this gauge, not ignored). ``hex_nb[h, side]``:
    the hex that side of h faces, or -1. `hex_rank`: each hex's place among the hex ids in
    text order (which of a hexside's two sides is side 0). `twin_of[node]`: its twin or -1,
    for every node (twins included)."""
    n_nodes = len(twin_of)
    n_paths = len(p_hex)
    p_terminal = rows[:, TERMINAL_COL]
    p_stretch = np.full(n_paths, -1, np.int64)
    e_node = np.full((n_paths, 2), -1, np.int64)
    e_edge = rows[:, EDGE:EDGE + 2]
    e_width = rows[:, WIDTH:WIDTH + 2]
    e_lane = rows[:, LANE:LANE + 2]
    e_nb = np.full((n_paths, 2), -1, np.int64)
    for p in range(n_paths):
        h = p_hex[p]
        if rows[p, STRETCH_COL] >= 0:
            p_stretch[p] = stretch_base[h] + rows[p, STRETCH_COL]
        for e in range(2):
            if rows[p, NODE + e] >= 0:
                e_node[p, e] = node_base[h] + rows[p, NODE + e]
            else:
                e_nb[p, e] = hex_nb[h, e_edge[p, e]]
    n_hexes = len(hex_rank)
    lanes = 2
    for p in range(n_paths):
        for e in range(2):
            lanes = max(lanes, e_width[p, e] + 1)
    # lane widths present at each hex side (bit w)
    widths = np.zeros(n_hexes * 6, np.int64)
    for p in range(n_paths):
        if p_usable[p]:
            for e in range(2):
                if e_node[p, e] < 0:
                    widths[p_hex[p] * 6 + e_edge[p, e]] |= np.int64(1) << e_width[p, e]
    # hexside points, numbered in order of first sight (path, then end)
    point_of = {}  # a hexside point (its two (hex, side, lane) keys) -> its number
    pp_point = np.full((n_paths, 2), -1, np.int64)
    pp_side = np.full((n_paths, 2), -1, np.int64)
    count = np.zeros((2 * n_paths + 1, 2), np.int64)
    first = np.full((2 * n_paths + 1, 2), -1, np.int64)
    n_points = 0
    for p in range(n_paths):
        if not p_usable[p]:
            continue
        for e in range(2):
            if e_node[p, e] >= 0:
                continue
            nb = e_nb[p, e]
            if nb < 0:
                continue  # to the map's edge or an impassable side: nowhere
            edge = e_edge[p, e]
            opp = (edge + 3) % 6
            width = e_width[p, e]
            facing = width
            if single_joins_double and (width == 1 or width == 2) \
                    and widths[nb * 6 + opp] == np.int64(1) << (3 - width):
                facing = 3 - width
            if facing != width:  # single meets double: one point for the side
                here = _lane_key(hex_rank[p_hex[p]] * 6 + edge, 0, 0, lanes)
                there = _lane_key(hex_rank[nb] * 6 + opp, 0, 0, lanes)
            else:
                here = _lane_key(hex_rank[p_hex[p]] * 6 + edge, width, e_lane[p, e], lanes)
                there = _lane_key(hex_rank[nb] * 6 + opp, width, width - e_lane[p, e] - 1, lanes)
            key = (here, there) if here < there else (there, here)
            side = 0 if here < there else 1
            if key in point_of:
                pt = point_of[key]
            else:
                pt = n_points
                point_of[key] = pt
                n_points += 1
            if first[pt, side] < 0:
                first[pt, side] = p
            count[pt, side] += 1
            pp_point[p, e] = pt
            pp_side[p, e] = side
    # branch points: more than one path meets on a side
    point_vertex = np.full(n_points, -1, np.int64)
    n_vertices = n_nodes
    for pt in range(n_points):
        if count[pt, 0] > 0 and count[pt, 1] > 0 and (count[pt, 0] > 1 or count[pt, 1] > 1):
            point_vertex[pt] = n_vertices
            n_vertices += 1
    vertex_res = np.full(n_vertices, -1, np.int32)
    vertex_side_hex = np.full((n_vertices, 2), -1, np.int32)
    for pt in range(n_points):
        v = point_vertex[pt]
        if v >= 0:
            vertex_res[v] = n_paths + pt
            vertex_side_hex[v, 0] = p_hex[first[pt, 0]]
            vertex_side_hex[v, 1] = p_hex[first[pt, 1]]

    # chains, walked from each vertex end; one of each pair of reverse walks is kept, the one
    # met first (its start is the lower (path, end)), as the twin's set of seen chains does
    cap = 4 * n_paths + 4
    c_a = np.zeros((cap, 3), np.int64)  # vertex, side, terminal mark at end a
    c_b = np.zeros((cap, 3), np.int64)
    c_pptr = np.zeros(cap + 1, np.int64)
    c_paths = np.zeros(4 * n_paths + 4, np.int64)
    c_xptr = np.zeros(cap + 1, np.int64)
    c_cross = np.zeros(4 * n_paths + 4, np.int64)
    n_chains = 0
    walk = np.zeros(n_paths + 1, np.int64)
    crossed = np.zeros(n_paths + 1, np.int64)
    for start in range(n_paths):
        if not p_usable[start]:
            continue
        for start_end in range(2):
            # the vertex at the start end (chains are walked from a vertex end only)
            if e_node[start, start_end] >= 0:
                va, sa, ta = e_node[start, start_end], -1, TERMINAL if p_terminal[start] else 0
            else:
                pt = pp_point[start, start_end]
                if pt < 0 or point_vertex[pt] < 0:
                    continue
                va, sa, ta = point_vertex[pt], pp_side[start, start_end], 0
            n_walk = 1
            walk[0] = start
            n_cross = 0
            pid, came_in = start, start_end
            ok = True
            vb, sb, tb = -1, -1, 0
            while True:
                out = 1 - came_in
                if e_node[pid, out] >= 0:
                    vb, sb, tb = e_node[pid, out], -1, TERMINAL if p_terminal[pid] else 0
                    break
                pt = pp_point[pid, out]
                if pt < 0:
                    ok = False
                    break
                side = pp_side[pid, out]
                if point_vertex[pt] >= 0:
                    vb, sb, tb = point_vertex[pt], side, 0
                    break
                if count[pt, 0] == 0 or count[pt, 1] == 0:
                    ok = False
                    break
                other = first[pt, 1 - side]
                looped = False
                for k in range(n_walk):
                    if walk[k] == other:
                        looped = True
                        break
                if looped:
                    ok = False
                    break
                crossed[n_cross] = pt
                n_cross += 1
                walk[n_walk] = other
                n_walk += 1
                came_in = 0 if pp_point[other, 0] == pt else 1
                pid = other
            if not ok:
                continue
            if (pid, 1 - came_in) < (start, start_end):
                continue  # its reverse walk came first
            if va == vb:
                continue  # a loop back to its own vertex is never part of a route
            c_a[n_chains, 0], c_a[n_chains, 1], c_a[n_chains, 2] = va, sa, ta
            c_b[n_chains, 0], c_b[n_chains, 1], c_b[n_chains, 2] = vb, sb, tb
            at = c_pptr[n_chains]
            for k in range(n_walk):
                c_paths[at + k] = walk[k]
            c_pptr[n_chains + 1] = at + n_walk
            at = c_xptr[n_chains]
            for k in range(n_cross):
                c_cross[at + k] = crossed[k]
            c_xptr[n_chains + 1] = at + n_cross
            n_chains += 1

    # the stretch beside a town at a hex side: a mark at that end, and a resource
    c_s = np.full((cap, 2), -1, np.int64)
    for c in range(n_chains):
        p0 = c_paths[c_pptr[c]]
        p1 = c_paths[c_pptr[c + 1] - 1]
        if p_stretch[p0] >= 0 and c_a[c, 0] < n_nodes:
            c_a[c, 2] |= STRETCH
            c_s[c, 0] = p_stretch[p0]
        if p_stretch[p1] >= 0 and c_b[c, 0] < n_nodes:
            c_b[c, 2] |= STRETCH
            c_s[c, 1] = p_stretch[p1]
    # the twins' copies of the chains at their originals (paths and crossings shared)
    src = np.arange(cap)
    n_orig = n_chains
    for c in range(n_orig):
        ta = twin_of[c_a[c, 0]] if c_a[c, 0] < n_nodes else -1
        tb = twin_of[c_b[c, 0]] if c_b[c, 0] < n_nodes else -1
        for ia in range(2):
            if ia == 1 and ta < 0:
                continue
            for ib in range(2):
                if ib == 1 and tb < 0:
                    continue
                if ia == 0 and ib == 0:
                    continue
                c_a[n_chains] = c_a[c]
                c_b[n_chains] = c_b[c]
                c_s[n_chains] = c_s[c]
                if ia == 1:
                    c_a[n_chains, 0] = ta
                if ib == 1:
                    c_b[n_chains, 0] = tb
                src[n_chains] = c
                n_chains += 1

    n_res = n_paths + n_points + n_stretches
    words = max(1, (n_res + extra_resources + 63) // 64)
    chain_ends = np.zeros((n_chains, 2), np.int32)
    chain_side = np.full((n_chains, 2), -1, np.int8)
    chain_terminal = np.zeros((n_chains, 2), np.int8)
    chain_crossings = np.zeros(n_chains, np.int32)
    chain_res = np.zeros((n_chains, words), np.uint64)
    path_ptr = np.zeros(n_chains + 1, np.int32)
    hex_ptr = np.zeros(n_chains + 1, np.int32)
    total = 0
    for c in range(n_chains):
        s = src[c]
        total += c_pptr[s + 1] - c_pptr[s]
    flat_paths = np.zeros(total, np.int32)
    flat_hexes = np.zeros(total, np.int32)
    n_flat_hexes = 0
    one = np.uint64(1)
    for c in range(n_chains):
        s = src[c]
        chain_ends[c, 0], chain_ends[c, 1] = c_a[c, 0], c_b[c, 0]
        chain_side[c, 0], chain_side[c, 1] = c_a[c, 1], c_b[c, 1]
        chain_terminal[c, 0], chain_terminal[c, 1] = c_a[c, 2], c_b[c, 2]
        chain_crossings[c] = c_xptr[s + 1] - c_xptr[s]
        at = path_ptr[c]
        last_hex = -1
        for k in range(c_pptr[s], c_pptr[s + 1]):
            p = c_paths[k]
            chain_res[c, p >> 6] |= one << np.uint64(p & 63)
            flat_paths[at] = p
            at += 1
            if p_hex[p] != last_hex:
                last_hex = p_hex[p]
                flat_hexes[n_flat_hexes] = last_hex
                n_flat_hexes += 1
        path_ptr[c + 1] = at
        hex_ptr[c + 1] = n_flat_hexes
        for k in range(c_xptr[s], c_xptr[s + 1]):
            r = n_paths + c_cross[k]
            chain_res[c, r >> 6] |= one << np.uint64(r & 63)
        for e in range(2):
            if c_s[c, e] >= 0:
                r = n_paths + n_points + c_s[c, e]
                chain_res[c, r >> 6] |= one << np.uint64(r & 63)

    # adjacency (CSR over vertices; each vertex's chains in chain order)
    adj_ptr = np.zeros(n_vertices + 1, np.int32)
    for c in range(n_chains):
        adj_ptr[chain_ends[c, 0] + 1] += 1
        adj_ptr[chain_ends[c, 1] + 1] += 1
    for v in range(n_vertices):
        adj_ptr[v + 1] += adj_ptr[v]
    fill = adj_ptr[:-1].copy()
    adj_chain = np.zeros(2 * n_chains, np.int32)
    adj_end = np.zeros(2 * n_chains, np.int8)
    for c in range(n_chains):
        for e in range(2):
            v = chain_ends[c, e]
            adj_chain[fill[v]] = c
            adj_end[fill[v]] = e
            fill[v] += 1
    return (n_vertices, vertex_res, vertex_side_hex, chain_ends, chain_side, chain_terminal,
            chain_crossings, path_ptr, flat_paths, hex_ptr, flat_hexes[:n_flat_hexes], chain_res,
            adj_ptr, adj_chain, adj_end, n_points, words)


@kernel
def train_columns(n, stop, kind, value, subsidy, count, cost, block, may_end, end_class, anchor,
                  every_stop, riding, node_twin, with_subsidy):
    """One train's per-node arrays on a graph of `n` nodes (`hexrail.graph.trains.lower_train`)
    from its stop columns (`hexrail.rules.columns.StopColumns`, over the first ``len(stop)``
    nodes; the twins of stops run to twice come after): per node its kind (-1: no stop), and
    for a stop its cost, count code (a mandatory stop of a kind in the bits `riding` counted
    optional), block, whether it may end a route, its end class, value and subsidy (0 for no
    stop); a twin has its original's, but anchors nothing. Anchors (stops with a station, or
    every stop with `every_stop`) ranked in node order (-1: none); what counting each is worth
    (its value, and its subsidy `with_subsidy`)."""
    n_real = stop.shape[0]
    kidx = np.full(n, -1, np.int8)
    n_cost = np.zeros(n, np.int64)
    n_count = np.zeros(n, np.int8)
    n_block = np.zeros(n, np.int8)
    n_end = np.zeros(n, np.bool_)
    n_class = np.zeros(n, np.int64)
    n_value = np.zeros(n, np.int64)
    n_subsidy = np.zeros(n, np.int64)
    rank = np.full(n, -1, np.int64)
    ranked = 0
    for i in range(n_real):
        kidx[i] = kind[i]
        n_block[i] = block[i]
        if not stop[i]:
            continue
        n_cost[i] = cost[i]
        n_count[i] = count[i]
        if count[i] == 0 and kind[i] >= 0 and (riding >> kind[i]) & 1:
            n_count[i] = 1
        n_end[i] = may_end[i]
        n_class[i] = end_class[i]
        n_value[i] = value[i]
        n_subsidy[i] = subsidy[i]
        if every_stop or anchor[i]:
            rank[i] = ranked
            ranked += 1
    for v in range(n):
        o = node_twin[v]
        if o < 0:
            continue
        kidx[v] = kidx[o]
        n_cost[v] = n_cost[o]
        n_count[v] = n_count[o]
        n_block[v] = n_block[o]
        n_end[v] = n_end[o]
        n_class[v] = n_class[o]
        n_value[v] = n_value[o]
        n_subsidy[v] = n_subsidy[o]
    weight = n_value + n_subsidy if with_subsidy else n_value.copy()
    return kidx, n_cost, n_count, n_block, n_end, n_class, n_value, n_subsidy, rank, weight
