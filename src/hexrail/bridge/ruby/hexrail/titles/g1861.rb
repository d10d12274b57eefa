# frozen_string_literal: true

# 1861 (Railways of the Russian Empire): G1861::Game subclasses G1867::Game and keeps its route
# methods (revenue_for, compute_stops); only the constants differ, and the 1867 hook reads those
# from the game's class. So 1861 uses the 1867 hook as is.

require_relative 'g1867'

module Hexrail
  module Titles
    register('1861', G1867)
  end
end
