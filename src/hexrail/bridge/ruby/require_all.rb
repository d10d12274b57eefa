# frozen_string_literal: true

# A stand-in for the require_all gem, the one gem the 18xx.games engine's lib/ needs under MRI:
# require_rel loads every .rb file under the given paths, relative to the caller, retrying the
# files that stopped on a constant a later file defines (as require_all does).
require 'set' # the engine uses Set as Opal gives it, unrequired

def require_rel(*paths)
  base = File.dirname(caller_locations(1, 1)[0].absolute_path)
  files = paths.flat_map do |p|
    full = File.expand_path(p, base)
    next Dir.glob(File.join(full, '**', '*.rb')).sort if File.directory?(full)

    [full.end_with?('.rb') ? full : "#{full}.rb"]
  end
  until files.empty?
    failed = []
    first_error = nil
    files.each do |f|
      require f
    rescue NameError => e
      failed << f
      first_error ||= e
    end
    raise first_error if failed.size == files.size

    files = failed
  end
  true
end

