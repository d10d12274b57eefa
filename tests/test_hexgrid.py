"""Hex names, neighbours, rotation and distance on flat and pointy maps."""

import pytest

from hexrail import HexrailError
from hexrail.model.hexgrid import Layout, opposite, rotate


@pytest.mark.parametrize("orientation", ["flat", "pointy"])
def test_neighbours_face_back(orientation):
    layout = Layout(orientation)
    for hex_id in ["C3", "D4", "E7", "F8", "K11"] if orientation == "flat" else ["C3", "D4", "E7", "F10"]:
        for side in range(6):
            nb = layout.neighbour(hex_id, side)
            assert layout.neighbour(nb, opposite(side)) == hex_id


def test_flat_neighbours_match_18xx_games():
    # 1860 corpus hex H8 (flat): nb = [H10, G9, G7, H6, I7, I9]
    assert [Layout("flat").neighbour("H8", s) for s in range(6)] == ["H10", "G9", "G7", "H6", "I7", "I9"]


def test_pointy_neighbours_match_18xx_games():
    # 1830 hex F2 (pointy, x = number): side 3 -> E3, 4 -> F4, 5 -> G3
    layout = Layout("pointy")
    assert [layout.neighbour("F2", s) for s in (3, 4, 5)] == ["E3", "F4", "G3"]


def test_rotation_and_opposite():
    assert [rotate(e, 1) for e in range(6)] == [1, 2, 3, 4, 5, 0]
    assert rotate(4, 5) == 3
    assert [opposite(e) for e in range(6)] == [3, 4, 5, 0, 1, 2]


@pytest.mark.parametrize("orientation", ["flat", "pointy"])
def test_distance_is_steps_of_neighbours(orientation):
    layout = Layout(orientation)
    start = "F6" if orientation == "flat" else "F6"
    ring = {start}
    seen = {start}
    for d in range(1, 4):
        ring = {layout.neighbour(h, s) for h in ring for s in range(6)} - seen
        seen |= ring
        for h in ring:
            assert layout.distance(start, h) == d


def test_bad_names_are_named():
    with pytest.raises(HexrailError, match="'12B'"):
        Layout("flat").xy("12B")
    with pytest.raises(HexrailError, match="orientation"):
        Layout("round")


def test_axes_override():
    layout = Layout("flat", "number", "letter")
    assert layout.xy("B12") == (11, 1)


def test_names_parse_the_same_once_kept():
    """Names are parsed once and kept (`name_parts`); a bad name is refused every time."""
    flat, pointy = Layout("flat"), Layout("pointy")
    for _ in range(2):
        assert flat.xy("C12") == (2, 11) and pointy.xy("C12") == (11, 2)
        assert flat.xy("AA3") == (26, 2)
        with pytest.raises(HexrailError, match="not a hex name"):
            flat.xy("12C")
