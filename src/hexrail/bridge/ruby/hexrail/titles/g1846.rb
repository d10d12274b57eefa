# frozen_string_literal: true

# 1846 (The Race for the Midwest): the route bonuses of G1846::Game#revenue_for read from the live
# game: the east-west bonus (#east_west_bonus: group E stop + stop on a W tile, their numeric
# icons), the private companies' hex bonuses (Boomtown, Meat Packing, Steamboat: a corporation
# assignment plus a hex assignment), the Mail Contract, and the entity's N/M trains.

module Hexrail
  module Titles
    module G1846
      # The rows of G1846::Game#revenue_for: [company reader, bonus, icon counted per bonus]. The
      # amounts and the icon name are literals there (the engine has no constants for them).
      BONUS_COMPANIES = [
        [:boomtown, 20, nil],
        [:meat_packing, 30, nil],
        [:steamboat, 20, 'port'],
      ].freeze
      EAST_GROUP = 'E'
      WEST_LABEL = 'W'
      EAST_WEST_NEEDS = 'one paid stop in east and one paid stop in west (both among route.stops)'
      MAIL_PER_STOP = 10
      MAIL_APPLIES_TO = 'the one route of the set with most visited stops; ties: greatest train id'

      module_function

      def state(game, entity)
        bonuses = assignment_bonuses(game, entity)
        out = {
          'east_west_bonus' => east_west_bonus(game),
          'assignment_bonuses' => bonuses,
          'stop_bonuses' => stop_bonuses(bonuses),
          'mail_contract' => mail_contract(game, entity),
        }
        nm = nm_trains(game, entity)
        out['nm_trains'] = nm unless nm.empty?
        out['first_edition'] = game.optional_rules.include?(:first_ed)
        out['entity_assignments'] = assignment_keys(entity)
        out
      end

      # -- east-west ---------------------------------------------------------------------------

      # Every group-E stop and every stop on a W tile, with the sum of its tile's numeric icons:
      # the amount #east_west_bonus adds for that end
      def east_west_bonus(game)
        east = {}
        west = {}
        game.hexes.each do |hex|
          stops_of(hex.tile).each do |node|
            east[node.signature] = icon_amount(node.tile) if node.groups.include?(EAST_GROUP)
            west[node.signature] = icon_amount(node.tile) if node.tile.label&.to_s == WEST_LABEL
          end
        end
        { 'east_group' => EAST_GROUP, 'west_label' => WEST_LABEL, 'east' => east, 'west' => west,
          'needs' => EAST_WEST_NEEDS }
      end

      def icon_amount(tile)
        tile.icons.sum { |icon| icon.name.to_i }
      end

      # Revenue centres a route can reach: the tile's stops on its paths (a city with no track yet,
      # e.g. Cincinnati before its first tile, is none)
      def stops_of(tile)
        tile.stops
      end

      # -- private companies' hex bonuses ------------------------------------------------------

      # One entry per bonus company still in the game, in the order of #revenue_for
      def assignment_bonuses(game, entity)
        BONUS_COMPANIES.filter_map do |reader, base, icon|
          company = game.send(reader)
          company && assignment_bonus(game, entity, company, base, icon)
        end
      end

      def assignment_bonus(game, entity, company, base, icon)
        id = company.id
        hexes = game.hexes.select { |hex| hex.assigned?(id) }
        entity_assigned = Titles.assigned?(entity, id)
        out = { 'company' => id, 'key' => id, 'name' => company.name }
        out['owner'] = owner_id(company.owner) if company.owner
        out.merge!(
          'closed' => company.closed?,
          'base_amount' => base,
        )
        out['per_icon'] = icon if icon
        out.merge!(
          'assigned_hexes' => hexes.map(&:id),
          'assigned_corporations' => assigned_entities(game, id),
          'entity_assigned' => entity_assigned,
          'entitled' => entity_assigned && !hexes.empty?,
          # #revenue_for: the bonus times the icon count of the hex (SC's port icons), else once
          'amount_by_hex' => hexes.to_h { |h| [h.id, icon ? base * h.tile.icons.count { |i| i.name == icon } : base] },
          'nodes' => hexes.flat_map { |h| stops_of(h.tile).map(&:signature) },
        )
        may = may_assign_hex(entity, company)
        out['entity_may_assign_hex'] = may if may
        out
      end

      # Corporations and minors (Steamboat may be assigned to a minor) holding the assignment
      def assigned_entities(game, id)
        (game.corporations + game.minors).select { |c| Titles.assigned?(c, id) }.map(&:id)
      end

      # The entity owns the open company and still holds its corporation hex-assignment ability
      # (Steamboat: once per OR in track/token or route, i.e. before it runs)
      def may_assign_hex(entity, company)
        return nil if company.closed? || company.owner != entity

        ability = company.all_abilities.find { |a| a.type == :assign_hexes && a.owner_type == :corporation }
        return nil unless ability

        uses_left = if ability.count_per_or then ability.count_per_or - ability.count_this_or
                    else ability.count
                    end
        { 'hexes' => ability.hexes.dup, 'uses_left' => uses_left, 'when' => ability.when.dup }
      end

      # What the operating entity earns now: an assignment it holds and a hex holding the same
      def stop_bonuses(bonuses)
        bonuses.select { |b| b['entitled'] }.map do |b|
          { 'source' => b['company'], 'hexes' => b['assigned_hexes'], 'nodes' => b['nodes'],
            'amount_by_hex' => b['amount_by_hex'] }
        end
      end


      def assignment_keys(entity)
        return [] unless entity.respond_to?(:assignments)

        entity.assignments.keys.map { |k| k.respond_to?(:id) ? k.id : k.to_s }
      end

      def owner_id(owner)
        owner.respond_to?(:id) ? owner.id.to_s : owner&.to_s
      end

      # -- Mail Contract -----------------------------------------------------------------------

      # #revenue_for: the train's owner owns MAIL -> its route with most visited stops earns 10 each
      def mail_contract(game, entity)
        mail = game.mail_contract
        owned = !mail.nil? && entity.respond_to?(:companies) && entity.companies.include?(mail)
        { 'company' => mail&.id || 'MAIL', 'owner' => mail&.owner ? owner_id(mail.owner) : nil,
          'owned_by_entity' => owned, 'per_visited_stop' => MAIL_PER_STOP, 'applies_to' => MAIL_APPLIES_TO }
      end

      # -- N/M trains --------------------------------------------------------------------------

      # The entity's trains with a pay/visit row (3/5, 4/6, 7/8), as the position lists its trains
      def nm_trains(game, entity)
        Titles.by_train(game, entity) { |distance| nm_row(distance) }
      end

      def nm_row(distance)
        return nil unless distance.is_a?(Array)

        row = distance.first&.transform_keys(&:to_s)
        return nil unless row && row['visit'] && row['visit'] != row['pay']

        { 'pay' => row['pay'], 'visit' => row['visit'], 'nodes' => row['nodes'].map(&:to_s) }
      end
    end

    register('1846', G1846)
  end
end
