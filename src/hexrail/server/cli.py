"""``hexrail serve``: run the HTTP service on uvicorn (see `hexrail.server.app` for the API)."""

from __future__ import annotations

import argparse


def _size(text: str) -> int:
    """``4194304``, ``512k``, ``4M``: bytes."""
    units = {"k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}
    text = text.strip().lower().removesuffix("ib").removesuffix("b")
    try:
        if text and text[-1] in units:
            return int(float(text[:-1]) * units[text[-1]])
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size like 4194304, 512k or 4M") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--workers", type=int, default=2, help="solver processes of the heavy lane (default 2)")
    parser.add_argument("--light-workers", type=int, default=1,
                        help="solver processes of the light lane, for work that proves light (default 1)")
    parser.add_argument("--light-time-limit", type=float, default=0.5,
                        help="seconds a solve may take in the light lane before it counts as heavy "
                             "(default 0.5)")
    parser.add_argument("--max-body", type=_size, default=4 * 1024 ** 2,
                        help="largest request body, e.g. 4M (default 4M)")
    parser.add_argument("--time-limit", type=float, default=10.0,
                        help="seconds a solve may take when the request names no limit (default 10)")
    parser.add_argument("--max-time-limit", type=float, default=30.0,
                        help="cap on a request's time_limit, seconds (default 30)")
    parser.add_argument("--grace", type=float, default=15.0,
                        help="seconds over the time limit before a job is killed (default 15)")
    parser.add_argument("--max-pending", type=int, default=64,
                        help="heavy-lane jobs in flight before new ones get 503 (default 64)")
    parser.add_argument("--max-light-pending", type=int, default=4,
                        help="light-lane jobs in flight; more go to the heavy lane (default 4)")
    parser.add_argument("--body-timeout", type=float, default=10.0,
                        help="seconds a request body may take to arrive before 408 (default 10)")
    parser.add_argument("--header-timeout", type=float, default=10.0,
                        help="seconds a connection may take to send a request's headers before 408 "
                             "(default 10)")
    parser.add_argument("--keep-alive", type=int, default=5,
                        help="seconds an idle connection is kept between requests (default 5)")
    parser.add_argument("--max-connections", type=int, default=1024,
                        help="open connections in all before requests get 503 (default 1024)")
    parser.add_argument("--max-client-connections", type=int, default=32,
                        help="open connections from one client address before requests get 429 "
                             "(default 32)")
    parser.add_argument("--worker-memory", type=_size, default=4 * 1024 ** 3,
                        help="address space per solver process, e.g. 4G; 0 for no cap (default 4G)")
    parser.add_argument("--log-level", default="info", choices=("critical", "error", "warning", "info", "debug"))


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from hexrail.errors import HexrailError
    from hexrail.server.app import ServerConfig, create_app
    from hexrail.server.connections import guarded_protocol

    for name in ("workers", "light_workers", "max_pending", "max_light_pending", "max_body", "keep_alive",
                 "max_connections", "max_client_connections"):
        if getattr(args, name) < 1:
            raise HexrailError("must be at least 1", where=f"--{name.replace('_', '-')}")
    for name in ("time_limit", "max_time_limit", "grace", "light_time_limit"):
        if not getattr(args, name) >= 0:
            raise HexrailError("must not be negative", where=f"--{name.replace('_', '-')}")
    for name in ("body_timeout", "header_timeout"):
        if not getattr(args, name) > 0:
            raise HexrailError("must be positive", where=f"--{name.replace('_', '-')}")
    config = ServerConfig(workers=args.workers, max_body_bytes=args.max_body,
                          default_time_limit=args.time_limit, max_time_limit=args.max_time_limit,
                          grace=args.grace, max_pending=args.max_pending,
                          worker_memory_bytes=args.worker_memory, light_workers=args.light_workers,
                          light_time_limit=args.light_time_limit, max_light_pending=args.max_light_pending,
                          body_timeout=args.body_timeout, header_timeout=args.header_timeout,
                          keep_alive=args.keep_alive, max_connections=args.max_connections,
                          max_client_connections=args.max_client_connections)
    protocol = guarded_protocol(config.header_timeout, config.max_client_connections, config.retry_after)
    uvicorn.run(create_app(config), host=args.host, port=args.port, log_level=args.log_level,
                http=protocol, limit_concurrency=config.max_connections,
                timeout_keep_alive=config.keep_alive, timeout_graceful_shutdown=5)
    return 0
