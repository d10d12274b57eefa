# frozen_string_literal: true

# 1862 (Railway Mania in the Eastern Counties): the company's train permits, its London link,
# the freight-set bonus rates, and the engine's own stop pricing (game_route_revenue): offboards
# take the column of their revenue table named by the phase, not the phase's tile colours.

module Hexrail
  module Titles
    module G1862
      module_function

      def state(game, entity)
        {
          'stop_revenue_method' => 'game_route_revenue',
          # fetch, not []: the engine's permits Hash adds a key for every entity it is asked about
          'permits' => game.permits.fetch(entity, []).map(&:to_s),
          'london_link' => game.london_link?(entity) ? true : false,
          'freight_bonus' => game.class::FREIGHT_BONUS,
          'port_freight_bonus' => game.class::PORT_FREIGHT_BONUS,
          'offboard_revenue_key' => offboard_key(game)&.to_s,
        }
      end

      # local / express / freight, from the train's name as the engine reads it; an M/N train
      # (pay < visit in its first row) scores its best `pay` of the cities it visits
      def train_facts(game, train)
        out = {}
        type = game.train_type(train)
        out['title_train_type'] = type.to_s if type
        out['title_mn_train'] = true if game.mn_train?(train)
        out
      end

      # The column of an offboard's revenue table the engine uses in this phase
      def offboard_key(game)
        game.class::REAL_PHASE_TO_REV_PHASE[game.phase.name]
      end

      # Offboards are priced by the phase's column whatever the train; other stops as the engine
      # prices them for a train (nil: the exporter's default)
      def stop_revenue(game, node)
        return nil unless node.offboard?

        game.game_route_revenue(node, game.phase, nil)
      end

      def train_stop_revenue(game, node, train)
        game.game_route_revenue(node, game.phase, train)
      end
    end

    register('1862', G1862)
  end
end
