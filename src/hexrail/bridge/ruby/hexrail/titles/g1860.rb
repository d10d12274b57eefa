# frozen_string_literal: true

# 1860 (Isle of Wight): the flags that change how the engine scores a route at this moment.
# Each is read from the game's own predicates, so a variant or a later engine that moves the
# trigger (e.g. what ends halts) is followed without change here.

module Hexrail
  module Titles
    module G1860
      module_function

      def state(game, entity)
        {
          # an insolvent company runs the depot's cheapest train, leased, under its own scoring
          'insolvent' => flag(game.insolvent?(entity)),
          'nationalization' => flag(game.nationalization),
          # halts stop counting (no subsidy) once the Southern has formed and its SR is past
          'ignore_halts' => flag(game.ignore_halts?),
          'use_all_towns' => flag(game.use_all_towns?),
          'no_skip_towns' => flag(game.option_no_skip_towns?),
          'original_insolvency' => flag(game.option_original_insolvency?),
          'simplified_insolvency' => flag(game.option_simplified_insolvency?),
          'halt_subsidy' => game.class::HALT_SUBSIDY,
        }
      end

      # the engine's predicates may answer nil (no optional rules, flag never set): JSON false
      def flag(value)
        value ? true : false
      end
    end

    register('1860', G1860)
  end
end
