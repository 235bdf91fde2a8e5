// Bindings of kernel_matrix.hpp and iklr.hpp: dense kernels (float32 or float64, numpy-owned and
// never copied) and the CCICP solver on them. kernlearn/kernels.py and indefinite.py validate.
#include <optional>
#include <string>

#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "kernlearn/iklr.hpp"
#include "kernlearn/kernel_matrix.hpp"

#include "common.hpp"

namespace kernlearn::bindings {

namespace {

PairwiseKernel pairwise_from(const std::string& kind, double tau, double gamma) {
  if (kind == "tl1") return {PairwiseKind::tl1, tau, gamma};
  if (kind == "rbf") return {PairwiseKind::rbf, tau, gamma};
  throw std::invalid_argument("kernel must be 'tl1' or 'rbf', got '" + kind + "'");
}

// A square C-contiguous float32/float64 array, seen without a copy.
template <class Fn>
auto with_dense_kernel(const py::array& K, Fn&& fn) {
  if (K.ndim() != 2 || K.shape(0) != K.shape(1)) throw std::invalid_argument("K must be a square 2-D array");
  if (!(K.flags() & py::array::c_style)) throw std::invalid_argument("K must be C-contiguous");
  const Index n = K.shape(0);
  if (K.dtype().is(py::dtype::of<float>())) return fn(DenseKernel<float>(static_cast<const float*>(K.data()), n));
  if (K.dtype().is(py::dtype::of<double>())) return fn(DenseKernel<double>(static_cast<const double*>(K.data()), n));
  throw std::invalid_argument("K must be float32 or float64");
}

}  // namespace

void register_kernels(py::module_& m) {
  m.def(
      "pairwise_kernel",
      [](const MatrixRef& X, const MatrixRef& Y, const std::string& kind, double tau, double gamma, bool single,
         int n_threads) {
        const PairwiseKernel kernel = pairwise_from(kind, tau, gamma);
        py::array out = single ? py::array(py::array_t<float>({X.rows(), Y.rows()}))
                               : py::array(py::array_t<double>({X.rows(), Y.rows()}));
        void* dst = out.mutable_data();
        const InterruptPoll poll = python_interrupt_poll();
        run_interruptible([&] {
          if (single)
            pairwise_kernel(X, Y, kernel, static_cast<float*>(dst), n_threads, poll);
          else
            pairwise_kernel(X, Y, kernel, static_cast<double*>(dst), n_threads, poll);
          return 0;
        });
        return out;
      },
      py::arg("X").noconvert(), py::arg("Y").noconvert(), py::arg("kind"), py::arg("tau"), py::arg("gamma"),
      py::arg("single"), py::arg("n_threads"));

  m.def(
      "affine_invariant_kernel",
      [](const py::array_t<double, py::array::c_style>& W, const py::array_t<double, py::array::c_style>& T,
         double gamma, bool same, int n_threads) {
        if (W.ndim() != 3 || T.ndim() != 3 || W.shape(1) != W.shape(2) || T.shape(1) != T.shape(2) ||
            W.shape(1) != T.shape(1))
          throw std::invalid_argument("W and T must be stacks of d x d matrices, shape (n, d, d)");
        if (same && W.shape(0) != T.shape(0)) throw std::invalid_argument("same=True needs as many W as T");
        py::array_t<double> out({W.shape(0), T.shape(0)});
        double* dst = out.mutable_data();
        const InterruptPoll poll = python_interrupt_poll();
        run_interruptible([&] {
          affine_invariant_kernel(W.data(), W.shape(0), T.data(), T.shape(0), W.shape(1), gamma, same, dst, n_threads,
                                  poll);
          return 0;
        });
        return out;
      },
      py::arg("W").noconvert(), py::arg("T").noconvert(), py::arg("gamma"), py::arg("same"), py::arg("n_threads"));

  m.def(
      "kernel_matvec",
      [](const py::array& K, const Eigen::Ref<const Eigen::VectorXd>& x, int n_threads) {
        if (x.size() != K.shape(0)) throw std::invalid_argument("x must have one entry per row of K");
        Eigen::VectorXd y(x.size());
        with_dense_kernel(K, [&](const auto& kernel) {
          ThreadTeam team(n_threads);
          py::gil_scoped_release release;  // only numpy-owned buffers the caller keeps alive
          kernel.multiply(x.data(), y.data(), team);
          return 0;
        });
        return y;
      },
      py::arg("K"), py::arg("x").noconvert(), py::arg("n_threads"));

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
