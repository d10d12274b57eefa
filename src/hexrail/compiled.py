"""Whether this machine has the solver compiled: numba's disk cache of its kernels.

The first solve on a machine (or after an upgrade) compiles the kernels, once: a minute or
more, where later processes load them in a fraction of a second. The command line says so
just before its first solve rather than sit silent (`first_run_notice`).
"""

from __future__ import annotations

import logging

log = logging.getLogger("hexrail")

NOTICE = ("compiling the solver for this machine, once: the first run takes a minute or two, "
          "later runs start in about a second")


def cold() -> bool:
    """True when numba's disk cache holds no route walk compiled from this source (a fresh
    install, or a changed one): the next solve compiles. False when it cannot tell."""
    try:
        from hexrail.search._kernels import enumerate_anchor

        # the index numba keeps beside the cached machine code, empty when missing or stale
        return not enumerate_anchor._cache._cache_file._load_index()
    except Exception:  # numba's cache internals moved: say nothing rather than guess
        return False


def first_run_notice() -> None:
    """Log `NOTICE` (a warning: shown unless ``-q``) when the next solve will compile."""
    if cold():
        log.warning(NOTICE)
