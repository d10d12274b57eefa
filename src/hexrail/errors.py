"""The one error type hexrail raises for bad input or impossible requests."""

from __future__ import annotations


class HexrailError(ValueError):
    """Bad input or an impossible request.

    The message always names the hex, tile, company, train or field at fault, so the CLI and the
    HTTP service can show it to a person as it is.
    """

    def __init__(self, message: str, *, where: str | None = None):
        # one line, whatever the input quoted in it holds; a quoted piece is kept short
        where = None if where is None else _one_line(where)
        self.where = where
        message = _one_line(message)
        super().__init__(f"{where}: {message}" if where else message)


def _one_line(text: str, limit: int = 300) -> str:
    """`text` with control characters escaped, cut to `limit` characters."""
    text = str(text)
    if not text.isprintable():
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= limit else text[:limit - 1] + "…"
