# frozen_string_literal: true

# hexrail as the 18xx.games engine's auto-router. Load this file after the engine (MRI):
#
#   require 'engine'
#   require '/path/to/hexrail/bridge/ruby/auto_router'
#
# and Engine::AutoRouter#compute asks hexrail for the optimal routes instead of running its own
# search (whose combination search is JavaScript that only Opal runs). The position is written as
# the importer writes it (Hexrail::Position), solved by the hexrail HTTP service when
# HEXRAIL_URL is set (e.g. http://127.0.0.1:8000) or else by a `hexrail solve` subprocess
# (HEXRAIL_CMD, default `hexrail`), and the plan comes back as Engine::Route objects built from
# their `connections`, so the engine's own route checks accept or refuse them.
#
# Settings: HEXRAIL_TIME_LIMIT (seconds; else the caller's route_timeout, else 10).
# compute returns the routes and also hands them to opts[:callback], as the browser's does.

require 'json'
require 'open3'
require 'net/http'
require 'uri'
require_relative 'hexrail/position'
require_relative 'hexrail/routes'
require_relative 'hexrail/titles'

module Hexrail
  class SolveError < StandardError; end

  module Solver
    module_function

    ENGINE_INFO = { 'commit' => nil, 'ruby' => RUBY_VERSION, 'opal_compat_patches' => [] }.freeze

    # The position of `entity` about to run, in schema 18xx-route-position/1
    def position(game, entity)
      Position.position(game, Position.run_routes_action(game, entity), nil, fixture: nil,
                        engine_info: ENGINE_INFO)
    end

    # hexrail's answer for the position: the result line of `hexrail solve --from 18xx`
    def solve(position, time_limit)
      url = ENV['HEXRAIL_URL']
      record = url && !url.empty? ? over_http(url, position, time_limit) : by_subprocess(position, time_limit)
      raise SolveError, "hexrail: #{record['error']}" if record['error']

      record
    end

    def over_http(url, position, time_limit)
      uri = URI.join(url.end_with?('/') ? url : "#{url}/", 'solve')
      body = JSON.generate('position' => position, 'time_limit' => time_limit)
      response = Net::HTTP.start(uri.host, uri.port, use_ssl: uri.scheme == 'https',
                                                     read_timeout: time_limit + 30, open_timeout: 10) do |http|
        http.post(uri.path, body, 'Content-Type' => 'application/json')
      end
      record = JSON.parse(response.body)
      return record if response.is_a?(Net::HTTPSuccess)

      { 'error' => "HTTP #{response.code}: #{record['error'] || response.body[0, 200]}" }
    rescue SystemCallError, IOError, Timeout::Error, JSON::ParserError, SocketError => e
      { 'error' => "cannot reach the hexrail service at #{url}: #{e.class.name}: #{e.message}" }
    end

    def by_subprocess(position, time_limit)
      command = (ENV['HEXRAIL_CMD'] || 'hexrail').split + ['-q', 'solve', '--from', '18xx', '-',
                                                          '--format', 'json', '--time-limit', time_limit.to_s]
      out, err, status = Open3.capture3(*command, stdin_data: JSON.generate(position))
      return { 'error' => (err.lines.last || "exit status #{status.exitstatus}").strip } unless status.success?

      JSON.parse(out.lines.first || '{}')
    rescue SystemCallError => e
      { 'error' => "cannot run #{command.first}: #{e.message}" }
    end

    # The plan's routes as engine routes, each built from its connections as a player's would be
    def routes(game, record)
      built = []
      record.fetch('routes').each do |r|
        g = r.fetch('g18xx')
        opts = { connection_hexes: g['connections'], nodes: g['nodes'], halts: g['halts'] }.compact
        built << ::Engine::Route.new(game, game.phase, game.train_by_id(g['train']), routes: built, **opts)
      end
      built
    end
  end

  # Prepended to Engine::AutoRouter: the same entry point, hexrail's plan
  module AutoRouter
    attr_reader :hexrail_record

    def compute(corporation, **opts)
      @running = true
      time_limit = (ENV['HEXRAIL_TIME_LIMIT'] || opts[:route_timeout] || 10).to_f
      @hexrail_record = Solver.solve(Solver.position(@game, corporation), time_limit)
      routes = Solver.routes(@game, @hexrail_record)
      @running = false
      opts[:callback]&.call(routes)
      routes
    rescue SolveError => e
      @running = false
      @flash&.call(e.message)
      opts[:callback]&.call([])
      []
    end
  end
end

# Under MRI the engine's own auto_router.rb must never load: its JavaScript sits in a %x{}
# literal at class level, which MRI would run as a shell command. Where it is not loaded yet,
# define the class with the same entry points and mark the file as loaded.
unless defined?(::Engine::AutoRouter)
  module Engine
    class AutoRouter
      attr_accessor :running

      def initialize(game, flash = nil)
        @game = game
        @flash = flash
      end
    end
  end
  engine_file = $LOAD_PATH.map { |dir| File.expand_path(File.join(dir, 'engine', 'auto_router.rb')) }
                          .find { |f| File.file?(f) }
  $LOADED_FEATURES << engine_file if engine_file
end

::Engine::AutoRouter.prepend(Hexrail::AutoRouter)
