# frozen_string_literal: true

# Loading the 18xx.games engine under MRI, and the few runtime patches that make it behave as it
# does in the browser (Opal), where it normally runs.

module Hexrail
  module Engine18xx
    PATCHES = []

    module_function

    # Load DIR/lib/engine.rb; the require_all shim stands in for the engine's one gem dependency.
    def load(dir)
      lib = File.join(dir, 'lib')
      raise ArgumentError, "#{dir} is not an 18xx.games engine checkout (no lib/engine.rb)" \
        unless File.file?(File.join(lib, 'engine.rb'))

      $LOAD_PATH.unshift(lib)
      $LOAD_PATH.push(File.expand_path('..', __dir__)) # our require_all, where the gem is absent
      require 'engine'
      ::LOGGER.level = ::Logger::FATAL # its debug lines go to stdout, where our JSON lines go
      patch!
      { 'commit' => commit(dir), 'ruby' => RUBY_VERSION, 'opal_compat_patches' => PATCHES.dup }
    end

    def commit(dir)
      head = File.join(dir, '.git', 'HEAD')
      return ENV['HEXRAIL_18XX_ENGINE_COMMIT'] unless File.file?(head)

      ref = File.read(head).strip
      return ref unless ref.start_with?('ref: ')

      packed = File.join(dir, '.git', 'packed-refs')
      loose = File.join(dir, '.git', ref[5..])
      return File.read(loose).strip if File.file?(loose)

      File.file?(packed) && File.readlines(packed).map(&:split).find { |_, name| name == ref[5..] }&.first
    end

    # Opal pads missing arguments with nil; MRI raises. Where the engine calls a method with
    # fewer arguments than it declares, declare the rest optional.
    def patch!
      return unless defined?(::Engine::Game::G1862::Game)

      klass = ::Engine::Game::G1862::Game
      return unless klass.method_defined?(:optimize_stops) && klass.instance_method(:optimize_stops).arity == 3

      klass.class_eval do
        alias_method :hexrail_optimize_stops, :optimize_stops
        def optimize_stops(route, num_pay = nil, total_stops = nil)
          hexrail_optimize_stops(route, num_pay, total_stops)
        end
      end
      PATCHES << 'G1862#optimize_stops called with 1 of 3 args (Opal pads with nil)'
    end
  end
end
