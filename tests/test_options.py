"""Every options class of ``_core`` checks its fields by name (issue 48, item 2).

The cases come from the classes themselves: ``Class._field_types`` is the rule of each field,
derived in C++ from the field's type by the same ``.field(...)`` list that declares the class
(cpp/bindings/option_fields.hpp). A wrong value, given to the constructor or assigned, must raise
a TypeError (wrong type) or ValueError (out of range, NaN) whose message names ``Class.field``,
and leave the object as it was; the values a numpy user passes (numpy scalars, ints for floats)
must be taken as they are.
"""

import math

import numpy as np
import pytest

from kernlearn import _core

SUBMODULES = ("linalg", "neighbors", "kernels", "methods", "core")


def options_classes():
    """Every class of _core whose constructor is the options constructor (keywords = fields)."""
    found = {}
    for sub in SUBMODULES:
        module = getattr(_core, sub)
        for name in dir(module):
            cls = getattr(module, name)
            doc = getattr(getattr(cls, "__init__", None), "__doc__", "") or ""
            if isinstance(cls, type) and "every field defaults to the C++ member initialiser" in doc:
                found[name] = cls
    return found


CLASSES = options_classes()
# The classes this file must see: a class that loses its rules, or a new options class bound
# without OptionsClass, fails test_every_options_class_has_rules.
EXPECTED = {
    "LanczosFilter",
    "LanczosOptions",
    "PairwiseKernel",
    "SpectralOptions",
    "NpklOptions",
    "SaddleProblem",
    "SiceOptions",
    "IsmOptions",
    "KdacOptions",
    "IklrOptions",
    "IklrNewtonOptions",
    "IklrNystromOptions",
}


def bad_values(spec):
    """(label, value, exception) that the rule ``spec`` must refuse."""
    kind = spec[0]
    if kind == "optional":
        return [case for case in bad_values(spec[1]) if case[1] is not None]
    if kind == "int":
        low, high = spec[1], spec[2]
        return [
            ("str", "3", TypeError),
            ("None", None, TypeError),
            ("float", 2.0, TypeError),
            ("np.float64", np.float64(2.0), TypeError),
            ("bool", True, TypeError),
            ("np.bool_", np.bool_(True), TypeError),
            ("complex", 1j, TypeError),
            ("above the C++ type", high + 1, ValueError),
            ("below the C++ type", low - 1, ValueError),
            ("2**64", 2**64, ValueError),
        ]
    if kind == "float":
        return [
            ("str", "tight", TypeError),
            ("numeric str", "1e-3", TypeError),
            ("None", None, TypeError),
            ("bool", False, TypeError),
            ("complex", 1 + 0j, TypeError),
            ("np.complex128", np.complex128(1.0), TypeError),
            ("array", np.ones(2), TypeError),
            ("NaN", math.nan, ValueError),
            ("np.nan float32", np.float32("nan"), ValueError),
            ("int beyond float", 10**400, ValueError),
        ]
    if kind == "bool":
        return [("str", "yes", TypeError), ("None", None, TypeError), ("int", 1, TypeError), ("float", 0.0, TypeError)]
    if kind == "enum":
        member = next(iter(spec[1]))
        return [("member name", member.name, TypeError), ("int", 0, TypeError), ("None", None, TypeError)]
    if kind == "class":
        return [("str", "x", TypeError), ("int", 1, TypeError), ("None", None, TypeError)]
    if kind == "array":
        return [("str", "abc", TypeError), ("None", None, TypeError)]
    if kind == "list":
        return [
            ("str", "12", TypeError),
            ("int", 3, TypeError),
            ("None", None, TypeError),
            *[(f"element {label}", [0, value], exc) for label, value, exc in bad_values(spec[1])],
        ]
    raise AssertionError(f"unknown field rule {spec}")


def good_values(spec, default):
    """(label, value, expected read-back) that the rule ``spec`` must take (``default``: the
    field's value on a default-constructed object)."""
    kind = spec[0]
    if kind == "optional":
        return [("None", None, None), *good_values(spec[1], default)]
    if kind == "int":
        low, high = spec[1], spec[2]
        numpy_high = np.uint64(high) if high > np.iinfo(np.int64).max else np.int64(high)
        return [("low", low, low), ("high", high, high), ("np.int32", np.int32(3), 3), ("numpy high", numpy_high, high)]
    if kind == "float":
        return [
            ("int", 2, 2.0),
            ("np.float32", np.float32(0.5), 0.5),
            ("np.int64", np.int64(3), 3.0),
            ("float", 1e-300, 1e-300),
            ("inf", math.inf, math.inf),
        ]
    if kind == "bool":
        return [("True", True, True), ("np.bool_", np.bool_(False), False)]
    if kind == "enum":
        return [(f"member {m.name}", m, m) for m in spec[1]]
    if kind == "class":
        # A copy of the default where the class takes no keywords (Csr, ConstraintRows).
        return [("instance", spec[1]() if default is None else default, None)]
    if kind == "array":
        shape = (3,) if spec[1] == 1 else (3, 2)
        dtype = np.float64 if spec[2] == "float" else np.int64
        return [("array", np.arange(np.prod(shape), dtype=dtype).reshape(shape), None)]
    if kind == "list":
        return [("list", [0, 2], [0, 2]), ("array", np.array([1, 4], dtype=np.int64), [1, 4])]
    raise AssertionError(f"unknown field rule {spec}")


def fields():
    for name, cls in sorted(CLASSES.items()):
        for field in cls._fields:
            yield name, cls, field, cls._field_types[field]


BAD = [
    pytest.param(cls, field, value, exc, id=f"{name}.{field}-{label}")
    for name, cls, field, spec in fields()
    for label, value, exc in bad_values(spec)
]
GOOD = [
    pytest.param(cls, field, value, back, id=f"{name}.{field}-{label}")
    for name, cls, field, spec in fields()
    for label, value, back in good_values(spec, getattr(cls(), field))
]


def test_every_options_class_has_rules():
    assert set(CLASSES) == EXPECTED
    for name, cls in CLASSES.items():
        assert set(cls._field_types) == set(cls._fields), name


def same(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b))
    if hasattr(a, "_fields"):  # a nested options object: field by field
        return type(a) is type(b) and all(same(getattr(a, f), getattr(b, f)) for f in a._fields)
    if type(a).__module__.startswith("kernlearn._core"):  # Csr, ConstraintRows: no value semantics
        return type(a) is type(b)
    return a == b or (a != a and b != b)


def state(options):
    return {field: getattr(options, field) for field in options._fields}


@pytest.mark.parametrize(("cls", "field", "value", "exc"), BAD)
def test_bad_value_names_the_field(cls, field, value, exc):
    where = f"{cls.__name__}.{field}"
    with pytest.raises(exc, match=rf"^{where}\b") as construction:
        cls(**{field: value})
    assert "incompatible" not in str(construction.value)
    options = cls()
    before = getattr(cls(), field)
    with pytest.raises(exc, match=rf"^{where}\b"):
        setattr(options, field, value)
    assert same(getattr(options, field), before)  # nothing half-assigned
    assert all(same(a, b) for a, b in zip(state(options).values(), state(cls()).values()))


@pytest.mark.parametrize(("cls", "field", "value", "back"), GOOD)
def test_good_value_is_taken(cls, field, value, back):
    built = cls(**{field: value})
    assigned = cls()
    setattr(assigned, field, value)
    for options in (built, assigned):
        got = getattr(options, field)
        if back is None and value is not None:  # a class instance or an array
            assert same(got, value)
        else:
            assert same(got, back), (got, back)
            assert type(got) is type(back) or back is None, (type(got), type(back))
        assert f"{field}=" in repr(options)


def test_messages_read_well():
    """The messages of the issue's examples, in full."""
    la = _core.linalg
    with pytest.raises(TypeError, match=r"^LanczosOptions\.tol must be a float, got str$"):
        la.LanczosOptions(tol="tight")
    with pytest.raises(ValueError, match=r"^LanczosOptions\.k must be an int in \[-9223372036854775808, "):
        la.LanczosOptions(k=2**63)
    with pytest.raises(TypeError, match=r"^LanczosOptions\.k must be an int, got NoneType$"):
        la.LanczosOptions(k=None)
    with pytest.raises(TypeError, match=r"^LanczosOptions\.filter must be a LanczosFilter or None, got int$"):
        la.LanczosOptions(filter=3)
    with pytest.raises(
        ValueError, match=r"^LanczosOptions\.seed must be an int in \[0, 18446744073709551615\], got -1$"
    ):
        la.LanczosOptions(seed=-1)
    with pytest.raises(TypeError, match=r"^LanczosOptions\.which must be a LanczosWhich, got str$"):
        la.LanczosOptions(which="largest")
    with pytest.raises(TypeError, match=r"LanczosOptions\(\) got an unexpected keyword argument 'tolerance'"):
        la.LanczosOptions(tolerance=1e-3)


def test_nested_options_stay_by_reference():
    """options.spectral.tol = ... changes options (the getter returns the nested object, as
    def_readwrite did), and the nested assignment is checked too."""
    m = _core.methods
    options = m.NpklOptions()
    options.spectral.tol = 1e-3
    assert options.spectral.tol == 1e-3
    with pytest.raises(TypeError, match=r"^SpectralOptions\.tol must be a float, got str$"):
        options.spectral.tol = "x"
    assert options.spectral.tol == 1e-3


def test_checked_options_reach_the_solver():
    """Options built from numpy scalars behave as the plain values in a solve."""
    la = _core.linalg
    A = np.diag(np.arange(1.0, 11.0))
    v0 = np.ones((10, 1))
    plain = la.lanczos(A, la.LanczosOptions(k=2, tol=1e-10, seed=3), v0)
    numpy = la.lanczos(A, la.LanczosOptions(k=np.int64(2), tol=np.float32(1e-10), seed=np.uint8(3)), v0)
    np.testing.assert_allclose(plain.values, [10.0, 9.0])
    np.testing.assert_allclose(numpy.values, plain.values, rtol=1e-12)
