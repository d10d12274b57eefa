# frozen_string_literal: true

# Replaying a game's actions with the engine and stopping before its run_routes actions.

module Hexrail
  module Replay
    class Error < StandardError; end

    module_function

    def read_game(path)
      text = path == '-' ? $stdin.read : File.read(path)
      data = JSON.parse(text)
      raise Error, "#{path}: not an 18xx.games game (a JSON object with title and actions)" \
        unless data.is_a?(Hash) && data['title'].is_a?(String) && data['actions'].is_a?(Array)

      data
    rescue Errno::ENOENT, Errno::EISDIR, Errno::EACCES => e
      raise Error, "#{path}: cannot read: #{e.message.sub(/ @ .*/, '')}"
    rescue JSON::ParserError => e
      raise Error, "#{path}: not JSON: #{e.message.lines.first.strip[0, 120]}"
    end

    def load_game(data, path)
      # exactly: the engine's own look-up is fuzzy, and would take "1999" for 18 Los Angeles
      raise Error, "#{path}: unknown title #{data['title'].inspect} (this engine has no such game)" \
        unless ::Engine::GAME_TITLES.include?(data['title'])

      game = ::Engine::Game.load(data, at_action: 0)
      raise Error, "#{path}: the engine cannot set up the game: #{game.exception.message}" if game.exception

      game
    rescue Error
      raise
    rescue StandardError => e
      raise Error, "#{path}: the engine cannot set up the game: #{e.class.name}: #{e.message}"
    end

    def run(path, options, engine_info)
      data = read_game(path)
      game = load_game(data, path)
      actions = data['actions']
      filtered, = ::Engine::Game::Base.filtered_actions(actions)
      fixture = File.basename(path)
      export = lambda do |action, index|
        start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        position = Position.position(game, action, index, fixture: fixture, engine_info: engine_info,
                                                          title_state: !options[:no_title_state])
        position['export_time_s'] = (Process.clock_gettime(Process::CLOCK_MONOTONIC) - start).round(4)
        yield position
      end

      case options[:which]
      when :all
        filtered.each_with_index do |action, index|
          next unless action && action['type'] == 'run_routes'

          advance(game, action, index, path)
          export.call(action, index)
        end
      when Integer
        index = options[:which]
        action = index.between?(0, actions.size - 1) ? actions[index] : nil
        raise Error, "#{path}: no action of index #{index} (the game has #{actions.size})" unless action
        raise Error, "#{path}: action #{index} is a #{action['type']}, not a run_routes" \
          unless action['type'] == 'run_routes'
        raise Error, "#{path}: action #{index} was undone in the game" unless filtered[index]

        advance(game, action, index, path)
        export.call(action, index)
      else
        game.process_to_action(actions.last['id']) unless actions.empty?
        broken!(game, path, actions.size)
        export.call(current_action(game, path), actions.size)
      end
      check_result(game, data, path) if options[:check_result]
    end

    # Process every action before `action`: the game then stands where the player chose routes
    def advance(game, action, index, path)
      game.process_to_action(action['id'] - 1)
      broken!(game, path, index)
    end

    def broken!(game, path, index)
      return unless game.exception

      raise Error, "#{path}: the engine stopped replaying before action #{index}: " \
                   "#{game.exception.class.name}: #{game.exception.message}"
    end

    # The company about to run, as a run_routes action with no routes yet
    def current_action(game, path)
      raise Error, "#{path}: the game is over; name a run_routes action with --action N or use --all" \
        if game.finished

      entity = game.current_entity
      unless game.round.actions_for(entity).include?('run_routes')
        raise Error, "#{path}: nobody is about to run trains now (#{game.round.name}, " \
                     "#{entity&.name || 'no entity'}); name a run_routes action with --action N or use --all"
      end

      Position.run_routes_action(game, entity)
    end

    # The bridge leaves no trace: replaying the rest of the game reaches its recorded result
    def check_result(game, data, path)
      actions = data['actions']
      game.process_to_action(actions.last['id']) unless actions.empty?
      broken!(game, path, actions.size)
      recorded = data['result']
      return if recorded.nil? || recorded.empty?

      ours = game.result.transform_keys(&:to_s)
      recorded = recorded.transform_keys(&:to_s)
      return if ours == recorded

      raise Error, "#{path}: the replay ended at #{ours.to_json}, the game records #{recorded.to_json}"
    end
  end
end
