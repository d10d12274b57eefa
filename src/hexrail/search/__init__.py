"""Route search: enumerate the legal routes of each train (numba) and the brute-force twin."""

from hexrail.search.routes import Candidates, enumerate_routes

__all__ = ["Candidates", "enumerate_routes"]
