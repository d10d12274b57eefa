"""A small hashable mapping, so that positions can be immutable values and cache keys."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


_PLAIN = frozenset((str, int, float, bool, type(None)))  # (what JSON holds besides lists and dicts)


def freeze(value: Any) -> Any:
    """Return `value` with every list made a tuple and every dict a FrozenMap (recursively)."""
    # (by exact type first: a position's state holds thousands of values, and `isinstance`
    # against the `Mapping` ABC costs a third of reading one)
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is dict:
        return FrozenMap(value)
    if kind is list or kind is tuple:
        return tuple(map(freeze, value))
    if isinstance(value, FrozenMap):
        return value
    if isinstance(value, Mapping):
        return FrozenMap(value)
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, set | frozenset):
        return frozenset(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """Inverse of `freeze` for JSON output: FrozenMap → dict, tuple → list."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    if isinstance(value, frozenset):
        return sorted(thaw(v) for v in value)
    return value


class FrozenMap(Mapping):
    """An immutable, hashable dict whose values are frozen recursively."""

    __slots__ = ("_data", "_hash")

    def __init__(self, data: Mapping | None = None, **kwargs: Any):
        items = dict(data or {}, **kwargs)
        plain = _PLAIN
        self._data = {k: v if type(v) in plain else freeze(v) for k, v in items.items()}
        self._hash: int | None = None

    def __getitem__(self, key: Any) -> Any:
        return self._data[key]

    # (the dict's own, not `Mapping`'s, which go through __getitem__ and an exception: rules
    # ask these of every node's extras)
    def get(self, key: Any, default: Any = None) -> Any:
        return self._data.get(key, default)

    def __contains__(self, key: Any) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._data.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self._data == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenMap({self._data!r})"
