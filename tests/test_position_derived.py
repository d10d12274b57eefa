"""Copies a rules profile derives from a position (`Position.unchecked`, `with_trains`) and the
facts it keeps on one (`Position.derived`, `rules.base.per_position`)."""

from __future__ import annotations

import pytest

import hexrail
from hexrail.errors import HexrailError
from hexrail.rules.base import per_position


def test_with_trains_still_refuses_a_repeated_train_id():
    pos = hexrail.load_position(hexrail.example_path("demo"))
    with pytest.raises(HexrailError, match="two trains share an id"):
        pos.with_trains((pos.trains[0], pos.trains[0]))
    fewer = pos.with_trains(pos.trains[:1])
    assert fewer.trains == pos.trains[:1] and fewer.hexes is pos.hexes


def test_a_copy_forgets_the_facts_kept_on_its_original():
    pos = hexrail.load_position(hexrail.example_path("demo"))
    assert pos.derived(("n",), lambda p: len(p.trains)) == 3
    fewer = pos.with_trains(pos.trains[:1])
    assert fewer.derived(("n",), lambda p: len(p.trains)) == 1
    assert pos.derived(("n",), lambda p: len(p.trains)) == 3


def test_per_position_makes_a_fact_once_and_keeps_no_failure():
    calls = []

    @per_position
    def fact(pos, k):
        calls.append(k)
        if k < 0:
            raise HexrailError("negative", where="state.k")
        return k * 2

    pos = hexrail.load_position(hexrail.example_path("demo"))
    assert [fact(pos, 2), fact(pos, 2), fact(pos, 3)] == [4, 4, 6]
    assert calls == [2, 3]
    for _ in range(2):
        with pytest.raises(HexrailError):
            fact(pos, -1)
    assert calls == [2, 3, -1, -1]


def test_hexes_by_id_follow_a_copy_with_other_hexes():
    """`Position.hex_by_id` is made with the position and stays with a copy of the same
    hexes; a copy with other hexes makes its own."""
    from dataclasses import replace

    pos = hexrail.load_position(hexrail.example_path("demo"))
    assert pos.hex_by_id == {h.id: h for h in pos.hexes}
    assert pos.unchecked(trains=pos.trains[:1]).hex_by_id is pos.hex_by_id
    other = pos.hexes[0]
    moved = replace(other, tile=replace(other.tile, name="elsewhere"))
    copy = pos.unchecked(hexes=(moved, *pos.hexes[1:]))
    assert copy.hex_by_id[other.id] is moved and pos.hex_by_id[other.id] is other


def test_values_by_identity_many_at_once():
    """`ByIdentity.many` gives what a call per object gives, making each value once, also
    when the table starts again in its midst."""
    from hexrail.model.memo import ByIdentity

    made = []
    memo = ByIdentity(lambda obj: made.append(obj) or len(made), limit=3)
    objs = [object() for _ in range(5)]
    first = memo.many(objs[:2])
    assert first == [1, 2] and memo.many(objs[:2]) == [1, 2] and len(made) == 2
    assert memo.many(objs) == [1, 2, 3, 4, 5]  # the table starts again at the fourth
    assert memo.many(objs[3:]) == [4, 5] and len(made) == 5
