"""Declarative parameter checks: each estimator states its rules once, as a table.

An estimator (or a function) writes ``_parameter_constraints = {"C": [Interval(Real, 0, None,
closed="neither")], "loss": [StrOptions({"linear", "hinge"})], ...}`` and calls
:func:`validate_params` once at the start of ``fit``. A value passes when it meets any of its
constraints; otherwise a TypeError (no constraint accepts its type) or a ValueError (the type is
right, the value is not) names the parameter, the rule and the value. Rules that tie one
parameter to the data or to another parameter (``n_neighbors < n_samples``) stay in ``fit``.

This is scikit-learn's pattern, written here: its helpers are private API.
"""

import math
import numbers

import numpy as np

__all__ = ["CORE_INT_MAX", "Interval", "StrOptions", "Options", "validate_params"]

# The largest integer parameter the C++ core takes (its counts and sizes are C ints). An Integral
# Interval without a right end stops here, so 2**63 is a ValueError naming the parameter rather
# than a pybind11 signature dump.
CORE_INT_MAX = 2**31 - 1


class Interval:
    """Numbers of a type in [left, right], each end open or closed; None is unbounded.

    ``Interval(Integral, 1, None)`` is an int in [1, CORE_INT_MAX]; ``Interval(Real, 0, None,
    closed="neither")`` a finite float > 0 (Real intervals never admit NaN or infinity). Booleans
    are never numbers.
    """

    def __init__(self, kind, left, right, *, closed="both"):
        if kind not in (numbers.Integral, numbers.Real):
            raise TypeError("kind must be numbers.Integral or numbers.Real")
        if closed not in ("both", "left", "right", "neither"):
            raise ValueError("closed must be 'both', 'left', 'right' or 'neither'")
        if kind is numbers.Integral and right is None:
            right, closed = CORE_INT_MAX, {"left": "both", "neither": "right"}.get(closed, closed)
        self.kind, self.left, self.right, self.closed = kind, left, right, closed

    def accepts_type(self, value):
        return isinstance(value, self.kind) and not isinstance(value, (bool, np.bool_))

    def __contains__(self, value):
        if not self.accepts_type(value):
            return False
        if self.kind is numbers.Real and not math.isfinite(value):
            return False
        left_ok = self.left is None or (value >= self.left if self.closed in ("both", "left") else value > self.left)
        right_ok = self.right is None or (
            value <= self.right if self.closed in ("both", "right") else value < self.right
        )
        return left_ok and right_ok

    def __str__(self):
        what = "an int" if self.kind is numbers.Integral else "a finite real number"
        bounds = []
        if self.left is not None:
            bounds.append(f"{'>=' if self.closed in ('both', 'left') else '>'} {self.left}")
        if self.right is not None:
            bounds.append(f"{'<=' if self.closed in ('both', 'right') else '<'} {self.right}")
        return " and ".join(bounds) + f" ({what})" if bounds else what


class Options:
    """One of a fixed set of values of one type (strings: use :class:`StrOptions`)."""

    def __init__(self, kind, values):
        self.kind, self.values = kind, frozenset(values)

    def accepts_type(self, value):
        return isinstance(value, self.kind) and not (self.kind is not bool and isinstance(value, bool))

    def __contains__(self, value):
        return self.accepts_type(value) and value in self.values

    def __str__(self):
        return "one of " + ", ".join(repr(v) for v in sorted(self.values, key=repr))


class StrOptions(Options):
    """One of a fixed set of strings."""

    def __init__(self, values):
        super().__init__(str, values)


class _Kind:
    """A named kind of value: "boolean", "callable", "array-like", "random_state", None. Each has a type test
    and a value test (an int random_state of the right type may still be out of numpy's range)."""

    _RULES = {
        "boolean": ("a bool", lambda v: isinstance(v, (bool, np.bool_)), None),
        "callable": ("a callable", callable, None),
        "array-like": (
            "an array-like (a list, tuple or array)",
            lambda v: isinstance(v, (list, tuple, np.ndarray)),
            None,
        ),
        "random_state": (
            "an int in [0, 2**32 - 1], a numpy RandomState or Generator, or None",
            lambda v: (
                v is None
                or (isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)))
                or isinstance(v, (np.random.RandomState, np.random.Generator))
            ),
            lambda v: not isinstance(v, numbers.Integral) or 0 <= int(v) < 2**32,
        ),
        None: ("None", lambda v: v is None, None),
    }

    def __init__(self, name):
        self.text, self.type_test, self.value_test = self._RULES[name]

    def accepts_type(self, value):
        return self.type_test(value)

    def __contains__(self, value):
        return self.type_test(value) and (self.value_test is None or self.value_test(value))

    def __str__(self):
        return self.text


def _as_constraint(c):
    if isinstance(c, (Interval, Options)):
        return c
    if c is None or isinstance(c, str):
        return _Kind(c)
    if isinstance(c, type):
        return _TypeConstraint(c)
    raise TypeError(f"unknown constraint {c!r}")


class _TypeConstraint:
    def __init__(self, kind):
        self.kind = kind

    def accepts_type(self, value):
        return isinstance(value, self.kind)

    def __contains__(self, value):
        return isinstance(value, self.kind)

    def __str__(self):
        return f"an instance of {self.kind.__name__}"


# Constraint lists turned into rule objects once (tables are module or class constants; fit must
# stay cheap on small problems). Keyed by id, holding the list so that the id stays its own.
_COMPILED: dict[int, tuple] = {}


def _compiled(allowed):
    entry = _COMPILED.get(id(allowed))
    if entry is None or entry[0] is not allowed:
        entry = _COMPILED[id(allowed)] = (allowed, [_as_constraint(c) for c in allowed])
    return entry[1]


def validate_params(constraints, params, owner):
    """Check ``params`` (a dict, e.g. ``estimator.get_params(deep=False)``) against
    ``constraints`` (name -> list of constraints). Parameters without an entry are not checked.

    Raises
    ------
    TypeError
        When no constraint of a parameter accepts its value's type.
    ValueError
        When some constraint accepts the type but none the value.
    """
    for name, allowed in constraints.items():
        if name not in params:
            continue
        value = params[name]
        rules = _compiled(allowed)
        if any(value in rule for rule in rules):
            continue
        text = " or ".join(str(rule) for rule in rules)
        error = ValueError if any(rule.accepts_type(value) for rule in rules) else TypeError
        raise error(f"{owner}: {name} must be {text}, got {value!r}")
