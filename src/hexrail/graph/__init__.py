"""Compile a position into flat arrays: the track graph and each train's view of it."""

from hexrail.graph.track import TrackGraph, compile_track
from hexrail.graph.trains import TrainData, lower_train

__all__ = ["TrackGraph", "TrainData", "compile_track", "lower_train"]
