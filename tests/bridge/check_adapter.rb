# frozen_string_literal: true

# The auto-router adapter against the engine's own checks, on a real game:
#
#   ruby check_adapter.rb --engine DIR GAME.json [--every K] [--process K]
#
# Replays the game; before every K-th run_routes action asks Engine::AutoRouter (hexrail in its
# place) for routes, then has the engine score them afresh from their connections (every route
# check runs) and prints one JSON line: the engine's revenue and subsidy, hexrail's claim, the
# players' revenue and the round trip time. Every K-th of those (--process) also submits the
# routes as a run_routes action to a copy of the game, as a player would, and says whether the
# engine took it.

require_relative 'engine_checks'

options, args = EngineChecks.start(ARGV, every: [Integer, 1], process: [Integer, 0])

def rescored(game, routes)
  fresh = EngineChecks.rescored(game, routes)
  [game.routes_revenue(fresh), game.routes_subsidy(fresh).to_i]
end

def submitted(game, entity, routes)
  copy = game.clone(game.raw_actions)
  action = Engine::Action::RunRoutes.new(copy.get(Hexrail::Position.entity_type(entity), entity.id),
                                         routes: routes.map do |r|
    Engine::Route.new(copy, copy.phase, copy.train_by_id(r.train.id), connection_hexes: r.connection_hexes,
                                                                       halts: r.halts)
  end)
  action.routes.each { |r| r.routes = action.routes }
  copy.process_action(action)
  copy.exception ? "#{copy.exception.class.name}: #{copy.exception.message}" : nil
end

data = Hexrail::Replay.read_game(args[0])
game = Hexrail::Replay.load_game(data, args[0])
filtered, = Engine::Game::Base.filtered_actions(data['actions'])
runs = filtered.each_with_index.select { |a, _| a && a['type'] == 'run_routes' }
runs.each_with_index do |(action, index), k|
  next unless (k % options[:every]).zero?

  Hexrail::Replay.advance(game, action, index, args[0])
  entity = game.get(action['entity_type'], action['entity'])
  router = Engine::AutoRouter.new(game)
  start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  EngineChecks.report('action_index' => index, 'entity' => entity.id) do |line|
    routes = router.compute(entity)
    line['seconds'] = (Process.clock_gettime(Process::CLOCK_MONOTONIC) - start).round(4)
    record = router.hexrail_record
    line['hexrail'] = [record['revenue'], record['subsidy'], record['optimal']]
    line['players'] = Hexrail::Routes.submitted(game, action).values_at('revenue', 'subsidy')
    line['engine'] = rescored(game, routes)
    if options[:process].positive? && (k % (options[:every] * options[:process])).zero?
      line['submitted_error'] = submitted(game, entity, routes)
      line['submitted'] = true
    end
  end
end
game.process_to_action(data['actions'].last['id'])
puts JSON.generate('result' => game.result.transform_keys(&:to_s) == (data['result'] || {}).transform_keys(&:to_s))
