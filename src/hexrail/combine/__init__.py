"""Choose one route per train: exact combiners over the candidates of every train."""

from hexrail.combine.bnb import Selection, combine_disjoint

__all__ = ["Selection", "combine_disjoint"]
