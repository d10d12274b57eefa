# frozen_string_literal: true

# 1822's E-train exception on a real game: a token of the running company in the English
# Channel city lets its E train end in France, the Channel city paid France's value.
#
#   ruby channel_token.rb --engine DIR GAME.json
#
# No recorded game has it, so before every run_routes action of a company owning an E train a
# copy of the game gets the Channel's gray tile (when still bare) and a normal token of the
# company in its city; hexrail routes the copy in place of Engine::AutoRouter and the engine
# scores the routes afresh from their connections (every route check runs). One JSON line per
# run: hexrail's claim, the engine's revenue and subsidy, and each route's train and hexes.

require_relative 'engine_checks'

_, args = EngineChecks.start(ARGV)

def with_channel_token(game, action)
  copy = game.clone(game.raw_actions)
  entity = copy.get(action['entity_type'], action['entity'])
  hex = copy.hex_by_id('P43')
  if hex.tile.paths.empty?
    hex.lay(copy.tiles.find { |t| t.label.to_s == 'EC' && t.color == :gray }.rotate!(0))
  end
  city = hex.tile.cities[0]
  unless city.tokened_by?(entity)
    token = Engine::Token.new(entity, type: :normal)
    entity.tokens << token
    city.place_token(entity, token, free: true, check_tokenable: false,
                                    extra_slot: city.tokens.none?(&:nil?))
  end
  copy.graph.clear
  [copy, entity]
end

data = Hexrail::Replay.read_game(args[0])
game = Hexrail::Replay.load_game(data, args[0])
filtered, = Engine::Game::Base.filtered_actions(data['actions'])
filtered.each_with_index do |action, index|
  next unless action && action['type'] == 'run_routes'

  Hexrail::Replay.advance(game, action, index, args[0])
  next unless game.get(action['entity_type'], action['entity']).trains.any? { |t| t.name == 'E' }

  copy, entity = with_channel_token(game, action)
  EngineChecks.report('action_index' => index, 'entity' => entity.id) do |line|
    router = Engine::AutoRouter.new(copy)
    routes = router.compute(entity)
    record = router.hexrail_record
    line['hexrail'] = [record['revenue'], record['subsidy'], record['optimal']]
    fresh = EngineChecks.rescored(copy, routes)
    line['engine'] = [copy.routes_revenue(fresh), copy.routes_subsidy(fresh).to_i]
    line['routes'] = fresh.map { |r| [r.train.name, r.visited_stops.map { |s| s.hex.id }] }
  end
end
