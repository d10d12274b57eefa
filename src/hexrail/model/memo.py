"""Values made once per immutable model object, kept by the object's identity."""

from __future__ import annotations

from typing import Any, Callable, Generic, TypeVar

T = TypeVar("T")


class ByIdentity(Generic[T]):
    """``make(obj)``, made once per object and kept by its ``id``: readers share repeated
    hexes, so finding one by identity costs less than hashing it. Each entry holds its object,
    so no id is reused while it lives; past `limit` entries the table starts again."""

    def __init__(self, make: Callable[[Any], T], limit: int) -> None:
        self.make = make
        self.limit = limit
        self._table: dict[int, tuple[Any, T]] = {}

    def __call__(self, obj: Any) -> T:
        found = self._table.get(id(obj))
        if found is None:
            if len(self._table) >= self.limit:
                self._table.clear()
            found = self._table[id(obj)] = (obj, self.make(obj))
        return found[1]

    def clear(self) -> None:
        self._table.clear()
