// Bindings of the kernels layer: dense kernel matrices (float32 or float64, numpy-owned and never
// copied), kernel mat-vecs, and the HSIC blocks Phi(W) and Gaussian degrees. kernlearn/kernels.py
// and kernlearn/cluster/_kdac.py validate.
#include <optional>
#include <string>

#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "kernlearn/kernels/hsic.hpp"
#include "kernlearn/kernels/kernel_matrix.hpp"

#include "common.hpp"
#include "dense_kernel_view.hpp"

namespace kernlearn::bindings {

namespace {

PairwiseKernel pairwise_from(const std::string& kind, double tau, double gamma) {
  if (kind == "tl1") return {PairwiseKind::tl1, tau, gamma};
  if (kind == "rbf") return {PairwiseKind::rbf, tau, gamma};
  throw std::invalid_argument("kernel must be 'tl1' or 'rbf', got '" + kind + "'");
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
      "hsic_phi",
      [](const MatrixRef& X, const Eigen::MatrixXd& W, const MatrixRef& A, const Eigen::VectorXd& c, double sigma,
         bool with_bound, int n_threads) {
        const InterruptPoll poll = python_interrupt_poll();
        PhiResult r = run_interruptible([&] {
          // Phi only sees differences, so centring changes nothing but the rounding (hsic.hpp).
          const RowMatrixXd Xc = X.rowwise() - X.colwise().mean();
          ThreadTeam team(n_threads);
          return hsic_phi(Xc, W, A, c, sigma, with_bound, team, poll);
        });
        return py::make_tuple(std::move(r.phi), r.trace_gamma_k, r.bound_rhs);
      },
      py::arg("X").noconvert(), py::arg("W"), py::arg("A").noconvert(), py::arg("c"), py::arg("sigma"),
      py::arg("with_bound"), py::arg("n_threads"));

  m.def(
      "gaussian_degree",
      [](const MatrixRef& Z, double sigma, int n_threads) {
        const InterruptPoll poll = python_interrupt_poll();
        return run_interruptible([&] {
          ThreadTeam team(n_threads);
          return gaussian_degree(Z, sigma, team, poll);
        });
      },
      py::arg("Z").noconvert(), py::arg("sigma"), py::arg("n_threads"));
}

}  // namespace kernlearn::bindings
