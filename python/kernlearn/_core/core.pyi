"""
Shared by every layer: the solver status and the thread cap.
"""

from __future__ import annotations

import enum
import typing

class SolverStatus(enum.Enum):
    """
    How an iterative solver ended.
    """

    converged = 0
    interrupted = 3
    max_iter = 1
    not_converged = 2

def idle_cores() -> int:
    """
    The usable cores minus the runnable tasks of other processes at this instant (Linux /proc), at least 1; all usable cores where that count does not describe them (a CPU subset, no /proc).
    """

def set_thread_limit(limit: typing.SupportsInt | typing.SupportsIndex) -> None:
    """
    Caps every later parallel section at limit threads (>= 1); 0 removes the cap.
    """

def thread_cap() -> int:
    """
    The most threads a parallel section may use now: the usable cores, lowered by the process-wide limit (threadpoolctl's threadpool_limits sets it).
    """
