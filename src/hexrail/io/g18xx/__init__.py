"""18xx.games interop: read its route positions, write our plans in its route form, and stream.

Three parts:

- `position_from_18xx` reads one object of schema ``18xx-route-position/1`` (the position export
  of the 18xx.games engine, documented in the corpus's SCHEMA.md) into a `Position`. Tiles are
  built directly from the exported ``nodes`` and ``paths``, so node indices and path indices are
  exactly those of the engine's references ``"F2-1"`` and ``"B11:0"``; neighbours come from ``nb``
  (the engine's routing neighbours), stop values are the exported current-phase revenues.
- `route_to_18xx` writes one of our routes in the engine's own route form: ``connections`` (one
  list of hex ids per node-to-node segment, the encoding fixtures store and ``run_routes``
  accepts), ``hexes``, ``visits``/``nodes``, ``track``, ``revenue`` and ``stops``.
- `solve_stream` and `score_stream` run the CLI's ``solve --from 18xx`` and ``score`` over a file
  of JSON lines, one output line per input line, in input order; a line that cannot be read or
  solved yields an ``error`` line and the stream goes on.

Titles map to rules profiles by name (`rules_for_title`); a title without a profile of its own
runs under ``generic`` and every result says whether the title's own rules are covered.
"""

from hexrail.io.g18xx.reader import SCHEMA, GENERIC_TITLES, position_from_18xx, rules_for_title
from hexrail.io.g18xx.routes import (chain_id, connections_from_track, plan_from_18xx_routes,
                                     route_segments, route_to_18xx)
from hexrail.io.g18xx.streams import (best_recorded, position_records, read_positions, recorded_figures,
                                      score_record, score_routes, score_stream, solve_record,
                                      solve_stream, warm_up)

__all__ = [
    "GENERIC_TITLES", "SCHEMA", "best_recorded", "chain_id", "connections_from_track",
    "plan_from_18xx_routes", "position_from_18xx", "position_records", "read_positions",
    "recorded_figures",
    "route_segments", "route_to_18xx", "rules_for_title", "score_record", "score_routes",
    "score_stream", "solve_record", "solve_stream", "warm_up",
]
