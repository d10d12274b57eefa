"""``hexrail web``: the HTTP service with its route calculator page opened in the browser.

It takes the options of ``hexrail serve`` (`hexrail.server.cli`), then opens ``/`` (or
``/?example=NAME`` with ``--example``) in the default browser (Python's `webbrowser`, which
honours ``$BROWSER``) once the server answers; ``--no-browser`` only prints the address.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from urllib.parse import quote

from hexrail.server import cli as serve_cli

READY_SECONDS = 180.0  # a fresh install compiles the solver's kernels when its workers start


def add_arguments(parser: argparse.ArgumentParser) -> None:
    serve_cli.add_arguments(parser)
    parser.add_argument("--example", metavar="NAME",
                        help="open the page on a bundled example, solved (demo, 1831, 1862, 1862usa)")
    parser.add_argument("--no-browser", action="store_true", help="print the page's address, open nothing")


def page_url(host: str, port: int, example: str | None = None) -> str:
    """The page's address; a server listening on every address is reached on the loopback.

    >>> page_url("0.0.0.0", 8000, "1862usa")
    'http://127.0.0.1:8000/?example=1862usa'
    """
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/" + (f"?example={quote(example)}" if example else "")


def open_when_ready(url: str, health: str, show: bool) -> None:
    """Wait until the server answers ``/health``, then open `url` (or print it)."""
    import urllib.error  # here, not at the top: every command line builds this command's parser
    import urllib.request
    import webbrowser

    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(health, timeout=2) as answer:
                if answer.status == 200:
                    break
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.25)
    else:
        print(f"hexrail: warning: the server did not answer within {READY_SECONDS:g} s; the page is at "
              f"{url}", file=sys.stderr, flush=True)
        return
    print(f"hexrail: the route calculator is at {url}", file=sys.stderr, flush=True)
    if show and not webbrowser.open(url):
        print("hexrail: warning: no browser could be opened; open the address above", file=sys.stderr,
              flush=True)


def run(args: argparse.Namespace) -> int:
    from hexrail.errors import HexrailError

    if args.example is not None:
        from hexrail.examples import example_names

        if args.example not in example_names():
            raise HexrailError(f"no example {args.example!r}; examples: {', '.join(example_names())}",
                               where="--example")
    url = page_url(args.host, args.port, args.example)
    threading.Thread(target=open_when_ready, args=(url, page_url(args.host, args.port) + "health",
                                                   not args.no_browser),
                     name="open-browser", daemon=True).start()
    return serve_cli.run(args)
