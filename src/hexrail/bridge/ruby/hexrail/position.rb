# frozen_string_literal: true

# One position of schema 18xx-route-position/1 (docs/18xx-position-format.md) from a live
# Engine::Game standing just before a run_routes action: the map as the engine routes on it,
# the operating company and its trains, the players' routes re-scored by the engine, and the
# title's own route facts (Hexrail::Titles). Reads the game only: nothing here changes its state.

require 'json'

module Hexrail
  SCHEMA = '18xx-route-position/1'

  module Position
    module_function

    def position(game, action, index, fixture:, engine_info:, title_state: true)
      entity = game.get(action['entity_type'], action['entity']) || game.current_entity
      trains = trains_of(game, entity)
      out = {
        'schema' => SCHEMA,
        'engine' => engine_info,
        'title' => game.class.title,
        'fixture' => fixture,
        'game_id' => game.id,
        'action_index' => index,
        'action_id' => action['id'],
        'entity' => entity_of(entity),
        'action_entity' => action['entity'],
        'round' => game.round.name,
        'turn' => game.turn,
        'round_num' => game.round.respond_to?(:round_num) ? game.round.round_num : nil,
        'phase' => { 'name' => game.phase.name, 'tiles' => game.phase.tiles.map(&:to_s) },
        'optional_rules' => game.optional_rules.map(&:to_s),
        'layout' => layout_of(game),
        'train_autoroute_groups' => autoroute_groups(game),
        'trains' => trains.map { |t, runnable| train_of(game, t, runnable) },
        'hexes' => game.hexes.map { |h| hex_of(game, h, entity, trains.map(&:first)) },
      }
      if title_state
        state, warnings = Titles.state(game, entity)
        state['export_warnings'] = warnings unless warnings.empty?
        out['title_state'] = state unless state.empty?
      end
      out['submitted'] = Routes.submitted(game, action)
      out
    end

    # A run_routes action of `entity` with no routes yet: the position of a company about to run
    def run_routes_action(game, entity)
      { 'type' => 'run_routes', 'entity' => entity.id, 'entity_type' => entity_type(entity),
        'id' => game.current_action_id + 1, 'routes' => [] }
    end

    def entity_type(entity)
      if entity.corporation? then 'corporation'
      elsif entity.minor? then 'minor'
      else 'company'
      end
    end

    # -- the operating entity ---------------------------------------------------------------

    def entity_of(entity)
      kind = if entity.respond_to?(:corporation?) && entity.corporation? then 'corporation'
             elsif entity.respond_to?(:minor?) && entity.minor? then 'minor'
             else entity.class.name.split('::').last.downcase
             end
      {
        'id' => entity.id,
        'kind' => kind,
        'type' => entity.respond_to?(:type) && entity.type ? entity.type.to_s : nil,
        'name' => entity.respond_to?(:full_name) ? entity.full_name : entity.name,
        'home' => entity.respond_to?(:coordinates) ? entity.coordinates : nil,
        'token_nodes' => entity.respond_to?(:placed_tokens) ? entity.placed_tokens.map { |t| t.city.signature } : [],
      }
    end

    # -- geometry ----------------------------------------------------------------------------

    def layout_of(game)
      layout = game.layout
      directions = Engine::Hex::DIRECTIONS[layout].to_h { |xy, dir| [dir.to_s, xy] }
      { 'orientation' => layout.to_s,
        'axes' => game.axes.to_h { |k, v| [k.to_s, v.to_s] },
        'directions' => directions.sort_by { |k, _| k.to_i }.to_h }
    end

    def autoroute_groups(game)
      groups = game.class::TRAIN_AUTOROUTE_GROUPS
      groups.is_a?(Symbol) ? groups.to_s : groups
    end

    # -- trains ------------------------------------------------------------------------------

    # [[train, runnable?]]: the trains the engine lets the entity run this turn first, then the
    # others it owns
    def trains_of(game, entity)
      runnable = game.route_trains(entity)
      owned = entity.respond_to?(:trains) ? entity.trains : []
      runnable.map { |t| [t, true] } + (owned - runnable).map { |t| [t, false] }
    end

    def train_of(game, train, runnable)
      out = { 'id' => train.id, 'name' => train.name, 'distance' => distance_of(train.distance) }
      out['multiplier'] = train.multiplier if train.multiplier && train.multiplier != 1
      out['local'] = true if train.local?
      out['requires_token'] = false unless train.requires_token
      out['track_type'] = train.track_type.to_s if train.track_type && train.track_type != :broad
      out['no_local'] = true if train.instance_variable_get(:@no_local)
      out['obsolete'] = true if train.obsolete
      out['rusted'] = true if train.rusted
      out['runnable'] = runnable
      out['owner'] = owner_id(train.owner)
      out['operated'] = true if train.operated
      out['variant'] = train.sym if train.sym != train.name # bought as a variant
      out.merge!(Titles.train_facts(game, train))
      out
    end

    # a leased train's owner is the depot, which has no id
    def owner_id(owner)
      return 'depot' if owner.is_a?(::Engine::Depot)

      owner.respond_to?(:id) ? owner.id : owner&.to_s
    end

    def distance_of(distance)
      return distance unless distance.is_a?(Array)

      distance.map do |row|
        r = row.transform_keys(&:to_s)
        out = { 'nodes' => r['nodes'].map(&:to_s), 'pay' => r['pay'], 'visit' => r['visit'] || r['pay'] }
        out['multiplier'] = r['multiplier'] if r['multiplier']
        out
      end
    end

    # -- hexes -------------------------------------------------------------------------------

    def hex_of(game, hex, entity, trains)
      tile = hex.tile
      out = {
        'id' => hex.id, 'x' => hex.x, 'y' => hex.y, 'tile' => tile.name, 'color' => tile.color.to_s,
        'rot' => tile.rotation, 'code' => tile.code,
      }
      out['location'] = hex.location_name if hex.location_name
      out['label'] = tile.label.to_s if tile.label
      out['preprinted'] = true if tile.preprinted
      nb = (0..5).map { |e| hex.neighbors[e]&.id }
      nb_all = (0..5).map { |e| hex.all_neighbors[e]&.id }
      out['nb'] = nb
      out['nb_all'] = nb_all if nb_all != nb
      nodes = nodes_of(tile).map { |n| node_of(game, n, entity, trains) }
      out['nodes'] = nodes unless nodes.empty?
      paths = tile.paths.map { |p| path_of(p) }
      out['paths'] = paths unless paths.empty?
      borders = tile.borders.map { |b| border_of(b) }
      out['borders'] = borders unless borders.empty?
      icons = tile.icons.map { |i| icon_of(i) }
      out['icons'] = icons unless icons.empty?
      blockers = tile.blockers.map(&:id)
      out['blockers'] = blockers unless blockers.empty?
      hex_tokens = hex.tokens.map { |t| t.corporation&.id }.compact
      out['hex_tokens'] = hex_tokens unless hex_tokens.empty?
      assignments = hex.respond_to?(:assignments) ? hex.assignments.keys.map { |k| k.respond_to?(:id) ? k.id : k.to_s } : []
      out['assignments'] = assignments unless assignments.empty?
      stubs = tile.stubs.map(&:edge)
      out['stubs'] = stubs unless stubs.empty?
      partitions = tile.partitions.map { |p| partition_of(p) }
      out['partitions'] = partitions unless partitions.empty?
      reservations = tile.reservations.map { |r| r.respond_to?(:id) ? r.id : r.to_s }
      out['reservations'] = reservations unless reservations.empty?
      out
    end

    # Revenue centres and junctions in part order (their indices are the engine's references)
    def nodes_of(tile)
      tile.parts.select { |p| p.city? || p.town? || p.offboard? || p.junction? }
    end

    def node_kind(node)
      if node.junction? then 'junction'
      elsif node.pass? then 'pass'
      elsif node.halt? then 'halt'
      elsif node.city? then 'city'
      elsif node.town? then 'town'
      else 'offboard'
      end
    end

    def node_of(game, node, entity, trains)
      out = { 'i' => node.index, 'kind' => node_kind(node) }
      return out if node.junction?

      phase = game.phase
      revenue = Titles.stop_revenue(game, node) || base_revenue(node, phase)
      out['revenue'] = revenue
      table = node.revenue
      out['revenues'] = table.transform_keys(&:to_s) if table.is_a?(Hash) && table.values.uniq.size > 1
      by_train = trains.each_with_object({}) do |train, acc|
        value = Titles.train_stop_revenue(game, node, train) || node.route_revenue(phase, train)
        acc[train.id] = value if value != revenue
      rescue StandardError
        next
      end
      out['train_revenue'] = by_train unless by_train.empty?
      out['groups'] = node.groups unless node.groups.empty?
      out['visit_cost'] = node.visit_cost if node.visit_cost != 1
      out['route'] = node.route.to_s if node.route != :mandatory
      out['hide'] = true if node.hide
      if node.city?
        out['slots'] = node.slots
        out['tokens'] = node.tokens.map { |t| t&.corporation&.id }
        flags = token_flags(node)
        out['token_flags'] = flags unless flags.empty?
        extra = node.extra_tokens.map { |t| t.corporation&.id }
        out['extra_tokens'] = extra unless extra.empty?
        reservations = node.reservations.map { |r| r&.id }
        out['reservations'] = reservations if reservations.any?
        out['boom'] = true if node.boom
      end
      if node.town? && !node.halt?
        out['style'] = node.style.to_s if node.style
        out['to_city'] = node.to_city if node.to_city
        out['boom'] = true if node.boom
      end
      out['symbol'] = node.symbol if node.halt?
      # where the engine draws a town: track beside it is shared (ROUTE_RULES §1)
      loc = node.tile.preferred_city_town_edges[node] if node.town?
      out['edge'] = (loc % 1).zero? ? loc.to_i : loc if loc
      if node.pass?
        out['pass_color'] = node.color.to_s
        out['pass_size'] = node.size
      end
      out['blocks_entity'] = true if node.blocks?(entity)
      out
    end

    def base_revenue(node, phase)
      table = node.revenue
      return table unless table.is_a?(Hash)

      phase.tiles.reverse_each { |color| return table[color] if table[color] }
      0
    end

    def token_flags(city)
      city.tokens.each_with_index.each_with_object({}) do |(token, slot), acc|
        next unless token

        flags = {}
        flags['type'] = token.type.to_s if token.type && token.type != :normal
        flags['status'] = token.status.to_s if token.respond_to?(:status) && token.status
        acc[slot.to_s] = flags unless flags.empty?
      end
    end

    def end_of(part)
      part.edge? ? "e#{part.num}" : "n#{part.index}"
    end

    def path_of(path)
      out = { 'a' => end_of(path.a), 'b' => end_of(path.b) }
      out['track'] = path.track.to_s if path.track != :broad
      out['lanes'] = path.lanes if path.lanes != Engine::Part::Path::LANES
      out['terminal'] = path.terminal.to_s if path.terminal
      out['ignore'] = true if path.ignore
      out
    end

    def border_of(border)
      out = { 'edge' => border.edge }
      out['type'] = border.type.to_s if border.type
      out['cost'] = border.cost if border.cost
      out['color'] = border.color.to_s if border.color
      out
    end

    def icon_of(icon)
      out = { 'name' => icon.name, 'image' => icon.image }
      out['sticky'] = true if icon.sticky
      out['blocks_lay'] = true if icon.blocks_lay?
      out
    end

    def partition_of(partition)
      out = { 'a' => partition.a, 'b' => partition.b, 'type' => partition.type.to_s }
      out['restrict'] = partition.restrict.to_s if partition.restrict && !partition.restrict.to_s.empty?
      out
    end
  end
end
