# frozen_string_literal: true

# What the engine-side checks of tests/bridge share: loading the engine with hexrail in place of
# its auto-router, and having the engine score routes afresh.

require 'json'
require 'optparse'
require_relative '../../src/hexrail/bridge/ruby/hexrail/engine'

module EngineChecks
  module_function

  # Parse `argv` (--engine DIR and the script's own `flags`, {name => [type, default]}), load the
  # engine, then hexrail's replay and auto-router. Returns [options, the other arguments].
  def start(argv, flags = {})
    options = flags.transform_values(&:last)
    args = OptionParser.new do |o|
      o.on('--engine DIR') { |v| options[:engine] = v }
      flags.each { |name, (type, _)| o.on("--#{name} K", type) { |v| options[name] = v } }
    end.parse(argv)
    Hexrail::Engine18xx.load(options[:engine])
    require_relative '../../src/hexrail/bridge/ruby/hexrail/replay'
    require_relative '../../src/hexrail/bridge/ruby/auto_router'
    [options, args]
  end

  # Print `line` as one JSON line once the block has filled it in; an engine error goes into
  # its 'error' instead of ending the run.
  def report(line)
    yield line
  rescue StandardError => e
    line['error'] = "#{e.class.name}: #{e.message}"
  ensure
    puts JSON.generate(line)
    $stdout.flush
  end

  # The routes built again from their connections, as the engine builds a submitted route,
  # each scored (every route check runs).
  def rescored(game, routes)
    fresh = []
    routes.each do |r|
      fresh << Engine::Route.new(game, game.phase, r.train, connection_hexes: r.connection_hexes,
                                                            halts: r.halts, routes: fresh)
    end
    fresh.each(&:revenue)
    fresh
  end
end
