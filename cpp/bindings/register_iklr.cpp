// Bindings of methods/iklr.hpp and iklr_nystrom.hpp: the Newton and CCICP solvers of indefinite
// kernel logistic regression on a kernel operator, and the Newton solver of its Nystrom model (operators.hpp: a dense
// array, a kernel on the fly, a cluster's products), through the typed boundary (boundary.hpp): IklrOptions in,
// IklrResult out, IklrIteration records to the callback. kernlearn/indefinite.py validates the parameters.
#include <optional>

#include "kernlearn/methods/iklr.hpp"
#include "kernlearn/methods/iklr_nystrom.hpp"

#include "common.hpp"
#include "operators.hpp"

namespace kernlearn::bindings {

using namespace pybind11::literals;

void register_iklr(py::module_& m) {
  py::native_enum<IklrInner>(m, "IklrInner", "enum.Enum", "The inner loop of CCICP.")
      .value("gd", IklrInner::gd, "full gradient descent")
      .value("sgd", IklrInner::sgd, "single-sample stochastic gradient descent")
      .finalize();

  OptionsClass<IklrOptions>(m, "IklrOptions", "Options of CCICP (Liu et al., TNNLS 2019, Algorithm 1).")
      .field("inner", &IklrOptions::inner, "inner loop, IklrInner.gd or IklrInner.sgd")
      .field("lambda_", &IklrOptions::lambda, "the paper's lambda (the estimator's alpha)")
      .field("eps", &IklrOptions::eps, "inner loop stops when |F_k(t+1) - F_k(t)| <= eps")
      .field("max_outer", &IklrOptions::max_outer, "outer (CCCP) iterations")
      .field("max_inner", &IklrOptions::max_inner, "cap on inner steps per outer iteration")
      .field("learning_rate", &IklrOptions::learning_rate, "eta_0")
      .field("decay", &IklrOptions::decay, "eta <- decay * eta after every inner step")
      .field("restart_rate", &IklrOptions::restart_rate, "eta back to eta_0 at each outer step")
      .field("concave", &IklrOptions::concave, "the paper's Krein penalty; False: (lambda/2) a'K+ a")
      .field("literal_sgd", &IklrOptions::literal_sgd, "SGD step as eq. (12) prints it (no -lambda K- a_k)");

  OptionsClass<IklrNewtonOptions>(m, "IklrNewtonOptions", "Options of the Newton solver of the convex IKLR model.")
      .field("lambda_", &IklrNewtonOptions::lambda, "the regularisation lambda (the estimator's alpha)")
      .field("tol", &IklrNewtonOptions::tol, "converged when ||grad F|| <= tol ||grad F(0)||")
      .field("max_iter", &IklrNewtonOptions::max_iter, "Newton steps")
      .field("max_cg", &IklrNewtonOptions::max_cg, "conjugate-gradient steps per Newton step");

  ResultClass<IklrIteration>(m, "IklrIteration", "One outer CCICP iteration.")
      .field("objective", &IklrIteration::objective, "F(a_k) of eq. (6) (or of the convex model)")
      .field("inner_steps", &IklrIteration::inner_steps, "inner steps taken")
      .field("matvecs", &IklrIteration::matvecs, "kernel mat-vecs")
      .field("gradient_norm", &IklrIteration::gradient_norm, "Newton: ||grad F|| after the step (CCICP: NaN)")
      .field("step", &IklrIteration::step, "Newton: line-search step; CCICP: the last eta");

  ResultClass<IklrResult>(m, "IklrResult", "What CCICP returns.")
      .field("alpha", &IklrResult::alpha, "the expansion coefficients a")
      .field("initial_objective", &IklrResult::initial_objective, "F(a_0)")
      .field("status", &IklrResult::status,
             "CCICP: max_iter, interrupted, or not_converged (the schedule overflowed); Newton: converged, "
             "max_iter, interrupted, or not_converged (the line search found no decrease)")
      .field("gradient_norm", &IklrResult::gradient_norm, "Newton: ||grad F(alpha)|| (CCICP: NaN)")
      .field("reference_gradient_norm", &IklrResult::reference_gradient_norm, "Newton: ||grad F(0)||, tol's scale")
      .records("history", &IklrResult::history, "one IklrIteration per outer iteration");

  m.def(
      "ccicp",
      [](const py::object& K, const Eigen::Ref<const Eigen::VectorXd>& y, const MatrixRef& V,
         const Eigen::Ref<const Eigen::VectorXd>& w, const Eigen::Ref<const Eigen::VectorXd>& alpha0, double shift,
         const IklrOptions& options, const Eigen::Ref<const VectorXi>& sgd_indices,
         const std::optional<py::function>& callback, int n_threads) {
        const NegativePart negative{V, w, shift};
        const RecipePtr recipe = as_recipe(K, "K");
        const auto monitor = python_monitor<IklrIteration>(callback);
        const InterruptPoll poll = python_interrupt_poll();
        return run_interruptible([&] {
          ThreadTeam team(n_threads);
          const auto kernel = recipe->build(team, poll);
          return ccicp(*kernel, y, negative, alpha0, options, sgd_indices, monitor, poll);
        });
      },
      "K"_a, "y"_a.noconvert(), "V"_a.noconvert(), "w"_a.noconvert(), "alpha0"_a.noconvert(), py::kw_only(), "shift"_a,
      "options"_a, "sgd_indices"_a.noconvert(), "callback"_a = py::none(), "n_threads"_a = 1,
      "CCICP on the kernel K (an Operator, or a dense float32 / float64 array) with K- = V diag(w) V' + "
      "shift I; sgd_indices (int64, max_outer * max_inner of them) are read for inner=sgd only.");

  m.def(
      "iklr_newton",
      [](const py::object& K, const Eigen::Ref<const Eigen::VectorXd>& y, const MatrixRef& V,
         const Eigen::Ref<const Eigen::VectorXd>& w, const Eigen::Ref<const Eigen::VectorXd>& alpha0, double shift,
         const IklrNewtonOptions& options, const std::optional<py::function>& callback, int n_threads) {
        const NegativePart negative{V, w, shift};
        const RecipePtr recipe = as_recipe(K, "K");
        const auto monitor = python_monitor<IklrIteration>(callback);
        const InterruptPoll poll = python_interrupt_poll();
        return run_interruptible([&] {
          ThreadTeam team(n_threads);
          const auto kernel = recipe->build(team, poll);
          return iklr_newton(*kernel, y, negative, alpha0, options, monitor, poll);
        });
      },
      "K"_a, "y"_a.noconvert(), "V"_a.noconvert(), "w"_a.noconvert(), "alpha0"_a.noconvert(), py::kw_only(), "shift"_a,
      "options"_a, "callback"_a = py::none(), "n_threads"_a = 1,
      "Inexact Newton on the convex IKLR model (lambda/2) a'K+ a with K- = V diag(w) V' + shift I, on the "
      "kernel K (an Operator, or a dense float32 / float64 array).");
  OptionsClass<IklrNystromOptions>(m, "IklrNystromOptions", "Options of the Newton solver of IKLR's Nystrom model.")
      .field("lambda_", &IklrNystromOptions::lambda, "the regularisation lambda (the estimator's alpha)")
      .field("intercept", &IklrNystromOptions::intercept, "s, the constant feature's value (0: no intercept)")
      .field("tol", &IklrNystromOptions::tol, "converged when ||grad F|| <= tol ||grad F(0)||")
      .field("max_iter", &IklrNystromOptions::max_iter, "Newton steps")
      .field("max_cg", &IklrNystromOptions::max_cg, "preconditioned conjugate-gradient steps per Newton step");

  ResultClass<IklrNystromResult>(m, "IklrNystromResult", "What the Nystrom model's Newton solver returns.")
      .field("beta", &IklrNystromResult::beta, "the feature weights")
      .field("intercept_weight", &IklrNystromResult::intercept_weight, "b: the intercept is s b")
      .field("initial_objective", &IklrNystromResult::initial_objective, "F at the start")
      .field("status", &IklrNystromResult::status,
             "converged, max_iter, interrupted, or not_converged (the line search found no decrease)")
      .field("gradient_norm", &IklrNystromResult::gradient_norm, "||grad F|| at the returned weights")
      .field("reference_gradient_norm", &IklrNystromResult::reference_gradient_norm, "||grad F(0)||, tol's scale")
      .records("history", &IklrNystromResult::history,
               "one IklrIteration per Newton step (matvecs counts passes over C)");

  m.def(
      "iklr_nystrom_newton",
      [](const MatrixRef& C, const MatrixRef& T, const MatrixRef& Phi_centers,
         const Eigen::Ref<const Eigen::VectorXd>& y, const Eigen::Ref<const Eigen::VectorXd>& beta0,
         const IklrNystromOptions& options, const std::optional<py::function>& callback, int n_threads) {
        const auto monitor = python_monitor<IklrIteration>(callback);
        const InterruptPoll poll = python_interrupt_poll();
        return run_interruptible([&] {
          ThreadTeam team(n_threads);
          return iklr_nystrom_newton(C, T, Phi_centers, y, beta0, options, team, monitor, poll);
        });
      },
      "C"_a.noconvert(), "T"_a.noconvert(), "Phi_centers"_a.noconvert(), "y"_a.noconvert(), "beta0"_a.noconvert(),
      py::kw_only(), "options"_a, "callback"_a = py::none(), "n_threads"_a = 1,
      "Newton-CG with Falkon's preconditioner on IKLR's Nystrom model with features Phi = C T: the kernel "
      "columns C (n x M) at the centres, the projection T (M x r), the centres' features Phi_centers (any rows, r "
      "columns), signs y, start beta0 (r); all float64 C-ordered.");
}

}  // namespace kernlearn::bindings
