"""Connections: each must send a request's headers within ``header_timeout`` seconds (of opening,
or of the first byte after an answer), and one client address holds at most
``max_per_client`` connections at once.

uvicorn closes only idle keep-alive connections (``timeout_keep_alive``, after an answer); a
connection that opens and sends nothing, or trickles its headers a byte at a time, it keeps for
ever, and all of them count against the server's connection cap until every request gets 503.
Here such a connection gets 408 and is closed, and a client past its share of connections gets
429 (with ``Retry-After``) for its request, so it cannot crowd others out. Bodies have a time
limit of their own (`hexrail.server.body.BodyIntake`).
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol


def _raw_response(status: int, reason: str, message: str, where: str) -> bytes:
    body = json.dumps({"error": message, "where": where}).encode()
    head = (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n")
    return head.encode() + body


def guarded_protocol(header_timeout: float, max_per_client: int, retry_after: int = 5) -> type[H11Protocol]:
    """uvicorn's HTTP/1.1 protocol with the limits above (pass it as ``uvicorn.run(http=...)``)."""
    open_by_client: Counter[str] = Counter()  # this server's connections, by client address

    async def too_many(scope: Any, receive: Any, send: Any) -> None:
        body = json.dumps({"error": f"more than {max_per_client} connections from one client address; "
                                    "retry later", "where": "connection"}).encode()
        await send({"type": "http.response.start", "status": 429,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"retry-after", str(retry_after).encode()), (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})

    class GuardedH11(H11Protocol):
        header_timer: asyncio.TimerHandle | None = None
        host = ""

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.host = self.client[0] if self.client else ""
            open_by_client[self.host] += 1
            if open_by_client[self.host] > max_per_client:
                self.app = too_many  # answered once its request arrives (or its headers time out)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            open_by_client[self.host] -= 1
            if open_by_client[self.host] <= 0:
                del open_by_client[self.host]
            self._disarm()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._between_requests():
                self._arm()  # the first bytes of a request: its headers are now on the clock
            super().data_received(data)
            if not self._between_requests():
                self._disarm()  # headers complete: the body has its own limit

        def _between_requests(self) -> bool:
            return self.cycle is None or self.cycle.response_complete

        def _arm(self) -> None:
            if self.header_timer is None:
                self.header_timer = self.loop.call_later(header_timeout, self._headers_late)

        def _disarm(self) -> None:
            if self.header_timer is not None:
                self.header_timer.cancel()
                self.header_timer = None

        def _headers_late(self) -> None:
            self.header_timer = None
            if not self.transport.is_closing() and self._between_requests():
                self.transport.write(_raw_response(
                    408, "Request Timeout", f"no complete request headers within {header_timeout:g} s",
                    "headers"))
                self.transport.close()

    return GuardedH11
