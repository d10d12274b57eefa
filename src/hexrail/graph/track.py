"""Compile a position's track into flat arrays: the `TrackGraph`.

Vocabulary:

- *path*: one piece of track on one tile (`hexrail.model.Path`), a resource no two routes
  share. Global path ids are ``0 .. n_paths-1``; ``path_ref[p]`` is ``"E5:2"`` (hex, index).
- *hexside*: one lane of one shared hex side, where a path of one hex continues into a path of
  the neighbour (lanes must match). Also a resource: resource id ``n_paths + hexside``.
- *vertex*: a node (stop or junction; ids ``0 .. n_nodes-1``) or a *branch point*, a hexside
  where more than one path meets on at least one side (ids ``n_nodes ..``). At a branch point a
  route must cross: it arrives on one side and leaves on the other.
- *chain*: a maximal run of paths between two vertices through plain hexsides. Chains are the
  edges of the graph the search walks; each carries its path list, hex list, resource bitset and
  its number of hexside crossings.

The graph depends on the position and the track gauge only; what stops are worth, which block and
where routes may end depend on the train and live in `hexrail.graph.trains`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from hexrail.model.hexgrid import facing_lanes, opposite
from hexrail.model.position import Position

# Marks of a chain's end at a node (`TrackGraph.chain_terminal`): terminal track ends a route
# there; two ends marked STRETCH at one town are one piece of track, never passed between.
TERMINAL = 1
STRETCH = 2


def may_pass(arrived: int, leaving: int) -> bool:
    """May a route pass through a node, arriving by a chain end marked `arrived` and leaving
    by one marked `leaving`?

    >>> may_pass(0, 0), may_pass(TERMINAL, 0), may_pass(STRETCH, 0), may_pass(STRETCH, STRETCH)
    (True, False, True, False)
    """
    return not ((arrived | leaving) & TERMINAL or arrived & leaving & STRETCH)


KIND_CODES = {"city": 0, "town": 1, "offboard": 2, "halt": 3, "junction": 4, "pass": 5}


def gauge_matches(track: str, gauge: str) -> bool:
    """May a train of `gauge` run on `track`? Dual track carries both broad and narrow trains."""
    return track == gauge or (track == "dual" and gauge in ("broad", "narrow"))


@dataclass(frozen=True, eq=False)
class TrackGraph:
    hex_ids: tuple[str, ...]
    node_hex: np.ndarray  # int32[n_nodes]
    node_kind: np.ndarray  # int8[n_nodes], KIND_CODES
    node_local: np.ndarray  # int32[n_nodes]: the node's index in its tile ("E5-0": 0)
    n_vertices: int
    vertex_res: np.ndarray  # int32[n_vertices]: resource id of a branch point, -1 for nodes
    vertex_side_hex: np.ndarray  # int32[n_vertices, 2]: hex on side 0/1 of a branch point
    chain_ends: np.ndarray  # int32[n_chains, 2]: vertex at end a, end b
    chain_side: np.ndarray  # int8[n_chains, 2]: side of the branch point at each end (-1 at nodes)
    chain_terminal: np.ndarray  # int8[n_chains, 2] at that end's node: TERMINAL, STRETCH bits
    chain_crossings: np.ndarray  # int32[n_chains]: hexsides crossed inside the chain
    chain_path_ptr: np.ndarray
    chain_paths: np.ndarray  # int32: path ids in order from end a to end b
    chain_hex_ptr: np.ndarray
    chain_hexes: np.ndarray  # int32: hexes in order from end a to end b (runs collapsed)
    chain_res: np.ndarray  # uint64[n_chains, words]
    adj_ptr: np.ndarray  # CSR over vertices
    adj_chain: np.ndarray  # int32: incident chain
    adj_end: np.ndarray  # int8: which end of that chain touches the vertex (0 = a, 1 = b)
    path_hex: np.ndarray  # int32[n_paths]
    path_local: np.ndarray  # int32[n_paths]: the path's index in its tile ("E5:2": 2)
    n_paths: int
    n_hexsides: int
    n_stretches: int  # towns drawn at a hex side whose stretch of track is a resource
    words: int
    node_twin: np.ndarray = field(repr=False)  # int32[n_nodes]: original of a twin, or -1

    # The references, made when asked: most solves name only their routes' nodes (`ref`).
    @cached_property
    def node_ref(self) -> tuple[str, ...]:
        """Each node's reference, ``"E5-0"`` (a twin's is its original's)."""
        ids = self.hex_ids
        return tuple([f"{ids[h]}-{k}" for h, k in zip(self.node_hex.tolist(),
                                                        self.node_local.tolist())])

    @cached_property
    def path_ref(self) -> tuple[str, ...]:
        """Each path's reference, ``"E5:2"``."""
        ids = self.hex_ids
        return tuple([f"{ids[h]}:{k}" for h, k in zip(self.path_hex.tolist(),
                                                        self.path_local.tolist())])

    @cached_property
    def node_index(self) -> dict[str, int]:
        """``"E5-0"`` → node id (the original, for a twin)."""
        n_real = int((self.node_twin < 0).sum())
        return {ref: i for i, ref in enumerate(self.node_ref[:n_real])}

    @cached_property
    def path_index(self) -> dict[str, int]:
        """``"E5:2"`` → path id."""
        return {ref: i for i, ref in enumerate(self.path_ref)}

    @cached_property
    def _places(self) -> tuple[list[int], list[int], list[int], list[int]]:
        return (self.node_hex.tolist(), self.node_local.tolist(), self.path_hex.tolist(),
                self.path_local.tolist())

    def ref(self, node: int) -> str:
        """`node_ref` of one node."""
        node_hex, node_local, _, _ = self._places
        return f"{self.hex_ids[node_hex[node]]}-{node_local[node]}"

    def path_name(self, path: int) -> str:
        """`path_ref` of one path."""
        _, _, path_hex, path_local = self._places
        return f"{self.hex_ids[path_hex[path]]}:{path_local[path]}"

    @property
    def n_nodes(self) -> int:
        return len(self.node_hex)

    @property
    def n_chains(self) -> int:
        return len(self.chain_ends)

    @property
    def n_resources(self) -> int:
        return self.n_paths + self.n_hexsides + self.n_stretches

    def chain_path_list(self, chain: int, reverse: bool = False) -> list[int]:
        paths = self.chain_paths[self.chain_path_ptr[chain]:self.chain_path_ptr[chain + 1]].tolist()
        return paths[::-1] if reverse else paths


def compile_track(pos: Position, gauge: str = "broad", extra_resources: int = 0,
                  single_joins_double: bool = False, twins: tuple[str, ...] = ()) -> TrackGraph:
    """Build the `TrackGraph` of `pos` for trains of `gauge`: each hex's rows (made once per
    hex, `hexrows`), gathered and stitched by two kernels (`_track_kernels.gather`, `stitch`).
    Arguments as `compile_track_twin`, the slow twin it is tested against, which gives the same
    graph.
    """
    from hexrail.graph.hexrows import board

    found, (node_hex, node_kind, node_local, node_twin, p_hex, p_local, n_stretches, (
        n_vertices, vertex_res, vertex_side_hex, chain_ends, chain_side, chain_terminal,
        chain_crossings, path_ptr, flat_paths, hex_ptr, flat_hexes, chain_res, adj_ptr, adj_chain,
        adj_end, n_points, words)) = board(pos, gauge, single_joins_double, extra_resources, twins)
    return TrackGraph(
        hex_ids=found.hex_ids, node_hex=node_hex, node_kind=node_kind, node_local=node_local,
        n_vertices=int(n_vertices), vertex_res=vertex_res, vertex_side_hex=vertex_side_hex,
        chain_ends=chain_ends, chain_side=chain_side, chain_terminal=chain_terminal,
        chain_crossings=chain_crossings, chain_path_ptr=path_ptr, chain_paths=flat_paths,
        chain_hex_ptr=hex_ptr, chain_hexes=flat_hexes, chain_res=chain_res, adj_ptr=adj_ptr,
        adj_chain=adj_chain, adj_end=adj_end, path_hex=p_hex.astype(np.int32),
        path_local=p_local, n_paths=len(p_hex), n_hexsides=int(n_points),
        n_stretches=int(n_stretches), words=int(words), node_twin=node_twin,
    )


def compile_track_twin(pos: Position, gauge: str = "broad", extra_resources: int = 0,
                       single_joins_double: bool = False,
                       twins: tuple[str, ...] = ()) -> TrackGraph:
    """Build the `TrackGraph` of `pos` for trains of `gauge`, one path at a time in Python:
    the slow twin `compile_track` is tested against.

    `extra_resources` reserves bits after the track resources for profile claims (a bonus that
    pays once per round, the round's one bypass), so candidate bitsets can carry them too.
    With `single_joins_double` (a profile fact, `Profile.single_joins_double`), a single track
    facing double track at a hex side meets both its lanes (`hexgrid.facing_lanes`): the side
    is one hexside, shared by all of them.
    `twins` are stops a route may run to twice (`hexrail.rules.base.Revisit`): each gets a twin
    node (same reference, ``node_twin`` names the original) with a copy of every chain at it,
    holding the same resources, so that a walk can pass it twice; what may not happen (the
    same track twice, the revisit's condition) is checked on the routes found.
    """
    hex_ids = tuple(h.id for h in pos.hexes)
    hex_pos = {h: i for i, h in enumerate(hex_ids)}

    node_ref: list[str] = []
    node_hex: list[int] = []
    node_kind: list[int] = []
    node_index: dict[tuple[str, int], int] = {}
    for h in pos.hexes:
        for n in h.tile.nodes:
            node_index[(h.id, n.index)] = len(node_ref)
            node_ref.append(f"{h.id}-{n.index}")
            node_hex.append(hex_pos[h.id])
            node_kind.append(KIND_CODES[n.kind])

    n_real = len(node_ref)
    twin_of: dict[int, int] = {}  # original node -> its twin
    for ref in dict.fromkeys(twins):
        hex_id, _, index = ref.rpartition("-")
        original = node_index[(hex_id, int(index))]
        twin_of[original] = len(node_ref)
        node_ref.append(ref)
        node_hex.append(node_hex[original])
        node_kind.append(node_kind[original])

    # Global path ids, in map order, for every path of every tile (so path refs are stable);
    # paths of another gauge or marked ignore simply take part in no chain.
    path_ref: list[str] = []
    path_hex: list[int] = []
    usable: list[bool] = []
    path_obj = []
    for h in pos.hexes:
        for k, p in enumerate(h.tile.paths):
            path_ref.append(f"{h.id}:{k}")
            path_hex.append(hex_pos[h.id])
            usable.append(gauge_matches(p.track, gauge) and not p.ignore)
            path_obj.append((h.id, p))

    # Hexside points: key is the ordered pair of (hex, side, width, lane) seen from both hexes;
    # a side where single track joins double track is one point, keyed by its two sides.
    widths: dict[tuple[str, int], set[int]] = {}
    for pid, (hex_id, p) in enumerate(path_obj):
        if usable[pid]:
            for end in p.ends:
                if end.is_edge:
                    widths.setdefault((hex_id, end.edge), set()).add(end.lane[0])
    point_of: dict[tuple, int] = {}
    point_members: list[tuple[list[int], list[int]]] = []  # paths on side 0 / side 1
    path_points: list[list[tuple[int, int, int]]] = [[] for _ in path_obj]  # (end, point, side)
    for pid, (hex_id, p) in enumerate(path_obj):
        if not usable[pid]:
            continue
        for end_no, end in enumerate(p.ends):
            if not end.is_edge:
                continue
            nb = pos.neighbour(hex_id, end.edge)
            if nb is None:
                continue  # track to the map's edge or an impassable side leads nowhere
            width, lane = end.lane
            facing = facing_lanes(end.lane, widths.get((nb, opposite(end.edge)), set()),
                                  single_joins_double)
            if facing[0][0] != width:  # single meets double: one point for the side
                here, there = (hex_id, end.edge, 0, 0), (nb, opposite(end.edge), 0, 0)
            else:
                here = (hex_id, end.edge, width, lane)
                there = (nb, opposite(end.edge), width, width - lane - 1)
            key = (here, there) if here < there else (there, here)
            side = 0 if here < there else 1
            if key not in point_of:
                point_of[key] = len(point_members)
                point_members.append(([], []))
            pt = point_of[key]
            point_members[pt][side].append(pid)
            path_points[pid].append((end_no, pt, side))

    n_nodes = len(node_ref)
    point_vertex: dict[int, int] = {}
    vertex_res = [-1] * n_nodes
    vertex_side_hex = [[-1, -1] for _ in range(n_nodes)]
    for pt, (s0, s1) in enumerate(point_members):
        if s0 and s1 and (len(s0) > 1 or len(s1) > 1):
            point_vertex[pt] = n_nodes + len(point_vertex)
            vertex_res.append(pt)
            vertex_side_hex.append([path_hex[s0[0]], path_hex[s1[0]]])
    n_vertices = n_nodes + len(point_vertex)
    n_paths = len(path_obj)

    def end_point(pid: int, end_no: int):
        for e, pt, side in path_points[pid]:
            if e == end_no:
                return pt, side
        return None

    def vertex_at(pid: int, end_no: int):
        """(vertex, side, terminal) at one end of a path; None if the end is a dead end;
        ('pass', point, side) if the end is a plain hexside the chain continues through."""
        hex_id, p = path_obj[pid]
        end = p.ends[end_no]
        if not end.is_edge:
            return node_index[(hex_id, end.node)], -1, p.terminal
        found = end_point(pid, end_no)
        if found is None:
            return None
        pt, side = found
        if pt in point_vertex:
            return point_vertex[pt], side, False
        s0, s1 = point_members[pt]
        if not s0 or not s1:
            return None
        return ("pass", pt, side)

    chains: list[dict] = []
    seen: set[frozenset] = set()
    for start_pid in range(n_paths):
        if not usable[start_pid]:
            continue
        for start_end in (0, 1):
            first = vertex_at(start_pid, start_end)
            if first is None or isinstance(first[0], str):
                continue  # chains are walked from a vertex end only
            paths = [start_pid]
            crossings: list[int] = []
            pid, came_in = start_pid, start_end
            ok = True
            while True:
                out_end = 1 - came_in
                nxt = vertex_at(pid, out_end)
                if nxt is None:
                    ok = False
                    break
                if isinstance(nxt[0], str):
                    _, pt, side = nxt
                    other = point_members[pt][1 - side][0]
                    if other in paths:
                        ok = False
                        break
                    crossings.append(pt)
                    paths.append(other)
                    came_in = next(e for e, q, _s in path_points[other] if q == pt)
                    pid = other
                    continue
                last = nxt
                break
            if not ok:
                continue
            key = frozenset(paths)
            if key in seen:
                continue
            seen.add(key)
            if first[0] == last[0]:
                continue  # a loop back to its own vertex can never be part of a route
            chains.append({"a": first, "b": last, "paths": paths, "crossings": crossings})

    # The stretch of track beside a town drawn at a hex side (`Tile.stretches`): one resource
    # per town, held by every chain that joins it from another side, and a mark at that end
    # (a route may not come in by one such chain and leave by another).
    stretch_of: dict[int, int] = {}  # path id -> stretch resource
    stretch_ids: dict[tuple[str, int], int] = {}
    first_path = 0  # global id of each hex's first path
    for h in pos.hexes:
        for k, town in h.tile.stretches().items():
            stretch_of[first_path + k] = stretch_ids.setdefault((h.id, town), len(stretch_ids))
        first_path += len(h.tile.paths)
    for ch in chains:
        for key, pid in (("a", ch["paths"][0]), ("b", ch["paths"][-1])):
            v, side, term = ch[key]
            if pid in stretch_of and v < n_nodes:
                ch[key] = (v, side, int(term) | STRETCH)
                ch.setdefault("stretch", set()).add(stretch_of[pid])
    for ch in list(chains):  # the twins' copies of the chains at their originals
        ends = [[ch[e]] + ([(twin_of[ch[e][0]], *ch[e][1:])] if ch[e][0] in twin_of else [])
                for e in ("a", "b")]
        for a in ends[0]:
            for b in ends[1]:
                if (a, b) != (ch["a"], ch["b"]):
                    chains.append({**ch, "a": a, "b": b})

    n_res = n_paths + len(point_members) + len(stretch_ids)
    words = max(1, (n_res + extra_resources + 63) // 64)
    n_chains = len(chains)
    chain_ends = np.zeros((n_chains, 2), np.int32)
    chain_side = np.full((n_chains, 2), -1, np.int8)
    chain_terminal = np.zeros((n_chains, 2), np.int8)
    chain_crossings = np.zeros(n_chains, np.int32)
    chain_res = np.zeros((n_chains, words), np.uint64)
    path_ptr = [0]
    flat_paths: list[int] = []
    hex_ptr = [0]
    flat_hexes: list[int] = []
    for c, ch in enumerate(chains):
        chain_ends[c] = (ch["a"][0], ch["b"][0])
        chain_side[c] = (ch["a"][1], ch["b"][1])
        chain_terminal[c] = (int(ch["a"][2]), int(ch["b"][2]))
        chain_crossings[c] = len(ch["crossings"])
        stretch = [n_paths + len(point_members) + x for x in sorted(ch.get("stretch", ()))]
        for r in ch["paths"] + [n_paths + pt for pt in ch["crossings"]] + stretch:
            chain_res[c, r >> 6] |= np.uint64(1) << np.uint64(r & 63)
        flat_paths.extend(ch["paths"])
        path_ptr.append(len(flat_paths))
        hexes: list[int] = []
        for pid in ch["paths"]:
            if not hexes or hexes[-1] != path_hex[pid]:
                hexes.append(path_hex[pid])
        flat_hexes.extend(hexes)
        hex_ptr.append(len(flat_hexes))

    incident: list[list[tuple[int, int]]] = [[] for _ in range(n_vertices)]
    for c in range(n_chains):
        incident[chain_ends[c, 0]].append((c, 0))
        incident[chain_ends[c, 1]].append((c, 1))
    adj_ptr = np.zeros(n_vertices + 1, np.int32)
    adj_chain: list[int] = []
    adj_end: list[int] = []
    for v in range(n_vertices):
        for c, e in incident[v]:
            adj_chain.append(c)
            adj_end.append(e)
        adj_ptr[v + 1] = len(adj_chain)

    return TrackGraph(
        hex_ids=hex_ids,
        node_hex=np.asarray(node_hex, np.int32),
        node_kind=np.asarray(node_kind, np.int8),
        node_local=np.asarray([int(ref.rpartition("-")[2]) for ref in node_ref], np.int32),
        n_vertices=n_vertices,
        vertex_res=np.asarray([r if r < 0 else n_paths + r for r in vertex_res], np.int32),
        vertex_side_hex=np.asarray(vertex_side_hex, np.int32).reshape(n_vertices, 2),
        chain_ends=chain_ends,
        chain_side=chain_side,
        chain_terminal=chain_terminal,
        chain_crossings=chain_crossings,
        chain_path_ptr=np.asarray(path_ptr, np.int32),
        chain_paths=np.asarray(flat_paths, np.int32),
        chain_hex_ptr=np.asarray(hex_ptr, np.int32),
        chain_hexes=np.asarray(flat_hexes, np.int32),
        chain_res=chain_res,
        adj_ptr=adj_ptr,
        adj_chain=np.asarray(adj_chain, np.int32),
        adj_end=np.asarray(adj_end, np.int8),
        path_hex=np.asarray(path_hex, np.int32),
        path_local=np.asarray([int(ref.rpartition(":")[2]) for ref in path_ref], np.int32),
        n_paths=n_paths,
        n_hexsides=len(point_members),
        n_stretches=len(stretch_ids),
        words=words,
        node_twin=np.asarray([-1] * n_real + list(twin_of), np.int32),
    )
