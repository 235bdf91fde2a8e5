// The field checks of the options classes (boundary.hpp's OptionsClass), derived from each field's
// C++ type, so the one .field(...) list that declares a class also validates it (issue 48): a
// wrong value in an options field is a TypeError or ValueError naming Class.field, on
// construction and on assignment, never pybind11's signature dump.
//
// The rules, chosen for numpy and scikit-learn users:
// - int fields take Python and numpy integers (numbers.Integral), never bool, float or str, and
//   only values the C++ type holds ("must be an int in [0, 2**64 - 1]" for a seed, a ValueError);
// - float fields take Python and numpy ints and floats (numbers.Real), never bool, complex, str or
//   None, and never NaN (no option has a use for it; the solvers bound infinities themselves);
// - bool fields take True / False and numpy.bool_ only (1 and "yes" are refused: a number in a
//   flag is usually an argument in the wrong place);
// - enum fields take their enum's members only; class fields instances of their class;
// - std::optional<T> also None; anything else (arrays, lists) pybind11's conversion, with a
//   TypeError naming the field when it fails.
// The same rules describe each field as a tuple in Class._field_types, which tests/test_options.py
// turns into its cases.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <typeindex>
#include <vector>

#include <Eigen/Core>
#include <pybind11/native_enum.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace kernlearn::bindings {

namespace py = pybind11;

namespace detail {

// A setter's argument, taken as is: the field's rule converts it. The signature (and the stubs)
// still show the field's own Python type.
template <class M>
struct FieldValue {
  py::object object;
};

inline std::string type_name(const py::handle& value) {
  return py::str(py::type::of(value).attr("__name__")).cast<std::string>();
}

inline py::object numbers_abc(const char* name) { return py::module_::import("numbers").attr(name); }

inline bool is_bool(const py::handle& value) {
  return PyBool_Check(value.ptr()) ||
         py::isinstance(value, py::module_::import("numpy").attr("bool_"));  // numpy.bool_ is no bool subclass
}

[[noreturn]] inline void refuse_type(const std::string& where, const std::string& expected, const py::handle& value) {
  throw py::type_error(where + " must be " + expected + ", got " + type_name(value));
}

// Rule<M>: describe() -> the _field_types tuple, expected() -> the words of the message,
// convert(value, where) -> the C++ value or a TypeError / ValueError naming where.
template <class M, class = void>
struct Rule {
  // Bound classes, arrays and lists: ("class", type), ("array", ndim, "float" | "int"),
  // ("list", the element's rule).
  static py::object describe() {
    if constexpr (std::is_base_of_v<Eigen::EigenBase<M>, M>) {
      return py::make_tuple("array", M::ColsAtCompileTime == 1 ? 1 : 2,
                            std::is_floating_point_v<typename M::Scalar> ? "float" : "int");
    } else if constexpr (std::is_base_of_v<py::detail::type_caster_generic, py::detail::make_caster<M>>) {
      return py::make_tuple("class", py::type::of<M>());
    } else {
      return py::make_tuple("list", Rule<typename M::value_type>::describe());
    }
  }
  static std::string expected() {
    if constexpr (std::is_base_of_v<Eigen::EigenBase<M>, M>) {
      const char* element = std::is_floating_point_v<typename M::Scalar> ? "float" : "int";
      return std::string("a ") + (M::ColsAtCompileTime == 1 ? "1-D " : "2-D ") + element + " array";
    } else if constexpr (std::is_base_of_v<py::detail::type_caster_generic, py::detail::make_caster<M>>) {
      return "a " + py::str(py::type::of<M>().attr("__name__")).cast<std::string>();
    } else {
      return "a list of int";
    }
  }
  static M convert(const py::handle& value, const std::string& where) {
    if constexpr (std::is_base_of_v<py::detail::type_caster_generic, py::detail::make_caster<M>>) {
      if (!py::isinstance(value, py::type::of<M>())) refuse_type(where, expected(), value);
    } else if constexpr (!std::is_base_of_v<Eigen::EigenBase<M>, M>) {
      // A list of int: each element by the int rule (bool, float and str refused, ranges checked).
      if (py::isinstance<py::str>(value) || !py::isinstance<py::sequence>(value)) refuse_type(where, expected(), value);
      M out;
      for (const auto& item : value.cast<py::sequence>())
        out.push_back(Rule<typename M::value_type>::convert(item, where + " (an element)"));
      return out;
    }
    try {
      return value.cast<M>();
    } catch (const py::cast_error&) {
      refuse_type(where, expected(), value);
    }
  }
};

template <>
struct Rule<bool> {
  static py::object describe() { return py::make_tuple("bool"); }
  static std::string expected() { return "a bool"; }
  static bool convert(const py::handle& value, const std::string& where) {
    if (!is_bool(value)) refuse_type(where, expected(), value);
    return PyObject_IsTrue(value.ptr()) == 1;
  }
};

template <class I>
struct Rule<I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>> {
  static py::int_ low() { return py::int_(std::numeric_limits<I>::min()); }
  static py::int_ high() { return py::int_(std::numeric_limits<I>::max()); }
  static py::object describe() { return py::make_tuple("int", low(), high()); }
  static std::string expected() { return "an int"; }
  static I convert(const py::handle& value, const std::string& where) {
    if (is_bool(value) || !py::isinstance(value, numbers_abc("Integral"))) refuse_type(where, expected(), value);
    const py::int_ v = py::reinterpret_steal<py::int_>(PyNumber_Index(value.ptr()));
    if (!v) throw py::error_already_set();
    if (v < low() || v > high())
      throw py::value_error(where + " must be an int in [" + py::str(low()).cast<std::string>() + ", " +
                            py::str(high()).cast<std::string>() + "], got " + py::str(v).cast<std::string>());
    return v.cast<I>();
  }
};

template <>
struct Rule<double> {
  static py::object describe() { return py::make_tuple("float"); }
  static std::string expected() { return "a float"; }
  static double convert(const py::handle& value, const std::string& where) {
    if (is_bool(value) || !py::isinstance(value, numbers_abc("Real"))) refuse_type(where, expected(), value);
    const double v = PyFloat_AsDouble(value.ptr());  // a huge int: OverflowError, as float(10**400)
    if (v == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      throw py::value_error(where + " must be a float, got an int beyond the float range");
    }
    if (std::isnan(v)) throw py::value_error(where + " must not be NaN");
    return v;
  }
};

template <class E>
struct Rule<E, std::enable_if_t<std::is_enum_v<E>>> {
  // The Python enum py::native_enum registered for E (pybind11 keeps the map; there is no public
  // accessor for it in pybind11 3.1).
  static py::object type() {
    py::handle t = py::detail::global_internals_native_enum_type_map_get_item(std::type_index(typeid(E)));
    if (!t) throw std::logic_error("an options field of an enum type that is not bound");
    return py::reinterpret_borrow<py::object>(t);
  }
  static py::object describe() { return py::make_tuple("enum", type()); }
  static std::string expected() { return "a " + py::str(type().attr("__name__")).cast<std::string>(); }
  static E convert(const py::handle& value, const std::string& where) {
    if (!py::isinstance(value, type())) refuse_type(where, expected(), value);
    return value.cast<E>();
  }
};

template <class M>
struct Rule<std::optional<M>> {
  static py::object describe() { return py::make_tuple("optional", Rule<M>::describe()); }
  static std::string expected() { return Rule<M>::expected() + " or None"; }
  static std::optional<M> convert(const py::handle& value, const std::string& where) {
    if (value.is_none()) return std::nullopt;
    try {
      return Rule<M>::convert(value, where);
    } catch (const py::type_error&) {
      refuse_type(where, expected(), value);
    }
  }
};

}  // namespace detail

}  // namespace kernlearn::bindings

namespace pybind11::detail {

// Takes any object (the field's Rule refuses it by name) and names the field's C++ type's Python
// type in the signature, as a plain setter would.
template <class M>
struct type_caster<kernlearn::bindings::detail::FieldValue<M>> {
  PYBIND11_TYPE_CASTER(kernlearn::bindings::detail::FieldValue<M>, make_caster<M>::name);
  bool load(handle src, bool) {
    value.object = reinterpret_borrow<object>(src);
    return true;
  }
  static handle cast(const kernlearn::bindings::detail::FieldValue<M>& src, return_value_policy, handle) {
    return src.object.inc_ref();
  }
};

}  // namespace pybind11::detail
