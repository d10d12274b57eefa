# frozen_string_literal: true

# The title-specific facts of a position: `title_state` (the keys each title's rules text lists),
# facts of a title's own train classes, and stop values of titles that price stops themselves.
# One module per title under titles/, registered by title name; a title without one exports the
# engine's plain map data.

module Hexrail
  module Titles
    REGISTRY = {}

    module_function

    def register(*titles, mod)
      titles.each { |t| REGISTRY[t] = mod }
    end

    def for_game(game)
      REGISTRY[game.class.title]
    end

    # [title_state hash, warnings]: a hook that fails leaves its keys out and says so
    def state(game, entity)
      mod = for_game(game)
      return [{}, []] unless mod.respond_to?(:state)

      [mod.state(game, entity), []]
    rescue StandardError => e
      [{}, ["#{mod}.state: #{e.class.name}: #{e.message}"]]
    end

    # Helpers of several titles' hooks: private companies' markers (assignments)

    # Does `entity` (a corporation or minor) hold the assignment `key`?
    def assigned?(entity, key)
      entity.respond_to?(:assigned?) && entity.assigned?(key) ? true : false
    end

    # Hexes holding the assignment `key`, in the engine's hex order
    def assigned_hexes(game, key)
      game.hexes.select { |hex| hex.assigned?(key) }.map(&:id)
    end

    # {train id => fact} over the entity's trains as the position lists them, where the block
    # gives a fact (not nil) for the train's distance rows
    def by_train(game, entity)
      Position.trains_of(game, entity).each_with_object({}) do |(train, _runnable), acc|
        fact = yield(train.distance)
        acc[train.id] = fact if fact
      end
    end

    def train_facts(game, train)
      mod = for_game(game)
      mod.respond_to?(:train_facts) ? mod.train_facts(game, train) : {}
    end

    # The stop value in the current phase when the title prices stops itself, else nil
    def stop_revenue(game, node)
      mod = for_game(game)
      mod.respond_to?(:stop_revenue) ? mod.stop_revenue(game, node) : nil
    end

    def train_stop_revenue(game, node, train)
      mod = for_game(game)
      mod.respond_to?(:train_stop_revenue) ? mod.train_stop_revenue(game, node, train) : nil
    end
  end
end

Dir.glob(File.join(__dir__, 'titles', '*.rb')).sort.each { |f| require f }
