# frozen_string_literal: true

# 1856: the two route bonuses of G1856::Game#revenue_for, read from the live game: the GLSC port
# marker (+20 once per route for the corporation holding the GLSC assignment, at the hex holding
# it) and the bridge/tunnel rights (hex_bonus abilities, +amount per distinct scored-stop hex).

module Hexrail
  module Titles
    module G1856
      # literal of G1856::Game#revenue_for (the engine has no constant for it)
      PORT_BONUS = 20

      module_function

      def state(game, entity)
        port = game.port
        port_hexes = Titles.assigned_hexes(game, port.id)
        entitled = Titles.assigned?(entity, port.id)
        hex_bonuses = hex_bonuses(entity)
        {
          'port_company' => port.id,
          'port_bonus' => PORT_BONUS,
          'port_bonus_entitled' => entitled,
          'port_hexes' => port_hexes,
          'port_icon_hexes' => port_icon_hexes(game),
          'hex_bonuses' => hex_bonuses,
          'route_bonuses' => route_bonuses(entitled, port_hexes, hex_bonuses),
          'borrowed_train' => borrowed_train(game, entity),
          'national' => game.national.id,
        }
      end



      # Possible marker sites: the port icons disappear with event remove_tokens (first 6-train)
      def port_icon_hexes(game)
        game.hexes.select { |hex| hex.tile.icons.any? { |icon| icon.name == 'port' } }.map(&:id)
      end

      # Every hex_bonus ability counts in revenue_for (all_abilities: kept after privates close)
      def hex_bonuses(entity)
        return [] unless entity.respond_to?(:all_abilities)

        entity.all_abilities.select { |a| a.type == :hex_bonus }.map do |ability|
          { 'kind' => right_kind(ability), 'hexes' => ability.hexes.dup, 'amount' => ability.amount,
            'description' => ability.description }
        end
      end

      # The literals of the engine's own tests for the rights (G1856::Game#tunnel?, #bridge?): a
      # tunnel right covers B13 (Sarnia), a bridge right P17 (Buffalo, with P19)
      def right_kind(ability)
        if ability.hexes.include?('B13') then 'tunnel'
        elsif ability.hexes.include?('P17') then 'bridge'
        else 'other'
        end
      end

      def route_bonuses(entitled, port_hexes, hex_bonuses)
        out = []
        if entitled && !port_hexes.empty?
          out << { 'id' => 'port', 'type' => 'stop_in_hexes', 'count' => 'once', 'hexes' => port_hexes,
                   'amount' => PORT_BONUS }
        end
        hex_bonuses.each do |bonus|
          out << { 'id' => bonus['kind'], 'type' => 'stop_in_hexes', 'count' => 'per_hex',
                   'hexes' => bonus['hexes'], 'amount' => bonus['amount'] }
        end
        out
      end

      # CGR only: the train it borrowed this turn (G1856::Game#borrowed_trains, corp -> train)
      def borrowed_train(game, entity)
        trains = game.respond_to?(:borrowed_trains) ? game.borrowed_trains : nil
        trains.is_a?(Hash) ? trains[entity]&.id : nil
      end
    end

    register('1856', G1856)
  end
end
