"""numba kernels: enumerate every legal route through one anchor, and choose paid stops.

A route is a simple walk between two stops that contains an *anchor* (a city with the company's
token, or any stop for trains that need no token). It is built as two *arms* leaving the anchor
T: arm 1 runs T→A, arm 2 runs T→B over vertices arm 1 did not use; the route is A…T…B. Each
route is emitted exactly once: from its lowest-ranked anchor (the walk never enters an anchor
ranked below T); a route with T inside it leaves T by two chains and arm 2 takes the
higher-numbered one; a route ending at T is arm 2 alone.

Everything a profile decides arrives as arrays (stop kind, value, blocking level, may-end flag,
bonus tags...), so one kernel serves every train type and game. Limits are monotone: once a
partial walk breaks the distance limit, no extension can repair it, so the walk is cut there.
"""

from __future__ import annotations

import numpy as np
from numba import njit

OK = 0
FULL = 1  # an output buffer is full: grow it and call again
PAUSE = 2  # the step budget is spent: call again to go on

HARD_BLOCK = 2  # never passed through (offboards, terminal ends)
SOFT_BLOCK = 1  # passed through only by spending a bypass


@njit(cache=True, nogil=True)
def hall_ok(cnt, cap):
    """Can stops with `cnt[k]` of each kind k fit rows whose caps per kind-subset are `cap`?"""
    for s in range(1, 16):
        tot = 0
        for k in range(4):
            if (s >> k) & 1:
                tot += cnt[k]
        if tot > cap[s]:
            return False
    return True


@njit(cache=True, nogil=True)
def select_paid(stops, n, node_kidx, node_cost, node_optional, node_weight, node_value,
                visit_cnt, visit_cap, pay_cap, paid):
    """Choose which of the route's `n` visited stops are paid, maximising their total weight.

    Mandatory stops already occupy `visit_cnt`; an optional stop is counted only if it is worth
    something and fits the visit rows too. Greedy by weight over the Hall condition of the rows:
    exact, because paid stops form a transversal matroid over the rows.
    """
    order = np.empty(n, np.int64)
    for i in range(n):
        order[i] = i
    # insertion sort by weight, descending; mandatory before optional on ties
    for i in range(1, n):
        j = i
        while j > 0:
            a = stops[order[j - 1]]
            b = stops[order[j]]
            # best weight first; at equal weight more revenue, then mandatory stops
            wa = node_weight[a]
            wb = node_weight[b]
            if wb > wa or (wb == wa and (node_value[b] > node_value[a] or (
                    node_value[b] == node_value[a] and not node_optional[b] and node_optional[a]))):
                tmp = order[j - 1]
                order[j - 1] = order[j]
                order[j] = tmp
                j -= 1
            else:
                break
    pay_cnt = np.zeros(4, np.int64)
    vis = visit_cnt.copy()
    for i in range(n):
        paid[i] = False
    for oi in range(n):
        i = order[oi]
        s = stops[i]
        k = node_kidx[s]
        if node_optional[s]:
            if node_weight[s] <= 0:
                continue
            vis[k] += node_cost[s]
            pay_cnt[k] += 1
            if hall_ok(vis, visit_cap) and hall_ok(pay_cnt, pay_cap):
                paid[i] = True
            else:
                vis[k] -= node_cost[s]
                pay_cnt[k] -= 1
        else:
            pay_cnt[k] += 1
            if hall_ok(pay_cnt, pay_cap):
                paid[i] = True
            else:
                pay_cnt[k] -= 1


@njit(cache=True, nogil=True)
def route_bonus(stops, n, node_tags, bonus_cond_ptr, bonus_cond_tag, bonus_cond_min,
                bonus_amount, bonus_group, bonus_per_count, n_groups):
    """Sum of the bonuses the visited stops earn (exclusive groups pay their best member)."""
    n_bonus = bonus_amount.shape[0]
    if n_bonus == 0:
        return 0
    tag_cnt = np.zeros(64, np.int64)
    for i in range(n):
        t = node_tags[stops[i]]
        for b in range(64):
            if (t >> b) & 1:
                tag_cnt[b] += 1
    total = 0
    best = np.zeros(max(n_groups, 1), np.int64)
    for b in range(n_bonus):
        ok = True
        for c in range(bonus_cond_ptr[b], bonus_cond_ptr[b + 1]):
            if tag_cnt[bonus_cond_tag[c]] < bonus_cond_min[c]:
                ok = False
                break
        if not ok:
            continue
        amount = bonus_amount[b]
        if bonus_per_count[b]:
            amount *= tag_cnt[bonus_cond_tag[bonus_cond_ptr[b]]]
        g = bonus_group[b]
        if g < 0:
            total += amount
        elif amount > best[g]:
            best[g] = amount
    for g in range(n_groups):
        total += best[g]
    return total


@njit(cache=True, nogil=True)
def _chain_hexes_ok(c, forward, cur_hex, chain_hex_ptr, chain_hexes, hex_mark, hex_noreenter):
    lo = chain_hex_ptr[c]
    hi = chain_hex_ptr[c + 1]
    m = hi - lo
    for i in range(m):
        h = chain_hexes[lo + i] if forward else chain_hexes[hi - 1 - i]
        if i == 0 and h == cur_hex:
            continue
        if not hex_noreenter[h]:
            continue
        if hex_mark[h] > 0:
            return False
        for j in range(i):  # the chain itself comes back into h
            h2 = chain_hexes[lo + j] if forward else chain_hexes[hi - 1 - j]
            if h2 == h:
                return False
    return True


@njit(cache=True, nogil=True)
def _mark_chain_hexes(c, forward, cur_hex, chain_hex_ptr, chain_hexes, hex_mark, delta):
    lo = chain_hex_ptr[c]
    hi = chain_hex_ptr[c + 1]
    m = hi - lo
    last = cur_hex
    for i in range(m):
        h = chain_hexes[lo + i] if forward else chain_hexes[hi - 1 - i]
        if i == 0 and h == cur_hex:
            continue
        hex_mark[h] += delta
        last = h
    return last


@njit(cache=True, nogil=True)
def enumerate_anchor(
        anchor, n_nodes, n_hexes,
        adj_ptr, adj_chain, adj_end, chain_ends, chain_side, chain_terminal, chain_crossings,
        chain_hex_ptr, chain_hexes, chain_res, vertex_res, node_hex,
        node_kidx, node_cost, node_optional, node_block, node_can_end, node_end_class,
        node_anchor_rank, node_groups, node_value, node_subsidy, node_weight, node_tags,
        visit_cap, pay_cap, hex_limit, min_stops, hex_noreenter, max_bypass,
        bonus_cond_ptr, bonus_cond_tag, bonus_cond_min, bonus_amount, bonus_group,
        bonus_per_count, n_bonus_groups,
        out_revenue, out_subsidy, out_bonus, out_bypass, out_crossings,
        out_node_ptr, out_nodes, out_paid, out_chain_ptr, out_chains, out_res,
        n_out, n_out_nodes, n_out_chains,
        visited, hex_mark, cnt, frames, stops, paid, res, state, budget):
    """Append the routes whose lowest-ranked anchor is `anchor` to the out buffers.

    Resumable: the walk lives in the work arrays (`visited`, `hex_mark`, `cnt`, `frames`, ...)
    and `state` (``state[0]`` = -1 to start the anchor, -2 once it is done). Returns
    ``(status, n_out, n_out_nodes, n_out_chains)``: OK when the anchor is done, FULL when an
    output buffer needs to grow, PAUSE after `budget` steps (so the caller can watch a deadline);
    after FULL or PAUSE call again with the same arrays to go on.
    """
    words = out_res.shape[1]
    depth_cap = frames.shape[1]
    my_rank = node_anchor_rank[anchor]
    # frame columns, as views of the one work array
    f_vertex = frames[0]
    f_adj = frames[1]  # next adjacency slot; -1: phase-2 spawn pending
    f_chain = frames[2]  # chain used to arrive (-1 at roots)
    f_fwd = frames[3]  # 1: that chain was run from its end a to end b
    f_hex = frames[4]  # hex the walk is in at this vertex
    f_prevhex = frames[5]  # hex before the arriving chain
    f_phase = frames[6]
    f_cross = frames[7]  # crossings added by arriving here
    f_bypass = frames[8]  # bypass spent leaving the previous vertex
    f_stop = frames[9]  # 1 if this vertex is a stop of the route

    # Which hex the walk is in matters only to the no-re-entry rule: skip the bookkeeping
    # when no hex has that rule.
    track_hexes = False
    for h in range(n_hexes):
        if hex_noreenter[h]:
            track_hexes = True
            break
    n_bonus = bonus_amount.shape[0]
    # Trains that pay every stop they visit need no choosing (when no stop is optional).
    pay_unlimited = True
    for s in range(1, 16):
        if pay_cap[s] < (1 << 40):
            pay_unlimited = False
    kind_cnt = np.zeros(4, np.int64)

    if state[0] == -2:
        return OK, n_out, n_out_nodes, n_out_chains
    if state[0] == -1:
        # start: frame 0 is the anchor
        visited[:] = False
        hex_mark[:] = 0
        cnt[:] = 0
        visited[anchor] = True
        hex_mark[node_hex[anchor]] += 1
        n_optional = 0
        if node_optional[anchor]:
            n_optional += 1
        else:
            cnt[node_kidx[anchor]] += node_cost[anchor]
        if not hall_ok(cnt, visit_cap):
            state[0] = -2
            return OK, n_out, n_out_nodes, n_out_chains
        f_vertex[0] = anchor
        f_adj[0] = -1
        f_chain[0] = -1
        f_fwd[0] = 1
        f_hex[0] = node_hex[anchor]
        f_prevhex[0] = node_hex[anchor]
        f_phase[0] = 1
        f_cross[0] = 0
        f_bypass[0] = 0
        f_stop[0] = 1
        d = 0
        split = 0  # frame index of the phase-2 root
        crossings = 0
        bypass = 0
        n_stops = 1
        groups_used = node_groups[anchor]  # bitmask: at most one stop of each group
    else:
        d = state[0]
        split = state[1]
        crossings = state[2]
        bypass = state[3]
        n_optional = state[4]
        n_stops = state[5]
        groups_used = state[6]

    steps = 0
    while d >= 0:
        steps += 1
        if (steps > budget or n_out >= out_revenue.shape[0]
                or n_out_nodes + depth_cap > out_nodes.shape[0]
                or n_out_chains + depth_cap > out_chains.shape[0]):
            # pause between steps: nothing is half done, the walk resumes from here
            state[0] = d
            state[1] = split
            state[2] = crossings
            state[3] = bypass
            state[4] = n_optional
            state[5] = n_stops
            state[6] = groups_used
            return (PAUSE if steps > budget else FULL), n_out, n_out_nodes, n_out_chains
        v = f_vertex[d]
        phase = f_phase[d]
        emit = False

        if phase == 1 and f_adj[d] == -1:
            # A phase-1 frame at a stop that may end a route first runs a phase-2 walk (arm 2).
            f_adj[d] = adj_ptr[v]
            if not (v < n_nodes and node_can_end[v]):
                continue
            split = d + 1
            f_vertex[split] = anchor
            f_adj[split] = adj_ptr[anchor]
            f_chain[split] = -1
            f_fwd[split] = True
            f_hex[split] = node_hex[anchor]
            f_prevhex[split] = node_hex[anchor]
            f_phase[split] = 2
            f_cross[split] = 0
            f_bypass[split] = 0
            f_stop[split] = 0
            d = split
            # both arms empty: a one-stop route (local trains)
            emit = split == 1 and min_stops <= 1
        elif f_adj[d] >= adj_ptr[v + 1]:
            # every chain from v tried: pop frame d and undo its arrival
            if d == 0:
                break
            if f_chain[d] != -1:  # (a phase-2 root owns nothing: frame 0 holds the anchor)
                if f_stop[d] == 1:
                    n_stops -= 1
                    if node_optional[v]:
                        n_optional -= 1
                    else:
                        cnt[node_kidx[v]] -= node_cost[v]
                    groups_used &= ~node_groups[v]
                visited[v] = False
                if track_hexes:
                    _mark_chain_hexes(f_chain[d], f_fwd[d], f_prevhex[d], chain_hex_ptr,
                                      chain_hexes, hex_mark, -1)
                crossings -= f_cross[d]
                bypass -= f_bypass[d]
            d -= 1
            continue
        else:
            slot = f_adj[d]
            f_adj[d] = slot + 1
            c = adj_chain[slot]
            end = adj_end[slot]
            fwd = end == 0
            u = chain_ends[c, 1 - end]
            if visited[u]:
                continue
            arrived = f_chain[d]
            is_root = arrived == -1
            # Each route is walked once: a route with the anchor in its middle leaves it by
            # two chains, and arm 2 takes the higher-numbered one; a route ending at the
            # anchor is walked as arm 2 alone (arm 1 empty).
            if is_root and phase == 2 and split > 1 and c <= f_chain[1]:
                continue
            # Leaving v: the rules for passing through it.
            spend = 0
            add_cross = 0
            if v >= n_nodes:
                # a branch point: leave on the side opposite to the one we came in on
                if chain_side[c, end] == chain_side[arrived, 1 if f_fwd[d] else 0]:
                    continue
                add_cross = 1
            elif not is_root or (phase == 2 and split > 1):
                if chain_terminal[c, end]:
                    continue
                if is_root:
                    # the anchor in the middle of the route: arm 1 left it by chain f_chain[1]
                    if chain_terminal[f_chain[1], 0 if f_fwd[1] else 1]:
                        continue
                elif chain_terminal[arrived, 1 if f_fwd[d] else 0]:
                    continue
                blk = node_block[v]
                if blk == HARD_BLOCK:
                    continue
                if blk == SOFT_BLOCK:
                    if bypass >= max_bypass:
                        continue
                    spend = 1
            new_cross = add_cross + chain_crossings[c]
            if hex_limit > 0 and crossings + new_cross > hex_limit:
                continue
            if track_hexes and not _chain_hexes_ok(c, fwd, f_hex[d], chain_hex_ptr, chain_hexes,
                                                   hex_mark, hex_noreenter):
                continue
            is_stop = 0
            if u < n_nodes and node_kidx[u] >= 0:
                if node_anchor_rank[u] >= 0 and node_anchor_rank[u] < my_rank:
                    continue  # such routes are emitted from that lower-ranked anchor
                g = node_groups[u]
                if g & groups_used:
                    continue
                if node_optional[u]:
                    n_optional += 1
                else:
                    cnt[node_kidx[u]] += node_cost[u]
                    if not hall_ok(cnt, visit_cap):
                        cnt[node_kidx[u]] -= node_cost[u]
                        continue  # too long, and longer walks through u are too
                groups_used |= g
                n_stops += 1
                is_stop = 1
            visited[u] = True
            new_hex = -1
            if track_hexes:
                new_hex = _mark_chain_hexes(c, fwd, f_hex[d], chain_hex_ptr, chain_hexes,
                                            hex_mark, 1)
            crossings += new_cross
            bypass += spend
            nd = d + 1
            f_vertex[nd] = u
            f_adj[nd] = -1 if phase == 1 else adj_ptr[u]
            f_chain[nd] = c
            f_fwd[nd] = fwd
            f_hex[nd] = new_hex
            f_prevhex[nd] = f_hex[d]
            f_phase[nd] = phase
            f_cross[nd] = new_cross
            f_bypass[nd] = spend
            f_stop[nd] = is_stop
            d = nd
            # a phase-2 arrival at a stop that may end a route: the route A…T…B
            emit = phase == 2 and is_stop == 1 and node_can_end[u] and n_stops >= min_stops
            if emit:
                # the two ends may not share a class (e.g. red offboard to red offboard)
                cls = node_end_class[u]
                emit = cls == 0 or node_end_class[f_vertex[split - 1]] != cls

        if not emit:
            continue

        # ---- emit the route held in frames split-1..0 (arm 1, reversed) and split+1..d ----
        m = 0
        for i in range(split - 1, -1, -1):
            if f_stop[i] == 1:
                stops[m] = f_vertex[i]
                m += 1
        for i in range(split + 1, d + 1):
            if f_stop[i] == 1:
                stops[m] = f_vertex[i]
                m += 1
        all_pay = n_optional == 0
        if all_pay and not pay_unlimited:
            # every stop is mandatory: are there pay slots for all of them?
            for k in range(4):
                kind_cnt[k] = 0
            for i in range(m):
                kind_cnt[node_kidx[stops[i]]] += 1
            all_pay = hall_ok(kind_cnt, pay_cap)
        if all_pay:
            for i in range(m):
                paid[i] = True
        else:
            select_paid(stops, m, node_kidx, node_cost, node_optional, node_weight, node_value,
                        cnt, visit_cap, pay_cap, paid)
        rev = 0
        sub = 0
        for i in range(m):
            if paid[i]:
                rev += node_value[stops[i]]
                sub += node_subsidy[stops[i]]
        bon = 0
        if n_bonus > 0:
            bon = route_bonus(stops, m, node_tags, bonus_cond_ptr, bonus_cond_tag,
                              bonus_cond_min, bonus_amount, bonus_group, bonus_per_count,
                              n_bonus_groups)
        for w in range(words):
            res[w] = 0
        nc = 0
        # arm 1 reversed (A → T), then arm 2 (T → B); ~c marks a chain run from end b to a
        for i in range(split - 1, 0, -1):
            cc = f_chain[i]
            out_chains[n_out_chains + nc] = ~cc if f_fwd[i] else cc
            nc += 1
            for w in range(words):
                res[w] |= chain_res[cc, w]
        for i in range(split + 1, d + 1):
            cc = f_chain[i]
            out_chains[n_out_chains + nc] = cc if f_fwd[i] else ~cc
            nc += 1
            for w in range(words):
                res[w] |= chain_res[cc, w]
        for i in range(1, d + 1):
            vv = f_vertex[i]
            if vv >= n_nodes:
                r = vertex_res[vv]
                res[r >> 6] |= np.uint64(1) << np.uint64(r & 63)
        for i in range(m):
            out_nodes[n_out_nodes + i] = stops[i]
            out_paid[n_out_nodes + i] = paid[i]
        out_revenue[n_out] = rev + bon
        out_subsidy[n_out] = sub
        out_bonus[n_out] = bon
        out_bypass[n_out] = bypass
        out_crossings[n_out] = crossings
        for w in range(words):
            out_res[n_out, w] = res[w]
        n_out_nodes += m
        n_out_chains += nc
        out_node_ptr[n_out + 1] = n_out_nodes
        out_chain_ptr[n_out + 1] = n_out_chains
        n_out += 1
    state[0] = -2
    return OK, n_out, n_out_nodes, n_out_chains
