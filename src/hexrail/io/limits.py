"""What a document may ask for: size, nesting, numbers, and how much board it describes.

Every reader entry point (`hexrail.io.native.load_position`, the 18xx.games reader, the
service before it hands a body to a worker) checks a parsed document with `check_document`
first, so that a small body cannot ask for huge work or break the parser: a value nested past
`MAX_DEPTH` would overflow the stack of the schema check and of pickling, an integer past
`MAX_INT` overflows the solver's int64 arithmetic, and a tile asking for 10^8 lanes or a city
with 10^9 slots would build that many objects. The limits lie far above any real game's.
"""

from __future__ import annotations

import json
import math
from typing import Any

from hexrail.errors import HexrailError

MAX_BYTES = 32 * 1024 * 1024  # a JSON document, as text
MAX_DEPTH = 48  # nesting of arrays and objects
MAX_INT = 2**53  # |integer| anywhere in a document (exact in JSON tools and in float64)
MAX_STRING = 1_000_000  # characters of one string (a tile code, a name)
MAX_LANES = 16  # parallel tracks of one path (`lanes:k`)
MAX_SLOTS = 64  # token slots of one city
MAX_NODES = 64  # nodes of one tile
MAX_PATHS = 256  # paths of one tile
MAX_HEXES = 10_000
MAX_TRAINS = 64


# Digits in a row from which a number token might be an integer beyond `MAX_INT` (2^53 has 16).
INT_DIGITS = 16


def check_document(data: Any, what: str = "position", text: str | bytes | None = None) -> None:
    """Raise `HexrailError` naming the place where `data` (parsed JSON) nests deeper than
    `MAX_DEPTH`, holds an integer beyond `MAX_INT`, a float that is not finite, or a string
    longer than `MAX_STRING` or holding a NUL. `text`: the JSON text `data` was parsed from,
    if any.

    Most documents are cleared in one compiled pass over their text (`surely_within`); the
    others, and those it cannot clear, are walked value by value (`walk_document`), which
    names the place."""
    if not surely_within(data, text):
        walk_document(data, what)


def surely_within(data: Any, text: str | bytes | None = None) -> bool:
    """True when `data` (parsed from `text`, or else written as JSON text by orjson) surely
    holds nothing `walk_document` refuses (`_scan_kernels.json_within` on the text); False
    when it might. orjson refuses what is no JSON (keys that are not strings, other types),
    integers past 2^53 and strings that are no Unicode; it writes a float that is not finite
    as null, so a document written with a null must read back as itself."""
    import numpy as np
    import orjson

    from hexrail.io._scan_kernels import json_within

    if text is None:
        try:
            text = orjson.dumps(data, option=orjson.OPT_STRICT_INTEGER)
        except (TypeError, ValueError, RecursionError):
            return False
        if b"null" in text and orjson.loads(text) != data:
            return False
    elif isinstance(text, str):
        text = text.encode("utf-8", "surrogatepass")
    return bool(json_within(np.frombuffer(text, np.uint8), MAX_DEPTH, INT_DIGITS, MAX_STRING))


def walk_document(data: Any, what: str = "position") -> None:
    """`check_document` value by value: the slow twin of `surely_within`, and what names the
    place of a fault. Iterative: any depth is examined without recursion."""
    stack: list[tuple[Any, str, int]] = [(data, what, 0)]
    while stack:
        value, where, depth = stack.pop()
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int):
            if abs(value) > MAX_INT:
                raise HexrailError(f"integer beyond ±2^53 ({_digits(value)} digits)", where=where)
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise HexrailError(f"{value} is not a finite number", where=where)
        elif isinstance(value, str):
            if len(value) > MAX_STRING:
                raise HexrailError(f"string of {len(value)} characters, at most {MAX_STRING}",
                                   where=where)
            if "\x00" in value:
                raise HexrailError("NUL character in a string", where=where)
        elif isinstance(value, (dict, list, tuple)):
            if depth >= MAX_DEPTH:
                raise HexrailError(f"nested more than {MAX_DEPTH} levels deep", where=where)
            if isinstance(value, dict):
                for key, item in value.items():
                    stack.append((item, f"{where}.{key}", depth + 1))
            else:
                for k, item in enumerate(value):
                    stack.append((item, f"{where}[{k}]", depth + 1))


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large for a number")
    return value


def _not_json(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def loads(text: str | bytes) -> Any:
    """`json.loads`, refusing what JSON has not: NaN, Infinity, and numbers too large for a
    float. Raises `json.JSONDecodeError` for malformed text, `ValueError` for those numbers.

    orjson reads twice as fast and refuses the same; where it refuses anything (those numbers,
    lone surrogates, malformed text), json reads the text as before and says what is wrong.
    (One difference: orjson reads an integer past 2^64 as a float, which every integer field
    refuses, as `check_document` refuses the integer.)"""
    import orjson  # (here: building the kernels imports this module, without orjson)

    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text, parse_constant=_not_json, parse_float=_finite)


def check_text(text: str | bytes, where: str = "position") -> str:
    """JSON text as a str: bytes decoded as UTF-8 (one-line error otherwise), at most
    `MAX_BYTES`."""
    if len(text) > MAX_BYTES:
        raise HexrailError(f"document of {len(text)} bytes, at most {MAX_BYTES}", where=where)
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            raise HexrailError(f"not UTF-8 text (byte {err.start})", where=where) from None
    return text


def at_most(count: int, limit: int, what: str, where: str) -> None:
    """Raise `HexrailError` when `count` of `what` exceeds `limit`."""
    if count > limit:
        raise HexrailError(f"{count} {what}, at most {limit}", where=where)


def _digits(value: int) -> int:
    """Decimal digits of a large integer, without converting it (which Python refuses past
    4300 digits)."""
    return int(abs(value).bit_length() * math.log10(2)) + 1
