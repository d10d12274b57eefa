"""``python -m hexrail``: the ``hexrail`` command."""

import sys

from hexrail.cli import main

if __name__ == "__main__":
    sys.exit(main())
