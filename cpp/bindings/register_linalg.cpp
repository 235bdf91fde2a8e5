// Bindings of lanczos.hpp for CSR, dense and Python-callback (LinearOperator) operators: one
// entry per operator kind, each taking a LanczosOptions and returning a LanczosResult. Parameters
// arrive validated from kernlearn/linalg.py; only the arrays' consistency is checked here.
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include <pybind11/eigen.h>
#include <pybind11/functional.h>

#include "kernlearn/linalg/chebyshev_filter.hpp"
#include "kernlearn/linalg/lanczos.hpp"
#include "kernlearn/linalg/operator.hpp"

#include "common.hpp"

namespace kernlearn::bindings {

using namespace pybind11::literals;

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
    if (py::isinstance<py::array>(result) && result.cast<py::array>().dtype().kind() == 'c')
      throw std::invalid_argument("matmat returned complex values; the operator must be real");
    const auto out = result.cast<Eigen::MatrixXd>();
    if (out.rows() != Y.rows() || out.cols() != Y.cols())
      throw std::invalid_argument("matmat returned shape (" + std::to_string(out.rows()) + ", " +
                                  std::to_string(out.cols()) + "), expected (" + std::to_string(Y.rows()) + ", " +
                                  std::to_string(Y.cols()) + ")");
    if (!out.allFinite()) throw std::invalid_argument("matmat returned NaN or infinity");
    Y = out;
  }

 private:
  Index n_;
  py::function matmat_;
};

// The solver on one operator: v0 is the caller's row-major array (numpy's layout), copied once
// into the column-major block the basis products work on.
LanczosResult solve(const SymmetricOperator& A, ThreadTeam& team, const Eigen::Ref<const RowMatrixXd>& v0,
                    const LanczosOptions& options) {
  const Eigen::MatrixXd start = v0;
  return run_interruptible([&] { return solve_lanczos(A, start, options, team, python_interrupt_poll()); });
}

}  // namespace

void register_linalg(py::module_& m) {
  m.attr("FILTER_DEGREE") = kFilterDegree;
  py::native_enum<LanczosWhich>(m, "LanczosWhich", "enum.Enum", "Which end of the spectrum Lanczos seeks.")
      .value("largest", LanczosWhich::largest, "largest algebraic eigenvalues (LA)")
      .value("smallest", LanczosWhich::smallest, "smallest algebraic eigenvalues (SA)")
      .finalize();

  OptionsClass<LanczosFilter>(m, "LanczosFilter", "Chebyshev filter of filtered Lanczos (chebyshev_filter.hpp).")
      .field("level", &LanczosFilter::level,
             "level on the unwanted side of the wanted pairs (in threshold mode at or beyond the threshold)")
      .field("degree", &LanczosFilter::degree, "the polynomial's degree (odd)");

  OptionsClass<LanczosOptions>(m, "LanczosOptions", "Options of thick-restart Lanczos (lanczos.hpp).")
      .field("k", &LanczosOptions::k, "eigenpairs wanted; in threshold mode the first guess of the count")
      .field("which", &LanczosOptions::which, "LanczosWhich: the end of the spectrum")
      .field("threshold", &LanczosOptions::threshold,
             "None, or every eigenvalue beyond it (above for largest, below for smallest)")
      .field("max_rank", &LanczosOptions::max_rank, "threshold mode: at most this many pairs (None: n)")
      .field("ncv", &LanczosOptions::ncv, "basis size, k < ncv <= n (None: k + max(20, 0.6 k))")
      .field("tol", &LanczosOptions::tol, "converged when the residual <= tol * |A|_est")
      .field("max_matvec", &LanczosOptions::max_matvec, "products with A at most (None: 100 n)")
      .field("seed", &LanczosOptions::seed, "seeds the vectors that replace an invariant Krylov basis")
      .field("filter", &LanczosOptions::filter, "None, or LanczosFilter: Lanczos on a Chebyshev polynomial of A");

  ResultClass<LanczosResult>(m, "LanczosResult", "What Lanczos found (lanczos.hpp).")
      .field("values", &LanczosResult::values, "eigenvalues, the most extreme first")
      .field("vectors", &LanczosResult::vectors, "n x m orthonormal eigenvectors")
      .field("residuals", &LanczosResult::residuals, "|A v - lambda v| per pair")
      .field("n_matvec", &LanczosResult::n_matvec, "products with A")
      .field("n_restart", &LanczosResult::n_restart, "thick restarts")
      .field("norm_estimate", &LanczosResult::norm_estimate, "|A| estimate (the largest |Ritz value|)")
      .field("status", &LanczosResult::status,
             "SolverStatus: converged, or max_iter when max_matvec ran out before every pair met tol")
      .field("max_rank_reached", &LanczosResult::max_rank_reached,
             "threshold mode: more than max_rank pairs lie beyond the threshold (status converged; "
             "the max_rank most extreme returned)")
      .field("filtered", &LanczosResult::filtered, "the pairs came from the Chebyshev filter");

  m.def(
      "lanczos_csr",
      [](const Eigen::Ref<const VectorXi>& indptr, const Eigen::Ref<const VectorXi>& indices,
         const Eigen::Ref<const Eigen::VectorXd>& data, const LanczosOptions& options,
         const Eigen::Ref<const RowMatrixXd>& v0, int n_threads) {
        const Index n = indptr.size() - 1;
        if (n < 1)
          throw std::invalid_argument("indptr must have n + 1 >= 2 entries, got " + std::to_string(indptr.size()));
        if (indices.size() != data.size())
          throw std::invalid_argument("indices and data must have the same length, got " +
                                      std::to_string(indices.size()) + " and " + std::to_string(data.size()));
        if (indptr(0) != 0 || indptr(n) != indices.size())
          throw std::invalid_argument("indptr must run from 0 to len(indices) = " + std::to_string(indices.size()));
        for (Index i = 0; i < n; ++i)
          if (indptr(i) > indptr(i + 1)) throw std::invalid_argument("indptr must be non-decreasing");
        for (Index p = 0; p < indices.size(); ++p)
          if (indices(p) < 0 || indices(p) >= n)
            throw std::invalid_argument("indices must lie in [0, n = " + std::to_string(n) + "), got " +
                                        std::to_string(indices(p)));
        ThreadTeam team(n_threads);
        CsrOperator A(n, indptr.data(), indices.data(), data.data(), team);
        return solve(A, team, v0, options);
      },
      "indptr"_a.noconvert(), "indices"_a.noconvert(), "data"_a.noconvert(), "options"_a, "v0"_a.noconvert(),
      py::kw_only(), "n_threads"_a = 1, "Thick-restart Lanczos on a CSR matrix (sorted, canonical, symmetric).");

  m.def(
      "lanczos_dense",
      [](const Eigen::Ref<const RowMatrixXd>& A, const LanczosOptions& options, const Eigen::Ref<const RowMatrixXd>& v0,
         int n_threads) {
        if (A.rows() != A.cols())
          throw std::invalid_argument("A must be square, got shape (" + std::to_string(A.rows()) + ", " +
                                      std::to_string(A.cols()) + ")");
        ThreadTeam team(n_threads);
        DenseOperator op(A, team);
        return solve(op, team, v0, options);
      },
      "A"_a.noconvert(), "options"_a, "v0"_a.noconvert(), py::kw_only(), "n_threads"_a = 1,
      "Thick-restart Lanczos on a dense matrix.");

  m.def(
      "lanczos_callback",
      [](Index n, py::function matmat, const LanczosOptions& options, const Eigen::Ref<const RowMatrixXd>& v0,
         int n_threads) {
        if (n < 1) throw std::invalid_argument("n must be >= 1, got " + std::to_string(n));
        ThreadTeam team(n_threads);
        PythonOperator op(n, std::move(matmat));
        return solve(op, team, v0, options);
      },
      "n"_a, "matmat"_a, "options"_a, "v0"_a.noconvert(), py::kw_only(), "n_threads"_a = 1,
      "Thick-restart Lanczos on a Python callback X -> A @ X.");

  m.def(
      "dense_eigenpairs",
      [](const Eigen::Ref<const RowMatrixXd>& M, LanczosWhich which, double tol, std::optional<double> threshold,
         std::optional<Index> max_count) {
        if (M.rows() != M.cols())
          throw std::invalid_argument("M must be square, got shape (" + std::to_string(M.rows()) + ", " +
                                      std::to_string(M.cols()) + ")");
        if (M.rows() == 0) throw std::invalid_argument("M is empty");
        if (!M.allFinite()) throw std::invalid_argument("M contains NaN or infinity");
        if (!(tol >= 0.0 && std::isfinite(tol)))
          throw std::invalid_argument("tol must be a finite number >= 0, got " + std::to_string(tol));
        if (threshold && !std::isfinite(*threshold)) throw std::invalid_argument("threshold must be finite");
        if (max_count && *max_count < 1)
          throw std::invalid_argument("max_count must be >= 1 or None, got " + std::to_string(*max_count));
        const DenseLapack& lapack = scipy_dense_lapack();
        const bool largest = which == LanczosWhich::largest;
        Eigen::VectorXd values;
        Eigen::MatrixXd vectors;
        {
          py::gil_scoped_release release;  // C++ and LAPACK only below
          // The solver overwrites its matrix: one copy, contiguous (M is symmetric, so its
          // row-major transpose is M); the smallest pairs are the largest of -M.
          Eigen::MatrixXd A = M.transpose();
          if (!largest) A = -A;
          double lower = -std::numeric_limits<double>::infinity();
          if (threshold) {
            // As Lanczos, a pair within tol |M| of the threshold counts as at it (|M| <= max row sum,
            // summed scaled so that it cannot overflow).
            const double scale = safe_scale(A.cwiseAbs().maxCoeff());
            const double sum = (scale * A.cwiseAbs()).colwise().sum().maxCoeff();
            lower = (largest ? *threshold : -*threshold) + tol * sum / scale;
          }
          dense_eigenpairs_above(A, lower, max_count.value_or(0), lapack, values, vectors);
          if (!largest) values = -values;
        }
        return py::make_tuple(values, vectors);
      },
      "M"_a.noconvert(), "which"_a, "tol"_a, "threshold"_a = py::none(), "max_count"_a = py::none(),
      "Eigenpairs of the symmetric M (lower triangle read) beyond the threshold (above for largest, "
      "below for smallest; None: all), at most max_count (None: all), the extreme first: LAPACK's "
      "Householder route with only the wanted pairs (kernlearn/dense_eigen.hpp).");
}

}  // namespace kernlearn::bindings
