"""The slow, obviously correct twin of the solver: brute force over every route and plan.

`reference_solve` answers the same question as `hexrail.solve` on small boards, written
independently of the fast path (no track graph, no chains, no numba, no combiner): it reads the
`Position` and asks the rules profile's hooks directly, exactly as docs/rules.md (generic) states
the rules.

1. **Routes.** For each train, a depth-first walk over *tile paths* from every stop a route may
   end at. A path end at hex side ``e`` lane ``(w, i)`` continues into
   ``position.neighbour(hex, e)`` at side ``(e + 3) % 6`` lane ``(w, w - 1 - i)``; two paths of
   one hex meeting at a side do not connect; at a node (stop or junction) any of its paths may
   follow. The walk never reuses a path, a hexside lane or a node; it passes through no node
   that blocks (a full city may be passed by spending a bypass), never through a node by a
   terminal path, at most one stop per group, never back into a hex it may not re-enter, and no
   further than a hex train's crossings allow. Every simple walk that starts and ends at stops,
   visits an anchor (if the train needs a token), enough stops, whose mandatory stops fit
   the train's rows (each using the profile.s `StopRule.cost` units) and whose stops' tallies lie
   within the train's `tally_limits` is a route. A route is its set of paths (a walk and its
   reverse are one). Runs over the train's cyclic patterns (`Profile.cyclic_runs`) are routes
   too: leg after leg over paths no earlier leg used (`_cyclic_routes`), every visit paid.
2. **Scores.** For each route, every choice of counted optional stops and every assignment of the
   counted stops to rows (within each row's visit units); each row pays its best ``row.pay``
   stops, a paid stop earning its value and its subsidy. The best
   choice for the objective (revenue + subsidy, or revenue; ties to more revenue) wins; bonuses
   (from every visited stop's hex tags) are added to the revenue.
3. **Plan.** Every assignment of one route (or none) per train with no shared path or hexside
   lane (unless the plan rules share track), no more bypasses than they allow, and, if they say
   so, a route through the home and routes that meet at stops (docs/rules.md (generic)); the best total
   wins (ties to more revenue). A train the profile bars (`Profile.may_run`) has no routes.
   The search prunes with ``value so far + best route of each remaining train`` (a valid bound)
   and nothing else.
4. **Coupled plans.** When the routes' pay depends on each other — a location (a stop, or all
   stops of one group) pays once across the routes, trains earn a subsidy per hex that pays once
   (`Profile.hex_subsidy`), trains join into sets end to end (`Profile.set_role`), or a bonus
   pays once per round (`Profile.span_bonuses`) — every
   plan is priced as a whole instead of adding up its routes:

   - sets are built from the set trains' routes exactly as 18xx.games builds them
     (`hexrail.validate.build_sets`, `set_ends`); where that depends on the routes' order and
     direction (three route ends at one stop, or a loop), every order and direction is tried, as
     a player may list the routes either way. Plans breaking the rules on temporary set trains
     are out. A set route is paid only for the set's ends among its own ends; the set's first
     route earns `Profile.set_bonus` of its two ends;
   - with stops paying once, every way of giving each shared location to one of the routes that
     may be paid for it is tried, each route then paying its best among the rest;
   - hexes pay their subsidy to one route each, the one with the highest rate (listing routes
     by falling rate is a legal plan order, and no order pays more);
   - span bonuses (`Profile.span_bonuses`, e.g. bonus routes from home to a bonus station)
     pay once per plan: each goes to the chosen route that earns most from it, every route
     having computed it from its own walk (the lanes crossed between the bonus's two stops).

   Set trains are chosen first, unpruned. Once they are, what their sets can earn at most
   (every payable stop paid, the bonuses) plus, for the other routes, their values alone (each
   route's best pay plus its subsidy for every hex it passes) bound the plan: no sharing can
   exceed them.

It is exponential on purpose; `max_routes` stops it on boards that are too big for it.

>>> from hexrail.examples import example_path
>>> from hexrail.io.native import load_position
>>> result = reference_solve(load_position(example_path("demo")))
>>> result.value == result.revenue + result.subsidy
True
"""

from hexrail.oracle.plans import reference_solve
from hexrail.oracle.result import ReferenceResult, ReferenceRoute
from hexrail.oracle.walks import reference_routes

__all__ = ["ReferenceResult", "ReferenceRoute", "reference_routes", "reference_solve"]
