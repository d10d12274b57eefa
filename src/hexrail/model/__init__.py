"""Immutable, typed board model: geometry, tiles, trains and the position to solve."""

from hexrail.model.frozen import FrozenMap
from hexrail.model.hexgrid import Layout, opposite, rotate
from hexrail.model.notation import parse_tile
from hexrail.model.position import Company, Hex, Phase, Position, Rules, Train
from hexrail.model.tile import STOP_KINDS, Border, End, Node, Path, Tile, Token, revenue_for
from hexrail.model.trains import UNLIMITED, Row, TrainSpec, parse_spec

__all__ = [
    "Border", "Company", "End", "FrozenMap", "Hex", "Layout", "Node", "Path", "Phase",
    "Position", "Row", "Rules", "STOP_KINDS", "Tile", "Token", "Train", "TrainSpec", "UNLIMITED",
    "opposite", "parse_spec", "parse_tile", "revenue_for", "rotate",
]
