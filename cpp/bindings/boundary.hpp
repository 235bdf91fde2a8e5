// The typed boundary: how every solver's options, results and progress records cross into
// Python. An options struct is bound as a class whose keyword constructor starts from the
// struct's member initialisers (the one place a default is written); a result struct as a class
// with read-only fields (Eigen members become read-only numpy views of the result, no copy); a
// per-iteration record the same way, handed to the user's callback by one monitor helper.
//
//   OptionsClass<SiceOptions>(m, "SiceOptions", "...")
//       .field("tol", &SiceOptions::tol, "relative duality gap at which Newton stops")
//       ...;                                       // SiceOptions(tol=1e-8, max_iter=50)
//   ResultClass<SiceResult>(m, "SiceResult", "...")
//       .field("precision", &SiceResult::precision, "...")
//       .array("relative_gaps", &SiceResult::relative_gaps, "...");
//   m.def("sice", [](..., const SiceOptions& options, const std::optional<py::function>& callback) {
//     const auto monitor = python_monitor<SiceIteration>(callback);
//     return run_interruptible([&] { return solve_sice(..., options, monitor, python_interrupt_poll()); });
//   }, ...);
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "kernlearn/core/interrupt.hpp"
#include "kernlearn/core/monitor.hpp"
#include "kernlearn/core/status.hpp"

#include "option_fields.hpp"

namespace kernlearn::bindings {

namespace py = pybind11;

namespace detail {

// "Name(a=1, b='x')" from the listed fields.
inline std::string fields_repr(const py::handle& self, const char* name, const std::vector<std::string>& fields) {
  std::string out = std::string(name) + "(";
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const py::object value = self.attr(fields[i].c_str());
    std::string text = py::isinstance<py::array>(value)
                           ? "<array shape=" + py::str(value.attr("shape")).cast<std::string>() + ">"
                           : py::repr(value).cast<std::string>();
    out += (i ? ", " : "") + fields[i] + "=" + text;
  }
  return out + ")";
}

// What the option and result classes share: the py::class_, the list of fields, and (when the
// builder goes out of scope, after every field is bound) a repr listing them and a _fields tuple.
template <class T>
class FieldClass {
 public:
  FieldClass(py::handle scope, const char* name, const char* doc) : cls_(scope, name, doc), name_(name) {}
  FieldClass(const FieldClass&) = delete;
  FieldClass& operator=(const FieldClass&) = delete;
  ~FieldClass() {
    auto fields = fields_;
    const char* name = name_;
    cls_.def("__repr__", [fields, name](const py::object& self) { return fields_repr(self, name, fields); });
    cls_.attr("_fields") = py::tuple(py::cast(fields));
  }

 protected:
  py::class_<T> cls_;
  const char* name_;
  std::vector<std::string> fields_;
};

}  // namespace detail

// An options struct as a Python class: Options(**fields), each field read-write and checked by
// the rule of its C++ type (option_fields.hpp) on construction and on assignment, with a
// TypeError / ValueError naming Class.field; unknown names rejected with a TypeError; a repr that
// lists them all. The fields are kept on the class as _fields, their rules as _field_types.
template <class T>
class OptionsClass : detail::FieldClass<T> {
 public:
  using detail::FieldClass<T>::FieldClass;

  template <class M>
  OptionsClass& field(const char* field_name, M T::* member, const char* doc) {
    const std::string where = std::string(this->name_) + "." + field_name;
    // The getter as def_readwrite's (a nested options object is returned by reference, so
    // options.spectral.tol = ... changes options); the setter through the field's rule.
    this->cls_.def_property(
        field_name, [member](const T& self) -> const M& { return self.*member; },
        [member, where](T& self, const detail::FieldValue<M>& value) {
          self.*member = detail::Rule<M>::convert(value.object, where);
        },
        py::return_value_policy::reference_internal, doc);
    this->fields_.emplace_back(field_name);
    field_types_[field_name] = detail::Rule<M>::describe();
    return *this;
  }

  ~OptionsClass() {
    this->cls_.attr("_field_types") = field_types_;
    auto fields = this->fields_;
    const char* name = this->name_;
    this->cls_.def(
        py::init([fields, name](const py::kwargs& kwargs) {
          py::object self = py::cast(T{});
          for (const auto& item : kwargs) {
            const auto key = item.first.cast<std::string>();
            bool known = false;
            for (const auto& f : fields) known = known || f == key;
            if (!known) throw py::type_error(std::string(name) + "() got an unexpected keyword argument '" + key + "'");
            self.attr(key.c_str()) = item.second;
          }
          return self.cast<T>();
        }),
        (std::string("Options; every field defaults to the C++ member initialiser: ") + name + "._fields.").c_str());
  }

 private:
  py::dict field_types_;
};

// A result (or per-iteration record) struct as a read-only Python class. field() exposes a member
// as is (Eigen members as read-only numpy views that keep the result alive); array() turns a
// std::vector member into a numpy array (a copy: histories are short).
template <class T>
class ResultClass : detail::FieldClass<T> {
 public:
  using detail::FieldClass<T>::FieldClass;

  template <class M>
  ResultClass& field(const char* field_name, M T::* member, const char* doc) {
    this->cls_.def_readonly(field_name, member, doc);
    this->fields_.emplace_back(field_name);
    return *this;
  }

  template <class E>
  ResultClass& array(const char* field_name, std::vector<E> T::* member, const char* doc) {
    this->cls_.def_property_readonly(
        field_name,
        [member](const T& self) {
          const auto& v = self.*member;
          return py::array_t<E>(static_cast<py::ssize_t>(v.size()), v.data());
        },
        doc);
    this->fields_.emplace_back(field_name);
    return *this;
  }

  // A list of per-iteration records (each bound with ResultClass itself).
  template <class R>
  ResultClass& records(const char* field_name, std::vector<R> T::* member, const char* doc) {
    this->cls_.def_property_readonly(field_name, [member](const T& self) { return py::cast(self.*member); }, doc);
    this->fields_.emplace_back(field_name);
    return *this;
  }
};

// The monitor every binding hands its solver: between iterations, with the GIL, Ctrl-C first
// (Interrupted unwinds the solver; run_interruptible re-raises KeyboardInterrupt), then the
// user's callback(iteration, record), whose truth stops the solver. The callback object is the
// caller's argument and outlives the solve.
template <class Record>
Monitor<Record> python_monitor(const std::optional<py::function>& callback) {
  return [&callback](Index iteration, const Record& record) {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw Interrupted();
    if (!callback) return false;
    return py::bool_((*callback)(iteration, record)).cast<bool>();
  };
}

void register_status(py::module_& m);
void register_threads(py::module_& m);

}  // namespace kernlearn::bindings
