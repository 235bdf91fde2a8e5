// Bindings of methods/kdac.hpp: ISM and the whole KDAC loop (its kernel sums here, or a Python
// object's, e.g. a Dask cluster's), through the typed boundary
// (boundary.hpp): IsmOptions / KdacOptions in, IsmResult / KdacResult out, KdacIteration records
// to the callback. kernlearn/cluster/_kdac.py validates the parameters and passes float64
// C-contiguous arrays. Every call runs the core through run_interruptible, i.e. without the GIL:
// safe because the core sees only Eigen maps of the argument arrays (alive for the whole call) and
// C++ objects. Ctrl-C is polled between tiles and iterations.
#include <optional>

#include "kernlearn/methods/kdac.hpp"

#include "common.hpp"
#include "operators.hpp"

namespace kernlearn::bindings {

using namespace pybind11::literals;

namespace {

// The kernel sums of a Python object (kernlearn.distributed's HsicTiles: tasks on a Dask cluster)
// for the core's KDAC loop: set_weights(A, c), phi(W, sigma, with_bound) -> (Phi, Tr(gamma K),
// bound) and kernel_times(W, sigma, V) -> K V, each called with the GIL re-taken and its result
// checked. The object is the caller's argument and outlives the solve; this class holds no
// Python object of its own, so the solver may destroy it without the GIL.
class PythonHsicSums final : public HsicSums {
 public:
  PythonHsicSums(const py::object& sums, Index n, Index d) : sums_(sums), n_(n), d_(d) {
    for (const char* method : {"set_weights", "phi", "kernel_times"})
      if (!py::hasattr(sums, method))
        throw py::type_error(std::string("sums must have a ") + method + " method (kernlearn.distributed's HsicTiles)");
  }
  Index rows() const override { return n_; }
  void set_weights(const RowMatrixXd& A, const Eigen::VectorXd& c) override {
    py::gil_scoped_acquire gil;
    sums_.attr("set_weights")(py::cast(A), py::cast(c));
  }
  PhiResult phi(const Eigen::MatrixXd& W, double sigma, bool with_bound) override {
    py::gil_scoped_acquire gil;
    const py::tuple out = py::tuple(sums_.attr("phi")(py::cast(RowMatrixXd(W)), sigma, with_bound));
    if (out.size() != 3) throw std::invalid_argument("sums.phi must return (Phi, trace, bound)");
    PhiResult r;
    r.phi = out[0].cast<Eigen::MatrixXd>();
    r.trace_gamma_k = out[1].cast<double>();
    r.bound_rhs = out[2].cast<double>();
    if (r.phi.rows() != d_ || r.phi.cols() != d_)
      throw std::invalid_argument("sums.phi returned Phi of shape (" + std::to_string(r.phi.rows()) + ", " +
                                  std::to_string(r.phi.cols()) + "), expected (" + std::to_string(d_) + ", " +
                                  std::to_string(d_) + ")");
    if (!r.phi.allFinite() || !std::isfinite(r.trace_gamma_k) || !std::isfinite(r.bound_rhs))
      throw std::invalid_argument("sums.phi returned NaN or infinity");
    return r;
  }
  std::unique_ptr<LinearOperator> kernel(const Eigen::MatrixXd& W, double sigma) override {
    return std::make_unique<Kernel>(sums_, n_, W, sigma);
  }

 private:
  // K V = sums.kernel_times(W, sigma, V), through the callback operator's checks.
  class Kernel final : public LinearOperator {
   public:
    Kernel(const py::object& sums, Index n, const Eigen::MatrixXd& W, double sigma)
        : sums_(sums), n_(n), W_(W), sigma_(sigma) {}
    Index rows() const override { return n_; }
    void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override {
      py::gil_scoped_acquire gil;
      const py::object times = py::cpp_function(
          [this](const py::object& V) { return sums_.attr("kernel_times")(py::cast(RowMatrixXd(W_)), sigma_, V); });
      const py::object none = py::none();
      const std::string name = "sums.kernel_times";
      CallbackOperator(times, none, n_, n_, true, name).apply(X, Y);
    }

   private:
    const py::object& sums_;
    Index n_;
    Eigen::MatrixXd W_;
    double sigma_;
  };

  const py::object& sums_;
  Index n_, d_;
};

}  // namespace

void register_kdac(py::module_& m) {
  OptionsClass<IsmOptions>(m, "IsmOptions", "Options of ISM (Algorithm 2 of Wu et al. 2018).")
      .field("sigma", &IsmOptions::sigma, "Gaussian kernel bandwidth")
      .field("max_iter", &IsmOptions::max_iter, "ISM iterations (Phi evaluations)")
      .field("tol", &IsmOptions::tol, "stop when the projection distance between iterates is <= tol")
      .field("anderson_depth", &IsmOptions::anderson_depth, "Anderson acceleration depth; 0 = plain ISM");

  ResultClass<IsmResult>(m, "IsmResult", "What ISM returns.")
      .field("W", &IsmResult::W, "d x q, orthonormal, signs fixed")
      .field("eigenvalues", &IsmResult::eigenvalues, "all eigenvalues of the last Phi evaluated, ascending")
      .array("trace_gamma_k", &IsmResult::trace_gamma_k, "Tr(gamma K(W_s)) for every W_s whose Phi was formed")
      .array("distance", &IsmResult::distance, "projection distance between successive iterates")
      .field("n_iter", &IsmResult::n_iter, "iterations run")
      .field("status", &IsmResult::status, "converged, max_iter, or not_converged (a 2-cycle, see cycled)")
      .field("n_damped", &IsmResult::n_damped, "steps to the middle of a 2-cycle")
      .field("cycled", &IsmResult::cycled, "a 2-cycle outlasted the damped steps; the better end was kept");

  OptionsClass<KdacOptions>(m, "KdacOptions", "Options of the KDAC alternation (Algorithm 1 of Wu et al. 2018).")
      .field("n_clusters", &KdacOptions::n_clusters, "k, the number of alternative clusters")
      .field("q", &KdacOptions::q, "subspace dimension; None = the largest eigengap (11) (spectral init only)")
      .field("sigma", &KdacOptions::sigma, "Gaussian kernel bandwidth")
      .field("lambda_", &KdacOptions::lambda, "weight of the novelty term")
      .field("lambda_relative", &KdacOptions::lambda_relative,
             "scale lambda by HSIC(X, U_0) / HSIC(X, Y) at the start (W = I); False: lambda as is")
      .field("max_iter", &KdacOptions::max_iter, "outer (W, D, U) iterations")
      .field("ism_max_iter", &KdacOptions::ism_max_iter, "ISM iterations per W-step")
      .field("anderson_depth", &KdacOptions::anderson_depth, "ISM acceleration depth; 0 = plain ISM")
      .field("tol", &KdacOptions::tol, "projection distance of W and U between outer iterations")
      .field("ism_tol_factor", &KdacOptions::ism_tol_factor, "W-step t is solved to max(tol, factor x dist_w(t-1))")
      .field("dense_max_n", &KdacOptions::dense_max_n, "U-step on an explicit n x n matrix up to here")
      .field("eig_tol", &KdacOptions::eig_tol, "Lanczos residual tolerance of the U-step")
      .field("seed", &KdacOptions::seed, "seed of the Lanczos start vectors and of the random features")
      .field("landmarks", &KdacOptions::landmarks, "the Nystrom landmark rows of the low-rank path; empty: exact")
      .field("n_random_features", &KdacOptions::n_random_features,
             "low-rank path: Phi(W) from this many random Fourier frequencies; 0: from the Nystrom kernel");

  ResultClass<KdacIteration>(m, "KdacIteration", "One outer KDAC iteration.")
      .field("cost", &KdacIteration::cost, "HSIC(XW, U) - lambda HSIC(XW, Y), eq. (2a)")
      .field("quality", &KdacIteration::quality, "HSIC(XW, U) = Tr(U'QU)")
      .field("hsic_y", &KdacIteration::hsic_y, "HSIC(XW, Y) = Tr(Y'QY)")
      .field("dist_w", &KdacIteration::dist_w, "projection distance of W to the previous iteration")
      .field("dist_u", &KdacIteration::dist_u, "projection distance of U to the previous iteration")
      .field("ism_iter", &KdacIteration::ism_iter, "ISM iterations of the W-step")
      .field("ism_cycled", &KdacIteration::ism_cycled, "the W-step ended on a 2-cycle")
      .field("ism_damped", &KdacIteration::ism_damped, "the W-step's steps to the middle of a 2-cycle")
      .field("matvecs", &KdacIteration::matvecs, "kernel mat-vecs of the U-step (0 when dense)");

  ResultClass<KdacResult>(m, "KdacResult", "What KDAC returns.")
      .field("W", &KdacResult::W, "d x q projection")
      .field("U", &KdacResult::U, "n x k spectral embedding")
      .field("W_init", &KdacResult::W_init, "the starting W (eq. 12, or W0)")
      .field("degree", &KdacResult::degree, "degrees D of the final kernel")
      .field("init_eigenvalues", &KdacResult::init_eigenvalues, "of Phi_0, ascending (empty when W0 was given)")
      .field("phi_eigenvalues", &KdacResult::phi_eigenvalues, "of Phi(W*) with the final gamma, ascending")
      .field("q", &KdacResult::q, "subspace dimension")
      .field("cost", &KdacResult::cost, "eq. (2a) at the returned state")
      .field("quality", &KdacResult::quality, "HSIC(XW, U)")
      .field("hsic_y", &KdacResult::hsic_y, "HSIC(XW, Y)")
      .field("lambda_effective", &KdacResult::lambda_effective, "the novelty weight used (scaled if lambda_relative)")
      .field("eigengap", &KdacResult::eigengap, "eq. (11) at the end (NaN when q = d)")
      .field("sigma_lhs", &KdacResult::sigma_lhs, "left side of inequality (10)")
      .field("sigma_rhs", &KdacResult::sigma_rhs, "right side of inequality (10)")
      .field("fixed_point_residual", &KdacResult::fixed_point_residual, "|Phi W - W Lambda|_F / |Phi|_F")
      .field("n_iter", &KdacResult::n_iter, "outer iterations run")
      .field("status", &KdacResult::status, "converged, max_iter, not_converged (outer cycle) or interrupted")
      .field("ism_cycled", &KdacResult::ism_cycled, "some W-step ended on a 2-cycle")
      .field("outer_cycled", &KdacResult::outer_cycled, "the alternation ended on a cycle (best state kept)")
      .field("cycle_period", &KdacResult::cycle_period, "its period (2 to 4), 0 if none")
      .field("used_dense", &KdacResult::used_dense, "the U-step used an explicit n x n matrix")
      .records("history", &KdacResult::history, "one KdacIteration per outer iteration");

  m.def(
      "ism",
      [](const MatrixRef& X, const MatrixRef& W0, const MatrixRef& A, const Eigen::Ref<const Eigen::VectorXd>& c,
         const IsmOptions& options, const py::object& sums, int n_threads) {
        const InterruptPoll poll = python_interrupt_poll();
        std::optional<PythonHsicSums> remote;
        if (!sums.is_none()) {
          if (A.rows() != X.rows()) throw std::invalid_argument("ism: A must be n x m and c of length m");
          remote.emplace(sums, X.rows(), X.cols());
        }
        return run_interruptible([&] {
          // Explicit copies: ISM centres X (translation invariance, hsic.hpp) and iterates on a
          // column-major d x q W, which W0 (d x q, tiny) starts.
          const RowMatrixXd Xc = X.rowwise() - X.colwise().mean();
          const Eigen::MatrixXd W = W0;
          ThreadTeam team(n_threads);
          if (remote) {
            if (W.rows() != X.cols())
              throw std::invalid_argument("ism: W0 must be d x q with d = X's column count (" +
                                          std::to_string(X.cols()) + ")");
            return ism(*remote, W, RowMatrixXd(A), Eigen::VectorXd(c), options);
          }
          return ism(Xc, W, A, c, options, team, poll);
        });
      },
      "X"_a.noconvert(), "W0"_a.noconvert(), "A"_a.noconvert(), "c"_a.noconvert(), py::kw_only(), "options"_a,
      "sums"_a = py::none(), "n_threads"_a = 1,
      "ISM from W0 with gamma = A diag(c) A' fixed; sums: the kernel sums of the centred X computed elsewhere "
      "(as kdac's), None for X's own.");

  m.def(
      "kdac",
      [](const MatrixRef& X, const MatrixRef& Y, const KdacOptions& options, const std::optional<MatrixRef>& W0,
         const std::optional<py::function>& callback, const py::object& sums, int n_threads) {
        const auto monitor = python_monitor<KdacIteration>(callback);
        const InterruptPoll poll = python_interrupt_poll();
        std::optional<PythonHsicSums> remote;
        if (!sums.is_none()) remote.emplace(sums, X.rows(), X.cols());
        return run_interruptible([&] {
          ThreadTeam team(n_threads);
          return kdac(X, Y, W0, options, team, monitor, poll, remote ? &*remote : nullptr);
        });
      },
      "X"_a.noconvert(), "Y"_a.noconvert(), py::kw_only(), "options"_a, "W0"_a.noconvert() = py::none(),
      "callback"_a = py::none(), "sums"_a = py::none(), "n_threads"_a = 1,
      "KDAC: W0 (d x q) for a given start, None for the spectral initialisation (12) with options.q. sums: an "
      "object computing the kernel sums of the centred X elsewhere (set_weights, phi, kernel_times; "
      "kernlearn.distributed's HsicTiles), None for X's own.");
}

}  // namespace kernlearn::bindings
