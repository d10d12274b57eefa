# frozen_string_literal: true

# Routes between the engine and the route form of 18xx-route-position/1: the players' routes of a
# run_routes action rebuilt and re-scored by the engine, and any Engine::Route described.

module Hexrail
  module Routes
    module_function

    # The routes of a run_routes action, rebuilt from what it stores (connections, node list,
    # halts) and scored afresh: the revenue a fixture stores is not always there, nor current.
    def submitted(game, action)
      stored = action['routes'] || []
      routes = build(game, stored)
      out = { 'extra_revenue' => action['extra_revenue'] || 0 }
      out['revenue_fixture'] = stored.sum { |r| r['revenue'].to_i }
      fixture_subsidy = stored.sum { |r| r['subsidy'].to_i }
      out['subsidy_fixture'] = fixture_subsidy unless fixture_subsidy.zero?
      out['routes'] = routes.zip(stored).map do |route, h|
        described = describe(game, route)
        described['revenue_fixture'] = h['revenue']
        described['subsidy_fixture'] = h['subsidy'] if h.key?('subsidy')
        described
      end
      begin
        out['revenue'] = game.routes_revenue(routes)
        subsidy = game.routes_subsidy(routes).to_i
        out['subsidy'] = subsidy unless subsidy.zero?
      rescue StandardError => e
        out['error'] = message(e)
        out['error_at'] = e.backtrace.first(3) unless e.is_a?(Engine::GameError)
      end
      out
    end

    def build(game, stored)
      routes = []
      stored.each do |h|
        opts = {
          connection_hexes: h['connections'],
          hexes: h['hexes']&.map { |id| game.hex_by_id(id) },
          halts: h['halts'],
          abilities: h['abilities'],
          nodes: h['nodes'],
        }.compact
        routes << Engine::Route.new(game, game.phase, game.train_by_id(h['train']), routes: routes, **opts)
      end
      routes
    end

    def message(err)
      "#{err.class.name}: #{err.message}"
    end

    # One route in the schema's route form; what the engine refuses is kept as `error`, with
    # whatever it could still say of the route's track.
    def describe(game, route)
      out = { 'train' => route.train.id, 'train_name' => route.train.name }
      out['connections'] = safe([]) { route.connection_hexes || [] }
      out['hexes'] = safe([]) { route.hexes.map(&:id) }
      out['visits'] = safe([]) { route.visited_stops.map(&:signature) }
      out['track'] = safe([]) { track_of(route) }
      begin
        out['revenue'] = route.revenue
        out['stops'] = route.stops.map(&:signature)
        subsidy = route.subsidy.to_i
        out['subsidy'] = subsidy unless subsidy.zero?
        out['halts'] = route.halts unless route.halts.nil?
        out['revenue_str'] = route.revenue_str
        distance = safe(nil) { route.distance_str }
        out['distance_str'] = distance if distance
      rescue StandardError => e
        out['error'] = message(e)
      end
      out
    end

    def track_of(route)
      route.ordered_paths.map { |p| "#{p.hex.id}:#{p.hex.tile.paths.index(p)}" }
    end

    def safe(default)
      yield
    rescue StandardError
      default
    end
  end
end
