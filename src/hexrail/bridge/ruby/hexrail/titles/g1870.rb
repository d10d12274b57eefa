# frozen_string_literal: true

# 1870: the route bonuses of G1870::Game#revenue_for and the connection-run rule of
# #check_route_combination, read from the live game:
# - the Southern Cattle Company token (assignment SCC): +10 once for the SCC-holding corporation;
# - the Gulf Shipping Company port: open (GSC) +20 once for the holder, +10 for everybody else;
#   closed (GSCᶜ) +20 once for the holder only;
# - the destination bonus (G1870::Game#destination_revenue): once the destination hex lost the
#   corporation's assignment, an end stop in that hex pays twice;
# - a connection run (round.connection_runs) needs a route between home and destination hexes.

module Hexrail
  module Titles
    module G1870
      # literals of G1870::Game#revenue_for (the engine has no constants for the amounts)
      CATTLE = 'SCC'
      PORT_OPEN = 'GSC'
      PORT_CLOSED = 'GSCᶜ'
      CATTLE_BONUS = 10
      PORT_OPEN_OWNER_BONUS = 20
      PORT_OPEN_OTHER_BONUS = 10
      PORT_CLOSED_BONUS = 20

      module_function

      def state(game, entity)
        corp = entity.respond_to?(:corporation?) && entity.corporation? ? entity : nil
        tokens = token_state(game, corp)
        destination = destination_state(game, corp)
        {
          **tokens,
          'assignment_holders' => assignment_holders(game),
          **destination,
          **connection_state(game, corp),
          'route_bonuses' => token_bonuses(tokens) + destination_bonuses(destination),
        }
      end

      # The private tokens: where they lie and whether this corporation holds them
      def token_state(game, corp)
        {
          'cattle_bonus' => CATTLE_BONUS,
          'cattle_hexes' => Titles.assigned_hexes(game, CATTLE),
          'cattle_bonus_entitled' => Titles.assigned?(corp, CATTLE),
          'port_open_hexes' => Titles.assigned_hexes(game, PORT_OPEN),
          'port_open_owner_bonus' => PORT_OPEN_OWNER_BONUS,
          'port_open_other_bonus' => PORT_OPEN_OTHER_BONUS,
          'port_open_entitled_owner' => Titles.assigned?(corp, PORT_OPEN),
          'port_closed_hexes' => Titles.assigned_hexes(game, PORT_CLOSED),
          'port_closed_bonus' => PORT_CLOSED_BONUS,
          'port_closed_entitled' => Titles.assigned?(corp, PORT_CLOSED),
        }
      end



      # Which corporations hold each private token (the keys of the title's ASSIGNMENT_TOKENS);
      # tokens nobody holds are left out
      def assignment_holders(game)
        game.class::ASSIGNMENT_TOKENS.keys.each_with_object({}) do |key, out|
          holders = game.corporations.select { |c| c.assigned?(key) }.map(&:id)
          out[key] = holders unless holders.empty?
        end
      end

      # G1870::Game#destination_hex reads the corporation's first ability (assign_hexes); it is
      # removed when the token goes to the charter, so the destination is then nil
      def destination_state(game, corp)
        destination = corp && game.destination_hex(corp)
        pending = destination ? destination.assigned?(corp) : false
        {
          'destination_hex' => destination&.id,
          'destination_pending' => pending ? true : false,
          'destination_bonus_active' => destination && !pending ? true : false,
          'home_hex' => corp ? home_hex(game, corp) : nil,
        }
      end

      # G1870::Game#home_hex: the hex of the corporation's first token (nil while unplaced)
      def home_hex(game, corp)
        return nil if corp.tokens.empty?

        game.home_hex(corp)&.id
      end

      # round.connection_runs (corporation -> destination hex) exists in operating rounds only;
      # check_route_combination applies the rule to the corporation with an entry
      def connection_state(game, corp)
        runs = game.round.respond_to?(:connection_runs) ? game.round.connection_runs : {}
        destination = corp ? runs[corp] : nil
        {
          'connection_run' => destination ? true : false,
          'connection_run_destination' => destination&.id,
          'connection_run_queue' => runs.keys.map(&:id),
        }
      end

      # The private-token bonuses this corporation earns now, amounts already chosen for it
      def token_bonuses(tokens)
        out = []
        if tokens['cattle_bonus_entitled'] && !tokens['cattle_hexes'].empty?
          out << stop_bonus('cattle', tokens['cattle_hexes'], CATTLE_BONUS)
        end
        unless tokens['port_open_hexes'].empty?
          amount = tokens['port_open_entitled_owner'] ? PORT_OPEN_OWNER_BONUS : PORT_OPEN_OTHER_BONUS
          out << stop_bonus('port_open', tokens['port_open_hexes'], amount)
        end
        if tokens['port_closed_entitled'] && !tokens['port_closed_hexes'].empty?
          out << stop_bonus('port_closed', tokens['port_closed_hexes'], PORT_CLOSED_BONUS)
        end
        out
      end

      def stop_bonus(id, hexes, amount)
        { 'id' => id, 'type' => 'stop_in_hexes', 'count' => 'once', 'hexes' => hexes, 'amount' => amount }
      end

      def destination_bonuses(destination)
        return [] unless destination['destination_bonus_active']

        [{ 'id' => 'destination', 'type' => 'end_stop_in_hex_doubled', 'hexes' => [destination['destination_hex']] }]
      end
    end

    register('1870', G1870)
  end
end
