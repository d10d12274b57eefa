# frozen_string_literal: true

# 1867 (and 1861, its subclass G1861::Game < G1867::Game): the title_state facts of
# G1867::Game#revenue_for and #compute_stops. Both titles share this module; the hexes of the
# pair bonus come from each class's own constants.

module Hexrail
  module Titles
    module G1867
      # G1867::Game#revenue_for adds `40 * (route.train.multiplier || 1)`: the 40 is a literal
      # there, not a constant the engine exposes
      PAIR_BONUS_AMOUNT = 40

      module_function

      def state(game, entity)
        {
          'pair_bonus' => pair_bonus(game),
          'stop_hex_repeat_forbidden' => true, # revenue_for: 'Route visits same hex twice'
          'hex_bonuses' => hex_bonuses(game, entity),
          'stop_rows' => stop_rows(game, entity),
        }
      end

      # capitals (BONUS_CAPITALS) together with Timmins / Ekaterinburg (BONUS_REVENUE)
      def pair_bonus(game)
        {
          'hexes_a' => game.class::BONUS_CAPITALS.dup,
          'hexes_b' => [game.class::BONUS_REVENUE],
          'amount' => PAIR_BONUS_AMOUNT,
          'times_train_multiplier' => true,
        }
      end

      # as revenue_for walks them: the operating company's companies in holding order, each
      # active :hex_bonus ability (Game#abilities applies owner_type, so player-held ones drop out)
      def hex_bonuses(game, entity)
        return [] unless entity.respond_to?(:companies)

        entity.companies.flat_map do |company|
          bonuses = []
          game.abilities(company, :hex_bonus) do |ability|
            bonuses << { 'company' => company.id, 'hexes' => ability.hexes.dup, 'amount' => ability.amount }
          end
          bonuses
        end
      end

      # compute_stops: the row with pay > 0 is paid first, every other row's kinds fill its
      # free slots
      def stop_rows(game, entity)
        Titles.by_train(game, entity) { |distance| stop_row(distance) }
      end

      def stop_row(distance)
        return nil unless distance.is_a?(Array)

        rows = distance.map { |r| r.transform_keys(&:to_s) }
        pay_row = rows.find { |r| r['pay'].to_i.positive? }
        return nil unless pay_row

        fillers = (rows - [pay_row]).flat_map { |r| r['nodes'].map(&:to_s) }.uniq
        { 'pay_kinds' => pay_row['nodes'].map(&:to_s), 'pay' => pay_row['pay'], 'filler_kinds' => fillers }
      end
    end

    register('1867', G1867)
  end
end
