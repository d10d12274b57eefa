"""numba kernel: one pass over a JSON text that clears most documents of `check_document`'s walk.

`hexrail.io.limits.check_document` walks every value of a parsed document in Python (about a
millisecond for an 18xx.games position). Its limits can be read off the text instead, in one
pass: nesting from the brackets outside strings, integers from the digits in a row, strings
from their bytes (never fewer than their characters) and escapes. Where the text might hold
something the walk refuses, the walk decides, and names the place.
"""

from __future__ import annotations

from hexrail.compiled import kernel

QUOTE, BACKSLASH = 34, 92


@kernel
def json_within(text, max_depth, max_digits, max_string):
    """False if the JSON text `text` (its UTF-8 bytes) might hold a container nested deeper
    than `max_depth` (the outermost at depth 0), a number token with `max_digits` digits in a
    row or three in its exponent (an integer past 2^53, a float past the double range), a
    NaN or Infinity, a string of more than `max_string` bytes, or a NUL (raw, or escaped as
    ``\\u0000``); True if it surely holds none of these."""
    n = text.shape[0]
    depth = 0  # brackets open
    in_string = False
    length = 0  # bytes of the string being read
    digits = 0  # digits in a row, outside strings
    exponent = False  # the digits follow an e or E
    i = 0
    while i < n:
        c = text[i]
        if c == 0:
            return False
        if in_string:
            if c == BACKSLASH:
                if (i + 5 < n and text[i + 1] == 117 and text[i + 2] == 48 and text[i + 3] == 48
                        and text[i + 4] == 48 and text[i + 5] == 48):
                    return False  # \u0000
                length += 2
                i += 2  # (the escaped byte, a quote or a backslash among them)
            else:
                if c == QUOTE:
                    in_string = False
                length += 1
                i += 1
            if length > max_string:
                return False
            continue
        if 48 <= c <= 57:
            digits += 1
            if digits >= max_digits or (exponent and digits >= 3):
                return False
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
            elif c == 91 or c == 123:  # [ {
                depth += 1
                if depth > max_depth:  # (the outermost is depth 0, inside its first bracket)
                    return False
            elif c == 93 or c == 125:  # ] }
                depth -= 1
            elif c == 78 or c == 73:  # N, I: NaN, Infinity (no JSON token starts so)
                return False
        i += 1
    return True
