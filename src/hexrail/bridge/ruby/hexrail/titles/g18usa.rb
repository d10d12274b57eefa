# frozen_string_literal: true

require_relative 'g1817'

# 18USA (G18USA::Game < G1817::Game): 1817's facts (bridges, one node hex once, Modern Trains,
# which 18USA lacks) plus those of G18USA::Game#revenue_for, #compute_stops and #check_connected
# and of the Route step's train upgrades, read from the live game.

module Hexrail
  module Titles
    module G18USA
      # Literals of G18USA::Game#revenue_for (the engine has no constants for them)
      PULLMAN_PER_STOP = 20
      COMPANY_TOWN_PENALTY = 10
      MEXICO_MAX_ROUTES = 2
      P8_AMOUNT = 10
      COAL_AMOUNT = 10
      ORE_AMOUNTS = [10, 20].freeze # an ORE20_TILES tile pays the second
      OIL_AMOUNTS = [10, 20].freeze # from phase 5 (#phase_5_or_later?) the second
      PLUS_TEN = 'plus_ten'
      PLUS_TEN_TWENTY = 'plus_ten_twenty'
      PLUS_TEN_AMOUNT = 10
      PLUS_TEN_TWENTY_AMOUNTS = [10, 20].freeze # from phase 5 the second
      # the ids of the upgrades of G18USA::Step::Route#upgrade_choices
      SWITCHER = '/'
      EXTENDER = '+'
      PULLMAN = 'P'
      # the size of the Switcher and Extender upgrades in #upgrade_choices
      UPGRADE_DISTANCE = 1
      RESOURCE_RULE = 'amount once per route for each resource hex whose track the route uses, unless the hex ' \
                      'holds one of its paid stops; a route may not pass a resource hex twice'
      GNR_APPLIES_TO = 'one route of the set: the one with the largest GNR amount (first in route order on ties)'
      P8_COMPANY = 'P8'

      module_function

      def state(game, entity)
        out = G1817.state(game, entity)
        out['phase_5_or_later'] = game.phase_5_or_later? ? true : false
        out.merge!(upgrades_state(game, entity))
        out['resource_hexes'] = resource_hexes(game)
        out['resource_rule'] = RESOURCE_RULE
        out['rural_junctions'] = rural_junctions(game)
        out['company_town'] = company_town(game, entity)
        out['mexico'] = { 'hexes' => game.class::MEXICO_HEXES.dup, 'max_routes' => MEXICO_MAX_ROUTES }
        out['p8'] = p8(game, entity)
        out['stop_hex_bonuses'] = stop_hex_bonuses(game, entity)
        out['gnr'] = gnr(game, entity)
        out
      end

      # -- train upgrades (this operating turn) ------------------------------------------------

      def upgrades_state(game, entity)
        assigned = upgrade_assignments(game)
        {
          'train_upgrades' => assigned.to_h { |train, ups| [train.id, ups.map { |u| upgrade_of(u) }] },
          'train_base_distance' => assigned.to_h { |train, ups| [train.id, base_distance(train, ups)] },
          'pullman' => pullman(game, entity, assigned),
          'switcher' => { 'trains' => trains_with(assigned, SWITCHER), 'extra_distance' => UPGRADE_DISTANCE,
                          'skips_one_stop_when_full' => true, 'may_pass_one_blocked_city' => true },
          'extender' => { 'trains' => trains_with(assigned, EXTENDER), 'extra_distance' => UPGRADE_DISTANCE },
          'upgrades_not_attached' => upgrades_not_attached(game, entity),
        }
      end

      # {train => [upgrade hash]}: what the Route step attached this turn (the round's state, cleared
      # after the run); trains without upgrades are left out
      def upgrade_assignments(game)
        round = game.round
        return {} unless round.respond_to?(:train_upgrade_assignments)

        (round.train_upgrade_assignments || {}).reject { |_train, ups| ups.nil? || ups.empty? }
      end

      def upgrade_of(upgrade)
        out = { 'id' => upgrade[:id], 'name' => upgrade[:name] }
        out['size'] = upgrade[:size] if upgrade[:size]
        out
      end

      # attach_upgrade added each upgrade's size to the train's distance
      def base_distance(train, upgrades)
        train.distance - upgrades.sum { |u| u[:size] || 0 }
      end

      def trains_with(assigned, id)
        assigned.select { |_train, ups| ups.any? { |u| u[:id] == id } }.keys.map(&:id)
      end

      def pullman(game, entity, assigned)
        owned = entity.respond_to?(:trains) && entity.trains.any? { |t| game.pullman_train?(t) }
        { 'trains' => trains_with(assigned, PULLMAN), 'per_paid_stop' => PULLMAN_PER_STOP,
          'not_on_tiles' => game.class::RURAL_TILES.dup, 'owns_pullman_car' => owned ? true : false }
      end

      # The Route step's own choices (#upgrade_choices leaves out those attached already) with the
      # trains #train_choices offers each; both only read the step
      def upgrades_not_attached(game, entity)
        step = route_step(game)
        return [] unless step && step.instance_variable_get(:@upgrade_train_assignments)

        step.upgrade_choices(entity).map do |upgrade|
          { 'id' => upgrade[:id], 'name' => upgrade[:name],
            'eligible_trains' => step.train_choices(entity, upgrade[:permanents]).map(&:id) }
        end
      end

      def route_step(game)
        return nil unless game.round.respond_to?(:steps)

        game.round.steps.find { |s| s.is_a?(::Engine::Game::G18USA::Step::Route) }
      end

      # -- resources ---------------------------------------------------------------------------

      # Every laid resource tile (#revenue_for skips white preprinted hexes) with what a route
      # passing it earns now
      def resource_hexes(game)
        game.hexes.each_with_object({}) do |hex, acc|
          tile = hex.tile
          next if tile.color == :white

          resources = game.tile_resources(tile)
          next if resources.empty?

          acc[hex.id] = { 'resources' => resources.map(&:to_s), 'amount' => resource_amount(game, tile, resources),
                          'tile' => tile.name }
        end
      end

      def resource_amount(game, tile, resources)
        amount = 0
        amount += COAL_AMOUNT if resources.include?(:coal)
        amount += ORE_AMOUNTS[game.class::ORE20_TILES.include?(tile.name) ? 1 : 0] if resources.include?(:ore)
        amount += OIL_AMOUNTS[game.phase_5_or_later? ? 1 : 0] if resources.include?(:oil)
        amount
      end

      # -- special tiles -----------------------------------------------------------------------

      def hexes_with_tiles(game, names)
        game.hexes.select { |hex| names.include?(hex.tile.name) }
      end

      # #check_distance: not first or last; #revenue_for: not passed twice; no Pullman bonus
      def rural_junctions(game)
        tiles = game.class::RURAL_TILES
        hexes = hexes_with_tiles(game, tiles)
        { 'tiles' => tiles.dup, 'hexes' => hexes.map(&:id), 'nodes' => G1817.stop_signatures(hexes),
          'may_not_start_or_end' => true, 'may_not_pass_twice' => true, 'no_pullman_bonus' => true }
      end

      # #revenue_for: -10 unless the route's owner has a token in the company town's city
      def company_town(game, entity)
        tiles = game.class::COMPANY_TOWN_TILES
        hexes = hexes_with_tiles(game, tiles)
        tokened = hexes.to_h { |hex| [hex.id, hex.tile.cities.first&.tokened_by?(entity) ? true : false] }
        { 'tiles' => tiles.dup, 'hexes' => hexes.map(&:id), 'nodes' => G1817.stop_signatures(hexes),
          'penalty' => COMPANY_TOWN_PENALTY, 'entity_tokened' => tokened }
      end

      # -- stop bonuses ------------------------------------------------------------------------

      def p8(game, entity)
        owner = game.company_by_id(P8_COMPANY)&.owner
        { 'owner' => owner&.id, 'hexes' => game.p8_hexes.map(&:id), 'amount' => P8_AMOUNT,
          'owned_by_entity' => !owner.nil? && owner == entity }
      end

      # Once-per-route bonuses of #revenue_for the entity earns with a paid stop on one of the
      # hexes: the subsidy icons (any company's route) and Express Freight's red area (its owner)
      def stop_hex_bonuses(game, entity)
        out = []
        plus_ten = icon_hexes(game, PLUS_TEN)
        out << { 'source' => PLUS_TEN, 'hexes' => plus_ten, 'amount' => PLUS_TEN_AMOUNT } unless plus_ten.empty?
        plus_twenty = icon_hexes(game, PLUS_TEN_TWENTY)
        unless plus_twenty.empty?
          amount = PLUS_TEN_TWENTY_AMOUNTS[game.phase_5_or_later? ? 1 : 0]
          out << { 'source' => PLUS_TEN_TWENTY, 'hexes' => plus_twenty, 'amount' => amount }
        end
        p8_state = p8(game, entity)
        if p8_state['owned_by_entity'] && !p8_state['hexes'].empty?
          out << { 'source' => P8_COMPANY, 'hexes' => p8_state['hexes'], 'amount' => P8_AMOUNT }
        end
        out
      end

      def icon_hexes(game, name)
        game.hexes.select { |hex| hex.tile.icons.any? { |icon| icon.name == name } }.map(&:id)
      end

      # Great Northern: #gnr_revenue's two levels, paid to one route of the owner's set
      def gnr(game, entity)
        klass = game.class
        owned = entity.respond_to?(:companies) && game.owns_gnr?(entity)
        { 'owned_by_entity' => owned ? true : false,
          'levels' => [{ 'hexes' => klass::GNR_FULL_BONUS_HEXES.dup, 'amount' => klass::GNR_FULL_BONUS },
                       { 'hexes' => klass::GNR_HALF_BONUS_HEXES.dup, 'amount' => klass::GNR_HALF_BONUS }],
          'applies_to' => GNR_APPLIES_TO }
      end
    end

    register('18USA', G18USA)
  end
end
