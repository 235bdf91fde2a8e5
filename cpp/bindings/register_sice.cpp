// Bindings of sice.hpp. kernlearn/metric/_sice.py validates Sigma, rho and the options, folds the
// diagonal penalty into S, and reports an unbounded problem ("bounded" False) as a ValueError.
#include <optional>

#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include "kernlearn/methods/sice.hpp"

#include "common.hpp"

namespace kernlearn::bindings {

using namespace pybind11::literals;

void register_sice(py::module_& m) {
  py::native_enum<SiceSolver>(m, "SiceSolver", "enum.Enum", "The SICE solver (sice.hpp).")
      .value("newton", SiceSolver::newton, "block coordinate descent start, QUIC's direction, orthant Newton")
      .value("alm", SiceSolver::alm, "alternating linearization (Algorithm 1, sigma >= 0)")
      .finalize();

  OptionsClass<SiceOptions>(m, "SiceOptions", "Options of the SICE solvers (sice.hpp).")
      .field("solver", &SiceOptions::solver, "SiceSolver")
      .field("tol", &SiceOptions::tol, "stop when the duality gap <= tol * max(1, |F(M)|)")
      .field("max_iter", &SiceOptions::max_iter, "iterations at most")
      .field("max_cg", &SiceOptions::max_cg, "newton: conjugate-gradient iterations per step")
      .field("mu", &SiceOptions::mu, "alm: fixed step (None: the gamma_min * gamma_max rule)")
      .field("mu_period", &SiceOptions::mu_period, "alm: iterations between the rule's step re-estimates")
      .field("sigma", &SiceOptions::sigma, "alm: smoothing of the l1 term (eq. 18); 0: none")
      .field("paper_mu", &SiceOptions::paper_mu, "alm: the paper's step mu = min(lambda^2, sigma)")
      .field("bounds", &SiceOptions::bounds, "alm: Theorem 5's M, Y >= lambda I");

  ResultClass<SiceResult>(m, "SiceResult", "A SICE solution with its certified duality gap (sice.hpp).")
      .field("precision", &SiceResult::precision, "M (column-major m x m; symmetric)")
      .field("dual", &SiceResult::dual, "Z, |Z - S| <= R entrywise (column-major m x m; symmetric)")
      .field("primal", &SiceResult::primal, "F(M)")
      .field("dual_value", &SiceResult::dual_value, "log det Z + m")
      .field("n_iter", &SiceResult::n_iter, "iterations (the hardest block's)")
      .field("status", &SiceResult::status, "SolverStatus: converged, max_iter, or not_converged (stalled)")
      .field("bounded", &SiceResult::bounded, "False: no positive definite dual point, nothing solved")
      .array("relative_gaps", &SiceResult::relative_gaps, "relative certified gap after each iteration");

  m.def(
      "sice",
      [](const MatrixRef& S, const MatrixRef& R, const SiceOptions& options, std::optional<MatrixRef> M0) {
        SiceOptions opt = options;
        opt.dense_lapack = scipy_dense_lapack();
        static const SpdRoutines lapack{scipy_lapack<PotrfFn>("dpotrf"), scipy_lapack<TrtriFn>("dtrtri"),
                                        scipy_lapack<LauumFn>("dlauum"), scipy_blas<TrmmFn>("dtrmm"),
                                        scipy_blas<TrsmFn>("dtrsm")};
        opt.lapack = lapack;
        // Copies into column-major Eigen matrices (m <= a few thousand, so O(m^2) is nothing next
        // to the O(m^3) iterations); the solve then touches no Python object.
        const Eigen::MatrixXd s = S, r = R;
        std::optional<Eigen::MatrixXd> m0;
        if (M0) m0 = Eigen::MatrixXd(*M0);
        const InterruptPoll poll = python_interrupt_poll();
        return run_interruptible([&] { return solve_sice(s, r, m0, opt, poll); });
      },
      "S"_a.noconvert(), "R"_a.noconvert(), "options"_a, "M0"_a.noconvert() = py::none(),
      "Solve min -log det M + <S, M> + sum R |M| from M0 (None: diag(1 / S_ii)).");
}

}  // namespace kernlearn::bindings
