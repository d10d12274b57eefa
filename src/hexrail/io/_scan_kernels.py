"""numba kernel: one pass over a JSON text that clears most documents of `check_document`'s walk,
and cuts out the texts of one array's objects to be read apart.

`hexrail.io.limits.check_document` walks every value of a parsed document in Python (about a
millisecond for an 18xx.games position). Its limits can be read off the text instead, in one
pass: nesting from the brackets outside strings, integers from the digits in a row, strings
from their bytes (never fewer than their characters) and escapes. Where the text might hold
something the walk refuses, the walk decides, and names the place.

The same pass finds where the objects of one member of the outermost object lie (an
18xx.games position's hexes: nine tenths of its text, and mostly the same hexes as the
position before), so that the rest is parsed alone and each object's text is looked up among
those read before (`hexrail.io.g18xx.reader`).
"""

from __future__ import annotations

import numpy as np

from hexrail.compiled import kernel

QUOTE, BACKSLASH = 34, 92
COMMA, COLON = 44, 58
OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT = 91, 93, 123, 125

# Where the scan is with the member it looks for (`json_scan`); numpy integers, not literals:
# the variable holding them takes each in turn
UNSEEN, NAMED, COLONED, INSIDE, DONE, UNFIT = map(np.int64, range(6))
# What may come next inside its array: an object or the end, a comma or the end, an object
FIRST, AFTER, NEXT = map(np.int64, range(3))


@kernel(inline=True)
def _blank(c):
    return c == 32 or c == 10 or c == 13 or c == 9


NO_KEY = np.frombuffer(b"", np.uint8)  # (read-only, as the texts' bytes are: one build serves)


def json_within(text: np.ndarray, max_depth: int, max_digits: int, max_string: int) -> bool:
    """False if the JSON text `text` (its UTF-8 bytes) might hold a container nested deeper
    than `max_depth` (the outermost at depth 0), a number token with `max_digits` digits in a
    row or three in its exponent (an integer past 2^53, a float past the double range), a
    NaN or Infinity, a string of more than `max_string` bytes, or a NUL (raw, or escaped as
    ``\\u0000``); True if it surely holds none of these (`json_scan`)."""
    return bool(json_scan(text, max_depth, max_digits, max_string, NO_KEY, 0)[0])


@kernel
def json_scan(text, max_depth, max_digits, max_string, key, most):
    """`json_within`'s answer, and where the member named `key` (its UTF-8 bytes) of the
    outermost object lies, if it is one array of objects: row 0 the array's span ``[start,
    end)`` in `text`, each row after one of its objects', in order. No rows where the
    outermost value is no object, the name is not there, there twice or maybe written with an
    escape (some member's name has one), or the array holds anything but objects, commas
    between them and whitespace (so the text is that array exactly where its objects' texts
    are JSON), or more than `most` objects (the text's opening braces are enough)."""
    n = text.shape[0]
    depth = 0  # brackets open
    in_string = False
    length = 0  # bytes of the string being read
    digits = 0  # digits in a row, outside strings
    exponent = False  # the digits follow an e or E
    k = key.shape[0]
    state = UNSEEN if k > 0 else UNFIT
    outer_object = False
    want_name = False  # in the outermost object, where the next string names a member
    name_start = -1  # where the member name being read starts (-1: the string is no name)
    escaped = False  # the name being read has an escape
    expect = FIRST
    spans = np.empty((most + 1, 2), np.int64)  # (never grown: that would slow the whole loop)
    n_spans = 1
    i = 0
    while i < n:
        c = text[i]
        if c == 0:
            return False, spans[:0]
        if in_string:
            if c == BACKSLASH:
                if (i + 5 < n and text[i + 1] == 117 and text[i + 2] == 48 and text[i + 3] == 48
                        and text[i + 4] == 48 and text[i + 5] == 48):
                    return False, spans[:0]  # \u0000
                escaped = True
                length += 2
                i += 2  # (the escaped byte, a quote or a backslash among them)
            else:
                if c == QUOTE:
                    in_string = False
                    if name_start >= 0:
                        same = not escaped and i - name_start == k
                        j = 0
                        while same and j < k:
                            same = text[name_start + j] == key[j]
                            j += 1
                        if same:
                            state = NAMED if state == UNSEEN else UNFIT
                        elif escaped:
                            state = UNFIT  # (it may be that name, written otherwise)
                        name_start = -1
                length += 1
                i += 1
            if length > max_string:
                return False, spans[:0]
            continue
        if state == COLONED and not _blank(c):
            if c == OPEN_ARRAY:
                state = INSIDE
                spans[0, 0] = i
            else:
                state = UNFIT
        elif state == INSIDE and depth == 2 and not _blank(c):
            # between the array's objects: one comma after each but the last
            if c == OPEN_OBJECT and expect != AFTER:
                if n_spans == spans.shape[0]:
                    state = UNFIT
                else:
                    spans[n_spans, 0] = i
            elif c == COMMA and expect == AFTER:
                expect = NEXT
            elif c == CLOSE_ARRAY and expect != NEXT:
                spans[0, 1] = i + 1
                state = DONE
            else:
                state = UNFIT
        if 48 <= c <= 57:
            digits += 1
            if digits >= max_digits or (exponent and digits >= 3):
                return False, spans[:0]
        elif c == 101 or c == 69:  # e, E: an exponent's digits follow (or true, false go on)
            digits = 0
            exponent = True
        elif c == 43 or c == 45:  # +, -: a sign, before the digits it signs
            digits = 0
        else:
            digits = 0
            exponent = False
            if c == QUOTE:
                in_string = True
                length = 0
                if want_name and depth == 1:
                    name_start = i + 1
                    escaped = False
                    want_name = False
            elif c == OPEN_ARRAY or c == OPEN_OBJECT:
                depth += 1
                if depth > max_depth:  # (the outermost is depth 0, inside its first bracket)
                    return False, spans[:0]
                if depth == 1 and c == OPEN_OBJECT:
                    outer_object = True
                    want_name = True
            elif c == CLOSE_ARRAY or c == CLOSE_OBJECT:
                depth -= 1
                if state == INSIDE and depth == 2 and c == CLOSE_OBJECT:
                    spans[n_spans, 1] = i + 1
                    n_spans += 1
                    expect = AFTER
            elif c == COMMA:
                want_name = outer_object and depth == 1
            elif c == COLON:
                if state == NAMED and depth == 1:
                    state = COLONED
            elif c == 78 or c == 73:  # N, I: NaN, Infinity (no JSON token starts so)
                return False, spans[:0]
        i += 1
    return True, spans[:n_spans] if state == DONE and depth == 0 else spans[:0]
