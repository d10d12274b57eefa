"""The one error type hexrail raises for bad input or impossible requests."""

from __future__ import annotations


class HexrailError(ValueError):
    """Bad input or an impossible request.

    The message always names the hex, tile, company, train or field at fault, so the CLI and the
    HTTP service can show it to a person as it is.
    """

    def __init__(self, message: str, *, where: str | None = None):
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)
