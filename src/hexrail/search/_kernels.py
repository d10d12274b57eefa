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

from typing import NamedTuple

import numpy as np
from hexrail.compiled import kernel

OK = 0
FULL = 1  # an output buffer is full: grow it and call again
PAUSE = 2  # the step budget is spent: call again to go on

HARD_BLOCK = 2  # never passed through (offboards, terminal ends)
SOFT_BLOCK = 1  # passed through only by spending a bypass
PASSED = 2  # `f_stop` of a city passed with a bypass by a train that is not paid for it
NO_CUT = 1 << 62  # the plain cut of a train with no `cut_top`: nothing is cut by it
NO_KEY = -2  # `PartnerArrays.p_key` of a frame not searched (no chain is)
NO_WANT = -(1 << 61)  # below: no worth wanted (`thr[0]` of a walk keeping every route)

N_KINDS = 4  # stop kinds: city, town, offboard, halt (`hexrail.graph.trains.KIND_INDEX`)
N_SUBSETS = 1 << N_KINDS  # sets of kinds, by bitmask (0: the empty set): the rows' Hall sums


@kernel
def hall_ok(cnt, cap):
    """Can stops with `cnt[k]` of each kind k fit rows whose caps per kind-subset are `cap`?"""
    for s in range(1, N_SUBSETS):
        tot = 0
        for k in range(N_KINDS):
            if (s >> k) & 1:
                tot += cnt[k]
        if tot > cap[s]:
            return False
    return True


@kernel(inline=True)
def _fits(tot, cap, k, amount):
    """Can `amount` more of kind k join rows holding `tot[s]` per kind-subset s?"""
    for s in range(1, N_SUBSETS):
        if (s >> k) & 1 and tot[s] + amount > cap[s]:
            return False
    return True


@kernel(inline=True)
def _add(tot, k, amount):
    for s in range(1, N_SUBSETS):
        if (s >> k) & 1:
            tot[s] += amount


# `node_optional` codes: how a visited stop counts (`hexrail.graph.trains.COUNT_CODE`).
MANDATORY = 0
OPTIONAL = 1  # may be passed without counting
FIRST = 2  # optional, counted before any OPTIONAL stop, which counts only if every FIRST one does


@kernel(inline=True)
def _best_first(stops, n, node_optional, node_weight, node_value, order):
    """Orders the route's `n` stops best first in ``order`` (indices into `stops`): by weight,
    then revenue, then mandatory before optional (an insertion sort: routes hold few stops).
    Returns whether a FIRST stop is among them."""
    has_first = False
    for i in range(n):
        order[i] = i
        if node_optional[stops[i]] == FIRST:
            has_first = True
    for i in range(1, n):
        j = i
        while j > 0:
            a = stops[order[j - 1]]
            b = stops[order[j]]
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
    return has_first


@kernel
def select_paid(stops, n, node_kidx, node_cost, node_optional, node_weight, node_value,
                visit_cnt, visit_cap, pay_cap, paid, order, vis, pay):
    """Choose which of the route's `n` visited stops are paid, maximising their total weight.

    Mandatory stops already occupy `visit_cnt`; an optional stop is counted only if it is worth
    something and fits the visit rows too. Greedy by weight over the Hall condition of the rows:
    exact, because paid stops form a transversal matroid over the rows. The rows' load is
    kept per kind-subset, so a stop's check touches only the subsets holding its kind.

    FIRST stops (1860's towns under nationalization) are counted, best first, before any
    OPTIONAL stop, even when worth nothing; OPTIONAL stops are tried only if every FIRST stop
    fitted. Exact for rows that pay every stop they count (the rows FIRST stops are for).
    `order`, `vis` and `pay` are work arrays (at least n and N_SUBSETS long): the caller's, so that a
    call allocates nothing.
    """
    has_first = _best_first(stops, n, node_optional, node_weight, node_value, order)
    vis[:] = 0
    pay[:] = 0
    for k in range(N_KINDS):
        if visit_cnt[k]:
            _add(vis, k, visit_cnt[k])
    for i in range(n):
        paid[i] = False
    if not has_first:
        for oi in range(n):
            i = order[oi]
            s = stops[i]
            k = node_kidx[s]
            if node_optional[s]:
                if node_weight[s] <= 0:
                    continue
                if _fits(vis, visit_cap, k, node_cost[s]) and _fits(pay, pay_cap, k, 1):
                    _add(vis, k, node_cost[s])
                    _add(pay, k, 1)
                    paid[i] = True
            elif _fits(pay, pay_cap, k, 1):
                _add(pay, k, 1)
                paid[i] = True
        return
    # Mandatory and FIRST stops first, then OPTIONAL ones if no FIRST stop was left out.
    first_left_out = False
    for phase in range(2):
        for oi in range(n):
            i = order[oi]
            s = stops[i]
            k = node_kidx[s]
            mode = node_optional[s]
            if (phase == 0) == (mode == OPTIONAL):
                continue
            if mode == OPTIONAL and (node_weight[s] <= 0 or first_left_out):
                continue
            if mode == MANDATORY:
                if _fits(pay, pay_cap, k, 1):
                    _add(pay, k, 1)
                    paid[i] = True
            elif _fits(vis, visit_cap, k, node_cost[s]) and _fits(pay, pay_cap, k, 1):
                _add(vis, k, node_cost[s])
                _add(pay, k, 1)
                paid[i] = True
            elif mode == FIRST:
                first_left_out = True


PLACE_SCALE = np.int64(1) << np.int64(24)  # a placing's score: weight, then revenue (below it)


@kernel
def _place_pass(stops, n, node_kidx, node_cost, node_optional, node_weight, node_value,
                row_kinds, row_visit, row_pay, order, mode, dp, back):
    """One pass of `select_placed`: mode 0 places every FIRST stop, mode 1 no OPTIONAL one.
    Returns the best final state's index, or -1 when no placing holds the stops that must be
    placed; ``dp[n & 1, state]`` holds the scores."""
    n_rows = row_kinds.shape[0]
    n_states = dp.shape[1]
    none = np.int64(-1) << np.int64(62)
    dp[0, :] = none
    dp[0, 0] = 0
    for oi in range(n):
        s = stops[order[oi]]
        k = node_kidx[s]
        how = node_optional[s]
        must = how == MANDATORY or (how == FIRST and mode == 0)
        barred = how == OPTIONAL and mode == 1
        gain = node_weight[s] * PLACE_SCALE + node_value[s]
        cur = dp[oi & 1]
        nxt = dp[(oi + 1) & 1]
        nxt[:] = none
        for st in range(n_states):
            sc = cur[st]
            if sc == none:
                continue
            if not must and sc > nxt[st]:
                nxt[st] = sc
                back[oi, st] = -1
            if barred:
                continue
            mult = 1
            for r in range(n_rows):
                span_u = row_visit[r] + 1 if row_visit[r] >= 0 else 1
                span_p = row_pay[r] + 1 if row_pay[r] >= 0 else 1
                digit = (st // mult) % (span_u * span_p)
                if (row_kinds[r] >> k) & 1:
                    u = digit // span_p
                    p = digit % span_p
                    if row_visit[r] < 0 or u + node_cost[s] <= row_visit[r]:
                        nu = u + node_cost[s] if row_visit[r] >= 0 else 0
                        pays = row_pay[r] < 0 or p < row_pay[r]
                        np_ = p + 1 if (pays and row_pay[r] >= 0) else p
                        to = st + (nu * span_p + np_ - digit) * mult
                        val = sc + gain if pays else sc
                        if val > nxt[to]:
                            nxt[to] = val
                            back[oi, to] = 2 * r + (1 if pays else 0)
                mult *= span_u * span_p
    last = dp[n & 1]
    best = -1
    for st in range(n_states):
        if last[st] != none and (best < 0 or last[st] > last[best]):
            best = st
    return best


@kernel
def select_placed(stops, n, node_kidx, node_cost, node_optional, node_weight, node_value,
                  row_kinds, row_visit, row_pay, paid, order, dp, back):
    """Choose which of the route's n stops are paid where every stop goes to one row and a row
    pays only its own best stops (rows sharing a kind, `TrainSpec.rows_share_kinds`): the best
    placing for the objective, then revenue, as `hexrail.search.rows.placed_pay` finds it.
    Dynamic programming over the rows' loads (units used, stops paid), the stops taken best
    first, so that a row pays the first `row_pay` stops it gets. Mandatory stops are placed; an
    optional one may stay out; a FIRST stop left out leaves every OPTIONAL one out (both tried).
    ``row_kinds[r]``: the kinds it holds (bit per kind index); ``row_visit[r]``: its units, -1
    when unlimited; ``row_pay[r]``: the stops it pays, -1 when all it holds. Returns False when
    the stops fit no placing. `order`, `dp` (2 x the states, the product over rows of
    (units + 1) (paid + 1)) and `back` (n x the states) are work arrays."""
    for i in range(n):
        paid[i] = False
    has_first = _best_first(stops, n, node_optional, node_weight, node_value, order)
    mode = 0
    best = _place_pass(stops, n, node_kidx, node_cost, node_optional, node_weight, node_value,
                       row_kinds, row_visit, row_pay, order, 0, dp, back)
    if has_first:
        score = dp[n & 1, best] if best >= 0 else np.int64(-1) << np.int64(62)
        other = _place_pass(stops, n, node_kidx, node_cost, node_optional, node_weight,
                            node_value, row_kinds, row_visit, row_pay, order, 1, dp, back)
        if other >= 0 and (best < 0 or dp[n & 1, other] > score):
            best = other
            mode = 1
        elif best >= 0:  # (the first pass's choices again, for the way back)
            _place_pass(stops, n, node_kidx, node_cost, node_optional, node_weight, node_value,
                        row_kinds, row_visit, row_pay, order, 0, dp, back)
    if best < 0:
        return False
    # the way back: each stop's choice, and the state before it
    st = best
    n_rows = row_kinds.shape[0]
    for oi in range(n - 1, -1, -1):
        choice = back[oi, st]
        if choice == -1:
            continue
        r = choice >> 1
        pays = choice & 1
        s = stops[order[oi]]
        paid[order[oi]] = pays == 1
        mult = 1
        for q in range(r):
            mult *= (row_visit[q] + 1 if row_visit[q] >= 0 else 1) * (
                row_pay[q] + 1 if row_pay[q] >= 0 else 1)
        span_p = row_pay[r] + 1 if row_pay[r] >= 0 else 1
        back_u = node_cost[s] if row_visit[r] >= 0 else 0
        back_p = 1 if (pays and row_pay[r] >= 0) else 0
        st -= (back_u * span_p + back_p) * mult
    return True

@kernel
def _paid_worth(stops, n, paid, node_weight, node_value, node_tags, tag_cnt, bonus_cond_ptr,
                bonus_cond_tag, bonus_cond_min, bonus_amount, bonus_group, bonus_per_count,
                n_bonus_groups, group_best):
    """(weight, revenue, tag bonus) of the paid stops of a route."""
    tag_cnt[:] = 0
    worth = 0
    revenue = 0
    for i in range(n):
        if paid[i]:
            s = stops[i]
            worth += node_weight[s]
            revenue += node_value[s]
            t = node_tags[s]
            b = 0
            while t:
                if t & 1:
                    tag_cnt[b] += 1
                t >>= 1
                b += 1
    bon = route_bonus(tag_cnt, bonus_cond_ptr, bonus_cond_tag, bonus_cond_min, bonus_amount,
                      bonus_group, bonus_per_count, n_bonus_groups, group_best)
    return worth, revenue, bon


@kernel
def select_paid_bonus(stops, n, node_kidx, node_cost, node_optional, node_weight, node_value,
                      node_tags, node_anchor_rank, visit_cnt, visit_cap, pay_cap, paid_station,
                      bonus_cond_ptr, bonus_cond_tag, bonus_cond_min, bonus_amount, bonus_group,
                      bonus_per_count, n_bonus_groups, group_best, paid, best_paid, order, vis,
                      pay, special, tag_cnt):
    """Choose the paid stops when the route bonuses count the paid stops (and, with
    `paid_station`, one paid stop must be an anchor): the best total of paid weight plus bonus.

    The *special* stops (tagged, or anchors when `paid_station`) are few: every subset of them is
    tried as exactly the special stops paid; around it the rest are paid greedily by weight, as
    `select_paid` does (paid stops form a matroid, and fixing some elements in or out keeps one:
    greedy on it is exact). Returns (weight + bonus, bonus), or (-1, 0) when no choice
    pays a station. The best choice is left in `paid`; `best_paid`, `special` and `tag_cnt`
    are work arrays.
    """
    n_special = 0
    for i in range(n):
        s = stops[i]
        if node_tags[s] != 0 or (paid_station and node_anchor_rank[s] >= 0):
            special[n_special] = i
            n_special += 1
    # Most often the plain best choice already pays every tagged stop and a station: it then
    # has the most weight and the most bonus a choice can have.
    select_paid(stops, n, node_kidx, node_cost, node_optional, node_weight, node_value,
                visit_cnt, visit_cap, pay_cap, paid, order, vis, pay)
    station = not paid_station
    tagged_paid = True
    for e in range(n_special):
        i = special[e]
        if paid[i] and node_anchor_rank[stops[i]] >= 0:
            station = True
        if node_tags[stops[i]] != 0 and not paid[i]:
            tagged_paid = False
    if station and tagged_paid:
        worth, _, bon = _paid_worth(stops, n, paid, node_weight, node_value, node_tags, tag_cnt,
                                    bonus_cond_ptr, bonus_cond_tag, bonus_cond_min, bonus_amount,
                                    bonus_group, bonus_per_count, n_bonus_groups, group_best)
        return worth + bon, bon
    # (`select_paid` left the stops in `order` by weight, best first)
    best = -1
    best_value = -1
    best_bonus = 0
    for mask in range(1 << n_special):
        wanted_station = not paid_station
        for e in range(n_special):
            if (mask >> e) & 1 and node_anchor_rank[stops[special[e]]] >= 0:
                wanted_station = True
        if not wanted_station:
            continue
        vis[:] = 0
        pay[:] = 0
        for k in range(N_KINDS):
            if visit_cnt[k]:
                _add(vis, k, visit_cnt[k])
        for i in range(n):
            paid[i] = False
        ok = True
        # the special stops of the subset first: each must be paid
        for e in range(n_special):
            if not (mask >> e) & 1:
                continue
            i = special[e]
            s = stops[i]
            k = node_kidx[s]
            if node_optional[s]:
                if not (_fits(vis, visit_cap, k, node_cost[s]) and _fits(pay, pay_cap, k, 1)):
                    ok = False
                    break
                _add(vis, k, node_cost[s])
            elif not _fits(pay, pay_cap, k, 1):
                ok = False
                break
            _add(pay, k, 1)
            paid[i] = True
        if not ok:
            continue
        for oi in range(n):
            i = order[oi]
            s = stops[i]
            if paid[i]:
                continue
            is_special = False
            for e in range(n_special):
                if special[e] == i:
                    is_special = True
            if is_special:
                continue  # (a special stop out of the subset stays unpaid)
            k = node_kidx[s]
            if node_optional[s]:
                if node_weight[s] <= 0:
                    continue
                if _fits(vis, visit_cap, k, node_cost[s]) and _fits(pay, pay_cap, k, 1):
                    _add(vis, k, node_cost[s])
                    _add(pay, k, 1)
                    paid[i] = True
            elif _fits(pay, pay_cap, k, 1):
                _add(pay, k, 1)
                paid[i] = True
        worth, revenue, bon = _paid_worth(stops, n, paid, node_weight, node_value, node_tags,
                                          tag_cnt, bonus_cond_ptr, bonus_cond_tag, bonus_cond_min,
                                          bonus_amount, bonus_group, bonus_per_count,
                                          n_bonus_groups, group_best)
        if worth + bon > best or (worth + bon == best and revenue + bon > best_value):
            best = worth + bon
            best_value = revenue + bon
            best_bonus = bon
            for i in range(n):
                best_paid[i] = paid[i]
    if best < 0:
        return -1, 0
    for i in range(n):
        paid[i] = best_paid[i]
    return best, best_bonus


# The walk's running tallies (`_tally`), one int64 array laid out so:
MAX_TAGS = 64
T_TAGS = 0  # [T_TAGS, T_TAGS + MAX_TAGS): visited stops per bonus tag
T_REVENUE = T_TAGS + MAX_TAGS  # revenue, subsidy, objective weight of the stops worth counting
T_SUBSIDY = T_REVENUE + 1
T_WEIGHT = T_REVENUE + 2
T_PAY = T_REVENUE + 3  # [T_PAY, T_PAY + N_SUBSETS): their load on the pay rows per kind subset
T_VISIT = T_PAY + N_SUBSETS  # ... and their visit cost on the visit rows
T_PAY_OVER = T_VISIT + N_SUBSETS  # how many kind subsets are loaded past their pay cap
T_VISIT_OVER = T_PAY_OVER + 1  # ... past their visit cap
T_BOUND = T_VISIT_OVER + 1  # what the per-stop bonuses of the visited stops add at most
T_MUST = T_BOUND + 1  # the objective weight of the mandatory stops (those counted whenever visited)
TALLY = T_MUST + 1  # the array's length


@kernel(inline=True)
def _load(tally, base, over, cap, k, amount):
    """Add `amount` of kind k to the per-kind-subset loads ``tally[base + s]``, keeping in
    ``tally[over]`` how many subsets are loaded past their cap."""
    for s in range(1, N_SUBSETS):
        if (s >> k) & 1:
            old = tally[base + s]
            new = old + amount
            tally[base + s] = new
            if old <= cap[s] < new:
                tally[over] += 1
            elif new <= cap[s] < old:
                tally[over] -= 1


@kernel(inline=True)
def _tally(tally, s, sign, node_kidx, node_cost, node_optional, node_value, node_subsidy,
           node_weight, node_tags, node_bound, visit_cap, pay_cap):
    """Move stop s into (sign 1) or out of (sign -1) the walk's running tallies, so that a
    route's value is known without looking at its stops when it may count all of them:

    the visited stops per bonus tag (``T_TAGS``); revenue, subsidy and objective weight of the
    stops worth counting (mandatory and FIRST stops, optional ones worth something; ``T_REVENUE``, ``T_SUBSIDY``, ``T_WEIGHT``); their
    load on the pay rows and their visit cost on the visit rows, per kind subset (the Hall
    sums, ``T_PAY``, ``T_VISIT``), and how many subsets are over their cap (``T_PAY_OVER``,
    ``T_VISIT_OVER``). Both 0: every stop worth counting is counted and paid. And what the
    bonuses counted per stop add at most for the visited stops (``T_BOUND``, for the walk's cut),
    and the weight of the mandatory ones (``T_MUST``, for the cut too).
    """
    if node_optional[s] == 0:
        tally[T_MUST] += sign * node_weight[s]
    if node_optional[s] != OPTIONAL or node_weight[s] > 0:  # worth counting
        k = node_kidx[s]
        tally[T_REVENUE] += sign * node_value[s]
        tally[T_SUBSIDY] += sign * node_subsidy[s]
        tally[T_WEIGHT] += sign * node_weight[s]
        _load(tally, T_PAY, T_PAY_OVER, pay_cap, k, sign)
        _load(tally, T_VISIT, T_VISIT_OVER, visit_cap, k, sign * node_cost[s])
    tally[T_BOUND] += sign * node_bound[s]
    t = node_tags[s]
    b = 0
    while t:
        if t & 1:
            tally[T_TAGS + b] += sign
        t >>= 1
        b += 1


@kernel
def route_bonus(tag_cnt, bonus_cond_ptr, bonus_cond_tag, bonus_cond_min, bonus_amount,
                bonus_group, bonus_per_count, n_groups, best):
    """Sum of the bonuses a route earns whose visited stops hold `tag_cnt[b]` stops with tag b
    (exclusive groups pay their best member). `best` (one per group, at least one) is the
    caller's work array."""
    n_bonus = bonus_amount.shape[0]
    if n_bonus == 0:
        return 0
    total = 0
    best[:] = 0
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


@kernel
def _track_bonus(f_chain, f_vertex, f_stop, split, d, chain_hex_ptr, chain_hexes, node_hex,
                 hex_track_bonus, skip_stop_hexes, hex_seen, stamp):
    """The route's track bonus: `hex_track_bonus` of every distinct hex its chains (frames
    1..d but the phase-2 root `split`) run in; with `skip_stop_hexes` not the hexes of its
    stops. `hex_seen` holds the stamp of the route that last saw each hex."""
    if skip_stop_hexes:
        for i in range(d + 1):
            if f_stop[i] != 0:  # (visited stops, paid or passed)
                hex_seen[node_hex[f_vertex[i]]] = stamp
    total = 0
    for i in range(1, d + 1):
        if i == split:
            continue
        c = f_chain[i]
        for j in range(chain_hex_ptr[c], chain_hex_ptr[c + 1]):
            h = chain_hexes[j]
            if hex_seen[h] != stamp:
                hex_seen[h] = stamp
                total += hex_track_bonus[h]
    return total


@kernel
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


@kernel
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


@kernel(inline=True)
def _holds(forbid, chain_res, c, vertex_res, u, n_nodes):
    """Does `forbid` hold a resource of chain c, or of vertex u if u is a branch point?"""
    for w in range(forbid.shape[0]):
        if chain_res[c, w] & forbid[w]:
            return True
    if u >= n_nodes:
        r = vertex_res[u]
        if (forbid[r >> 6] >> np.uint64(r & 63)) & np.uint64(1):
            return True
    return False


REACH_FAR = 1 << 14  # `reach_distances` of a stop no track reaches


@kernel
def reach_distances(adj_ptr, adj_chain, adj_end, chain_ends, n_nodes, step, shut):
    """Per vertices x and s, the fewest units (`step` of the nodes entered, s included)
    along any track from x to s, passing no node that is `shut`; REACH_FAR if none. A 0-1
    breadth-first search from every vertex."""
    n_vertices = adj_ptr.shape[0] - 1
    dist = np.full((n_vertices, n_vertices), REACH_FAR, np.int16)
    d = np.empty(n_vertices, np.int64)
    done = np.empty(n_vertices, np.bool_)
    # a deque (0 steps pushed in front, 1 behind); each vertex is expanded once, so pushes are
    # at most one per adjacency slot on either side
    room = adj_chain.shape[0] + 1
    queue = np.empty(2 * room + 1, np.int64)
    for x in range(n_vertices):
        d[:] = REACH_FAR
        done[:] = False
        d[x] = 0
        head = room
        tail = room
        queue[tail] = x
        tail += 1
        while head < tail:
            v = queue[head]
            head += 1
            if done[v]:
                continue  # (an earlier, longer push of v)
            done[v] = True
            if v != x and v < n_nodes and shut[v]:
                continue  # reached, never passed
            for slot in range(adj_ptr[v], adj_ptr[v + 1]):
                c = adj_chain[slot]
                u = chain_ends[c, 1 - adj_end[slot]]
                w = step[u] if u < n_nodes else 0
                if d[v] + w < d[u]:
                    d[u] = d[v] + w
                    if w == 0:
                        head -= 1
                        queue[head] = u
                    else:
                        queue[tail] = u
                        tail += 1
        for s in range(n_vertices):
            dist[x, s] = min(d[s], REACH_FAR)
    return dist


@kernel
def bonus_bounds(kidx, optional, tags, cond_ptr, cond_tag, cond_min, amount, per_count,
                 attribute):
    """The tag bonuses (`TrainData.bonus_cond_ptr` ...) as the walk's cuts count them:
    ``(bound, extra)``, per node what the stop's own bonuses add at most, and what the others
    add at most. A bonus counted per stop carrying a tag is counted with each such stop; with
    `attribute`, so is one paid once, to a route visiting stops of given tags, with the stops
    of the tag the fewest carry (the cuts then count it only where they can be reached). But
    a stop a route may pass uncounted earns its bonuses with no unit: they go to ``extra``."""
    n = kidx.shape[0]
    bound = np.zeros(n, np.int64)
    extra = 0
    for b in range(amount.shape[0]):
        a = amount[b]
        if a <= 0:
            continue
        if per_count[b] and cond_ptr[b + 1] > cond_ptr[b]:
            bit = cond_tag[cond_ptr[b]]
            for i in range(n):
                if kidx[i] >= 0 and (tags[i] >> bit) & 1:
                    if optional[i] != 0:
                        extra += a
                    else:
                        bound[i] += a
            continue
        best = -1
        fewest = n + 1
        for k in range(cond_ptr[b], cond_ptr[b + 1]):
            if cond_min[k] <= 0:
                continue
            bit = cond_tag[k]
            carried = 0
            loose = False
            for i in range(n):
                if kidx[i] >= 0 and (tags[i] >> bit) & 1:
                    carried += 1
                    loose |= optional[i] != 0
            if not loose and carried < fewest:
                best = bit
                fewest = carried
        if best < 0 or not attribute:
            extra += a
            continue
        for i in range(n):
            if kidx[i] >= 0 and (tags[i] >> best) & 1:
                bound[i] += a
    return bound, extra


@kernel
def stop_cuts(kidx, cost, optional, block, weight, bound, units, max_bypass):
    """What the walk's cuts (`hexrail.graph.trains._cuts`) read of one train's stops, `bound`
    being the bonuses each counts at their most: ``(usable, top, free, costed, costly,
    counted, order, shut, step)``: is there a stop and none worth less than nothing; the most
    the k best stops costing distance are worth with their bonuses (``top[k]``, k up to
    `units`; empty for units < 0); what those costing none are worth; does every stop cost
    distance; does one cost more than one unit but no more than `units`; is every stop
    counted whenever visited; the stops costing one unit worth something, worthiest first;
    per node, does no route pass it (`max_bypass`: full cities a route may pass); and per node
    the units entering it costs."""
    n = kidx.shape[0]
    usable = False
    negative = False
    free = 0
    costed = True
    costly = False
    counted = True
    shut = np.zeros(n, np.bool_)
    step = np.zeros(n, np.int64)
    worth = np.zeros(n, np.int64)
    n_paid = 0
    n_order = 0
    for i in range(n):
        shut[i] = block[i] == HARD_BLOCK or (block[i] == SOFT_BLOCK and max_bypass == 0)
        if kidx[i] < 0:
            continue
        usable = True
        negative |= weight[i] < 0
        worth[i] = weight[i] + bound[i]
        step[i] = cost[i]
        if cost[i] > 0:
            n_paid += 1
        else:
            free += worth[i]
            costed = False
        costly |= 1 < cost[i] <= units
        counted &= optional[i] == 0
        if cost[i] == 1 and worth[i] > 0:
            n_order += 1
    usable &= not negative
    paid = np.empty(n_paid, np.int64)
    order = np.empty(n_order, np.int64)
    j = 0
    k = 0
    for i in range(n):
        if kidx[i] < 0:
            continue
        if cost[i] > 0:
            paid[j] = worth[i]
            j += 1
        if cost[i] == 1 and worth[i] > 0:
            order[k] = i
            k += 1
    top = np.zeros(max(units + 1, 0), np.int64)
    if units >= 0:
        paid.sort()
        for u in range(1, units + 1):
            top[u] = top[u - 1] + (paid[n_paid - u] if u <= n_paid else 0)
    # worthiest first, in node order among equals
    order = order[np.argsort(-worth[order], kind="mergesort")]
    return usable, top, free, costed, costly, counted, order, shut, step


TOUR_HEXES = 10  # bonus hexes past which `hex_tours` is not computed (2^n subsets per vertex)


@kernel
def hex_tours(dist, hex_dist, hex_ends_ptr, hex_ends, amount, units):
    """Per vertex x and units k (0..`units`), the most track bonus a walk from x spending at
    most k more units can collect: the best set of bonus hexes some order visits within k, where
    reaching hex i from x takes ``hex_dist[x, i]`` units and going on from hex i to hex j takes
    the fewest units from an end of a chain in i (`hex_ends`) to an end of one in j (a walk
    running i's track then j's arrives at such ends, in that order). A bound: hexes the walk
    already runs in count again; distances ignore the walk's own track."""
    n_v = dist.shape[0]
    n = amount.shape[0]
    full = 1 << n
    far = np.int64(1) << 40
    hop = np.full((n, n), far, np.int64)
    for i in range(n):
        for j in range(n):
            for a in range(hex_ends_ptr[i], hex_ends_ptr[i + 1]):
                for b in range(hex_ends_ptr[j], hex_ends_ptr[j + 1]):
                    hop[i, j] = min(hop[i, j], np.int64(dist[hex_ends[a], hex_ends[b]]))
    worth = np.zeros(full, np.int64)
    for sub in range(1, full):
        low = sub & -sub
        i = 0
        while (low >> i) != 1:
            i += 1
        worth[sub] = worth[sub ^ low] + amount[i]
    best = np.zeros((n_v, units + 1), np.int64)
    cost = np.empty((full, n), np.int64)  # fewest units to run the hexes of a set, ending at i
    for x in range(n_v):
        cost[:, :] = far
        for i in range(n):
            cost[1 << i, i] = hex_dist[x, i]
        for sub in range(1, full):
            least = far
            for i in range(n):
                c = cost[sub, i]
                if c > units or not (sub >> i) & 1:
                    continue
                least = min(least, c)
                for j in range(n):
                    if not (sub >> j) & 1 and c + hop[i, j] < cost[sub | (1 << j), j]:
                        cost[sub | (1 << j), j] = c + hop[i, j]
            if least <= units and worth[sub] > best[x, least]:
                best[x, least] = worth[sub]
        for k in range(1, units + 1):
            best[x, k] = max(best[x, k], best[x, k - 1])
    return best


TRAIL_STEPS = 1 << 16  # steps `hex_trails` takes at most before it gives up


@kernel
def hex_trails(adj_ptr, adj_chain, adj_end, chain_ends, is_stop, chain_bits, amount, budget):
    """Per stop x, the most track bonus one stretch of a route between two stops can collect
    where it ends at x: the best set of bonus hexes (bit i of ``chain_bits[c]``: chain c runs
    in hex i, worth ``amount[i]``) run by a trail from x that passes no stop (no chain twice;
    a junction may come again). All zeros past `budget` steps in all, and then False."""
    n_vertices = adj_ptr.shape[0] - 1
    n = amount.shape[0]
    worth = np.zeros(1 << n, np.int64)
    for sub in range(1, 1 << n):
        low = sub & -sub
        i = 0
        while (low >> i) != 1:
            i += 1
        worth[sub] = worth[sub ^ low] + amount[i]
    best = np.zeros(n_vertices, np.int64)
    used = np.zeros(chain_ends.shape[0], np.bool_)
    at = np.empty(chain_ends.shape[0] + 1, np.int64)  # the trail: its vertices' next slot,
    via = np.empty(chain_ends.shape[0] + 1, np.int64)  # the chain into each,
    held = np.empty(chain_ends.shape[0] + 1, np.int64)  # and the hexes run so far
    steps = 0
    for x in range(n_vertices):
        if x >= is_stop.shape[0] or not is_stop[x]:
            continue
        top = worth[(1 << n) - 1]
        d = 0
        at[0] = adj_ptr[x]
        via[0] = -1
        held[0] = 0
        vert = x
        while d >= 0 and best[x] < top:
            if at[d] == adj_ptr[vert + 1]:
                if via[d] >= 0:
                    used[via[d]] = False
                    c = via[d]
                    vert = chain_ends[c, 0] if chain_ends[c, 1] == vert else chain_ends[c, 1]
                d -= 1
                continue
            steps += 1
            if steps > budget:
                best[:] = 0
                return best, False
            slot = at[d]
            at[d] += 1
            c = adj_chain[slot]
            if used[c]:
                continue
            u = chain_ends[c, 1 - adj_end[slot]]
            got = held[d] | chain_bits[c]
            if worth[got] > best[x]:
                best[x] = worth[got]
            if u < is_stop.shape[0] and is_stop[u]:
                continue  # the stretch ends at a stop
            used[c] = True
            d += 1
            at[d] = adj_ptr[u]
            via[d] = c
            held[d] = got
            vert = u
        while d >= 0:  # (left early: the whole board's bonus)
            if via[d] >= 0:
                used[via[d]] = False
            d -= 1
    return best, True


@kernel
def stretch_tours(dist, order, trail, units):
    """Per vertex x and units k (0..`units`), the most the stops a route from x reaches with
    at most k more units collect on the stretches ending at them (``trail[s]``, `hex_trails`;
    `order`: the stops, by it, most first): each stop in the nearest free unit among 1..k no
    nearer than its distance from x, as `_reach_cut` fills them (x's own stretch left out)."""
    n_v = dist.shape[0]
    best = np.zeros((n_v, units + 1), np.int64)
    for x in range(n_v):
        for k in range(1, units + 1):
            free = (np.int64(1) << k) - 1
            taken = 0
            for i in range(order.shape[0]):
                s = order[i]
                dd = np.int64(dist[x, s])
                if s == x or dd > k:
                    continue
                avail = free >> (dd - 1)
                if avail == 0:
                    continue
                low = avail & -avail
                free &= ~(low << (dd - 1))
                best[x, k] += trail[s]
                taken += 1
                if taken == k:
                    break
    return best


@kernel(inline=True)
def _count_hexes(track_cnt, c, chain_hex_ptr, chain_hexes, delta):
    for j in range(chain_hex_ptr[c], chain_hex_ptr[c + 1]):
        track_cnt[chain_hexes[j]] += delta


@kernel
def _reach_cut(left, u, t, visited, track_cnt, node_weight, node_bound, node_optional,
               any_optional, reach_order, reach_dist, reach_hexes, reach_hex_amount,
               reach_hex_dist, reach_hex_tour):
    """At most what `left` more units add to a walk whose ends are u and t (-1: u alone) and
    its mandatory stops (u among them, if it is one), but for the bonuses counted at their
    most: the best stops it may still count, each given its own unit among 1..left, by worth,
    each in the nearest free unit no nearer than its distance from an end (exact for such
    nested choices); and the track bonus of every hex the walk runs in (`track_cnt`), and of
    those it can still reach no more than its best tours of them (`hex_tours`, where
    ``reach_hex_tour`` has rows).

    The stops it may still count: those not on the walk, and the optional ones on it (u too),
    which take a unit anywhere. The k-th stop a walk counts beyond its end is no nearer than k
    units, an optional stop's own unit added to its distance (`reach_dist` passes it for
    none, as a walk passing it uncounted does; `any_optional`: is one of them optional)."""
    total = 0
    ahead = 0  # the bonus of the hexes still reachable, not yet run
    for i in range(reach_hexes.shape[0]):
        dd = np.int64(reach_hex_dist[u, i])
        if t >= 0:
            dd = min(dd, np.int64(reach_hex_dist[t, i]))
        if track_cnt[reach_hexes[i]] > 0:
            total += reach_hex_amount[i]
        elif dd <= left:
            ahead += reach_hex_amount[i]
    if ahead > 0 and reach_hex_tour.shape[0] > 0 and left >= 0:
        # no more than the best tours from the two ends, the units split between them
        tour = reach_hex_tour[u, left]
        if t >= 0:
            for k in range(left + 1):
                tour = max(tour, reach_hex_tour[u, k] + reach_hex_tour[t, left - k])
        ahead = min(ahead, tour)
    total += ahead
    if left <= 0:
        return total
    free = (np.int64(1) << left) - 1  # bit j: unit j + 1 still free
    taken = 0
    for i in range(reach_order.shape[0]):
        s = reach_order[i]
        if visited[s] or s == u:
            if not any_optional or node_optional[s] == 0:
                continue  # (in the walk's sum)
            dd = np.int64(1)
        else:
            dd = np.int64(reach_dist[u, s])
            if t >= 0:
                dd = min(dd, np.int64(reach_dist[t, s]))
            if any_optional and node_optional[s] != 0:
                dd += 1
        if dd > left:
            continue
        avail = free >> (dd - 1)
        if avail == 0:
            continue
        low = avail & -avail
        free &= ~(low << (dd - 1))
        total += node_weight[s] + node_bound[s]
        taken += 1
        if taken == left:
            break
    return total


@kernel
def arm_bounds(anchor, units, budget, track, node_kidx, node_cost, node_optional, node_block,
               node_weight, node_bound, hex_track_bonus):
    """Per k in 0..`units`, at most what an arm of a route leaving `anchor` adds with k units
    of distance: what its stops add to the walk's tallies (`_tally`: weight, and the bonuses
    counted per stop) and the track bonus of the hexes its chains run in. Arms of the walk
    follow more rules (crossing at branch points, blocked cities, rank, other trains' track,
    hexes entered once, stop groups); these arms follow only never visiting a vertex twice
    (junctions a route may pass again aside), never a chain twice, and never passing an
    offboard or the end of terminal track, so every arm of the walk is among them. Empty when
    the search takes more than `budget` steps: then no bound."""
    (n_nodes, n_hexes, adj_ptr, adj_chain, adj_end, chain_ends, chain_side, chain_terminal,
     chain_crossings, chain_hex_ptr, chain_hexes, chain_res, vertex_res, node_hex,
     vertex_again) = track
    n_vertices = adj_ptr.shape[0] - 1
    best = np.zeros(units + 1, np.int64)
    visited = np.zeros(n_vertices, np.bool_)
    used = np.zeros(chain_ends.shape[0], np.bool_)
    hex_cnt = np.zeros(hex_track_bonus.shape[0], np.int64)
    cap = chain_ends.shape[0] + 2  # (an arm runs each chain once)
    f_vertex = np.empty(cap, np.int64)
    f_slot = np.empty(cap, np.int64)
    f_chain = np.empty(cap, np.int64)
    f_units = np.empty(cap, np.int64)
    f_worth = np.empty(cap, np.int64)
    top = 0
    f_vertex[0] = anchor
    f_slot[0] = adj_ptr[anchor]
    f_chain[0] = -1
    f_units[0] = 0
    f_worth[0] = 0
    visited[anchor] = True
    steps = 0
    while top >= 0:
        v = f_vertex[top]
        if f_slot[top] >= adj_ptr[v + 1]:
            c = f_chain[top]
            if c >= 0:
                used[c] = False
                visited[v] = False
                _count_hexes(hex_cnt, c, chain_hex_ptr, chain_hexes, -1)
            top -= 1
            continue
        steps += 1
        if steps > budget:
            return np.zeros(0, np.int64)
        slot = f_slot[top]
        f_slot[top] = slot + 1
        c = adj_chain[slot]
        end = 1 - adj_end[slot]  # (the chain's end at u)
        u = chain_ends[c, end]
        if used[c] or visited[u]:
            continue
        spent = f_units[top]
        worth = f_worth[top]
        is_stop = u < n_nodes and node_kidx[u] >= 0
        if is_stop:
            if node_optional[u] == 0:
                spent += node_cost[u]
                if spent > units:
                    continue
            if node_optional[u] != 1 or node_weight[u] > 0:
                worth += node_weight[u]
            worth += node_bound[u]
        for j in range(chain_hex_ptr[c], chain_hex_ptr[c + 1]):
            h = chain_hexes[j]
            if hex_cnt[h] == 0:
                worth += hex_track_bonus[h]
            hex_cnt[h] += 1
        if is_stop and worth > best[spent]:
            best[spent] = worth
        if u < n_nodes and (node_block[u] == HARD_BLOCK or chain_terminal[c, end] & 1):
            _count_hexes(hex_cnt, c, chain_hex_ptr, chain_hexes, -1)
            continue  # an arm ends there
        top += 1
        f_vertex[top] = u
        f_slot[top] = adj_ptr[u]
        f_chain[top] = c
        f_units[top] = spent
        f_worth[top] = worth
        used[c] = True
        visited[u] = not vertex_again[u]
    for k in range(1, units + 1):
        best[k] = max(best[k], best[k - 1])
    return best


@kernel
def _tallies_ok(f_stop, f_vertex, split, d, node_tally, tally_min, tally_max):
    """Do the tallies of the route held in frames split-1..0 and split+1..d, summed over its
    visited stops (a city passed unpaid too), lie within their limits?"""
    for k in range(tally_min.shape[0]):
        total = 0
        for i in range(d + 1):
            if i != split and f_stop[i] != 0:
                total += node_tally[f_vertex[i], k]
        if total < tally_min[k] or total > tally_max[k]:
            return False
    return True


@kernel
def _arm2_short(want, held, arm_best, n_top, cnt, has_track_bonus, f_chain, f_vertex, f_stop, d,
                chain_hex_ptr, chain_hexes, node_hex, hex_track_bonus, skip_stop_hexes, hex_seen,
                stamp):
    """At a spawn: does no arm 2 make the route worth `want`? `held`: arm 1's and the
    anchor's worth with the bonuses other than the track's at their most; then arm 2 adds no
    more than the best arm of the units left (`arm_bounds`), and the track bonus no more than
    arm 1's (frames 1..d) and arm 2's."""
    left = n_top - 1 - (cnt[0] + cnt[1] + cnt[2] + cnt[3])
    if left < 0 or left >= arm_best.shape[0]:
        return False
    most = held + arm_best[left]
    if has_track_bonus and most < want:
        most += _track_bonus(f_chain, f_vertex, f_stop, d + 1, d, chain_hex_ptr, chain_hexes,
                             node_hex, hex_track_bonus, skip_stop_hexes, hex_seen, stamp)
    return most < want


@kernel
def _reach_worth(u, c, arrived_terminal, t, visited, chain_used, adj_ptr, adj_chain, adj_end,
                 chain_ends, chain_terminal, vertex_again, n_nodes, node_kidx, node_block,
                 node_anchor_rank, my_rank, has_forbid, forbid, chain_res, vertex_res, d,
                 f_vertex, f_stop, n_paid, work):
    """At most what a route grown from the walk is paid for its stops, where it is paid for
    `n_paid` of them at most (and nothing for the others): the best `n_paid` of the walk's
    stops (frames 0..d, and u: `_walk_worths`) and of those it can still reach.
    The walk has just run chain c to u; with t >= 0, arm 2 is still to leave the anchor t. It
    can reach the stops not on it that track it has not run leads to from u or t, past no stop
    it has visited, no stop a route may not pass (blocked, or reached by track ending there)
    and no anchor it does not enter: every other rule only narrows where a route goes.
    ``work``: ``seen`` (per vertex, all 0), ``stack`` (twice the vertices), ``vals`` and the
    stops' worths."""
    seen, stack, vals, worth = work
    n_vals = _walk_worths(u, d, f_vertex, f_stop, worth, vals)
    top = 0
    n_seen = 0
    bottom = stack.shape[0] - 1  # the vertices seen are listed from the far end, to reset
    seen[u] = 2  # (2: gone on from, or never to be; 1: counted, not yet gone on from)
    if not arrived_terminal and not (u < n_nodes and node_block[u] == HARD_BLOCK):
        stack[top] = u
        top += 1
    if t >= 0:
        seen[t] = 2
        stack[top] = t
        top += 1
    while top > 0:
        top -= 1
        x = stack[top]
        for slot in range(adj_ptr[x], adj_ptr[x + 1]):
            e = adj_chain[slot]
            if e == c or chain_used[e]:
                continue
            w = chain_ends[e, 1 - adj_end[slot]]
            if seen[w] == 2 or (visited[w] and not vertex_again[w]):
                continue
            if has_forbid and _holds(forbid, chain_res, e, vertex_res, w, n_nodes):
                continue
            passable = True
            if w < n_nodes:
                if node_kidx[w] >= 0 and 0 <= node_anchor_rank[w] < my_rank:
                    continue  # never entered by this walk
                if node_block[w] == HARD_BLOCK or chain_terminal[e, 1 - adj_end[slot]] & 1:
                    passable = False
            if seen[w] == 0:
                if w < n_nodes and node_kidx[w] >= 0 and not visited[w] and worth[w] > 0:
                    vals[n_vals] = worth[w]
                    n_vals += 1
                stack[bottom - n_seen] = w
                n_seen += 1
                seen[w] = 1
            if passable:
                seen[w] = 2
                stack[top] = w
                top += 1
    for i in range(n_seen):
        seen[stack[bottom - i]] = 0
    seen[u] = 0
    if t >= 0:
        seen[t] = 0
    if n_vals > n_paid:
        vals[:n_vals].sort()
    total = 0
    for i in range(max(n_vals - n_paid, 0), n_vals):
        total += vals[i]
    return total


@kernel
def _walk_worths(u, d, f_vertex, f_stop, worth, vals):
    """Lists the worths of the walk's stops (frames 0..d, and u) in ``vals``; returns how
    many (for `_reach_worth`)."""
    n = 0
    for i in range(d + 1):
        if f_stop[i] == 1 and worth[f_vertex[i]] > 0:
            vals[n] = worth[f_vertex[i]]
            n += 1
    if worth[u] > 0:
        vals[n] = worth[u]
        n += 1
    return n

class TrackArrays(NamedTuple):
    """The compiled track (`hexrail.graph.track.TrackGraph`) as the walk reads it."""

    n_nodes: int
    n_hexes: int
    adj_ptr: np.ndarray
    adj_chain: np.ndarray
    adj_end: np.ndarray
    chain_ends: np.ndarray
    chain_side: np.ndarray
    chain_terminal: np.ndarray
    chain_crossings: np.ndarray
    chain_hex_ptr: np.ndarray
    chain_hexes: np.ndarray
    chain_res: np.ndarray
    vertex_res: np.ndarray
    node_hex: np.ndarray
    vertex_again: np.ndarray  # bool per vertex: a route may pass it again, by other chains


class TrainArrays(NamedTuple):
    """One train on the track (`hexrail.graph.trains.TrainData`) as the walk reads it."""

    node_kidx: np.ndarray
    node_cost: np.ndarray
    node_optional: np.ndarray
    node_block: np.ndarray
    node_can_end: np.ndarray
    node_end_class: np.ndarray
    node_anchor_rank: np.ndarray
    node_groups: np.ndarray
    node_value: np.ndarray
    node_subsidy: np.ndarray
    node_weight: np.ndarray
    node_tags: np.ndarray
    visit_cap: np.ndarray
    pay_cap: np.ndarray
    hex_limit: int
    min_stops: int
    hex_noreenter: np.ndarray
    max_bypass: int
    bonus_cond_ptr: np.ndarray
    bonus_cond_tag: np.ndarray
    bonus_cond_min: np.ndarray
    bonus_amount: np.ndarray
    bonus_group: np.ndarray
    bonus_per_count: np.ndarray
    n_bonus_groups: int
    node_end_bonus: np.ndarray
    hex_track_bonus: np.ndarray
    has_track_bonus: bool
    track_skip_stops: bool
    bonus_on_paid: bool
    paid_station: bool
    passed_unpaid: bool
    cut_top: np.ndarray
    cut_extra: int
    node_bound: np.ndarray
    reach_order: np.ndarray
    reach_dist: np.ndarray
    reach_extra: int
    reach_hexes: np.ndarray
    reach_hex_amount: np.ndarray
    reach_hex_dist: np.ndarray
    reach_hex_tour: np.ndarray
    reach_walk: int
    row_kinds: np.ndarray  # rows placed one stop each (`select_placed`); empty: paid by kinds
    row_visit: np.ndarray
    row_pay: np.ndarray
    node_tally: np.ndarray  # per node and tally name, what a visit adds (`StopRule.tallies`)
    tally_min: np.ndarray  # per name, the least sum a route may have
    tally_max: np.ndarray


class RouteBuffers(NamedTuple):
    """Where the walk writes the routes: per route its revenue, subsidy, bonus, bypasses,
    crossings and resource bits, its stops (with paid flags) and chains as ragged arrays."""

    out_revenue: np.ndarray
    out_subsidy: np.ndarray
    out_bonus: np.ndarray
    out_bypass: np.ndarray
    out_crossings: np.ndarray
    out_node_ptr: np.ndarray
    out_nodes: np.ndarray
    out_paid: np.ndarray
    out_chain_ptr: np.ndarray
    out_chains: np.ndarray
    out_res: np.ndarray


class PartnerArrays(NamedTuple):
    """The other trains of a plan worth the sum of its routes, as the walk reads them: per
    partner what it adds at most beside one chain or two (`partner_tables`) and beside nothing,
    per frame what it adds at most beside the walk so far, and the plan worth wanted."""

    p_single: np.ndarray
    p_pair: np.ndarray
    p_top: np.ndarray
    p_bound: np.ndarray
    p_floor: np.ndarray
    # a lone partner's routes' values (best first) and what one off its list is worth at
    # most: a route found is checked against them (and the floor rises to the plan); which of
    # them share track with each chain (`partner_tables`' ``clash``); per frame, the first that
    # may share none with the walk (each before shares some) and the chain the frame held
    # when that was found (`_lone_partner`)
    p_value: np.ndarray
    p_fallback: int
    p_clash: np.ndarray
    p_scan: np.ndarray
    p_key: np.ndarray


class WalkWork(NamedTuple):
    """The walk's state between calls (it pauses and goes on)."""

    visited: np.ndarray
    hex_mark: np.ndarray
    cnt: np.ndarray
    frames: np.ndarray
    stops: np.ndarray
    paid: np.ndarray
    res: np.ndarray
    state: np.ndarray
    tally: np.ndarray
    chain_used: np.ndarray  # bool per chain: on the walk (needed where vertices come again)


@kernel
def partner_tables(p_ptr, p_value, p_res, p_fallback, unit_res, pairs):
    """Per partner k and chain c, what partner k adds at most beside a walk that runs c: the
    value of its best route sharing no track with c (`unit_res[c]`: the chain's track and its
    ends), or what a route off its list is worth at most; never below idling (0). With
    `pairs`, the same per two chains; else each pair gets the lesser of its two chains'.

    Returns ``(single[k, c], pair[k, c1, c2], clash)``: with one partner, ``clash[c, w]`` has
    bit j of word w set where its route 64 w + j shares track with chain c (and bits past its
    list set); else empty.
    """
    n_partners = p_ptr.shape[0] - 1
    n_units, words = unit_res.shape
    single = np.zeros((n_partners, n_units), np.int64)
    pair = np.zeros((n_partners, n_units, n_units), np.int64)
    lone = np.zeros((0, 0), np.uint64)
    for k in range(n_partners):
        lo, hi = p_ptr[k], p_ptr[k + 1]
        n = hi - lo
        n_words = (n + 63) >> 6
        # clash[c, w]: bit j of word w set when route lo + 64 w + j shares track with chain c
        # (bits past the list set too, so a free bit is a route)
        clash = np.zeros((n_units, max(n_words, 1)), np.uint64)
        for c in range(n_units):
            for j in range(n):
                for w in range(words):
                    if p_res[lo + j, w] & unit_res[c, w]:
                        clash[c, j >> 6] |= np.uint64(1) << np.uint64(j & 63)
                        break
            for j in range(n, n_words * 64):
                clash[c, j >> 6] |= np.uint64(1) << np.uint64(j & 63)
        fall = max(p_fallback[k], 0)
        for c in range(n_units):
            single[k, c] = fall
            for w in range(n_words):
                free = ~clash[c, w]
                if free:
                    j = (w << 6) + _lowest_bit(free)
                    single[k, c] = max(p_value[lo + j], fall)
                    break
        for c1 in range(n_units):
            for c2 in range(c1, n_units):
                b = min(single[k, c1], single[k, c2])
                if pairs and b > fall:
                    b = fall
                    for w in range(n_words):
                        free = ~(clash[c1, w] | clash[c2, w])
                        if free:
                            j = (w << 6) + _lowest_bit(free)
                            b = max(p_value[lo + j], fall)
                            break
                pair[k, c1, c2] = b
                pair[k, c2, c1] = b
        if n_partners == 1:
            lone = clash
    return single, pair, lone


@kernel(inline=True)
def _lowest_bit(x):
    """The index of the lowest set bit of a non-zero uint64."""
    i = 0
    while not (x >> np.uint64(i)) & np.uint64(1):
        i += 1
    return i


@kernel
def _partner_bound(d, nd, c, f_chain, partner):
    """What the partner trains add at most beside a walk that runs chain c past frame d (to
    frame nd): per partner the least of its bounds beside the walk's chains one by one and
    two at a time (`partner_tables`), kept per frame; a lone partner's no more than its first
    route that may share no track with the walk to its deepest frame searched (`_searched`)."""
    p_single, p_pair, p_top, p_bound = partner[0], partner[1], partner[2], partner[3]
    total = 0
    for k in range(p_single.shape[0]):
        b = min(p_bound[d, k], p_single[k, c])
        for i in range(1, d + 1):
            cc = f_chain[i]
            if cc >= 0:  # (a phase-2 root arrives by no chain)
                b = min(b, p_pair[k, cc, c])
        p_bound[nd, k] = b
        total += b
    p_value, p_fallback, p_scan = partner[5], partner[6], partner[8]
    if p_scan.shape[0] > 0:
        j = p_scan[_searched(d, f_chain, partner)]
        b = max(p_fallback, 0)
        if j < p_value.shape[0]:
            b = max(b, p_value[j])
        if b < p_bound[nd, 0]:
            total -= p_bound[nd, 0] - b
            p_bound[nd, 0] = b
    return total


@kernel
def _searched(d, f_chain, partner):
    """The deepest frame up to d whose `_lone_partner` search holds for the walk: frames 1 to
    it hold the chains they held when it was made (a search past them was undone with them)."""
    p_key = partner[9]
    f = 0
    while f < d and p_key[f + 1] == f_chain[f + 1]:
        f += 1
    return f


@kernel
def _lone_partner(d, need, f_chain, partner):
    """The first of a lone partner's routes (best first) worth at least `need` that shares no
    track with the walk to frame d, or the first worth less. Each frame past those searched
    before (`_searched`) goes on from where the frame before it stopped, 64 routes at a time
    (those sharing track with any of the walk's chains, by ``p_clash``): a route left behind
    by a frame shares track with every walk through it, so a frame's search serves every
    route walked on from it."""
    p_value, p_clash, p_scan, p_key = partner[5], partner[7], partner[8], partner[9]
    n = p_value.shape[0]
    for f in range(_searched(d, f_chain, partner) + 1, d + 1):
        j = p_scan[f - 1]
        while j < n and p_value[j] >= need:
            w = j >> 6
            # (a route before j shares track with a chain of the frames before: taken here too)
            taken = np.uint64(0)
            for i in range(1, f + 1):
                cc = f_chain[i]
                if cc >= 0:  # (a phase-2 root arrives by no chain)
                    taken |= p_clash[cc, w]
            free = ~taken
            if free:
                j = (w << 6) + _lowest_bit(free)
                break
            j = (w + 1) << 6
        p_scan[f] = min(j, n)
        p_key[f] = f_chain[f]
    if d + 1 < p_key.shape[0]:
        p_key[d + 1] = NO_KEY  # (the searches of deeper frames were of other walks)
    return p_scan[d]


@kernel
def enumerate_anchor(anchor, track, train, out, n_out, n_out_nodes, n_out_chains, work, budget, thr,
                     forbid, partner, arm_best):
    """Append the routes whose lowest-ranked anchor is `anchor` to the out buffers.

    `track`, `train`, `out` and `work` hold the fields of `TrackArrays`, `TrainArrays`,
    `RouteBuffers` and `WalkWork`, in order (plain tuples: numba types them fastest).

    Resumable: the walk lives in the work arrays (`visited`, `hex_mark`, `cnt`, `frames`, ...)
    and `state` (``state[0]`` = -1 to start the anchor, -2 once it is done). Returns
    ``(status, n_out, n_out_nodes, n_out_chains)``: OK when the anchor is done, FULL when an
    output buffer needs to grow, PAUSE after `budget` steps (so the caller can watch a deadline);
    after FULL or PAUSE call again with the same arrays to go on.

    ``thr[0]``: only routes worth at least this to the objective are written (the others cost
    a few additions each: the walk keeps running tallies, see `_tally`); with ``thr[1] = 1``
    it rises to each route written less ``thr[5]``, so the routes written include every route
    worth as much as the best less that. ``thr[2]``
    to ``thr[4]``, and `arm_best`: routes walked worthier arm first (below). No route uses
    a resource in the bitset `forbid` (another train's track).

    `partner` (`PartnerArrays`) narrows further where the plan is worth the sum of its routes:
    a route is written only if, with the best routes of the other trains that share no track
    with it, it reaches the plan worth ``p_floor[0]``; the walk's cut counts them the same way.
    """
    # the named tuples' fields, as the walk below names them
    (n_nodes, n_hexes, adj_ptr, adj_chain, adj_end, chain_ends, chain_side, chain_terminal,
     chain_crossings, chain_hex_ptr, chain_hexes, chain_res, vertex_res, node_hex, vertex_again) = track
    (node_kidx, node_cost, node_optional, node_block, node_can_end, node_end_class, node_anchor_rank,
     node_groups, node_value, node_subsidy, node_weight, node_tags, visit_cap, pay_cap, hex_limit,
     min_stops, hex_noreenter, max_bypass, bonus_cond_ptr, bonus_cond_tag, bonus_cond_min,
     bonus_amount, bonus_group, bonus_per_count, n_bonus_groups, node_end_bonus, hex_track_bonus,
     has_track_bonus, track_skip_stops, bonus_on_paid, paid_station, passed_unpaid, cut_top,
     cut_extra, node_bound, reach_order, reach_dist, reach_extra, reach_hexes, reach_hex_amount,
     reach_hex_dist, reach_hex_tour, reach_walk, row_kinds, row_visit, row_pay, node_tally,
     tally_min, tally_max) = train
    (out_revenue, out_subsidy, out_bonus, out_bypass, out_crossings, out_node_ptr, out_nodes, out_paid,
     out_chain_ptr, out_chains, out_res) = out
    visited, hex_mark, cnt, frames, stops, paid, res, state, tally, chain_used = work
    words = out_res.shape[1]
    depth_cap = frames.shape[1]
    my_rank = node_anchor_rank[anchor]
    n_top = cut_top.shape[0]  # 0: no cut (`hexrail.graph.trains._cuts`)
    # the sharper cut (`_reach_cut`), where the train has one and routes are narrowed
    n_reach = reach_dist.shape[0] if n_top > 0 and thr[0] > -(1 << 61) else 0
    any_optional = False  # (one it may count: the sharper cut then weighs those visited)
    for i in range(reach_order.shape[0] if n_reach > 0 else 0):
        any_optional |= node_optional[reach_order[i]] != 0
    # a train whose distance is too long for those, paid for a few stops: the cut of what the
    # walk can still reach (`_reach_worth`), once routes are narrowed (`best_only` narrows
    # them as it finds them)
    dyn = reach_walk > 0
    has_cut = n_top > 0 or dyn
    # ``thr[2] = 1`` (a route's worth is no more than its stops' and ``thr[3]``, they are worth
    # nothing less than nothing, and none is passed unpaid): a route with the anchor in its
    # middle is walked with its worthier arm as arm 1 (of equal arms, arm 2 leaves by the
    # higher-numbered chain). Arm 2 then stops where it outgrows arm 1, and a route is worth
    # no more than twice its arm 1 (less the anchor) and ``thr[3]``.
    by_worth = thr[2] == 1
    anchor_held = node_weight[anchor] + node_bound[anchor]
    # and no arm 2 adds more than the best arm of its units from the anchor (`arm_bounds`,
    # ``arm_best[k]`` for k units; empty: not known) with the bonuses other than the track's at
    # their most (``thr[4]``); the track bonus of the route's hexes is no more than arm 1's and
    # arm 2's (which `arm_bounds` counts)
    # the other trains' routes, where the walk has a cut to add them to
    p_single, p_pair, p_top, p_bound, p_floor, p_value, p_fallback, p_clash, p_scan, p_key = partner
    n_partners = p_single.shape[0] if has_cut and not thr[1] else 0
    plan_floor = p_floor[0]
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
    f_stop = frames[9]  # 1 if this vertex is a stop of the route; 2: one passed, never paid

    # Which hex the walk is in matters only to the no-re-entry rule: skip the bookkeeping
    # when no hex has that rule.
    track_hexes = False
    for h in range(n_hexes):
        if hex_noreenter[h]:
            track_hexes = True
            break
    # A vertex that may come again (a junction, where the profile says so) leaves the walk
    # to keep a chain from being run twice: the chains on the walk are marked (and for the
    # cut of what the walk can still reach).
    has_again = dyn
    for x in range(vertex_again.shape[0]):
        if vertex_again[x]:
            has_again = True
            break
    n_vertices = adj_ptr.shape[0] - 1
    # (the cut's work arrays: seen, stack, worths listed, each stop's worth)
    reach_work = (np.zeros(n_vertices if dyn else 0, np.int64),
                  np.empty(2 * n_vertices + 4 if dyn else 0, np.int64),
                  np.empty(n_nodes + depth_cap if dyn else 0, np.int64),
                  node_weight + node_bound)
    n_bonus = bonus_amount.shape[0]
    has_forbid = False
    for w in range(words):
        if forbid[w]:
            has_forbid = True
    sel_order = np.empty(depth_cap, np.int64)
    sel_vis = np.zeros(N_SUBSETS, np.int64)
    sel_pay = np.zeros(N_SUBSETS, np.int64)
    group_best = np.zeros(max(n_bonus_groups, 1), np.int64)
    has_end_bonus = False
    for i in range(n_nodes):
        if node_end_bonus[i]:
            has_end_bonus = True
            break
    hex_seen = np.zeros(n_hexes if has_track_bonus else 1, np.int64)
    paid_choice = bonus_on_paid or paid_station  # the choice of paid stops weighs bonuses
    sel_best = np.zeros(depth_cap if paid_choice else 1, np.bool_)
    sel_special = np.zeros(depth_cap if paid_choice else 1, np.int64)
    sel_tags = np.zeros(MAX_TAGS, np.int64)
    # rows sharing a kind: a route's stops are placed in them (`select_placed`)
    placing = row_kinds.shape[0] > 0
    n_states = 1
    for r in range(row_kinds.shape[0]):
        n_states *= (row_visit[r] + 1 if row_visit[r] >= 0 else 1) * (
            row_pay[r] + 1 if row_pay[r] >= 0 else 1)
    place_dp = np.empty((2, n_states if placing else 0), np.int64)
    place_back = np.empty((depth_cap if placing else 0, n_states if placing else 0), np.int8)
    n_seen = 0  # stamps in hex_seen: a hex is seen by the route stamped n_seen

    if state[0] == -2:
        return OK, n_out, n_out_nodes, n_out_chains
    # per hex, how many of the walk's chains run in it, for the sharper cut's track bonus
    # (rebuilt from the frames when the walk goes on)
    track_cnt = np.zeros(n_hexes if n_reach > 0 and reach_hexes.shape[0] > 0 else 0, np.int32)
    if track_cnt.shape[0] > 0 and state[0] >= 0:
        for i in range(1, state[0] + 1):
            if f_chain[i] != -1:  # (the phase-2 root arrives by no chain)
                _count_hexes(track_cnt, f_chain[i], chain_hex_ptr, chain_hexes, 1)
    if state[0] == -1:
        # start: frame 0 is the anchor
        visited[:] = False
        chain_used[:] = False
        hex_mark[:] = 0
        cnt[:] = 0
        visited[anchor] = True
        hex_mark[node_hex[anchor]] += 1
        tally[:] = 0
        _tally(tally, anchor, 1, node_kidx, node_cost, node_optional, node_value, node_subsidy,
               node_weight, node_tags, node_bound, visit_cap, pay_cap)
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
        for k in range(n_partners):
            p_bound[0, k] = p_top[k]
        if p_scan.shape[0] > 0:
            p_scan[0] = 0
            p_key[1] = NO_KEY
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
            state[STEPS_TAKEN] = steps
            return (PAUSE if steps > budget else FULL), n_out, n_out_nodes, n_out_chains
        v = f_vertex[d]
        phase = f_phase[d]
        emit = False

        if phase == 1 and f_adj[d] == -1:
            # A phase-1 frame at a stop that may end a route first runs a phase-2 walk (arm 2).
            f_adj[d] = adj_ptr[v]
            if not (v < n_nodes and node_can_end[v]):
                continue
            if by_worth and d > 0:
                state[7] = tally[T_WEIGHT] + tally[T_BOUND]  # (arm 1's worth, for arm 2)
                want = thr[0]
                if n_partners > 0:  # (the other trains' best beside arm 1 bounds theirs beside the route)
                    beside = 0
                    for k in range(n_partners):
                        beside += p_bound[d, k]
                    want = max(want, plan_floor - beside)
                if 2 * state[7] - anchor_held + thr[3] < want:
                    continue  # no arm 2 makes the route worth what is wanted
                if p_scan.shape[0] > 0 and n_partners > 0:
                    # the lone partner's best route beside arm 1, as far as one may reach the
                    # floor beside the most the route is worth
                    need = plan_floor - (2 * state[7] - anchor_held + thr[3])
                    j = _lone_partner(d, need, f_chain, partner)
                    if (j >= p_value.shape[0] or p_value[j] < need) and max(p_fallback, 0) < need:
                        continue
                if arm_best.shape[0] > 0:
                    n_seen += 1
                    if _arm2_short(want, state[7] + thr[4], arm_best, n_top, cnt, has_track_bonus,
                                   f_chain, f_vertex, f_stop, d, chain_hex_ptr, chain_hexes,
                                   node_hex, hex_track_bonus, track_skip_stops, hex_seen, n_seen):
                        continue  # nor does the best arm 2 its units allow
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
            if n_partners > 0:  # arm 2 starts with arm 1's track
                p_bound[split, :] = p_bound[split - 1, :]
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
                    _tally(tally, v, -1, node_kidx, node_cost, node_optional, node_value,
                           node_subsidy, node_weight, node_tags, node_bound, visit_cap, pay_cap)
                    if node_optional[v]:
                        n_optional -= 1
                    else:
                        cnt[node_kidx[v]] -= node_cost[v]
                    groups_used &= ~node_groups[v]
                visited[v] = False
                if track_cnt.shape[0] > 0:
                    _count_hexes(track_cnt, f_chain[d], chain_hex_ptr, chain_hexes, -1)
                if has_again:
                    chain_used[f_chain[d]] = False
                if track_hexes:
                    _mark_chain_hexes(f_chain[d], f_fwd[d], f_prevhex[d], chain_hex_ptr,
                                      chain_hexes, hex_mark, -1)
                crossings -= f_cross[d]
                bypass -= f_bypass[d]
                if f_stop[d - 1] == PASSED and f_bypass[d]:
                    # the city passed leaving frame d - 1 is no longer passed: it pays again
                    f_stop[d - 1] = 1
                    _tally(tally, f_vertex[d - 1], 1, node_kidx, node_cost, node_optional,
                           node_value, node_subsidy, node_weight, node_tags, node_bound, visit_cap, pay_cap)
            d -= 1
            continue
        else:
            slot = f_adj[d]
            f_adj[d] = slot + 1
            c = adj_chain[slot]
            end = adj_end[slot]
            fwd = end == 0
            u = chain_ends[c, 1 - end]
            if visited[u] and not vertex_again[u]:
                continue
            if has_again and chain_used[c]:
                continue
            if has_forbid and _holds(forbid, chain_res, c, vertex_res, u, n_nodes):
                continue  # track another train holds
            arrived = f_chain[d]
            is_root = arrived == -1
            # Each route is walked once: a route with the anchor in its middle leaves it by
            # two chains, and arm 2 takes the higher-numbered one (or, walked worthier arm
            # first, the less worthy: `by_worth`); a route ending at the anchor is walked as
            # arm 2 alone (arm 1 empty).
            if is_root and phase == 2 and split > 1 and c <= f_chain[1] and not by_worth:
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
                leaving = chain_terminal[c, end]
                if is_root:
                    # the anchor in the middle of the route: arm 1 left it by chain f_chain[1]
                    came = chain_terminal[f_chain[1], 0 if f_fwd[1] else 1]
                else:
                    came = chain_terminal[arrived, 1 if f_fwd[d] else 0]
                # terminal track ends the route at its node; the two ends of a town's stretch
                # (`graph.track.STRETCH`) are one piece of track, never passed between
                if (came | leaving) & 1 or came & leaving & 2:
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
                if by_worth and phase == 2 and split > 1 and (
                        tally[T_WEIGHT] + tally[T_BOUND] + node_weight[u] + node_bound[u]
                        - state[7] > state[7] - anchor_held):
                    continue  # arm 2 worth more than arm 1: walked the other way round
                if node_optional[u]:
                    n_optional += 1
                else:
                    cnt[node_kidx[u]] += node_cost[u]
                    if not hall_ok(cnt, visit_cap):
                        cnt[node_kidx[u]] -= node_cost[u]
                        continue  # too long, and longer walks through u are too
                if has_cut:
                    # the walk's cut: no route through u is worth what is wanted. The stops it
                    # counts beyond the mandatory ones (optional ones visited, counted or not,
                    # and those to come) take at most `left` units, one each: at most the
                    # `left` worthiest of the board (`cut_top`), so optional stops visited add
                    # no weight of their own (their bonuses are in T_BOUND). So does the
                    # sharper cut, which weighs the optional ones visited with those to come.
                    held = node_bound[u] + tally[T_BOUND]
                    add = held + tally[T_MUST] + (node_weight[u] if node_optional[u] == 0 else 0)
                    left = n_top - 1 - (cnt[0] + cnt[1] + cnt[2] + cnt[3])
                    plain = add + cut_top[left] + cut_extra if n_top > 0 else NO_CUT
                    want = thr[0]
                    if n_partners > 0 and plain >= want:
                        want = max(want, plan_floor - _partner_bound(
                            d, d + 1, c, f_chain, partner))
                    if plain < want or (
                            n_reach > 0 and add + reach_extra + _reach_cut(
                                left, u, anchor if phase == 1 else -1, visited, track_cnt,
                                node_weight, node_bound, node_optional, any_optional, reach_order, reach_dist, reach_hexes,
                                reach_hex_amount, reach_hex_dist, reach_hex_tour) < want) or (
                            dyn and want > NO_WANT and reach_extra + _reach_worth(
                                u, c, chain_terminal[c, 1 - end] & 1,
                                anchor if phase == 1 else -1, visited, chain_used, adj_ptr,
                                adj_chain, adj_end, chain_ends, chain_terminal, vertex_again,
                                n_nodes, node_kidx, node_block, node_anchor_rank, my_rank,
                                has_forbid, forbid, chain_res, vertex_res, d, f_vertex, f_stop,
                                reach_walk, reach_work) < want):
                        if node_optional[u]:
                            n_optional -= 1
                        else:
                            cnt[node_kidx[u]] -= node_cost[u]
                        continue
                groups_used |= g
                n_stops += 1
                is_stop = 1
                _tally(tally, u, 1, node_kidx, node_cost, node_optional, node_value,
                       node_subsidy, node_weight, node_tags, node_bound, visit_cap, pay_cap)
            elif has_cut:
                # (the wanted worth rose since the last stop, the walk moved away, or its track
                # took the other trains' best routes)
                left = n_top - 1 - (cnt[0] + cnt[1] + cnt[2] + cnt[3])
                plain = tally[T_MUST] + tally[T_BOUND] + cut_extra + cut_top[left] \
                    if n_top > 0 else NO_CUT
                want = thr[0]
                if n_partners > 0 and plain >= want:
                    want = max(want, plan_floor - _partner_bound(
                        d, d + 1, c, f_chain, partner))
                if plain < want or (
                        n_reach > 0 and tally[T_MUST] + tally[T_BOUND] + reach_extra + _reach_cut(
                            left, u, anchor if phase == 1 else -1, visited, track_cnt,
                            node_weight, node_bound, node_optional, any_optional, reach_order, reach_dist, reach_hexes,
                            reach_hex_amount, reach_hex_dist, reach_hex_tour) < want):
                    continue
            visited[u] = True
            if track_cnt.shape[0] > 0:
                _count_hexes(track_cnt, c, chain_hex_ptr, chain_hexes, 1)
            if has_again:
                chain_used[c] = True
            new_hex = -1
            if track_hexes:
                new_hex = _mark_chain_hexes(c, fwd, f_hex[d], chain_hex_ptr, chain_hexes,
                                            hex_mark, 1)
            crossings += new_cross
            bypass += spend
            if spend and passed_unpaid and f_stop[d] == 1:
                # a passed city still uses distance (it stays in `cnt`) but pays nothing
                f_stop[d] = PASSED
                _tally(tally, v, -1, node_kidx, node_cost, node_optional, node_value,
                       node_subsidy, node_weight, node_tags, node_bound, visit_cap, pay_cap)
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
            if emit and by_worth and split > 1 and f_chain[split + 1] < f_chain[1] and (
                    tally[T_WEIGHT] + tally[T_BOUND] - state[7] == state[7] - anchor_held):
                emit = False  # (arms of equal worth: arm 2 leaves by the higher chain)

        if not emit:
            continue

        # ---- emit the route held in frames split-1..0 (arm 1, reversed) and split+1..d ----
        # Most routes can count every stop worth counting: then the tallies give the value with
        # no choosing. That is when the optional stops worth something fit the visit rows
        # beside the mandatory ones, and all of these fit the pay rows.
        all_fit = tally[T_PAY_OVER] == 0 and tally[T_VISIT_OVER] == 0
        tag_bon = 0  # the tag bonuses on the visited stops (a bound when they count paid ones)
        if n_bonus > 0:
            tag_bon = route_bonus(tally[T_TAGS:T_TAGS + MAX_TAGS], bonus_cond_ptr, bonus_cond_tag,
                                  bonus_cond_min, bonus_amount, bonus_group, bonus_per_count,
                                  n_bonus_groups, group_best)
        bon = tag_bon
        want = thr[0]
        if n_partners > 0:  # frame d holds what the other trains can add beside this route
            beside = 0
            for k in range(n_partners):
                beside += p_bound[d, k]
            want = max(want, plan_floor - beside)
        # End and track bonuses: a route's end stops are frames split-1 and d.
        end_a = f_vertex[split - 1]
        end_b = f_vertex[d]
        # a route walked worthier arm first whose arm 2 leaves by the lower chain is written the
        # other way round (B → T → A): as the walk by chain numbers writes it
        flip = by_worth and split > 1 and f_chain[split + 1] < f_chain[1]
        if flip:
            end_a, end_b = end_b, end_a
        if has_end_bonus:  # (bounded here; the ends must be paid, known after the choice)
            bon += max(node_end_bonus[end_a], node_end_bonus[end_b])
        if has_track_bonus:
            n_seen += 1
            bon += _track_bonus(f_chain, f_vertex, f_stop, split, d, chain_hex_ptr, chain_hexes,
                                node_hex, hex_track_bonus, track_skip_stops, hex_seen, n_seen)
        if tally[T_WEIGHT] + bon < want:
            continue  # (choosing cannot pay more than counting every stop worth counting)
        m = 0
        for i in range(split - 1, -1, -1):
            if f_stop[i] == 1:
                stops[m] = f_vertex[i]
                m += 1
        for i in range(split + 1, d + 1):
            if f_stop[i] == 1:
                stops[m] = f_vertex[i]
                m += 1
        if flip:
            for i in range(m // 2):
                stops[i], stops[m - 1 - i] = stops[m - 1 - i], stops[i]
        if tally_min.shape[0] > 0 and not _tallies_ok(f_stop, f_vertex, split, d, node_tally,
                                                      tally_min, tally_max):
            continue  # the route's tallies are out of their limits: no route
        if paid_choice and all_fit:
            # counting every stop worth counting is the best choice only if it leaves no
            # special stop (tagged, or a station) uncounted and pays a station when it must
            station = not paid_station
            for i in range(m):
                si = stops[i]
                if node_optional[si] == OPTIONAL and node_weight[si] <= 0 and (
                        node_tags[si] != 0 or (paid_station and node_anchor_rank[si] >= 0)):
                    all_fit = False
                if node_anchor_rank[si] >= 0 and (node_optional[si] != OPTIONAL
                                                   or node_weight[si] > 0):
                    station = True
            all_fit = all_fit and station
        if all_fit and not placing:
            for i in range(m):
                si = stops[i]
                paid[i] = node_optional[si] != OPTIONAL or node_weight[si] > 0
            rev = tally[T_REVENUE]
            sub = tally[T_SUBSIDY]
            worth = tally[T_WEIGHT]
        else:
            if placing:
                if not select_placed(stops, m, node_kidx, node_cost, node_optional, node_weight,
                                     node_value, row_kinds, row_visit, row_pay, paid, sel_order,
                                     place_dp, place_back):
                    continue  # the stops fit no placing in the rows: no route
            elif paid_choice:
                total, paid_bon = select_paid_bonus(
                    stops, m, node_kidx, node_cost, node_optional, node_weight, node_value,
                    node_tags, node_anchor_rank, cnt, visit_cap, pay_cap, paid_station,
                    bonus_cond_ptr, bonus_cond_tag, bonus_cond_min, bonus_amount, bonus_group,
                    bonus_per_count, n_bonus_groups, group_best, paid, sel_best, sel_order,
                    sel_vis, sel_pay, sel_special, sel_tags)
                if total < 0:
                    continue  # no choice pays a station: the route is not run
                bon += paid_bon - tag_bon
            else:
                select_paid(stops, m, node_kidx, node_cost, node_optional, node_weight,
                            node_value, cnt, visit_cap, pay_cap, paid, sel_order, sel_vis, sel_pay)
            rev = 0
            sub = 0
            worth = 0
            for i in range(m):
                if paid[i]:
                    rev += node_value[stops[i]]
                    sub += node_subsidy[stops[i]]
                    worth += node_weight[stops[i]]
            if has_end_bonus:  # an end pays again only when it is paid
                bon -= max(node_end_bonus[end_a], node_end_bonus[end_b])
                bon += max(node_end_bonus[end_a] if paid[0] else 0,
                           node_end_bonus[end_b] if paid[m - 1] else 0)
        if worth + bon < want:
            continue
        if thr[1]:
            thr[0] = max(thr[0], worth + bon - thr[5])
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
        if flip:  # (B → T → A: the chains in reverse, each run the other way)
            for i in range(nc // 2):
                a = out_chains[n_out_chains + i]
                out_chains[n_out_chains + i] = ~out_chains[n_out_chains + nc - 1 - i]
                out_chains[n_out_chains + nc - 1 - i] = ~a
            if nc % 2:
                out_chains[n_out_chains + nc // 2] = ~out_chains[n_out_chains + nc // 2]
        for i in range(1, d + 1):
            vv = f_vertex[i]
            if vv >= n_nodes:
                r = vertex_res[vv]
                res[r >> 6] |= np.uint64(1) << np.uint64(r & 63)
        if n_partners == 1:
            # the lone partner's best route beside this one, among those worth enough
            need = plan_floor - (worth + bon)
            j = _lone_partner(d, need, f_chain, partner)
            if j < p_value.shape[0] and p_value[j] >= need:
                if worth + bon + p_value[j] > plan_floor and p_floor[1]:
                    plan_floor = worth + bon + p_value[j]  # a plan this good exists
                    p_floor[0] = plan_floor
            elif max(p_fallback, 0) < need:
                continue  # no plan with this route reaches the floor
        m_out = m
        if passed_unpaid and bypass > 0:
            # the stops in route order again, with the passed city among them, unpaid
            j = 0
            m_out = 0
            for step in range(d):
                i = split - 1 - step if step < split else step + 1
                if f_stop[i] == 1:
                    out_nodes[n_out_nodes + m_out] = stops[j]
                    out_paid[n_out_nodes + m_out] = paid[j]
                    j += 1
                    m_out += 1
                elif f_stop[i] == PASSED:
                    out_nodes[n_out_nodes + m_out] = f_vertex[i]
                    out_paid[n_out_nodes + m_out] = False
                    m_out += 1
        else:
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
        n_out_nodes += m_out
        n_out_chains += nc
        out_node_ptr[n_out + 1] = n_out_nodes
        out_chain_ptr[n_out + 1] = n_out_chains
        n_out += 1
    state[0] = -2
    state[STEPS_TAKEN] = steps
    return OK, n_out, n_out_nodes, n_out_chains


STEPS_TAKEN = 8  # `WalkWork.state`: the steps an anchor's walk took in its last call
AT_ANCHOR = 9  # ... the anchor at work, by its place in the train's anchors (`enumerate_anchors`)
ANCHOR_STEPS = 10  # ... the steps its walk has taken
STATE = 11  # the state's length


@kernel
def enumerate_anchors(anchors, arms_of, track, train, out, n_out, n_out_nodes, n_out_chains, work,
                      budget, first_budget, thr, forbid, partner, arm_best):
    """`enumerate_anchor` over `anchors` in turn, from the one at ``state[AT_ANCHOR]``, each
    begun afresh, in one call as long as they take `budget` steps in all: returns as it does,
    OK once the last is done (a walk of many anchors, each over in a few steps, costs one call
    from Python, not one per anchor: each call hands over the hundred arrays of the track,
    the train and the walk). `arm_best` bounds the arms of the anchor at place `arms_of`
    only; an anchor whose arms are not bounded pauses once its walk has taken `first_budget`
    steps (for the caller to bound them)."""
    state = work[7]
    left = budget
    no_arms = np.zeros(0, np.int64)
    while state[AT_ANCHOR] < anchors.shape[0]:
        k = state[AT_ANCHOR]
        steps = left if arms_of == k else min(left, first_budget - state[ANCHOR_STEPS])
        state[STEPS_TAKEN] = 0  # (a walk that cannot begin takes none)
        status, n_out, n_out_nodes, n_out_chains = enumerate_anchor(
            anchors[k], track, train, out, n_out, n_out_nodes, n_out_chains, work, steps, thr,
            forbid, partner, arm_best if arms_of == k else no_arms)
        state[ANCHOR_STEPS] += state[STEPS_TAKEN]
        if status != OK:
            return status, n_out, n_out_nodes, n_out_chains
        left -= state[STEPS_TAKEN]
        state[AT_ANCHOR] = k + 1
        state[ANCHOR_STEPS] = 0
        state[0] = -1  # (the next anchor begins)
        if left <= 0 and k + 1 < anchors.shape[0]:
            return PAUSE, n_out, n_out_nodes, n_out_chains
    return OK, n_out, n_out_nodes, n_out_chains

@kernel
def stop_bitsets(src, node_ptr, nodes, words):
    """Per route (sorted order, `src` into the ragged stop arrays) the bitset of its stops."""
    out = np.zeros((src.shape[0], words), np.uint64)
    for i in range(src.shape[0]):
        k = src[i]
        for j in range(node_ptr[k], node_ptr[k + 1]):
            n = nodes[j]
            out[i, n >> 6] |= np.uint64(1) << np.uint64(n & 63)
    return out
