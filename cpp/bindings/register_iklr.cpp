// Bindings of methods/iklr.hpp: the CCICP solver of indefinite kernel logistic regression on a
// dense kernel. kernlearn/indefinite.py validates.
#include <optional>
#include <string>

#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "kernlearn/methods/iklr.hpp"

#include "common.hpp"
#include "dense_kernel_view.hpp"

namespace kernlearn::bindings {

void register_iklr(py::module_& m) {
  m.def(
      "ccicp",
      [](const py::array& K, const Eigen::VectorXd& y, const Eigen::MatrixXd& V, const Eigen::VectorXd& w, double shift,
         const Eigen::VectorXd& alpha0, const std::string& inner, double lambda, double eps, Index max_outer,
         Index max_inner, double learning_rate, double decay, bool restart_rate, bool concave,
         const std::vector<std::int64_t>& sgd_indices, const std::optional<py::function>& callback, int n_threads) {
        if (inner != "gd" && inner != "sgd") throw std::invalid_argument("inner must be 'gd' or 'sgd'");
        IklrOptions options;
        options.inner = inner == "gd" ? IklrOptions::Inner::gd : IklrOptions::Inner::sgd;
        options.lambda = lambda;
        options.eps = eps;
        options.max_outer = max_outer;
        options.max_inner = max_inner;
        options.learning_rate = learning_rate;
        options.decay = decay;
        options.restart_rate = restart_rate;
        options.concave = concave;
        options.n_threads = n_threads;
        const NegativePart negative{V, w, shift};
        const IklrMonitor monitor = [&callback](Index k, const IklrOuter& rec) {
          py::gil_scoped_acquire gil;
          if (PyErr_CheckSignals() != 0) throw Interrupted();
          if (!callback) return false;
          py::dict info;
          info["iteration"] = k;
          info["objective"] = rec.objective;
          info["inner_steps"] = rec.inner_steps;
          return py::bool_((*callback)(info)).cast<bool>();
        };
        const InterruptPoll poll = python_interrupt_poll();
        IklrResult r = with_dense_kernel(K, [&](const auto& kernel) {
          return run_interruptible(
              [&] { return ccicp(kernel, y, negative, alpha0, options, sgd_indices, monitor, poll); });
        });
        std::vector<double> objective;
        std::vector<Index> inner_steps, matvecs;
        for (const auto& h : r.history) {
          objective.push_back(h.objective);
          inner_steps.push_back(h.inner_steps);
          matvecs.push_back(h.matvecs);
        }
        py::dict out;
        out["alpha"] = r.alpha;
        out["initial_objective"] = r.initial_objective;
        out["objective"] = to_numpy(std::move(objective));
        out["inner_steps"] = to_numpy(std::move(inner_steps));
        out["matvecs"] = to_numpy(std::move(matvecs));
        out["diverged"] = r.diverged;
        return out;
      },
      py::arg("K"), py::arg("y"), py::arg("V"), py::arg("w"), py::arg("shift"), py::arg("alpha0"), py::arg("inner"),
      py::arg("lam"), py::arg("eps"), py::arg("max_outer"), py::arg("max_inner"), py::arg("learning_rate"),
      py::arg("decay"), py::arg("restart_rate"), py::arg("concave"), py::arg("sgd_indices"), py::arg("callback"),
      py::arg("n_threads"));
}

}  // namespace kernlearn::bindings
