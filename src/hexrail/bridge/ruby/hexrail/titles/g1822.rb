# frozen_string_literal: true

# 1822: the title_state facts of G1822::Game's route methods (revenue_for, check_distance,
# check_overlap, routes_subsidy, destination bonus) and of its Route step (the Pullman car).
# Everything is read from the game, its constants and the Route step's instance variables.

module Hexrail
  module Titles
    module G1822
      # G1822::Game#check_overlap refuses a plan using both edge 1 and edge 2 of
      # MERTHYR_TYDFIL_PONTYPOOL_HEX: the edge numbers are literals there
      MERTHYR_TYDFIL_PONTYPOOL_EDGES = [1, 2].freeze
      # tokens an E train is paid for (check_distance / revenue_for: `types: %i[normal destination]`)
      PAYING_TOKEN_TYPES = %i[normal destination].freeze

      module_function

      def state(game, entity)
        constants(game)
          .merge(pullman(game, entity))
          .merge(
            'etrain_paying_nodes' => etrain_paying_nodes(game, entity),
            'english_channel_tokened' => english_channel_tokened?(game, entity),
            'tokens_placed' => paying_tokens(entity).size,
            'destination_bonus' => destination_bonus(game, entity),
            'mail_contracts' => mail_contracts(game, entity),
          )
      end

      # the engine's train_type: only :etrain and :normal exist
      def train_facts(game, train)
        { 'title_train_type' => game.train_type(train).to_s }
      end

      def constants(game)
        klass = game.class
        {
          'stop_hex_repeat_exempt_hexes' => klass::DOUBLE_HEX.dup,
          'english_channel' => { 'hex' => klass::ENGLISH_CHANNEL_HEX, 'france_hex' => klass::FRANCE_HEX },
          'exclusive_edges' => [{ 'hex' => klass::MERTHYR_TYDFIL_PONTYPOOL_HEX,
                                  'edges' => MERTHYR_TYDFIL_PONTYPOOL_EDGES.dup }],
          'local_train_names' => klass::LOCAL_TRAINS.dup,
          'e_train_name' => klass::E_TRAIN,
          'pullman_train_name' => klass::EXTRA_TRAIN_PULLMAN,
          'mail_contract_companies' => klass::PRIVATE_MAIL_CONTRACTS.dup,
          'local_train_can_carry_mail' => klass::LOCAL_TRAIN_CAN_CARRY_MAIL,
          # check_overlap and compute_other_paths group the routes by train_type
          'overlap_groups' => 'train_type',
        }
      end

      # -- Pullman car (G1822::Step::Route) --------------------------------------------------

      def pullman(game, entity)
        step = route_step(game)
        attached = step&.instance_variable_get(:@pullman_train)
        car = trains(entity).find { |t| game.pullman_train?(t) }
        out = {
          'train_roles' => train_roles(game, entity, attached),
          'pullman_attached_to' => attached&.id,
          'pullman_car' => car&.id,
        }
        if attached
          original = step.instance_variable_get(:@pullman_original_train)
          out['pullman_original_name'] = original.name if original
        elsif car && step
          out['pullman_eligible'] = pullman_eligible(step, entity)
        end
        out
      end

      # the round's Route step, which holds the attachment until the routes are run
      def route_step(game)
        return nil unless game.round.respond_to?(:steps)

        game.round.steps.find { |s| s.respond_to?(:pullman_train_choices) }
      end

      def trains(entity)
        entity.respond_to?(:trains) ? entity.trains : []
      end

      def train_roles(game, entity, attached)
        Position.trains_of(game, entity).to_h do |train, _runnable|
          [train.id, train_role(game, train, attached)]
        end
      end

      def train_role(game, train, attached)
        return 'pullman_attached' if attached && train.equal?(attached)
        return 'pullman_car' if game.pullman_train?(train)
        return 'etrain' if game.train_type(train) == :etrain
        return 'local' if game.class::LOCAL_TRAINS.include?(train.name)

        'normal'
      end

      # the rows Step::Route#attach_pullman would give each train it offers (read, not attached)
      def pullman_eligible(step, entity)
        step.pullman_train_choices(entity).to_h do |train|
          distance = step.train_city_distance(train)
          [train.id, [{ 'nodes' => %w[city offboard], 'pay' => 99, 'visit' => distance },
                      { 'nodes' => ['town'], 'pay' => 99, 'visit' => 99 }]]
        end
      end

      # -- tokens ----------------------------------------------------------------------------

      def paying_tokens(entity)
        return [] unless entity.respond_to?(:tokens)

        entity.tokens.select { |t| t.used && PAYING_TOKEN_TYPES.include?(t.type) }
      end

      # the cities revenue_for pays an E train for (`stop.tokened_by?(entity, types: ...)`), in
      # map order
      def etrain_paying_nodes(game, entity)
        game.hexes.flat_map do |hex|
          hex.tile.cities.select { |c| c.tokened_by?(entity, types: PAYING_TOKEN_TYPES) }.map(&:signature)
        end
      end

      # english_channel_etrain?: a token of any type in the English Channel's first city
      def english_channel_tokened?(game, entity)
        city = game.hex_by_id(game.class::ENGLISH_CHANNEL_HEX)&.tile&.cities&.first
        city ? city.tokened_by?(entity) : false
      end

      # calculate_destination_bonus: majors with their destination token placed; the bonus is the
      # destination city's value for the train of the route that visits home and destination
      def destination_bonus(game, entity)
        return nil unless entity.respond_to?(:type) && entity.type == :major

        destination = entity.tokens.find { |t| t.used && t.type == :destination }
        return nil unless destination

        city = destination.city
        {
          'home_node' => entity.tokens.first&.city&.signature,
          'destination_node' => city.signature,
          'destination_hex' => city.hex.id,
          'amount_by_train' => Position.trains_of(game, entity).to_h do |train, _runnable|
            [train.id, city.route_revenue(game.phase, train)]
          end,
        }
      end

      def mail_contracts(game, entity)
        return [] unless entity.respond_to?(:companies)

        entity.companies.map(&:id).select { |id| game.class::PRIVATE_MAIL_CONTRACTS.include?(id) }
      end
    end

    register('1822', G1822)
  end
end
