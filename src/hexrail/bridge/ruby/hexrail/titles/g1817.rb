# frozen_string_literal: true

# 1817: the title_state facts of G1817::Game#revenue_for, read from the live game. The route
# bonuses come from hex assignments (the markers of ASSIGNMENT_TOKENS: bridges pay per paid stop,
# mines and ranches per hex of track), a hex may appear once among the route's node hexes, and
# the Modern Trains option pays 7 and 8 trains per tokened city.
# 18USA (G18USA::Game < G1817::Game) builds on this module: the public methods take the game, and
# the marker kinds come from each class's own ASSIGNMENT_TOKENS.

module Hexrail
  module Titles
    module G1817
      BRIDGE = 'bridge'
      # The amounts are literals in G1817::Game#revenue_for (no engine constants)
      PER_BRIDGE_STOP = 10
      PER_TRACK_MARKER_HEX = 10
      # the markers #revenue_for counts per hex of the route's track (route.all_hexes)
      TRACK_MARKERS = %w[mine ranch].freeze
      # #revenue_for adds the markers' bonus whoever placed them (stop.hex / route.all_hexes)
      FOR_WHOM = 'every corporation'
      # option_modern_trains?: `route.train.distance == 7 ? 10 : 20` per city tokened by the owner
      MODERN_TRAIN_AMOUNTS = { 7 => 10, 8 => 20 }.freeze

      module_function

      def state(game, entity)
        out = { 'bridge_bonus' => bridge_bonus(game) }
        TRACK_MARKERS.each do |marker|
          out["#{marker}_bonus"] = track_marker_bonus(game, marker) if marker?(game, marker)
        end
        # #revenue_for: 'Route visits same hex twice' on route.hexes (consecutive repeats merged)
        out['distinct_node_hexes'] = true
        out['modern_trains'] = modern_trains(game, entity)
        out
      end

      # A marker kind exists in the title when its class has a token image for it (18USA keeps
      # only the bridge; 1817 lists the ranch even without the Volatility expansion)
      def marker?(game, marker)
        game.class::ASSIGNMENT_TOKENS.key?(marker)
      end

      # -- markers -----------------------------------------------------------------------------

      # Hexes holding the marker now, in the map's hex order
      def marked_hexes(game, marker)
        game.hexes.select { |hex| hex.assigned?(marker) }
      end

      def bridge_bonus(game)
        hexes = marked_hexes(game, BRIDGE)
        { 'assignment' => BRIDGE, 'per_paid_stop' => PER_BRIDGE_STOP, 'hexes' => hexes.map(&:id),
          'nodes' => stop_signatures(hexes), 'for' => FOR_WHOM }
      end

      # Mines and ranches: +10 per marked hex whose track the route uses; #revenue_for also
      # refuses a route whose first or last node hex holds one
      def track_marker_bonus(game, marker)
        { 'assignment' => marker, 'per_hex_on_route' => PER_TRACK_MARKER_HEX,
          'hexes' => marked_hexes(game, marker).map(&:id), 'route_may_not_start_or_end' => true,
          'for' => FOR_WHOM }
      end

      # The revenue centres of the hexes' current tiles, as the position names its nodes
      def stop_signatures(hexes)
        hexes.flat_map { |hex| hex.tile.stops.map(&:signature) }
      end

      # -- Modern Trains -----------------------------------------------------------------------

      def modern_trains(game, entity)
        enabled = game.option_modern_trains? ? true : false
        out = { 'enabled' => enabled,
                'per_token_city_by_distance' => MODERN_TRAIN_AMOUNTS.transform_keys(&:to_s) }
        out['trains'] = modern_train_amounts(game, entity) if enabled
        out
      end

      # The entity's runnable trains of distance 7 or 8, with their bonus per tokened city
      def modern_train_amounts(game, entity)
        game.route_trains(entity).each_with_object({}) do |train, acc|
          amount = MODERN_TRAIN_AMOUNTS[train.distance]
          acc[train.id] = amount if amount
        end
      end
    end

    register('1817', G1817)
  end
end
