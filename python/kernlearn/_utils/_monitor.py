"""The one progress mechanism on the Python side.

The core calls ``callback(iteration, record)`` after every iteration of a solver, where record is
the solver's bound per-iteration class (``_core.methods.SaddleIteration``, ...). :class:`Monitor`
turns that into what a user sees: a progress line, the user's ``callback(info)`` with a dict, and,
after the fit, ``history_`` as a dict of arrays. Returning True from the user's callback stops the
solver (its status is then ``interrupted``). Loops written in Python (MVE's outer iterations,
SPE's cutting-plane rounds) report through :class:`Progress`, the part of Monitor that writes.

Progress goes through :mod:`logging`, to the ``"kernlearn"`` logger at INFO, and ``verbose``
decides what is written: 1 gives one compact line per outer iteration (``it / max_iter``, the
objective, the certificate the loop stops on, the elapsed time), 2 adds every field and the inner
solvers' steps. A user who configured logging gets the lines through their own handlers and
format; a user who did not still sees them (on stderr), because asking for ``verbose`` is asking
for output. A level set on the ``kernlearn`` logger is honoured. In a terminal, with ``tqdm``
installed and logging not configured, ``verbose=1`` draws a progress bar instead of the lines and
logs the last line when the loop ends.
"""

import logging
import sys
import time

import numpy as np

__all__ = ["Monitor", "Progress", "history_arrays", "logger"]

logger = logging.getLogger("kernlearn")

# Where lines go when logging is not configured at all (no handler on the way to the root).
_fallback = logging.StreamHandler(sys.stderr)
_fallback.setFormatter(logging.Formatter("%(message)s"))


def _explicit_level():
    """The level set on ``kernlearn`` or one of its children, or NOTSET when none was set."""
    log = logger
    while log is not None and log.name.startswith("kernlearn"):
        if log.level != logging.NOTSET:
            return log.level
        log = log.parent
    return logging.NOTSET


def _logging_configured():
    return logger.hasHandlers()


def _emit(message):
    """Log one progress line at INFO whatever the root's level, unless kernlearn's level forbids it."""
    level = _explicit_level()
    if logger.disabled or (level != logging.NOTSET and level > logging.INFO):
        return
    record = logger.makeRecord(logger.name, logging.INFO, __file__, 0, message, None, None)
    if _logging_configured():
        logger.handle(record)
    else:
        _fallback.handle(record)


def _format(name, value, spec):
    try:
        return f"{name} {value:{spec}}"
    except (TypeError, ValueError):
        return f"{name} {value}"


def _bar_factory():
    """tqdm's class when a bar can be drawn: a terminal, tqdm importable, logging not configured."""
    if _logging_configured() or not getattr(sys.stderr, "isatty", lambda: False)():
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm


class Progress:
    """Progress lines of one loop of a fit.

    Parameters
    ----------
    owner : str
        The estimator's name, which starts every line: ``[SimpleNPKL] iter    3/200 ...``.
    verbose : int
        The estimator's ``verbose``; lines are written when it is at least ``level``.
    max_iter : int, optional
        Shown as the denominator of the iteration count, and the length of the progress bar.
    level : {1, 2}
        1 for a fit's outer loop, 2 for an inner solver (written only at ``verbose=2``).
    start : float, optional
        The ``time.perf_counter()`` the elapsed time counts from (default: now).
    """

    def __init__(self, owner, verbose, max_iter=None, *, level=1, start=None):
        self.owner = owner
        self.verbose = int(verbose)
        self.max_iter = max_iter
        self.level = level
        self.active = self.verbose >= level
        self.start = time.perf_counter() if start is None else start
        self._bar = None
        self._last = None
        if self.active and self.verbose == 1 and level == 1 and max_iter is not None:
            tqdm = _bar_factory()
            if tqdm is not None:
                self._bar = tqdm(total=int(max_iter), desc=owner, leave=False, file=sys.stderr)

    def report(self, count, values):
        """The line after ``count`` iterations; values is a list of ``(name, value, format)``."""
        if not self.active:
            return
        of = f"/{self.max_iter}" if self.max_iter is not None else ""
        parts = [f"[{self.owner}] iter {count:4d}{of}"]
        parts += [_format(name, value, spec) for name, value, spec in values]
        parts.append(f"{time.perf_counter() - self.start:.2f} s")
        line = "  ".join(parts)
        if self._bar is not None:
            self._bar.update(max(count - self._bar.n, 0))
            self._bar.set_postfix_str("  ".join(parts[1:]), refresh=False)
            self._last = line
        else:
            _emit(line)

    def close(self):
        """End the loop: the bar is removed and its last line logged."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
            if self._last is not None:
                _emit(self._last)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Monitor(Progress):
    """What an estimator hands the core as its callback.

    Parameters
    ----------
    owner : str
        The estimator's name, which starts every line.
    verbose : int
        The estimator's ``verbose`` (see the module docstring).
    callback : callable or None
        The user's ``callback(info)``; info is a dict of the record's fields plus ``iteration``.
    fields : sequence of str
        The record fields, in order, that ``callback`` receives and ``verbose=2`` shows; a
        ``(name, format)`` pair sets the number format (default ``.6g``).
    max_iter : int, optional
        Shown as the denominator of the iteration count.
    objective : str, optional
        The field of the compact line (``verbose=1``) that holds the objective.
    certificate : str or tuple of str, optional
        The field(s) of the compact line that the solver stops on (a duality gap, a gradient
        norm, the changes between iterates).
    level : {1, 2}
        2 when the solver is the inner loop of a fit that reports its own outer iterations.
    first_iteration : {0, 1}
        The number the solver gives its first iteration (lines count from 1 either way).
    """

    def __init__(
        self,
        owner,
        verbose,
        callback,
        fields,
        *,
        max_iter=None,
        objective=None,
        certificate=None,
        level=1,
        first_iteration=0,
    ):
        super().__init__(owner, verbose, max_iter, level=level)
        self.first_iteration = first_iteration
        self.callback = callback
        self.fields = [f if isinstance(f, tuple) else (f, ".6g") for f in fields]
        spec = dict(self.fields)
        certificate = (certificate,) if isinstance(certificate, str) else tuple(certificate or ())
        shown = ((objective,) if objective is not None else ()) + certificate
        self.compact = [(name, spec.get(name, ".6g")) for name in shown]

    def core_callback(self):
        """The function the core calls, or None when nobody listens (the core then skips it)."""
        if not self.active and self.callback is None:
            return None
        return self

    def __call__(self, iteration, record):
        info = {"iteration": int(iteration)}
        for name, _ in self.fields:
            info[name] = getattr(record, name)
        if self.active:
            shown = self.fields if self.verbose >= 2 or not self.compact else self.compact
            self.report(int(iteration) - self.first_iteration + 1, [(name, info[name], spec) for name, spec in shown])
        return bool(self.callback(info)) if self.callback is not None else False


def history_arrays(records, fields):
    """``history_``: one array per field over the iterations of a result's record list."""
    return {name: np.asarray([getattr(r, name) for r in records]) for name in fields}
