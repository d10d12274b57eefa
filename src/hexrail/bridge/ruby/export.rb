# frozen_string_literal: true

# Positions of an 18xx.games game, replayed with the engine, as 18xx-route-position/1 JSON lines.
#
#   ruby export.rb --engine DIR GAME.json [--action N | --all] [--check-result]
#
# GAME.json: a game's data as 18xx.games gives it (the engine's public/fixtures/<title>/*.json
# form). Writes the position before each run_routes action (--all), before the action of index N
# (0-based, into the game's actions), or the game's current position (the default: the company
# about to run). Errors are one line on stderr, exit status 2.

require 'json'
require 'optparse'
require_relative 'hexrail/engine'

def fail!(message)
  warn "hexrail-bridge: error: #{message}"
  exit 2
end

options = { which: :current }
parser = OptionParser.new do |o|
  o.banner = 'usage: ruby export.rb --engine DIR GAME.json [--action N | --all] [--check-result]'
  o.on('--engine DIR') { |v| options[:engine] = v }
  o.on('--action N', Integer) { |v| options[:which] = v }
  o.on('--all') { options[:which] = :all }
  o.on('--check-result') { options[:check_result] = true }
  o.on('--no-title-state') { options[:no_title_state] = true }
end
begin
  args = parser.parse(ARGV)
rescue OptionParser::ParseError => e
  fail!(e.message)
end
fail!(parser.banner) unless args.size == 1 && options[:engine]

begin
  engine_info = Hexrail::Engine18xx.load(options[:engine])
rescue ArgumentError => e
  fail!(e.message)
rescue ScriptError, StandardError => e
  fail!("cannot load the 18xx.games engine from #{options[:engine]}: #{e.class.name}: #{e.message}")
end
require_relative 'hexrail/position'
require_relative 'hexrail/routes'
require_relative 'hexrail/titles'
require_relative 'hexrail/replay'

begin
  Hexrail::Replay.run(args[0], options, engine_info) { |position| $stdout.puts(JSON.generate(position)) }
rescue Hexrail::Replay::Error => e
  fail!(e.message)
rescue Errno::EPIPE
  exit 0
end
