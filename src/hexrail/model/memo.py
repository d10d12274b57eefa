"""Values made once per immutable model object, kept by the object's identity."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class ByIdentity(Generic[T]):
    """``make(obj)``, made once per object and kept by its ``id``: readers share repeated
    hexes, so finding one by identity costs less than hashing it. Each entry holds its object,
    so no id is reused while it lives; past `limit` entries the table starts again."""

    def __init__(self, make: Callable[[Any], T], limit: int) -> None:
        self.make = make
        self.limit = limit
        self._objects: dict[int, Any] = {}  # holds each object while its value is kept
        self._values: dict[int, T] = {}

    def __call__(self, obj: Any) -> T:
        found = self._values.get(id(obj), _MISSING)
        if found is _MISSING:
            if len(self._values) >= self.limit:
                self.clear()
            found = self.make(obj)
            self._objects[id(obj)] = obj
            self._values[id(obj)] = found
        return found

    def many(self, objs: Sequence[Any]) -> list[T]:
        """``[self(obj) for obj in objs]``, with no Python call per object found."""
        ids = list(map(id, objs))
        if all(map(self._values.__contains__, ids)):
            return list(map(self._values.__getitem__, ids))
        return [self(obj) for obj in objs]

    def clear(self) -> None:
        self._objects.clear()
        self._values.clear()


_MISSING: Any = object()
