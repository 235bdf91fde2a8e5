// Bindings of sice.hpp. kernlearn/_sice.py validates Sigma and rho, folds the diagonal penalty
// into S, and reports an unbounded problem ("bounded" False) as a ValueError.
#include <string>

#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include "kernlearn/methods/sice.hpp"

#include "common.hpp"

namespace kernlearn::bindings {

void register_sice(py::module_& m) {
  m.def(
      "sice",
      [](const MatrixRef& S, const MatrixRef& R, const MatrixRef& M0, const std::string& solver, double tol,
         Index max_iter, double mu, Index mu_period) {
        SiceOptions opt;
        if (solver == "newton")
          opt.solver = SiceOptions::Solver::newton;
        else if (solver == "alm")
          opt.solver = SiceOptions::Solver::alm;
        else
          throw std::invalid_argument("solver must be 'newton' or 'alm', got '" + solver + "'");
        opt.tol = tol;
        opt.max_iter = max_iter;
        opt.mu = mu;
        opt.mu_period = mu_period;
        opt.dense_lapack = scipy_dense_lapack();
        static const SpdRoutines lapack{scipy_lapack<PotrfFn>("dpotrf"), scipy_lapack<TrtriFn>("dtrtri"),
                                        scipy_lapack<LauumFn>("dlauum"), scipy_blas<TrmmFn>("dtrmm"),
                                        scipy_blas<TrsmFn>("dtrsm")};
        opt.lapack = lapack;
        // Copies into column-major Eigen matrices (m <= a few thousand, so O(m^2) is nothing next
        // to the O(m^3) iterations); the solve then touches no Python object.
        const Eigen::MatrixXd s = S, r = R, m0 = M0;
        const InterruptPoll poll = python_interrupt_poll();
        SiceResult res = run_interruptible([&] { return solve_sice(s, r, m0, opt, poll); });
        py::dict out;
        out["precision"] = py::cast(std::move(res.precision));
        out["dual"] = py::cast(std::move(res.dual));
        out["primal"] = res.primal;
        out["dual_value"] = res.dual_value;
        out["n_iter"] = res.n_iter;
        out["converged"] = res.converged;
        out["bounded"] = res.bounded;
        out["relative_gaps"] = to_numpy(std::move(res.relative_gaps));
        return out;
      },
      py::arg("S").noconvert(), py::arg("R").noconvert(), py::arg("M0").noconvert(), py::arg("solver"), py::arg("tol"),
      py::arg("max_iter"), py::arg("mu"), py::arg("mu_period"));
}

}  // namespace kernlearn::bindings
