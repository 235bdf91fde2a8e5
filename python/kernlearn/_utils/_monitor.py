"""The one progress mechanism on the Python side.

The core calls ``callback(iteration, record)`` after every iteration of a solver, where record is
the solver's bound per-iteration class (``_core.methods.SaddleIteration``, ...). :class:`Monitor`
turns that into what a user sees: a ``verbose`` line, the user's ``callback(info)`` with a dict,
and, after the fit, ``history_`` as a dict of arrays. Returning True from the user's callback
stops the solver (its status is then ``interrupted``).
"""

import numpy as np

__all__ = ["Monitor", "history_arrays"]


class Monitor:
    """What an estimator hands the core as its callback.

    Parameters
    ----------
    owner : str
        The estimator's name, which starts every verbose line: ``[SimpleNPKL] iter   3/200 ...``.
    verbose : int
        Print one line per iteration when positive.
    callback : callable or None
        The user's ``callback(info)``; info is a dict of the record's fields plus ``iteration``.
    fields : sequence of str
        The record fields shown, in order; a ``(name, format)`` pair sets the number format
        (default ``.6g``).
    max_iter : int, optional
        Shown as the denominator of the iteration count.
    """

    def __init__(self, owner, verbose, callback, fields, *, max_iter=None):
        self.owner = owner
        self.verbose = verbose
        self.callback = callback
        self.fields = [f if isinstance(f, tuple) else (f, ".6g") for f in fields]
        self.max_iter = max_iter

    def core_callback(self):
        """The function the core calls, or None when nobody listens (the core then skips it)."""
        if not self.verbose and self.callback is None:
            return None
        return self

    def __call__(self, iteration, record):
        info = {"iteration": int(iteration)}
        for name, _ in self.fields:
            info[name] = getattr(record, name)
        if self.verbose:
            print(self.line(info), flush=True)
        return bool(self.callback(info)) if self.callback is not None else False

    def line(self, info):
        """The verbose line for one iteration's info dict."""
        of = f"/{self.max_iter}" if self.max_iter is not None else ""
        parts = [f"[{self.owner}] iter {info['iteration']:4d}{of}"]
        for name, spec in self.fields:
            value = info[name]
            try:
                parts.append(f"{name} {value:{spec}}")
            except (TypeError, ValueError):
                parts.append(f"{name} {value}")
        return "  ".join(parts)


def history_arrays(records, fields):
    """``history_``: one array per field over the iterations of a result's record list."""
    return {name: np.asarray([getattr(r, name) for r in records]) for name in fields}
