"""Simulation of many matches for balancing (GDD 06 §7): the whole-match kernel, §7 parameter
sweeps, their CSV/HTML reports, and the ``simulate`` and ``lint`` commands."""
