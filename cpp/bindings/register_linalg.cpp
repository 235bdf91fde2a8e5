// Bindings of lanczos.hpp: one entry for every operator (operators.hpp), taking a LanczosOptions
// and returning a LanczosResult. Parameters arrive validated from kernlearn/linalg.py; only the
// arrays' consistency is checked here.
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
#include "operators.hpp"

namespace kernlearn::bindings {

using namespace pybind11::literals;

namespace {

// The solver on one operator: v0 is the caller's row-major array (numpy's layout), copied once
// into the column-major block the basis products work on.
LanczosResult solve(const OperatorRecipe& recipe, const Eigen::Ref<const RowMatrixXd>& v0,
                    const LanczosOptions& options, int n_threads) {
  const Eigen::MatrixXd start = v0;
  const InterruptPoll poll = python_interrupt_poll();
  return run_interruptible([&] {
    ThreadTeam team(n_threads);
    const auto A = recipe.build(team, poll);
    return solve_lanczos(*A, start, options, team, poll);
  });
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
      .field("filtered", &LanczosResult::filtered, "the pairs came from the Chebyshev filter")
      .field("beyond_value", &LanczosResult::beyond_value,
             "threshold mode: the converged Ritz value at or below the threshold that certified the rest (NaN: none)")
      .field("beyond_residual", &LanczosResult::beyond_residual, "its residual norm");

  m.def(
      "lanczos",
      [](const py::object& A, const LanczosOptions& options, const Eigen::Ref<const RowMatrixXd>& v0, int n_threads) {
        const RecipePtr recipe = as_recipe(A, "A");
        return solve(*recipe, v0, options, n_threads);
      },
      "A"_a, "options"_a, "v0"_a.noconvert(), py::kw_only(), "n_threads"_a = 1,
      "Thick-restart Lanczos on a symmetric Operator (or a dense numpy array).");

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
          // The solver overwrites its matrix and reads its lower triangle: one copy, contiguous,
          // of M's transpose (a plain copy of the row-major storage), whose lower triangle is M's
          // upper one; the smallest pairs are the largest of -M.
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
      "Eigenpairs of the symmetric M (upper triangle read) beyond the threshold (above for largest, "
      "below for smallest; None: all), at most max_count (None: all), the extreme first: LAPACK's "
      "Householder route with only the wanted pairs (kernlearn/dense_eigen.hpp).");
}

}  // namespace kernlearn::bindings
