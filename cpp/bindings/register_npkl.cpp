// Bindings of saddle_point.hpp's options and results (shared with register_embedding.cpp) and of
// npkl.hpp. kernlearn/npkl.py validates everything (pairs, labels, parameters) and builds the
// Laplacian; this file only maps arrays, options and results.
#include "kernlearn/methods/npkl.hpp"

#include "saddle_basis.hpp"

namespace kernlearn::bindings {

namespace {

void bind_saddle_types(py::module_& m) {
  py::native_enum<SpectralSolver>(m, "SpectralSolver", "enum.Enum", "The eigensolver of the saddle-point iterations.")
      .value("lanczos", SpectralSolver::lanczos, "thick-restart Lanczos on every solve")
      .value("dense", SpectralSolver::dense, "LAPACK in double precision at every n")
      .value("mixed", SpectralSolver::mixed, "the mixed-precision dense route at every n")
      .value("auto", SpectralSolver::automatic,
             "Lanczos while the positive rank stays below dense_fraction n, then LAPACK (mixed precision from "
             "MIXED_PRECISION_MIN_N on)")
      .finalize();

  OptionsClass<SpectralOptions>(m, "SpectralOptions", "Options of the saddle-point iteration (saddle_point.hpp).")
      .field("p", &SpectralOptions::p, "the capacity regulariser tr K^p, p >= 1")
      .field("G", &SpectralOptions::G, "None: the bound tr K^p <= B; a float: the penalty (G/p) tr K^p instead")
      .field("B", &SpectralOptions::B, "the trace bound (unused with G)")
      .field("rank", &SpectralOptions::rank, "None: every positive eigenpair of A; r: the r largest only")
      .field("eigen_solver", &SpectralOptions::eigen_solver, "a SpectralSolver")
      .field("dense_fraction", &SpectralOptions::dense_fraction, "auto: the rank fraction of n from which LAPACK")
      .field("dense_max_n", &SpectralOptions::dense_max_n,
             "auto: no dense solve above this n (a larger positive rank is then an error)")
      .field("max_iter", &SpectralOptions::max_iter, "iteration cap")
      .field("tol", &SpectralOptions::tol, "relative duality gap at which the iteration stops")
      .field("step", &SpectralOptions::step, "None: 1 / L_t with backtracking; a float: a fixed step")
      .field("accelerate", &SpectralOptions::accelerate,
             "Nesterov momentum with restart (L-BFGS for a free alpha) and an adaptive step")
      .field("newton", &SpectralOptions::newton, "Newton steps where they apply (free alpha, distance pairs, p = 2)")
      .field("eig_tol", &SpectralOptions::eig_tol, "Lanczos residual tolerance relative to |A|")
      .field("warm_start", &SpectralOptions::warm_start, "start each Lanczos solve from the last eigenvectors")
      .field("seed", &SpectralOptions::seed, "the eigensolvers' random start");

  ResultClass<SaddleIteration>(m, "SaddleIteration", "One iteration of the saddle-point solver.")
      .field("dual", &SaddleIteration::dual, "the best J(alpha) so far")
      .field("primal", &SaddleIteration::primal, "the best P(K) so far")
      .field("gap", &SaddleIteration::gap, "primal - dual")
      .field("step", &SaddleIteration::step, "the step that led here")
      .field("matvecs", &SaddleIteration::matvecs, "Lanczos mat-vecs spent reaching this point (0: dense)")
      .field("rank", &SaddleIteration::rank, "rank of K");

  py::native_enum<SpectrumMethod>(m, "SpectrumMethod", "enum.Enum",
                                  "Which eigensolve certified a saddle-point result's spectrum.")
      .value("lanczos", SpectrumMethod::lanczos)
      .value("dense", SpectrumMethod::dense)
      .value("projected", SpectrumMethod::projected)
      .value("top", SpectrumMethod::top)
      .finalize();

  ResultClass<SpectrumCertificate>(
      m, "SpectrumCertificate",
      "Why K kept every positive eigenpair of A: the pairs above `level` are kept; `next` (NaN: not computed) is "
      "the largest eigenvalue of A known beyond them, within `residual` of a true one (saddle_point.hpp).")
      .field("method", &SpectrumCertificate::method, "a SpectrumMethod")
      .field("level", &SpectrumCertificate::level, "the zero level: eigenvalues at or below it count as zero")
      .field("next", &SpectrumCertificate::next, "the largest known eigenvalue beyond the kept pairs (NaN: unknown)")
      .field("residual", &SpectrumCertificate::residual, "the residual norm of next's eigenpair")
      .field("kept", &SpectrumCertificate::kept, "eigenpairs of A kept")
      .field("certified", &SpectrumCertificate::certified, "the eigensolve converged");

  ResultClass<SaddleResult>(m, "SaddleResult", "K = V diag(eigenvalues) V', the dual point and the history.")
      .field("eigenvalues", &SaddleResult::eigenvalues, "K's eigenvalues, decreasing, all > 0")
      .field("eigenvectors", &SaddleResult::eigenvectors, "n x rank")
      .field("alpha", &SaddleResult::alpha, "one per constraint")
      .field("constraint_values", &SaddleResult::constraint_values, "g_c(K) = tr(C_c K)")
      .records("history", &SaddleResult::history, "a SaddleIteration per iteration")
      .field("n_iter", &SaddleResult::n_iter, "iterations taken")
      .field("status", &SaddleResult::status, "a SolverStatus (callback stop: interrupted)")
      .field("used_dense", &SaddleResult::used_dense, "the last eigensolve was LAPACK's")
      .field("used_mixed_precision", &SaddleResult::used_mixed_precision, "... in mixed precision")
      .field("unconverged_eigensolves", &SaddleResult::unconverged_eigensolves,
             "Lanczos solves stopped by their mat-vec cap")
      .field("spectrum", &SaddleResult::spectrum, "the SpectrumCertificate of the returned K's eigensolve");
}

}  // namespace

void register_npkl(py::module_& m) {
  // The size from which eigen_solver "auto" makes its dense solves mixed precision.
  m.attr("MIXED_PRECISION_MIN_N") = solver_choice::kMixedPrecisionMinN;
  // The penalties the saddle-point family accepts (rho = 2 / C and the box [0, C] stay finite).
  m.attr("C_RANGE") = py::make_tuple(kMinC, kMaxC);
  // The largest trace bound B and numeric step the saddle-point solver accepts.
  m.attr("B_MAX") = kMaxB;
  m.attr("STEP_MAX") = kMaxStep;
  bind_saddle_types(m);

  py::native_enum<NpklLoss>(m, "NpklLoss", "enum.Enum", "SimpleNPKL's loss on the pairs.")
      .value("linear", NpklLoss::linear)
      .value("squared_hinge", NpklLoss::squared_hinge)
      .value("hinge", NpklLoss::hinge)
      .value("square", NpklLoss::square)
      .finalize();

  OptionsClass<NpklOptions>(m, "NpklOptions", "SimpleNPKL's options (npkl.hpp).")
      .field("loss", &NpklOptions::loss, "an NpklLoss")
      .field("C", &NpklOptions::C, "loss weight, each constraint counted twice")
      .field("spectral", &NpklOptions::spectral, "the saddle-point iteration's SpectralOptions");

  m.def(
      "simple_npkl",
      [](const Csr& laplacian, const Eigen::Ref<const RowMatrixXi>& pairs,
         const Eigen::Ref<const Eigen::VectorXd>& labels, const NpklOptions& options,
         const std::optional<MatrixRef>& basis, const std::optional<py::function>& callback, int n_threads) {
        NpklOptions opt = options;
        opt.spectral.dense_lapack = scipy_dense_lapack();
        const Eigen::MatrixXd U = basis_arg(basis);
        const auto monitor = python_monitor<SaddleIteration>(callback);
        ThreadTeam team(n_threads);
        return run_interruptible(
            [&] { return simple_npkl(laplacian, pairs, labels, opt, team, monitor, python_interrupt_poll(), U); });
      },
      py::arg("laplacian"), py::arg("pairs").noconvert(), py::arg("labels").noconvert(), py::arg("options"),
      py::kw_only(), py::arg("basis").noconvert() = py::none(), py::arg("callback") = py::none(),
      py::arg("n_threads") = 1,
      "SimpleNPKL (linear loss in closed form; the other losses by Algorithm 1's saddle-point iteration).");
}

}  // namespace kernlearn::bindings
