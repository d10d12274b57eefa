# frozen_string_literal: true

# 1882 (Assiniboia): the east-west +100 of G1882::Game#revenue_for and the neutral (CN) station
# tokens that every corporation but CN and CPR carries (G1882::Game#init_corporations).

module Hexrail
  module Titles
    module G1882
      # Literals of G1882::Game#revenue_for (the engine has no constant for them): a route whose
      # stops include one of `east` and one of `west` earns `amount`. The names are the engine's
      # variable names (I1/B2 lie in the west of the map, B12 Hudson Bay in the north-east).
      EAST_HEXES = %w[I1 B2].freeze
      WEST_HEXES = %w[B12].freeze
      EAST_WEST_AMOUNT = 100

      module_function

      def state(game, entity)
        cn = neutral_corporation(game)
        {
          'east_west_bonus' => { 'amount' => EAST_WEST_AMOUNT, 'east_hexes' => EAST_HEXES.dup,
                                 'west_hexes' => WEST_HEXES.dup },
          'route_bonuses' => [{ 'id' => 'east_west', 'type' => 'stops_in_all_sets', 'count' => 'once',
                                'sets' => [EAST_HEXES.dup, WEST_HEXES.dup], 'amount' => EAST_WEST_AMOUNT }],
          'neutral_token_corporation' => cn&.id,
          'entity_is_neutral_token_owner' => !cn.nil? && entity == cn,
          'neutral_token_nodes' => neutral_token_nodes(game),
        }
      end

      # The corporation neutral tokens are made out to: the engine gives the other corporations a
      # token of type :neutral whose corporation is CN
      def neutral_corporation(game)
        game.corporations.each do |corp|
          token = corp.tokens.find { |t| t.type == :neutral }
          return token.corporation if token
        end
        game.corporations.find { |c| c.name == 'CN' }
      end

      # Cities holding a placed neutral token (such a city never blocks), in the engine's hex order
      def neutral_token_nodes(game)
        game.hexes.flat_map do |hex|
          hex.tile.cities.select { |city| city.tokens.any? { |t| t&.type == :neutral } }.map(&:signature)
        end
      end
    end

    register('1882', G1882)
  end
end
