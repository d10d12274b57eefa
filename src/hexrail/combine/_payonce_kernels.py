"""numba kernels of the pay-once search (`combine.payonce`): its depth-first search over flat arrays.

`search` runs the branch and bound the `payonce` module describes: levels, gains, bounds and
cut-offs, candidates tried by gain, and the exact pricing of complete choices (sets formed as
18xx.games forms them, the paid stops chosen over the trains' pay limits, every payer tried for
a location worth more to one train than to another). It finds gains and bounds only as far as
the cut-offs look at them. Its slow twins are the brute-force oracle and the validator, which
tests compare it with.

The search keeps its whole state in the arrays of a `State` (an explicit stack of frames, one
per open search node), so it pauses every `pause_every` nodes and the caller can watch a
deadline and call again to go on.

Inputs are grouped in named tuples: `Board` (every train's candidates, built once per combiner
call) and `Levels` (one search's trains in level order and its settings). Per-row data sits in
a few 2-D arrays whose columns are named below: a tuple of many arrays makes every kernel call
pass them all, which numba compiles slowly.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from hexrail.compiled import kernel

from hexrail.combine._kernels import _gain, follower_gain, routes_meet

DONE = 0
PAUSED = 1  # `pause_every` nodes searched; call again with the same state to go on

# frame kinds
LEVEL = 0  # one train's level: its candidates by gain, then idleness
SETS = 1  # every set train placed: one child per way its routes form sets
LEAF = 2  # a complete choice, priced exactly

# `Board.table` columns, per candidate table (identical trains share one)
T_FIRST, T_STOP = 0, 1  # its candidates' global indices
T_SET = 2  # set trains (paid for their set's ends)
T_TEMPORARY = 3  # temporary set trains
T_HEX_WEIGHT = 4  # what a new hex adds (0: no hex subsidy)
T_CAPS, T_CAPS_STOP = 5, 6  # its binding pay limits (rows of `Board.caps`)
TABLE_COLS = 7

# `Board.cand` columns, per candidate
C_TABLE = 0
C_BONUS = 1  # the route's own bonus, scaled
C_MOST_FROM = 2  # the most any candidate from this one on (in its table) can add to a plan
C_SINGLE_BONUS = 3  # a set of this route alone: its bonus, unscaled
C_MEETS = 4  # the bits of the "one route must ..." rules it meets (`hexrail.stage.meets`)
C_END = 5  # and 6: its first and last stop
C_KEY = 7  # and 8: set trains' end keys (rows of `Board.bonus_table`)
C_ENT, C_ENT_STOP = 9, 10  # its payable locations (rows of `Board.ent`)
CAND_COLS = 11

# `Board.ent` columns, per payable location of a candidate, in the order the search meets them
E_LOC, E_STOP, E_WORTH, E_KIND = 0, 1, 2, 3

# `Levels.level` columns
L_TRAIN = 0
L_FOLLOWERS = 1  # identical trains right after the level
L_TWIN = 2  # 1: the level's train is the previous level's twin

# `State.ctl` slots
TOP = 0  # the open frame on top of the stack (-1: the search is done)
ENTERING = 1  # the top frame is a node not yet set up
COUNTED = 2  # ... and it has been counted already (the search paused just after)
NODES = 3
BEST = 4
N_OPTIONS = 5  # ways the set routes form sets, in `State.options`
WORK = 6  # work units left before the search pauses, even inside a node (`search`)
CUT = -2  # a node cut short by the work budget (`set_options`, `price`)

# `State.frame` columns
F_KIND, F_DEPTH, F_BASE = 0, 1, 2
F_N_TODO, F_POS, F_STAGE = 3, 4, 5  # candidates to try, the next one; 1: idleness tried
F_LOOSE, F_JOINS, F_IDLE_REST = 6, 7, 8  # the level's loose bound, join slack; what follows idleness
F_TAIL_SETS, F_TAIL_OTHERS = 9, 10  # `_rest_parts` after the level and its followers
F_TWINS = 11  # 1: the level's train is the first of identical ones
FRAME_COLS = 12


class Board(NamedTuple):
    """Every train's candidates (those the search keeps, best alone first), in flat arrays."""

    train_table: np.ndarray  # int64[trains]: the candidate table of each train
    table: np.ndarray  # int64[tables, TABLE_COLS]
    # what each candidate is worth to a plan (`payonce._Train`, its sparse rows)
    pay_ptr: np.ndarray
    pay_loc: np.ndarray
    pay_w: np.ndarray
    alone: np.ndarray
    extra: np.ndarray
    hex_ptr: np.ndarray
    hex_idx: np.ndarray
    cand: np.ndarray  # int64[candidates, CAND_COLS]
    ent: np.ndarray  # int64[entries, 4]: location, stop, worth, stop kind index
    caps: np.ndarray  # int64[limits, 2]: stop kinds (a bit per kind index), how many are paid
    stop_bits: np.ndarray  # uint64[candidates, words]: the stops each visits
    bonus_table: np.ndarray  # int64[keys, keys]: set bonus between two end keys (0 x 0: none)
    rev_scale: int  # a revenue unit, scaled
    hex_weight: int  # a hex subsidy as the objective counts it
    n_loc: int
    n_hex: int


class Levels(NamedTuple):
    """One search: its trains in level order (set trains first) and its settings."""

    level: np.ndarray  # int64[levels, 3]
    caps_from: np.ndarray  # int64[levels + 1]: what the non-set trains from a level on earn
    # together at most (-1: not known)
    set_trains: np.ndarray  # int64[set trains]: in train order
    # per count m of running set trains: the plan orders (rows of m positions into the running
    # set trains) and route directions (bit p: position p runs backwards) to try
    perm_ptr: np.ndarray
    perms: np.ndarray
    flip_ptr: np.ndarray
    flips: np.ndarray
    slack: int  # what joining two sets can add, at most
    required: int  # bits of the "one route must ..." rules in force
    check_meet: bool


class State(NamedTuple):
    """The search's stack and its best plan so far (`new_state`)."""

    ctl: np.ndarray  # int64: TOP, ENTERING, COUNTED, NODES, BEST, N_OPTIONS, WORK
    choice: np.ndarray  # int64[trains]: candidate per train, -1 idle
    best_choice: np.ndarray
    frame: np.ndarray  # int64[frames, FRAME_COLS]
    covered: np.ndarray  # int64[frames, locations]: value counted per location
    hexes: np.ndarray  # bool[frames, hexes]
    gains: np.ndarray  # int64[frames, candidates]
    bound: np.ndarray
    todo: np.ndarray  # int64[frames, candidates]: candidates to try, best gain first
    options: np.ndarray  # int64[options, 1 + set trains]: the sets' bonuses; per set train
    # the payable locations it is paid for (bits)


def new_state(n_trains: int, n_levels: int, n_loc: int, n_hex: int, max_cands: int,
              max_options: int, n_set: int, root: int) -> State:
    """A search at its root (a frame of kind `root`): no plan found yet (best -1)."""
    frames = n_levels + 2  # the levels, a sets frame and a leaf
    frame = np.zeros((frames, FRAME_COLS), np.int64)
    frame[0, F_KIND] = root
    return State(
        ctl=np.array([0, 1, 0, 0, -1, 0, 1 << 62], np.int64),
        choice=np.full(n_trains, -1, np.int64), best_choice=np.full(n_trains, -1, np.int64),
        frame=frame, covered=np.zeros((frames, n_loc), np.int64),
        hexes=np.zeros((frames, n_hex), np.bool_), gains=np.zeros((frames, max_cands), np.int64),
        bound=np.zeros((frames, max_cands), np.int64), todo=np.zeros((frames, max_cands), np.int64),
        options=np.zeros((max_options, 1 + n_set), np.int64))


# -- sets, as `combine.sets` forms them -------------------------------------------------------


@kernel
def _uniq(items):
    out = np.empty(items.shape[0], np.int64)
    n = 0
    for x in items:
        seen = False
        for j in range(n):
            if out[j] == x:
                seen = True
                break
        if not seen:
            out[n] = x
            n += 1
    return out[:n]


@kernel
def _follow(node, route, alive, ends, temporary, ctl):
    """`sets._follow` (with `sets._one_way` inlined): the routes a set takes on from `node`,
    leaving `route`; `alive` marks the routes not yet in a set. A unit of ``ctl[WORK]`` per
    call (branches are followed on copies: the work grows fast with routes meeting at stops);
    once it runs out the answer is meaningless, and the callers give up."""
    alive[route] = False
    ctl[WORK] -= 1
    if ctl[WORK] < 0:
        return np.empty(0, np.int64)
    m = alive.shape[0]
    touching = np.empty(m, np.int64)
    n_touch = 0
    for r in range(m):
        if alive[r] and (ends[r, 0] == node or ends[r, 1] == node):
            touching[n_touch] = r
            n_touch += 1
    chosen = np.empty(0, np.int64)
    chosen_temp = False
    for i in range(n_touch):
        r = touching[i]
        # one route goes on in place; of several, each branch is followed on a copy
        here = alive if n_touch == 1 else alive.copy()
        walked = np.array([r], np.int64)
        if ends[r, 0] != node:
            walked = np.concatenate((walked, _follow(ends[r, 0], r, here, ends, temporary, ctl)))
        if ends[r, 1] != node:
            walked = np.concatenate((walked, _follow(ends[r, 1], r, here, ends, temporary, ctl)))
        walked = _uniq(walked)
        if n_touch == 1:
            return walked
        # the first branch holding a temporary train, else the first longest
        temp = False
        for x in walked:
            temp = temp or temporary[x]
        if not chosen_temp and (temp or walked.shape[0] > chosen.shape[0]):
            chosen, chosen_temp = walked, temp
    for x in chosen:
        alive[x] = False
    return chosen


@kernel
def build_sets(ends, temporary, ctl):
    """`sets.build_sets`: the sets as (route indices, each set's first route first; per set its
    slice ``set_ptr[k]:set_ptr[k + 1]``); meaningless once ``ctl[WORK]`` is below 0."""
    m = ends.shape[0]
    alive = np.ones(m, np.bool_)
    members = np.empty(m * (m + 1), np.int64)
    set_ptr = np.zeros(m + 2, np.int64)
    n_sets = 0
    start = -1
    for r in range(m):
        if temporary[r]:
            start = r
            break
    while True:
        if start < 0:
            for r in range(m):
                if alive[r]:
                    start = r
                    break
        if start < 0:
            break
        a, b = ends[start, 0], ends[start, 1]
        out = np.concatenate((np.array([start], np.int64), _follow(a, start, alive, ends, temporary, ctl)))
        out = _uniq(np.concatenate((out, _follow(b, start, alive, ends, temporary, ctl))))
        lo = set_ptr[n_sets]
        members[lo:lo + out.shape[0]] = out
        set_ptr[n_sets + 1] = lo + out.shape[0]
        n_sets += 1
        start = -1
    return members[:set_ptr[n_sets]], set_ptr[:n_sets + 1]


@kernel
def _set_ends(members, ends):
    """`sets.set_ends`: the stops ending one route only (a loop: its first stop, twice; -1
    twice for a set with one such stop only, which is illegal)."""
    stops = np.empty(2 * members.shape[0], np.int64)
    count = np.zeros(2 * members.shape[0], np.int64)
    n = 0
    for r in members:
        for j in range(2):
            s = ends[r, j]
            k = 0
            while k < n and stops[k] != s:
                k += 1
            if k == n:
                stops[n] = s
                n += 1
            count[k] += 1
    first = last = -1
    free = 0
    for k in range(n):
        if count[k] == 1:
            free += 1
            if first < 0:
                first = stops[k]
            last = stops[k]
    if free == 0:
        return stops[0], stops[0]
    if free == 1:
        return -1, -1
    return first, last


@kernel
def _sets_legal(members, set_ptr, temporary):
    """`sets.sets_legal`: all temporary routes in one set, which holds a permanent one if
    there are more sets."""
    n_sets = set_ptr.shape[0] - 1
    with_temp = -1
    for k in range(n_sets):
        for x in members[set_ptr[k]:set_ptr[k + 1]]:
            if temporary[x]:
                if with_temp >= 0 and with_temp != k:
                    return False
                with_temp = k
    if with_temp < 0 or n_sets == 1:
        return True
    for x in members[set_ptr[with_temp]:set_ptr[with_temp + 1]]:
        if not temporary[x]:
            return True
    return False


@kernel
def _all_orders(ends, temporary, ctl):
    """`payonce._Search._arrangements_of`: must every plan order and direction of the set
    routes be tried (three ends meet at a stop, or routes close a loop)?"""
    m = ends.shape[0]
    if m < 2:
        return False
    most = 0
    for r in range(m):
        for j in range(2):
            c = 0
            for r2 in range(m):
                for j2 in range(2):
                    if ends[r2, j2] == ends[r, j]:
                        c += 1
            most = max(most, c)
    if most == 1:
        return False
    if most >= 3:
        return True
    members, set_ptr = build_sets(ends, temporary, ctl)
    if ctl[WORK] < 0:
        return False  # (the caller gives up)
    for k in range(set_ptr.shape[0] - 1):
        a, b = _set_ends(members[set_ptr[k]:set_ptr[k + 1]], ends)
        if a == b:
            return True
    return False


@kernel
def _set_option(board, running, perm, flip, paid, ctl):
    """`payonce._Search._set_part` for one arrangement (plan order `perm` of the running set
    routes `running`, those in `flip` run backwards; both by position in `running`): the sets'
    bonuses, and per running set route (by position) its paid payable locations as bits in
    `paid`; -1 when the temporary trains break the rules, CUT when the work budget ran out."""
    cand = board.cand
    m = running.shape[0]
    ends = np.empty((m, 2), np.int64)
    keys = np.empty((m, 2), np.int64)
    temporary = np.empty(m, np.bool_)
    for j in range(m):
        g = running[perm[j]]
        back = (flip >> perm[j]) & 1
        for e in range(2):
            ends[j, e] = cand[g, C_END + (e ^ back)]
            keys[j, e] = cand[g, C_KEY + (e ^ back)]
        temporary[j] = board.table[cand[g, C_TABLE], T_TEMPORARY]
    distinct = True
    for j in range(m):
        for e in range(2):
            for j2 in range(m):
                for e2 in range(2):
                    if (j2, e2) != (j, e) and ends[j2, e2] == ends[j, e]:
                        distinct = False
    if distinct:  # no route meets another: sets of one
        members = np.arange(m)
        set_ptr = np.arange(m + 1)
    else:
        members, set_ptr = build_sets(ends, temporary, ctl)
        if ctl[WORK] < 0:
            return CUT
    if not _sets_legal(members, set_ptr, temporary):
        return -1
    for k in range(set_ptr.shape[0] - 1):
        if _set_ends(members[set_ptr[k]:set_ptr[k + 1]], ends)[0] < 0:
            return -1  # a set with one end only
    value = 0
    for k in range(set_ptr.shape[0] - 1):
        mem = members[set_ptr[k]:set_ptr[k + 1]]
        a, b = _set_ends(mem, ends)
        if board.bonus_table.shape[0]:
            key_a = key_b = -1
            for r in mem:
                for e in range(2):
                    if key_a < 0 and ends[r, e] == a:
                        key_a = keys[r, e]
                    if key_b < 0 and ends[r, e] == b:
                        key_b = keys[r, e]
            value += board.bonus_table[key_a, key_b]
        else:  # one set train: its route alone
            value += cand[running[perm[mem[0]]], C_SINGLE_BONUS]
        for r in mem:
            g = running[perm[r]]
            bits = 0
            for i in range(cand[g, C_ENT], cand[g, C_ENT_STOP]):
                if board.ent[i, E_STOP] == a or board.ent[i, E_STOP] == b:
                    bits |= 1 << (i - cand[g, C_ENT])
            paid[perm[r]] = bits
    return value


@kernel
def _cand(board, choice, t):
    """Train t's chosen candidate as a global index (-1: idle)."""
    k = choice[t]
    return -1 if k < 0 else board.table[board.train_table[t], T_FIRST] + k


@kernel
def set_options(board, levels, choice, options, ctl):
    """Every legal way the chosen set routes form sets, of
    those pricing alike the first, into `options` (`State.options`); returns how many, or
    CUT when the work budget ``ctl[WORK]`` runs out first (an arrangement costs a unit per
    route)."""
    n_set = levels.set_trains.shape[0]
    running = np.empty(n_set, np.int64)  # candidate of each running set train, train order
    position = np.empty(n_set, np.int64)  # its position in levels.set_trains
    m = 0
    for p in range(n_set):
        g = _cand(board, choice, levels.set_trains[p])
        if g >= 0:
            running[m] = g
            position[m] = p
            m += 1
    running = running[:m]
    ends = np.empty((m, 2), np.int64)
    temporary = np.empty(m, np.bool_)
    for j in range(m):
        ends[j, 0], ends[j, 1] = board.cand[running[j], C_END], board.cand[running[j], C_END + 1]
        temporary[j] = board.table[board.cand[running[j], C_TABLE], T_TEMPORARY]
    every = _all_orders(ends, temporary, ctl)
    if ctl[WORK] < 0:
        return CUT
    n_perm = (levels.perm_ptr[m + 1] - levels.perm_ptr[m]) // max(m, 1) if every else 1
    n_flip = levels.flip_ptr[m + 1] - levels.flip_ptr[m] if every else 1
    row = np.zeros(1 + n_set, np.int64)
    paid = np.zeros(max(m, 1), np.int64)
    n = 0
    for i in range(n_perm):
        perm = levels.perms[levels.perm_ptr[m] + i * m:levels.perm_ptr[m] + (i + 1) * m]
        for f in range(n_flip):
            flip = levels.flips[levels.flip_ptr[m] + f] if every else 0
            ctl[WORK] -= max(m, 1)
            if ctl[WORK] < 0:
                return CUT
            value = _set_option(board, running, perm, flip, paid, ctl)
            if value == CUT:
                return CUT
            if value < 0:
                continue
            row[:] = 0
            row[0] = value
            for j in range(m):
                row[1 + position[j]] = paid[j]
            same = False
            for o in range(n):
                same = True
                for c in range(1 + n_set):
                    same = same and options[o, c] == row[c]
                if same:
                    break
            if not same:
                options[n] = row
                n += 1
    return n


# -- pricing a complete choice ------------------------------------------------------------------


@kernel
def _fits(caps, lo, hi, counts):
    """Does a train with pay limits ``caps[lo:hi]``, paid for `counts` stops per kind, keep
    within them?"""
    for c in range(lo, hi):
        total = 0
        for k in range(4):
            if (caps[c, 0] >> k) & 1:
                total += counts[k]
        if total > caps[c, 1]:
            return False
    return True


@kernel
def _augment(caps, cap_lo, cap_hi, start, kind_of, owner, held, n_held, fixed):
    """`payonce._Search._augment`, breadth first: place location `start` with a running train
    that can take it (train r: pay limits ``caps[cap_lo[r]:cap_hi[r]]``, kind of its payable
    stop per location ``kind_of[r]``, -1 none), moving taken ones along an exchange path that
    moves no `fixed` location; False if none can without dropping another. Updates `owner`,
    `held` and `n_held`."""
    n_run, n_loc = kind_of.shape
    q_item = np.empty(n_loc + 1, np.int64)
    q_parent = np.empty(n_loc + 1, np.int64)
    q_train = np.empty(n_loc + 1, np.int64)  # where the parent's item moves
    seen = np.zeros(n_loc, np.bool_)
    seen[start] = True
    q_item[0], q_parent[0], q_train[0] = start, -1, -1
    head, tail = 0, 1
    counts = np.zeros(4, np.int64)
    while head < tail:
        e = head
        head += 1
        item = q_item[e]
        for r in range(n_run):
            if kind_of[r, item] < 0 or owner[item] == r:
                continue
            counts[:] = 0
            for h in range(n_held[r]):
                counts[kind_of[r, held[r, h]]] += 1
            counts[kind_of[r, item]] += 1
            if _fits(caps, cap_lo[r], cap_hi[r], counts):
                # apply the path, its first move first
                moves = np.empty(tail + 1, np.int64)
                to = np.empty(tail + 1, np.int64)
                n = 0
                x, target = e, r
                while x >= 0:
                    moves[n], to[n] = q_item[x], target
                    target = q_train[x]
                    x = q_parent[x]
                    n += 1
                for i in range(n - 1, -1, -1):
                    loc, u = moves[i], to[i]
                    was = owner[loc]
                    if was >= 0:  # out of its list, the others keeping their order
                        h = 0
                        while held[was, h] != loc:
                            h += 1
                        for h2 in range(h, n_held[was] - 1):
                            held[was, h2] = held[was, h2 + 1]
                        n_held[was] -= 1
                    owner[loc] = u
                    held[u, n_held[u]] = loc
                    n_held[u] += 1
                return True
            counts[kind_of[r, item]] -= 1
            for h in range(n_held[r]):
                other = held[r, h]
                if seen[other] or fixed[other]:
                    continue
                counts[kind_of[r, other]] -= 1
                counts[kind_of[r, item]] += 1
                ok = _fits(caps, cap_lo[r], cap_hi[r], counts)
                counts[kind_of[r, other]] += 1
                counts[kind_of[r, item]] -= 1
                if ok:
                    seen[other] = True
                    q_item[tail], q_parent[tail], q_train[tail] = other, e, r
                    tail += 1
    return False


@kernel
def _assign_value(ent, caps, ent_lo, ent_hi, ent_mask, cap_lo, cap_hi, n_loc):
    """`payonce._Search._assign`: the value of the best paid stops of the running trains,
    whose payable locations are the rows ``ent_lo[r]:ent_hi[r]`` of `ent` selected by
    `ent_mask`.

    With no pay limit binding, every location pays, to the train it is worth most to.
    Otherwise locations go by value, each along an exchange path (greedy on a union of
    matroids: exact while a location is worth the same to every train that may be paid for
    it). A *contested* location, worth more to one train than to another (stops of one
    offboard area with different values), is not left to the greedy: every choice of its
    payer (or none) is tried, the others then placed greedily around it."""
    n_run = ent_lo.shape[0]
    kind_of = np.full((n_run, n_loc), -1, np.int64)
    worth = np.zeros((n_run, n_loc), np.int64)
    best_w = np.zeros(n_loc, np.int64)
    listed = np.zeros(n_loc, np.bool_)
    locs = np.empty(n_loc, np.int64)  # in the order the trains list them
    n_locs = 0
    fit = True
    counts = np.zeros(4, np.int64)
    for r in range(n_run):
        counts[:] = 0
        for i in range(ent_lo[r], ent_hi[r]):
            if not (ent_mask[r] >> (i - ent_lo[r])) & 1:
                continue
            loc = ent[i, E_LOC]
            if not listed[loc]:
                listed[loc] = True
                locs[n_locs] = loc
                n_locs += 1
            kind_of[r, loc] = ent[i, E_KIND]
            worth[r, loc] = ent[i, E_WORTH]
            best_w[loc] = max(best_w[loc], ent[i, E_WORTH])
            counts[ent[i, E_KIND]] += 1
        fit = fit and _fits(caps, cap_lo[r], cap_hi[r], counts)
    total = 0
    if fit:  # no pay limit binds: every location pays
        for j in range(n_locs):
            total += best_w[locs[j]]
        return total
    # the contested locations, and the others by value (a stable insertion sort: a route has
    # few locations)
    contested = np.empty(n_locs, np.int64)
    n_con = 0
    rest = np.empty(n_locs, np.int64)
    n_rest = 0
    for j in range(n_locs):
        loc = locs[j]
        differs = False
        for r in range(n_run):
            differs = differs or (kind_of[r, loc] >= 0 and worth[r, loc] != best_w[loc])
        if differs:
            contested[n_con] = loc
            n_con += 1
        else:
            i = n_rest
            while i > 0 and best_w[rest[i - 1]] < best_w[loc]:
                rest[i] = rest[i - 1]
                i -= 1
            rest[i] = loc
            n_rest += 1
    owner = np.full(n_loc, -1, np.int64)
    held = np.empty((n_run, n_loc), np.int64)
    n_held = np.zeros(n_run, np.int64)
    fixed = np.zeros(n_loc, np.bool_)
    payer = np.zeros(n_con, np.int64)  # per contested location its payer; n_run: none
    best = -1
    while True:
        owner[:] = -1
        n_held[:] = 0
        legal = True
        for c in range(n_con):
            r, loc = payer[c], contested[c]
            fixed[loc] = r < n_run
            if r < n_run:
                legal = legal and kind_of[r, loc] >= 0
                if legal:
                    owner[loc] = r
                    held[r, n_held[r]] = loc
                    n_held[r] += 1
        for r in range(n_run):
            if not legal:
                break
            counts[:] = 0
            for h in range(n_held[r]):
                counts[kind_of[r, held[r, h]]] += 1
            legal = _fits(caps, cap_lo[r], cap_hi[r], counts)
        if legal:
            for j in range(n_rest):
                _augment(caps, cap_lo, cap_hi, rest[j], kind_of, owner, held, n_held, fixed)
            total = 0
            for r in range(n_run):
                for h in range(n_held[r]):
                    total += worth[r, held[r, h]]
            best = max(best, total)
        c = 0  # the next choice of payers (a counter in base n_run + 1)
        while c < n_con:
            payer[c] += 1
            if payer[c] <= n_run:
                break
            payer[c] = 0
            c += 1
        if c == n_con:
            return best


@kernel
def price(board, levels, choice, options, priced_option, ctl):
    """`payonce._Search._price`: the exact value of the chosen candidates (-1: illegal, CUT:
    the work budget ran out). `priced_option` is the row of `options` the set routes form
    their sets by (-1: try every way)."""
    cand, table = board.cand, board.table
    n_trains = choice.shape[0]
    set_pos = np.full(n_trains, -1, np.int64)  # per train, its position among the set trains
    for p in range(levels.set_trains.shape[0]):
        set_pos[levels.set_trains[p]] = p
    running = np.empty(n_trains, np.int64)
    run_set_pos = np.empty(n_trains, np.int64)
    n = 0
    for t in range(n_trains):
        g = _cand(board, choice, t)
        if g >= 0:
            running[n], run_set_pos[n] = g, set_pos[t]
            n += 1
    if n == 0:
        return 0
    running = running[:n]
    if levels.required:
        met = 0
        for g in running:
            met |= cand[g, C_MEETS]
        if met & levels.required != levels.required:
            return -1
    if levels.check_meet and not routes_meet(board.stop_bits, running):
        return -1
    fixed = 0
    hexes = np.zeros(board.n_hex, np.bool_)
    ent_lo, ent_hi = np.empty(n, np.int64), np.empty(n, np.int64)
    cap_lo, cap_hi = np.empty(n, np.int64), np.empty(n, np.int64)
    for r in range(n):
        g = running[r]
        fixed += cand[g, C_BONUS]
        weight = table[cand[g, C_TABLE], T_HEX_WEIGHT]
        if weight:
            for i in range(board.hex_ptr[g], board.hex_ptr[g + 1]):
                if not hexes[board.hex_idx[i]]:
                    hexes[board.hex_idx[i]] = True
                    fixed += weight
        ent_lo[r], ent_hi[r] = cand[g, C_ENT], cand[g, C_ENT_STOP]
        cap_lo[r], cap_hi[r] = table[cand[g, C_TABLE], T_CAPS], table[cand[g, C_TABLE], T_CAPS_STOP]
    ent_mask = np.empty(n, np.int64)
    if priced_option >= 0:
        first, last = priced_option, priced_option + 1
    elif levels.set_trains.shape[0]:
        first, last = 0, set_options(board, levels, choice, options, ctl)
        if last == CUT:
            return CUT
    else:
        first, last = 0, 1
    best = -1
    for o in range(first, last):
        ctl[WORK] -= n
        if ctl[WORK] < 0:
            return CUT
        for r in range(n):
            # a set train is paid for its set's ends, the others for every payable location
            ent_mask[r] = options[o, 1 + run_set_pos[r]] if run_set_pos[r] >= 0 else -1
        set_value = options[o, 0] if levels.set_trains.shape[0] else 0
        value = fixed + set_value * board.rev_scale + _assign_value(
            board.ent, board.caps, ent_lo, ent_hi, ent_mask, cap_lo, cap_hi, board.n_loc)
        best = max(best, value)
    return best


# -- the search --------------------------------------------------------------------------------


@kernel(inline=True)
def _gain_of(board, g, hex_weight, covered, hexes):
    """`_kernels.route_gains` of one candidate."""
    gain = _gain(board.pay_ptr, board.pay_loc, board.pay_w, board.alone, board.extra, covered, g)
    if hex_weight:
        for i in range(board.hex_ptr[g], board.hex_ptr[g + 1]):
            if not hexes[board.hex_idx[i]]:
                gain += hex_weight
    return gain


@kernel
def _best_gain(board, table, covered, hexes):
    """The most one of the table's candidates adds to a partial plan (at least 0)."""
    best = 0
    for g in range(board.table[table, T_FIRST], board.table[table, T_STOP]):
        if board.cand[g, C_MOST_FROM] <= best:
            break  # no later candidate gains more
        best = max(best, _gain_of(board, g, board.table[table, T_HEX_WEIGHT], covered, hexes))
    return best


@kernel
def _rest_parts(board, levels, start, covered, hexes):
    """`payonce._Search._rest_parts` of the levels from `start` on: the best gains of the set
    trains and of the others."""
    sets = others = 0
    for d in range(start, levels.level.shape[0]):
        table = board.train_table[levels.level[d, L_TRAIN]]
        if board.table[table, T_SET]:
            sets += _best_gain(board, table, covered, hexes)
        else:
            others += _best_gain(board, table, covered, hexes)
    return sets, others


@kernel
def _cap(levels, others, start):
    """`payonce._Search._cap`: `others` capped by what the non-set trains from level `start`
    on can earn together."""
    cap = levels.caps_from[max(start, levels.set_trains.shape[0])]
    return others if cap < 0 else min(others, cap)


@kernel
def _rest_from(board, levels, d, tail_sets, tail_others, best_follower):
    """What the levels after level d can add when each
    identical train following it adds at most `best_follower`."""
    followers = levels.level[d, L_FOLLOWERS]
    more = followers * best_follower
    if board.table[board.train_table[levels.level[d, L_TRAIN]], T_SET]:
        return tail_sets + more + _cap(levels, tail_others, d + 1 + followers)
    return tail_sets + _cap(levels, tail_others + more, d + 1)


@kernel
def _placed_ends(board, levels, choice, d):
    """The ends of the set routes chosen at the levels above d (all set levels), in level
    order, and whether each is temporary."""
    ends = np.empty((d, 2), np.int64)
    temporary = np.empty(d, np.bool_)
    m = 0
    for u in range(d):
        g = _cand(board, choice, levels.level[u, L_TRAIN])
        if g >= 0:
            ends[m, 0], ends[m, 1] = board.cand[g, C_END], board.cand[g, C_END + 1]
            temporary[m] = board.table[board.cand[g, C_TABLE], T_TEMPORARY]
            m += 1
    return ends[:m], temporary[:m]


@kernel
def _join_slacks(board, levels, choice, d, g0, out):
    """Join slacks into `out` (candidates from g0 on): at the last set
    level, per candidate the join slack: one per join among the placed set routes and per end
    it shares with them."""
    placed = _placed_ends(board, levels, choice, d)[0]
    m = placed.shape[0]
    among = 0
    for i in range(2 * m):
        for j in range(i):
            if placed[j // 2, j % 2] == placed[i // 2, i % 2]:
                among += 1  # each repeat of a stop is one join
                break
    for k in range(out.shape[0]):
        meets = 0
        for e in range(2):
            meets += _ends_at(placed, board.cand[g0 + k, C_END + e])
        out[k] = (among + meets) * levels.slack


@kernel
def _ends_at(ends, stop):
    """Does a route of `ends` end at `stop`?"""
    for r in range(ends.shape[0]):
        if ends[r, 0] == stop or ends[r, 1] == stop:
            return True
    return False


@kernel
def _must_join(board, levels, choice, d, g0, out, ctl):
    """Which candidates may run, into `out` (candidates from g0 on): at the last set level
    (not the first), when running its train apart from the placed set routes would break the
    temporary-train rules, only the candidates sharing an end with one of them may run."""
    for k in range(out.shape[0]):
        out[k] = True
    if d != levels.set_trains.shape[0] - 1 or d == 0:
        return
    placed, temporary = _placed_ends(board, levels, choice, d)
    m = placed.shape[0]
    if m == 0:
        return
    apart = np.empty((m + 1, 2), np.int64)
    apart[:m] = placed
    apart[m, 0], apart[m, 1] = -1, -2  # the level's route meeting no other
    temp = np.empty(m + 1, np.bool_)
    temp[:m] = temporary
    temp[m] = board.table[board.train_table[levels.level[d, L_TRAIN]], T_TEMPORARY]
    members, set_ptr = build_sets(apart, temp, ctl)
    if ctl[WORK] < 0:
        return  # (the caller gives up)
    if _sets_legal(members, set_ptr, temp):
        return
    for k in range(out.shape[0]):
        out[k] = (_ends_at(placed, board.cand[g0 + k, C_END])
                  or _ends_at(placed, board.cand[g0 + k, C_END + 1]))


@kernel
def _setup_level(board, levels, st, s):
    """Open level frame s (everything before its loop over candidates): the
    candidates' gains and bounds, the ones worth trying in order of gain. 1, or 0 when
    neither a candidate nor idleness can beat the best plan, CUT when the work budget ran
    out."""
    frame = st.frame[s]
    d = frame[F_DEPTH]
    n_set = levels.set_trains.shape[0]
    table = board.train_table[levels.level[d, L_TRAIN]]
    g0 = board.table[table, T_FIRST]
    n = board.table[table, T_STOP] - g0
    st.ctl[WORK] -= n * (levels.level.shape[0] - d)  # its bounds look at the later levels
    top, known = _top_gain(board, st, s, table)
    joins = max(0, n_set - 1) * levels.slack if d < n_set else 0
    # identical trains take candidates in increasing index (idle = last)
    floor = -1
    if levels.level[d, L_TWIN]:
        prev = st.choice[levels.level[d - 1, L_TRAIN]]
        floor = prev if prev >= 0 else n
    followers = levels.level[d, L_FOLLOWERS]
    tail_sets, tail_others = _rest_parts(board, levels, d + 1 + followers, st.covered[s],
                                         st.hexes[s])
    loose = _rest_from(board, levels, d, tail_sets, tail_others, top)
    slack = np.full(n, joins, np.int64)
    if joins and d == n_set - 1:
        _join_slacks(board, levels, st.choice, d, g0, slack)
        for k in range(n):
            joins = max(joins, slack[k])
    if frame[F_BASE] + top + loose + joins <= st.ctl[BEST]:
        return 0  # neither a route nor idleness can beat the best plan
    frame[F_TAIL_SETS], frame[F_TAIL_OTHERS] = tail_sets, tail_others
    frame[F_LOOSE], frame[F_JOINS] = loose, joins
    end = _bounds(board, levels, st, s, table, max(floor, 0), known, slack)
    # The first of identical trains: its followers are bounded given each of its routes too
    # (`_twin_bound`), when the search gets to the route: the cut-offs come out the same.
    frame[F_TWINS] = followers > 0 and floor < 0
    joining = np.empty(n, np.bool_)
    _must_join(board, levels, st.choice, d, g0, joining, st.ctl)
    if st.ctl[WORK] < 0:
        return CUT
    _sort_todo(st, s, max(floor, 0), end, joining)
    frame[F_IDLE_REST] = _rest_from(board, levels, d, tail_sets, tail_others, 0)
    return 1


@kernel
def _top_gain(board, st, s, table):
    """The best gain (at least 0) of level frame s's candidates, into ``st.gains[s]`` as far
    as found: the candidates come sorted by what they earn alone, which bounds their gains
    (``C_MOST_FROM``), so the search for the best stops early. Returns it and how many gains
    were found."""
    g0, n = board.table[table, T_FIRST], board.table[table, T_STOP] - board.table[table, T_FIRST]
    hex_weight = board.table[table, T_HEX_WEIGHT]
    gains = st.gains[s]
    top = known = 0
    while known < n and board.cand[g0 + known, C_MOST_FROM] > top:
        gains[known] = _gain_of(board, g0 + known, hex_weight, st.covered[s], st.hexes[s])
        top = max(top, gains[known])
        known += 1
    return top, known


@kernel
def _bounds(board, levels, st, s, table, first, known, slack):
    """Level frame s's bound per candidate from `first` on (its gain, what the levels below
    can add, its join slack), into ``st.bound[s]``, and the gains still missing; returns
    where the candidates that cannot beat the best plan begin."""
    frame = st.frame[s]
    d = frame[F_DEPTH]
    g0, n = board.table[table, T_FIRST], board.table[table, T_STOP] - board.table[table, T_FIRST]
    hex_weight = board.table[table, T_HEX_WEIGHT]
    base, best, gains, bound = frame[F_BASE], st.ctl[BEST], st.gains[s], st.bound[s]
    if levels.level[d, L_FOLLOWERS]:
        # the identical trains after this one choose from its index on: the best gain from
        # each candidate on bounds theirs
        for k in range(known, n):
            gains[k] = _gain_of(board, g0 + k, hex_weight, st.covered[s], st.hexes[s])
        suffix = 0
        for k in range(n - 1, first - 1, -1):
            suffix = max(suffix, gains[k])
            bound[k] = base + gains[k] + slack[k] + _rest_from(
                board, levels, d, frame[F_TAIL_SETS], frame[F_TAIL_OTHERS], suffix)
        return n
    # no followers: what the levels below add does not depend on the candidate
    for k in range(first, n):
        if base + board.cand[g0 + k, C_MOST_FROM] + frame[F_LOOSE] + frame[F_JOINS] <= best:
            return k
        if k >= known:
            gains[k] = _gain_of(board, g0 + k, hex_weight, st.covered[s], st.hexes[s])
        bound[k] = base + gains[k] + frame[F_LOOSE] + slack[k]
    return n


@kernel
def _sort_todo(st, s, first, end, joining):
    """Level frame s's candidates worth trying (from `first` to `end`, bound above the best
    plan, allowed to run) by gain; stable, ties in index order. Sorting only these is sorting
    all candidates and dropping the rest."""
    todo, gains, bound, best = st.todo[s], st.gains[s], st.bound[s], st.ctl[BEST]
    m = 0
    for k in range(first, end):
        if bound[k] > best and joining[k]:
            todo[m] = k
            m += 1
    todo[:m] = todo[:m][np.argsort(-gains[todo[:m]], kind="mergesort")]
    st.frame[s, F_N_TODO], st.frame[s, F_POS], st.frame[s, F_STAGE] = m, 0, 0


@kernel
def _twin_bound(board, levels, st, s, k):
    """The bound of candidate k of level frame s, the first of identical trains, given what
    its followers can add once it runs k: they lose k's payable locations, so k counts all of
    them (a pay limit may leave one to a follower)."""
    frame = st.frame[s]
    d = frame[F_DEPTH]
    table = board.train_table[levels.level[d, L_TRAIN]]
    g, stop = board.table[table, T_FIRST] + k, board.table[table, T_STOP]
    hex_weight = board.table[table, T_HEX_WEIGHT]
    covered, hexes = st.covered[s], st.hexes[s]
    after = follower_gain(board.pay_ptr, board.pay_loc, board.pay_w, board.alone, board.extra,
                          covered, board.hex_ptr, board.hex_idx, hexes, hex_weight, g, stop,
                          covered.copy(), hexes.copy())
    uncapped = board.extra[g]
    for i in range(board.pay_ptr[g], board.pay_ptr[g + 1]):
        uncapped += max(0, board.pay_w[i] - covered[board.pay_loc[i]])
    if hex_weight:
        for i in range(board.hex_ptr[g], board.hex_ptr[g + 1]):
            if not hexes[board.hex_idx[i]]:
                uncapped += hex_weight
    # no join slack of its own: twins are never the last set level
    n_set = levels.set_trains.shape[0]
    slack = max(0, n_set - 1) * levels.slack if d < n_set else 0
    return frame[F_BASE] + uncapped + slack + _rest_from(
        board, levels, d, frame[F_TAIL_SETS], frame[F_TAIL_OTHERS], after)


@kernel
def _next_of_level(board, levels, st, s):
    """Open level frame s's next child: its next candidate worth trying, else idleness; pop
    the frame when neither is left."""
    frame = st.frame[s]
    t = levels.level[frame[F_DEPTH], L_TRAIN]
    table = board.train_table[t]
    st.choice[t] = -1
    base, best = frame[F_BASE], st.ctl[BEST]
    c = s + 1
    while frame[F_STAGE] == 0 and frame[F_POS] < frame[F_N_TODO]:
        k = st.todo[s, frame[F_POS]]
        frame[F_POS] += 1
        if base + st.gains[s, k] + frame[F_LOOSE] + frame[F_JOINS] <= best:
            break
        if st.bound[s, k] <= best:
            continue
        if frame[F_TWINS] and _twin_bound(board, levels, st, s, k) <= best:
            continue
        g = board.table[table, T_FIRST] + k
        add = board.extra[g]
        st.covered[c] = st.covered[s]
        for i in range(board.pay_ptr[g], board.pay_ptr[g + 1]):
            loc, w = board.pay_loc[i], board.pay_w[i]
            if w > st.covered[s, loc]:
                add += w - st.covered[s, loc]
                st.covered[c, loc] = w
        st.hexes[c] = st.hexes[s]
        hex_weight = board.table[table, T_HEX_WEIGHT]
        if hex_weight:
            for i in range(board.hex_ptr[g], board.hex_ptr[g + 1]):
                if not st.hexes[s, board.hex_idx[i]]:
                    add += hex_weight
                    st.hexes[c, board.hex_idx[i]] = True
        st.choice[t] = k
        _push(levels, st, c, frame[F_DEPTH] + 1, base + add)
        return
    if frame[F_STAGE] == 0:
        frame[F_STAGE] = 1
        if base + frame[F_IDLE_REST] + frame[F_JOINS] > best:
            # idle (and so are the identical trains after it)
            st.covered[c] = st.covered[s]
            st.hexes[c] = st.hexes[s]
            _push(levels, st, c, frame[F_DEPTH] + 1, base)
            return
    st.ctl[TOP] = s - 1


@kernel
def _next_of_sets(board, levels, st, s):
    """Sets frame s's next child: the non-set levels after the set routes formed sets in its
    next way, only set ends paid; pop the frame when none is left."""
    o = st.frame[s, F_POS]
    if o == st.ctl[N_OPTIONS]:
        st.ctl[TOP] = s - 1
        return
    st.frame[s, F_POS] += 1
    c = s + 1
    covered = st.covered[c]
    covered[:] = 0
    base = st.options[o, 0] * board.rev_scale
    for p in range(levels.set_trains.shape[0]):
        g = _cand(board, st.choice, levels.set_trains[p])
        if g < 0:
            continue
        base += board.cand[g, C_BONUS]
        lo = board.cand[g, C_ENT]
        for i in range(lo, board.cand[g, C_ENT_STOP]):
            loc, w = board.ent[i, E_LOC], board.ent[i, E_WORTH]
            if (st.options[o, 1 + p] >> (i - lo)) & 1 and w > covered[loc]:
                base += w - covered[loc]
                covered[loc] = w
    base += st.hexes[s].sum() * board.hex_weight  # the hexes the set levels covered
    st.hexes[c] = st.hexes[s]
    st.frame[c, F_KIND], st.frame[c, F_DEPTH], st.frame[c, F_BASE] = LEVEL, st.frame[s, F_DEPTH], base
    st.ctl[TOP], st.ctl[ENTERING] = c, 1


@kernel
def _push(levels, st, c, depth, base):
    """Enter frame c, a child at `depth` whose covered locations and hexes are set."""
    kind = LEVEL
    if depth == levels.level.shape[0]:
        kind = LEAF
    elif depth == levels.set_trains.shape[0] and depth:
        kind = SETS
    st.frame[c, F_KIND], st.frame[c, F_DEPTH], st.frame[c, F_BASE] = kind, depth, base
    st.ctl[TOP], st.ctl[ENTERING] = c, 1


@kernel
def search(board, levels, st, pause_every):
    """Search on from the state in `st` (see `new_state`); DONE, or PAUSED after each
    `pause_every` nodes or when the work budget ``st.ctl[WORK]`` runs out (a node cut short
    is set up again from its start on the next call). The best plan's value and choice are
    in ``st.ctl[BEST]`` and ``st.best_choice``, the nodes searched in ``st.ctl[NODES]``."""
    ctl = st.ctl
    n_set = levels.set_trains.shape[0]
    priced = n_set if 0 < n_set < levels.level.shape[0] else -1  # the sets frame, if any
    while ctl[TOP] >= 0:
        s = ctl[TOP]
        kind = st.frame[s, F_KIND]
        if ctl[ENTERING]:
            if not ctl[COUNTED]:
                ctl[NODES] += 1
                ctl[COUNTED] = 1
                if ctl[NODES] % pause_every == 0:
                    return PAUSED
            if ctl[WORK] <= 0:
                return PAUSED
            ctl[COUNTED] = ctl[ENTERING] = 0
            if kind == LEAF:
                option = st.frame[priced, F_POS] - 1 if priced >= 0 else -1
                value = price(board, levels, st.choice, st.options, option, ctl)
                if value == CUT:
                    ctl[COUNTED] = ctl[ENTERING] = 1
                    return PAUSED
                if value > ctl[BEST]:
                    ctl[BEST] = value
                    st.best_choice[:] = st.choice
                ctl[TOP] = s - 1
            elif kind == SETS:
                n_options = set_options(board, levels, st.choice, st.options, ctl)
                if n_options == CUT:
                    ctl[COUNTED] = ctl[ENTERING] = 1
                    return PAUSED
                ctl[N_OPTIONS] = n_options
                st.frame[s, F_POS] = 0
            else:
                opened = _setup_level(board, levels, st, s)
                if opened == CUT:
                    ctl[COUNTED] = ctl[ENTERING] = 1
                    return PAUSED
                if not opened:
                    ctl[TOP] = s - 1
        elif kind == SETS:
            _next_of_sets(board, levels, st, s)
        else:
            _next_of_level(board, levels, st, s)
    return DONE
