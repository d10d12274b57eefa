"""Request bodies: read whole, bounded in size and in time, parsed and checked before any use.

`BodyIntake` (plain ASGI, before anything reads the body) refuses a body over ``max_bytes`` with
413 and one that has not fully arrived ``timeout`` seconds after its headers with 408: a client
sending a byte every few seconds would otherwise hold its connection, and a place in the queue,
for ever. `CheckedRoute` parses a JSON body itself and runs `hexrail.io.limits.check_document`
on it before FastAPI, pydantic or a worker process sees it: nesting deep enough to overflow a
recursive parser, validator or pickler is refused with 422 instead of crashing the worker pool.
"""

from __future__ import annotations

import asyncio
import email.message
import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute

from hexrail.errors import HexrailError
from hexrail.io.limits import MAX_DEPTH, check_document, check_text, surely_within

PARSE_IN_THREAD_BYTES = 64 * 1024  # larger bodies are parsed and checked off the event loop


def error_response(status: int, message: str, where: str | None = None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    """The service's answer to a request it cannot serve: ``{"error", "where"}``."""
    return JSONResponse({"error": message, "where": where}, status_code=status, headers=headers)


async def _send_error(send: Any, status: int, message: str, where: str) -> None:
    body = json.dumps({"error": message, "where": where}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})  # the rest of the body is not read
    await send({"type": "http.response.body", "body": body})


class BodyIntake:
    """Read each request's whole body, at most `max_bytes` within `timeout` seconds, then hand
    the request on with that body."""

    def __init__(self, app: Any, max_bytes: int, timeout: float):
        self.app = app
        self.max_bytes = max_bytes
        self.timeout = timeout

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope.get("headers") or ()).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            return await _send_error(send, 413, f"request body of {length.decode()} bytes is over the "
                                                f"limit of {self.max_bytes} bytes", "body")
        try:
            body = await asyncio.wait_for(self._read(receive), self.timeout)
        except asyncio.TimeoutError:
            return await _send_error(send, 408, f"the request body did not arrive within {self.timeout:g} s",
                                     "body")
        if body is None:  # the client went away
            return
        if len(body) > self.max_bytes:
            return await _send_error(send, 413, f"request body of more than {self.max_bytes} bytes is "
                                                f"over the limit of {self.max_bytes} bytes", "body")
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _read(self, receive: Any) -> bytes | None:
        """The body; past `max_bytes` what came so far (enough to refuse it); None on disconnect."""
        chunks, size, more = [], 0, True
        while more and size <= self.max_bytes:
            message = await receive()
            if message["type"] != "http.request":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            chunks.append(chunk)
            more = message.get("more_body", False)
        return b"".join(chunks)


# ------------------------------------------------------------------------------------------------
# Parsing and checking JSON bodies


class ParsedRequest(Request):
    """A request whose JSON body was parsed and checked already (`CheckedRoute`)."""

    def __init__(self, request: Request, raw: bytes, data: Any):
        super().__init__(request.scope, request.receive)
        self.raw, self.data = raw, data

    async def body(self) -> bytes:
        return self.raw

    async def json(self) -> Any:
        return self.data


def is_json(content_type: str | None) -> bool:
    """Whether FastAPI reads a body of this type as JSON (a missing type counts)."""
    if not content_type:
        return True
    message = email.message.Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (subtype == "json" or subtype.endswith("+json"))


class BodyError(Exception):
    """A body the service will not read: ``status``, the message and the field at fault."""

    def __init__(self, status: int, message: str, where: str | None):
        super().__init__(message)
        self.status, self.where = status, where

    @classmethod
    def of(cls, err: HexrailError, status: int) -> BodyError:
        return cls(status, str(err), err.where)


def parse_body(raw: bytes) -> Any:
    """The JSON document of a request body, checked by `check_document` field by field (so
    each fault is named by its field: ``position.hexes.A1``); `BodyError` otherwise."""
    try:
        text = check_text(raw, "body")
    except HexrailError as err:
        raise BodyError.of(err, 400) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise BodyError(400, f"malformed JSON: {err.msg} (line {err.lineno} column {err.colno})",
                        "body") from None
    except RecursionError:
        raise BodyError(422, f"body: nested more than {MAX_DEPTH} levels deep", "body") from None
    except ValueError:  # an integer of more digits than Python converts
        raise BodyError(422, "body: a number with more digits than can be read", "body") from None
    if surely_within(data, text):  # (one pass over the text clears most bodies)
        return data
    fields = data.items() if isinstance(data, dict) else [("body", data)]
    try:
        for key, value in fields:
            check_document(value, str(key))
    except HexrailError as err:
        raise BodyError.of(err, 422) from None
    return data


class CheckedRoute(APIRoute):
    """A route whose JSON body is parsed and checked (`parse_body`) before FastAPI reads it;
    a body that fails gets the service's usual ``{"error", "where"}`` answer."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def checked(request: Request) -> Response:
            raw = await request.body()
            if not raw or not is_json(request.headers.get("content-type")):
                return await handler(request)  # FastAPI answers for a missing or non-JSON body
            try:
                if len(raw) > PARSE_IN_THREAD_BYTES:
                    data = await asyncio.to_thread(parse_body, raw)
                else:
                    data = parse_body(raw)
            except BodyError as err:
                return error_response(err.status, str(err), err.where)
            return await handler(ParsedRequest(request, raw, data))

        return checked
