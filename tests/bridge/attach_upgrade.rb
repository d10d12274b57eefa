# frozen_string_literal: true

# 18USA's upgrades attached in the engine as a player attaches them, then routed:
#
#   ruby attach_upgrade.rb --engine DIR GAME.json ACTION UPGRADE=TRAIN...
#
# Replays the game to the run_routes action of index ACTION (0-based, into the game's actions),
# attaches each named upgrade (Extender, Switcher, Pullman) to the train of that id with the
# Route step's own choose action, lets hexrail route in place of Engine::AutoRouter and has the
# engine score its routes afresh. One JSON line: hexrail's claim, the engine's revenue and the
# trains as the engine now names them.

require_relative 'engine_checks'

_, args = EngineChecks.start(ARGV)

path, at, *attach = args
data = Hexrail::Replay.read_game(path)
game = Hexrail::Replay.load_game(data, path)
filtered, = Engine::Game::Base.filtered_actions(data['actions'])
action = filtered[at.to_i]
Hexrail::Replay.advance(game, action, at.to_i, path)
entity = game.get(action['entity_type'], action['entity'])
attach.each do |pair|
  name, train_id = pair.split('=', 2)
  step = game.round.active_step
  upgrades = step.upgrade_choices(entity)
  u = upgrades.index { |x| x[:name] == name } or raise "no #{name} to attach"
  t = step.train_choices(entity, upgrades[u][:permanents]).index { |x| x.id == train_id } or
    raise "#{name} cannot go on #{train_id}"
  game.process_action(Engine::Action::Choose.new(entity, choice: "#{t}-#{u}"))
  raise game.exception.message if game.exception
end
router = Engine::AutoRouter.new(game)
routes = router.compute(entity)
record = router.hexrail_record
fresh = EngineChecks.rescored(game, routes)
puts JSON.generate('hexrail' => [record['revenue'], record['optimal']], 'engine' => game.routes_revenue(fresh),
                   'trains' => entity.trains.map { |x| [x.id, x.name] })
