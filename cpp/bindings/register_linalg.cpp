// Bindings of lanczos.hpp for CSR, dense and Python-callback (LinearOperator) operators.
// Arrays arrive validated from kernlearn/linalg.py.
#include <cmath>

#include <pybind11/eigen.h>
#include <pybind11/functional.h>

#include "kernlearn/linalg/chebyshev_filter.hpp"
#include "kernlearn/linalg/lanczos.hpp"
#include "kernlearn/linalg/operator.hpp"

#include "common.hpp"

namespace kernlearn::bindings {

namespace {

// A LinearOperator's matmat, called with the GIL held (the solver itself runs without it).
class PythonOperator final : public SymmetricOperator {
 public:
  PythonOperator(Index n, py::function matmat) : n_(n), matmat_(std::move(matmat)) {}
  Index rows() const override { return n_; }
  void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override {
    py::gil_scoped_acquire gil;
    const Eigen::MatrixXd block = X;  // the callback may keep its argument: hand it a copy
    py::object result = matmat_(block);
    const auto out = result.cast<Eigen::MatrixXd>();
    if (out.rows() != Y.rows() || out.cols() != Y.cols())
      throw std::invalid_argument("the operator's matvec returned shape (" + std::to_string(out.rows()) + ", " +
                                  std::to_string(out.cols()) + "), expected (" + std::to_string(Y.rows()) + ", " +
                                  std::to_string(Y.cols()) + ")");
    if (!out.allFinite()) throw std::invalid_argument("the operator's matvec returned NaN or infinity");
    Y = out;
  }

 private:
  Index n_;
  py::function matmat_;
};

py::dict solve(const SymmetricOperator& A, ThreadTeam& team, const Eigen::MatrixXd& start, Index k, bool largest,
               bool threshold_mode, double threshold, Index max_rank, Index ncv, double tol, Index max_matvec,
               std::uint64_t seed, double filter_level, int filter_degree) {
  LanczosOptions opt;
  opt.k = k;
  opt.largest = largest;
  opt.threshold_mode = threshold_mode;
  opt.threshold = threshold;
  opt.max_rank = max_rank;
  opt.ncv = ncv;
  opt.tol = tol;
  opt.max_matvec = max_matvec;
  opt.seed = seed;
  // filter_degree 0: plain Lanczos (filtered_lanczos runs it for any degree below 2).
  Eigen::VectorXd far_end;
  LanczosResult r = run_interruptible([&] {
    return filtered_lanczos(A, start, opt, filter_level, filter_degree, far_end, team, python_interrupt_poll());
  });
  py::dict out;
  out["values"] = std::move(r.values);
  out["vectors"] = std::move(r.vectors);
  out["residuals"] = std::move(r.residuals);
  out["n_matvec"] = r.n_matvec;
  out["n_restart"] = r.n_restart;
  out["norm_estimate"] = r.norm_estimate;
  out["status"] = static_cast<int>(r.status);
  out["filtered"] = r.filtered;
  return out;
}

#define KERNLEARN_SOLVER_ARGS                                                                       \
  py::arg("v0"), py::arg("k"), py::arg("largest"), py::arg("threshold_mode"), py::arg("threshold"), \
      py::arg("max_rank"), py::arg("ncv"), py::arg("tol"), py::arg("max_matvec"), py::arg("seed"),  \
      py::arg("filter_level"), py::arg("filter_degree")

}  // namespace

void register_linalg(py::module_& m) {
  m.attr("FILTER_DEGREE") = kFilterDegree;
  m.def(
      "lanczos_csr",
      [](Index n, const py::array_t<Index, py::array::c_style>& indptr,
         const py::array_t<Index, py::array::c_style>& indices, const py::array_t<double, py::array::c_style>& data,
         int n_threads, const Eigen::MatrixXd& v0, Index k, bool largest, bool threshold_mode, double threshold,
         Index max_rank, Index ncv, double tol, Index max_matvec, std::uint64_t seed, double filter_level,
         int filter_degree) {
        if (indptr.size() != n + 1 || indices.size() != data.size())
          throw std::invalid_argument("inconsistent CSR arrays");
        ThreadTeam team(n_threads);
        CsrOperator A(n, indptr.data(), indices.data(), data.data(), team);
        return solve(A, team, v0, k, largest, threshold_mode, threshold, max_rank, ncv, tol, max_matvec, seed,
                     filter_level, filter_degree);
      },
      py::arg("n"), py::arg("indptr").noconvert(), py::arg("indices").noconvert(), py::arg("data").noconvert(),
      py::arg("n_threads"), KERNLEARN_SOLVER_ARGS,
      "Thick-restart Lanczos on a CSR matrix (sorted, canonical, symmetric).");

  m.def(
      "lanczos_dense",
      [](const Eigen::Ref<const RowMatrixXd>& A, int n_threads, const Eigen::MatrixXd& v0, Index k, bool largest,
         bool threshold_mode, double threshold, Index max_rank, Index ncv, double tol, Index max_matvec,
         std::uint64_t seed, double filter_level, int filter_degree) {
        ThreadTeam team(n_threads);
        DenseOperator op(A, team);
        return solve(op, team, v0, k, largest, threshold_mode, threshold, max_rank, ncv, tol, max_matvec, seed,
                     filter_level, filter_degree);
      },
      py::arg("A").noconvert(), py::arg("n_threads"), KERNLEARN_SOLVER_ARGS,
      "Thick-restart Lanczos on a dense matrix.");

  m.def(
      "lanczos_callback",
      [](Index n, py::function matmat, int n_threads, const Eigen::MatrixXd& v0, Index k, bool largest,
         bool threshold_mode, double threshold, Index max_rank, Index ncv, double tol, Index max_matvec,
         std::uint64_t seed, double filter_level, int filter_degree) {
        ThreadTeam team(n_threads);
        PythonOperator op(n, std::move(matmat));
        return solve(op, team, v0, k, largest, threshold_mode, threshold, max_rank, ncv, tol, max_matvec, seed,
                     filter_level, filter_degree);
      },
      py::arg("n"), py::arg("matmat"), py::arg("n_threads"), KERNLEARN_SOLVER_ARGS,
      "Thick-restart Lanczos on a Python callback X -> A @ X.");

  m.def(
      "dense_eigenpairs",
      [](const Eigen::Ref<const RowMatrixXd>& M, bool largest, double threshold, double tol, Index max_count) {
        const DenseLapack& lapack = scipy_dense_lapack();
        Eigen::VectorXd values;
        Eigen::MatrixXd vectors;
        {
          py::gil_scoped_release release;  // C++ and LAPACK only below
          // The solver overwrites its matrix: one copy, contiguous (M is symmetric, so its
          // row-major transpose is M); the smallest pairs are the largest of -M.
          Eigen::MatrixXd A = M.transpose();
          if (!largest) A = -A;
          double lower = largest ? threshold : -threshold;
          // As Lanczos, a pair within tol |M| of the threshold counts as at it (|M| <= max row sum).
          if (std::isfinite(lower)) lower += tol * A.cwiseAbs().colwise().sum().maxCoeff();
          dense_eigenpairs_above(A, lower, max_count, lapack, values, vectors);
          if (!largest) values = -values;
        }
        return py::make_tuple(values, vectors);
      },
      py::arg("M").noconvert(), py::arg("largest"), py::arg("threshold"), py::arg("tol"), py::arg("max_count"),
      "Eigenpairs of the symmetric M (lower triangle read) beyond the threshold (above for largest, "
      "below otherwise; +-inf: all), at most max_count (0: all), the extreme first: LAPACK's Householder "
      "route with only the wanted pairs (kernlearn/dense_eigen.hpp).");
}

}  // namespace kernlearn::bindings
