# frozen_string_literal: true

# 18SJ: who earns the two private companies' marker bonuses, and whether the E-train rule that
# closes full cities to the company's other trains is in force. The markers themselves are the
# hexes' `assignments`; the icons driving the route bonuses are the hexes' `icons`.

module Hexrail
  module Titles
    module G18SJ
      module_function

      def state(game, entity)
        out = {}
        port_marker!(out, game)
        bonus_tokens!(out, game)
        # the engine checks the E-train pass-through rule on the company owning an E train
        out['electric_train_owned'] = game.send(:owns_electric_train?, entity) ? true : false
        out
      end

      # Sveabolaget (SB): +30 per port icon on the hex holding its marker, to the company owning
      # it. A removed private (one of each optional pair leaves at setup) has no lookup: no keys.
      def port_marker!(out, game)
        steam = game.sveabolaget
        return unless steam

        out['port_marker'] = steam.id
        out['port_marker_owner'] = owner_id(steam.owner)
      end

      # Göteborg-Kinnekulle (GKB) bonus markers: the engine's assignment tokens other than SB
      # (as gkb_hex_assigned? skips it), each worth the amount in its name, as
      # gkb_bonuses_details reads it. The table is the title's, present even without GKB.
      def bonus_tokens!(out, game)
        out['bonus_tokens'] = game.class::ASSIGNMENT_TOKENS.keys.reject { |id| id == 'SB' }
                                  .to_h { |id| [id, id.sub('GKB', '').to_i] }
        gkb = game.gkb
        # removed at setup: no company, nobody earns the markers
        out['bonus_tokens_owner'] = owner_id(gkb.owner) if gkb
      end

      # A closed private has no owner; a player owning it earns nothing but is named as such
      def owner_id(owner)
        owner&.id&.to_s
      end
    end

    register('18SJ', G18SJ)
  end
end
