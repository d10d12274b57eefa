"""numba kernel: exact branch-and-bound choice of one route per train with disjoint resources.

Trains are levels; each level's candidates are sorted best first and the last choice of a level
(index ``n``) is "idle". A partial choice is cut when its value plus the best remaining
trains' values cannot beat the incumbent; since candidates are sorted, the first cut at a level
ends that level. Identical trains take increasing candidate indices (symmetry). The search is
resumable: its whole state lives in the arrays the caller passes, so a caller can run it in
slices and stop at a deadline with an honest bound.
"""

from __future__ import annotations

import numpy as np
from hexrail.compiled import kernel

DONE = 0
BUDGET = 1  # node budget spent; call again with the same state to go on


REGION_SHIFT = 2  # `hexrail.stage.REGION` is 1 << REGION_SHIFT


@kernel
def _conflicts(res, i, mask):
    for w in range(mask.shape[0]):
        if res[i, w] & mask[w]:
            return True
    return False


@kernel
def _first_free(start, stop, res, mask):
    """Index of the first candidate in [start, stop) whose resources avoid `mask`, or stop."""
    for i in range(start, stop):
        if not _conflicts(res, i, mask):
            return i
    return stop


@kernel
def _first_at_most(value, start, stop, limit):
    """The first index in [start, stop) whose value is at most `limit` (values sorted
    descending), or stop."""
    lo, hi = start, stop
    while lo < hi:
        mid = (lo + hi) >> 1
        if value[mid] > limit:
            lo = mid + 1
        else:
            hi = mid
    return lo


@kernel
def routes_meet(stop_bits, rows):
    """Do the routes ``stop_bits[rows]`` (bitsets of their stops) form one graph through
    shared stops? Every combiner asks this one function."""
    n = rows.shape[0]
    if n <= 1:
        return True
    reached = np.zeros(n, np.bool_)
    reached[0] = True
    todo = np.empty(n, np.int64)
    todo[0] = 0
    n_todo = 1
    n_reached = 1
    while n_todo:
        n_todo -= 1
        i = todo[n_todo]
        for j in range(n):
            if reached[j]:
                continue
            for w in range(stop_bits.shape[1]):
                if stop_bits[rows[i], w] & stop_bits[rows[j], w]:
                    reached[j] = True
                    n_reached += 1
                    todo[n_todo] = j
                    n_todo += 1
                    break
    return n_reached == n


@kernel
def plan_ok(train_ptr, idx, cand_meets, cand_stops, required, require_intersect, region_limits):
    """Do the chosen candidates (``idx[s]`` per level, past the end = idle) meet the plan
    rules: for every bit of `required`, a route whose `cand_meets` has it ("one route must
    include the home token", ...); per region r at most ``region_limits[r]`` routes whose
    `cand_meets` has bit ``REGION << r``; routes joined through shared stops?"""
    n_levels = train_ptr.shape[0] - 1
    chosen = np.empty(n_levels, np.int64)
    k = 0
    for s in range(n_levels):
        if idx[s] < train_ptr[s + 1] - train_ptr[s]:
            chosen[k] = train_ptr[s] + idx[s]
            k += 1
    if k == 0:
        return True
    if required:
        met = 0
        for a in range(k):
            met |= cand_meets[chosen[a]]
        if met & required != required:
            return False
    for r in range(region_limits.shape[0]):
        inside = 0
        for a in range(k):
            if (cand_meets[chosen[a]] >> (REGION_SHIFT + r)) & 1:
                inside += 1
        if inside > region_limits[r]:
            return False
    if require_intersect and not routes_meet(cand_stops, chosen[:k]):
        return False
    return True


@kernel
def branch_and_bound(train_ptr, value, res, same_as_prev, suffix_max,
                     level, idx, used, cur, hint, best, best_choice, budget,
                     cand_meets, cand_stops, required, require_intersect, region_limits):
    """Search on from the saved state; returns (status, level, best, work done).

    Work counts search nodes and candidates scanned; the search pauses once it exceeds
    `budget`, between steps, so a caller can watch a deadline.

    ``idx[t]`` is the candidate being tried at level t (relative to ``train_ptr[t]``; -1 before
    the first try), ``used[t]``/``cur[t]`` the resources and value taken by levels < t, and
    ``hint[t, s]`` how many leading candidates of level s clash with ``used[t]`` (found while
    bounding): a path only ever takes more, so scans below it may start there.

    With `required`/`require_intersect` a full choice must also pass `plan_ok`; the bounds
    ignore those rules, so they stay admissible.
    """
    n_levels = train_ptr.shape[0] - 1
    constrained = required != 0 or require_intersect or region_limits.shape[0] > 0
    words = res.shape[1]
    nodes = 0
    t = level
    while t >= 0:
        nodes += 1
        if nodes > budget:
            return BUDGET, t, best, nodes
        lo = train_ptr[t]
        n = train_ptr[t + 1] - lo
        i = idx[t] + 1
        if i == 0:
            i = hint[t, t]
        if same_as_prev[t] and t > 0:
            # identical trains: strictly increasing choices, idle only after an idle one
            prev = idx[t - 1]
            if prev >= train_ptr[t] - train_ptr[t - 1]:
                i = max(i, n)
            else:
                i = max(i, prev + 1)
        found = -1
        while i <= n:
            nodes += 1  # work counts candidates looked at, so slices stay short
            v = value[lo + i] if i < n else 0
            if cur[t] + v + suffix_max[t + 1] <= best:
                i = n + 1  # sorted: nothing later at this level can do better
                break
            if i == n or not _conflicts(res, lo + i, used[t]):
                found = i
                break
            i += 1
        if found < 0:
            idx[t] = -1
            t -= 1
            continue
        idx[t] = found
        v = value[lo + found] if found < n else 0
        if t == n_levels - 1:
            total = cur[t] + v
            if constrained and not plan_ok(train_ptr, idx, cand_meets, cand_stops,
                                           required, require_intersect, region_limits):
                continue  # look further down this level
            if total > best:
                best = total
                for s in range(n_levels):
                    best_choice[s] = idx[s]
            # the first free candidate is the best this level can do: the level is finished
            idx[t] = -1
            t -= 1
            continue
        for w in range(words):
            used[t + 1, w] = used[t, w]
        if found < n:
            for w in range(words):
                used[t + 1, w] |= res[lo + found, w]
        cur[t + 1] = cur[t] + v
        if t + 1 == n_levels - 1 and not constrained:
            # one train left: its first free candidate is its best (same-as-previous trains
            # must take a later index, or stay idle after an idle one)
            lo2 = train_ptr[t + 1]
            n2 = train_ptr[t + 2] - lo2
            start = lo2 + hint[t, t + 1]
            if same_as_prev[t + 1]:
                start = max(start, lo2 + found + 1 if found < n else lo2 + n2)
            # only candidates that beat the incumbent are worth a look: sorted, so they
            # are a prefix, found by bisection
            stop = _first_at_most(value, start, lo2 + n2, best - cur[t + 1])
            j = _first_free(start, stop, res, used[t + 1])
            nodes += j - start
            if j == stop:
                j = lo2 + n2  # none beats the incumbent: idle is all this path can add
            total = cur[t + 1] + (value[j] if j < lo2 + n2 else 0)
            if total > best:
                best = total
                for s in range(t + 1):
                    best_choice[s] = idx[s]
                best_choice[t + 1] = j - lo2
            continue
        # tighter bound: each later train's best route that avoids what is taken so far
        bound = cur[t + 1]
        for s in range(t + 1, n_levels):
            # a candidate of level s helps the bound past the incumbent only if it is worth
            # more than what the levels after it could still miss: scan those alone
            start = train_ptr[s] + hint[t, s]
            need = best - bound - suffix_max[s + 1]
            stop = _first_at_most(value, start, train_ptr[s + 1], need)
            j = _first_free(start, stop, res, used[t + 1])
            nodes += j - start
            hint[t + 1, s] = j - train_ptr[s]  # all before j clash
            if j < stop:
                bound += max(value[j], 0)  # idling is allowed too
            elif need >= 0:
                # level s adds at most `need` (or idles): this path cannot beat the incumbent
                bound = best
                break
            # else idling (0) beats every candidate left: level s adds nothing
        if bound <= best:
            continue
        idx[t + 1] = -1
        t += 1
    return DONE, -1, best, nodes


@kernel
def undominated(bits, key, bonus):
    """Indices of the rows no other row dominates. Row i dominates row j when they share a
    `key`, i's `bits` contain j's and i's `bonus` is at least j's; of equal rows the first
    stays. Rows must come sorted by decreasing popcount (a dominator is never after)."""
    n, words = bits.shape
    kept = np.empty(n, np.int64)
    n_kept = 0
    for j in range(n):
        dominated = False
        for k in range(n_kept):
            i = kept[k]
            if key[i] != key[j] or bonus[i] < bonus[j]:
                continue
            inside = True
            for w in range(words):
                if bits[j, w] & ~bits[i, w]:
                    inside = False
                    break
            if inside:
                dominated = True
                break
        if not dominated:
            kept[n_kept] = j
            n_kept += 1
    return kept[:n_kept]


@kernel
def route_hex_bits(src, chain_ptr, chains, chain_hex_ptr, chain_hexes, words):
    """Per route (in sorted order, `src` into the ragged chain arrays) the bitset of the hexes
    its track passes."""
    n = src.shape[0]
    out = np.zeros((n, words), np.uint64)
    for i in range(n):
        k = src[i]
        for c in chains[chain_ptr[k]:chain_ptr[k + 1]]:
            if c < 0:
                c = ~c
            for h in chain_hexes[chain_hex_ptr[c]:chain_hex_ptr[c + 1]]:
                out[i, h >> 6] |= np.uint64(1) << np.uint64(h & 63)
    return out


@kernel(inline=True)
def _gain(pay_ptr, pay_loc, pay_w, alone, extra, counted, i):
    """Route i's payable locations' worth above what `counted` holds (at most what it earns
    alone), plus its bonus."""
    pay = 0
    for j in range(pay_ptr[i], pay_ptr[i + 1]):
        more = pay_w[j] - counted[pay_loc[j]]
        if more > 0:
            pay += more
    return min(pay, alone[i]) + extra[i]


@kernel
def route_gains(pay_ptr, pay_loc, pay_w, alone, extra, covered, hex_ptr, hex_idx, hexes,
                hex_weight):
    """Per route: what it adds to a partial plan that counts `covered[loc]` for each location
    and covers the hexes `hexes` — what its payable locations are worth above what is counted
    (never more than it earns alone), its bonus, its new hexes' subsidy (sparse rows:
    ``pay_ptr``/``hex_ptr``)."""
    n = alone.shape[0]
    out = np.empty(n, np.int64)
    for i in range(n):
        gain = _gain(pay_ptr, pay_loc, pay_w, alone, extra, covered, i)
        if hex_weight:
            new = 0
            for j in range(hex_ptr[i], hex_ptr[i + 1]):
                if not hexes[hex_idx[j]]:
                    new += 1
            gain += new * hex_weight
        out[i] = gain
    return out


@kernel
def follower_gains(pay_ptr, pay_loc, pay_w, alone, extra, covered, hex_ptr, hex_idx, hexes,
                   hex_weight):
    """For each route k of a train followed by identical trains (which take routes j >= k):
    the most one follower can add once route k is chosen too — max over j >= k of route j's
    gain (`route_gains`) over `covered` and `hexes` raised by route k's locations and hexes."""
    n = alone.shape[0]
    out = np.zeros(n, np.int64)
    counted = covered.copy()
    seen = hexes.copy()
    for k in range(n):
        out[k] = follower_gain(pay_ptr, pay_loc, pay_w, alone, extra, covered, hex_ptr, hex_idx,
                               hexes, hex_weight, k, n, counted, seen)
    return out


@kernel
def follower_gain(pay_ptr, pay_loc, pay_w, alone, extra, covered, hex_ptr, hex_idx, hexes,
                  hex_weight, k, stop, counted, seen):
    """`follower_gains` of route k, the follower's routes being k to `stop` - 1. `counted` and
    `seen` are scratch copies of `covered` and `hexes`, as they were again on return."""
    for t in range(pay_ptr[k], pay_ptr[k + 1]):
        counted[pay_loc[t]] = max(counted[pay_loc[t]], pay_w[t])
    for t in range(hex_ptr[k], hex_ptr[k + 1]):
        seen[hex_idx[t]] = True
    best = 0
    for j in range(k, stop):
        gain = _gain(pay_ptr, pay_loc, pay_w, alone, extra, counted, j)
        if hex_weight:
            for t in range(hex_ptr[j], hex_ptr[j + 1]):
                if not seen[hex_idx[t]]:
                    gain += hex_weight
        best = max(best, gain)
    for t in range(pay_ptr[k], pay_ptr[k + 1]):
        counted[pay_loc[t]] = covered[pay_loc[t]]
    for t in range(hex_ptr[k], hex_ptr[k + 1]):
        seen[hex_idx[t]] = hexes[hex_idx[t]]
    return best


@kernel
def route_end_hexes(src, chain_ptr, chains, chain_hex_ptr, chain_hexes):
    """Per route (`src` into the ragged chain arrays): the hex its track comes from at its first
    stop and at its last — the second and the second-to-last of the hexes it passes (runs
    collapsed), or its only hex."""
    n = src.shape[0]
    out = np.empty((n, 2), np.int64)
    for i in range(n):
        k = src[i]
        count = 0
        first = second = last = before = -1
        for c in chains[chain_ptr[k]:chain_ptr[k + 1]]:
            cc = c if c >= 0 else ~c
            lo, hi = chain_hex_ptr[cc], chain_hex_ptr[cc + 1]
            for j in range(hi - lo):
                h = chain_hexes[lo + j] if c >= 0 else chain_hexes[hi - 1 - j]
                if count and h == last:
                    continue
                if count == 0:
                    first = h
                elif count == 1:
                    second = h
                before = last
                last = h
                count += 1
        out[i, 0] = second if count > 1 else first
        out[i, 1] = before if count > 1 else last
    return out
