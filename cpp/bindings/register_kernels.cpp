// Bindings of the kernels layer: dense kernel matrices (float32 or float64, numpy-owned and never
// copied), kernel mat-vecs, and the HSIC blocks Phi(W) and Gaussian degrees. kernlearn/kernels.py
// and kernlearn/cluster/_kdac.py validate.
#include "kernlearn/kernels/hsic.hpp"
#include "kernlearn/kernels/hsic_lowrank.hpp"
#include "kernlearn/kernels/kernel_matrix.hpp"

#include "common.hpp"
#include "dense_kernel_view.hpp"

namespace kernlearn::bindings {

using namespace pybind11::literals;

void register_kernels(py::module_& m) {
  // The Gaussian bandwidths the HSIC functions accept (sigma^2 and 1 / sigma^2 finite and normal).
  m.attr("SIGMA_RANGE") = py::make_tuple(kMinSigma, kMaxSigma);
  // The largest |coordinate| the kernels on points accept (squared distances finite).
  m.attr("MAX_COORDINATE") = kMaxCoordinate;
  // The relative eigenvalue cut of K_LL^+ in KDAC's Nystrom kernel (hsic_lowrank.hpp).
  m.attr("NYSTROM_RCOND") = kNystromRcond;
  py::native_enum<PairwiseKind>(m, "PairwiseKind", "enum.Enum", "The pairwise kernels.")
      .value("tl1", PairwiseKind::tl1, "max(tau - ||x - y||_1, 0), the truncated l1-distance kernel")
      .value("rbf", PairwiseKind::rbf, "exp(-gamma ||x - y||^2)")
      .finalize();

  OptionsClass<PairwiseKernel>(m, "PairwiseKernel", "A pairwise kernel: its kind and parameter.")
      .field("kind", &PairwiseKernel::kind, "PairwiseKind.tl1 or PairwiseKind.rbf")
      .field("tau", &PairwiseKernel::tau, "TL1 truncation")
      .field("gamma", &PairwiseKernel::gamma, "RBF width");

  m.def(
      "pairwise_kernel",
      [](const MatrixRef& X, const MatrixRef& Y, const PairwiseKernel& kernel, bool single, int n_threads) {
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
      "X"_a.noconvert(), "Y"_a.noconvert(), py::kw_only(), "kernel"_a, "single"_a = false, "n_threads"_a = 1,
      "k(X, Y), float32 when single (values computed in double), else float64.");

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
      "W"_a.noconvert(), "T"_a.noconvert(), py::kw_only(), "gamma"_a, "same"_a, "n_threads"_a = 1);

  m.def(
      "kernel_matvec",
      [](const py::array& K, const Eigen::Ref<const Eigen::VectorXd>& x, int n_threads) {
        if (x.size() != K.shape(0)) throw std::invalid_argument("x must have one entry per row of K");
        if (!x.allFinite()) throw std::invalid_argument("x must be finite");
        Eigen::VectorXd y(x.size());
        with_dense_kernel(K, [&](const auto* data, Index n) {
          ThreadTeam team(n_threads);
          py::gil_scoped_release release;  // only numpy-owned buffers the caller keeps alive
          DenseKernel(data, n, team).multiply(x.data(), y.data());
          return 0;
        });
        // K is checked through its product (x is finite): O(n), where checking K is O(n^2) a call.
        if (!y.allFinite()) throw std::invalid_argument("K x is not finite: K must be finite");
        return y;
      },
      "K"_a.noconvert(), "x"_a.noconvert(), py::kw_only(), "n_threads"_a = 1);

  m.def(
      "hsic_phi",
      [](const MatrixRef& X, const MatrixRef& W, const MatrixRef& A, const Eigen::Ref<const Eigen::VectorXd>& c,
         double sigma, bool with_bound, int n_threads) {
        const InterruptPoll poll = python_interrupt_poll();
        PhiResult r = run_interruptible([&] {
          // Phi only sees differences, so centring changes nothing but the rounding (hsic.hpp).
          const RowMatrixXd Xc = X.rowwise() - X.colwise().mean();
          const Eigen::MatrixXd Wc = W;  // explicit column-major copy of the small d x q W
          ThreadTeam team(n_threads);
          return hsic_phi(Xc, Wc, A, c, sigma, with_bound, team, poll);
        });
        return py::make_tuple(std::move(r.phi), r.trace_gamma_k, r.bound_rhs);
      },
      "X"_a.noconvert(), "W"_a.noconvert(), "A"_a.noconvert(), "c"_a.noconvert(), py::kw_only(), "sigma"_a,
      "with_bound"_a = false, "n_threads"_a = 1, "(Phi(W) of eq. (8), Tr(gamma K), the right side of (10)).");

  m.def(
      "hsic_phi_rff",
      [](const MatrixRef& X, const MatrixRef& W, const MatrixRef& A, const Eigen::Ref<const Eigen::VectorXd>& c,
         double sigma, Index n_random_features, std::uint64_t seed, bool with_bound, int n_threads) {
        if (W.rows() != X.cols() || A.rows() != X.rows() || c.size() != A.cols())
          throw std::invalid_argument("hsic_phi_rff: W must be d x q, A n x m and c of length m");
        if (!X.allFinite() || !W.allFinite() || !A.allFinite() || !c.allFinite())
          throw std::invalid_argument("hsic_phi_rff: X, W, A and c must be finite");
        const InterruptPoll poll = python_interrupt_poll();
        PhiResult r = run_interruptible([&] {
          const RowMatrixXd Xc = X.rowwise() - X.colwise().mean();
          const Eigen::MatrixXd Wc = W;
          ThreadTeam team(n_threads);
          return hsic_phi_rff(Xc, Wc, A, c, sigma, n_random_features, seed, with_bound, team, poll);
        });
        return py::make_tuple(std::move(r.phi), r.trace_gamma_k, r.bound_rhs);
      },
      "X"_a.noconvert(), "W"_a.noconvert(), "A"_a.noconvert(), "c"_a.noconvert(), py::kw_only(), "sigma"_a,
      "n_random_features"_a, "seed"_a = 0, "with_bound"_a = false, "n_threads"_a = 1,
      "hsic_phi's (Phi, Tr(gamma K), bound) from n_random_features random Fourier frequencies (KDAC's low-rank "
      "path); the bound is estimated from sampled pairs.");

  m.def(
      "hsic_phi_nystrom",
      [](const MatrixRef& X, const MatrixRef& W, const MatrixRef& A, const Eigen::Ref<const Eigen::VectorXd>& c,
         double sigma, const std::vector<Index>& landmarks, std::uint64_t seed, bool with_bound, int n_threads) {
        if (W.rows() != X.cols() || A.rows() != X.rows() || c.size() != A.cols())
          throw std::invalid_argument("hsic_phi_nystrom: W must be d x q, A n x m and c of length m");
        if (!X.allFinite() || !W.allFinite() || !A.allFinite() || !c.allFinite())
          throw std::invalid_argument("hsic_phi_nystrom: X, W, A and c must be finite");
        const InterruptPoll poll = python_interrupt_poll();
        PhiResult r = run_interruptible([&] {
          const RowMatrixXd Xc = X.rowwise() - X.colwise().mean();
          const Eigen::MatrixXd Wc = W;
          ThreadTeam team(n_threads);
          return hsic_phi_nystrom(Xc, Wc, A, c, sigma, landmarks, seed, with_bound, team, poll);
        });
        return py::make_tuple(std::move(r.phi), r.trace_gamma_k, r.bound_rhs);
      },
      "X"_a.noconvert(), "W"_a.noconvert(), "A"_a.noconvert(), "c"_a.noconvert(), py::kw_only(), "sigma"_a,
      "landmarks"_a, "seed"_a = 0, "with_bound"_a = false, "n_threads"_a = 1,
      "hsic_phi's (Phi, Tr(gamma K), bound) from the Nystrom kernel on the landmark rows (KDAC's low-rank "
      "path); the bound is estimated from sampled pairs (seed).");

  m.def(
      "nystrom_kernel_times",
      [](const MatrixRef& X, const MatrixRef& W, const Eigen::Ref<const Eigen::MatrixXd>& V, double sigma,
         const std::vector<Index>& landmarks, int n_threads) {
        if (W.rows() != X.cols() || V.rows() != X.rows())
          throw std::invalid_argument("nystrom_kernel_times: W must be d x q and V n x p");
        if (!X.allFinite() || !W.allFinite() || !V.allFinite())
          throw std::invalid_argument("nystrom_kernel_times: X, W and V must be finite");
        const InterruptPoll poll = python_interrupt_poll();
        return run_interruptible([&] {
          const RowMatrixXd Xc = X.rowwise() - X.colwise().mean();
          const Eigen::MatrixXd Wc = W;
          ThreadTeam team(n_threads);
          const auto K = nystrom_kernel(Xc, Wc, sigma, landmarks, team, poll);
          Eigen::MatrixXd out(V.rows(), V.cols());
          K->apply(V, out);
          return out;
        });
      },
      "X"_a.noconvert(), "W"_a.noconvert(), "V"_a, py::kw_only(), "sigma"_a, "landmarks"_a, "n_threads"_a = 1,
      "K V for the Nystrom kernel of X W on the landmark rows, its diagonal set to 1 (KDAC's low-rank U-step).");

  m.def(
      "hsic_phi_pair",
      [](const MatrixRef& X_I, const MatrixRef& X_J, const MatrixRef& W, const MatrixRef& A_I, const MatrixRef& A_J,
         const Eigen::Ref<const Eigen::VectorXd>& c, double sigma, bool same, bool with_bound, int n_threads) {
        if (X_J.cols() != X_I.cols() || W.rows() != X_I.cols())
          throw std::invalid_argument("hsic_phi_pair: X_I, X_J and W must have one column / row per feature");
        if (A_I.rows() != X_I.rows() || A_J.rows() != X_J.rows())
          throw std::invalid_argument("hsic_phi_pair: A_I and A_J must have one row per row of X_I and X_J");
        if (A_J.cols() != A_I.cols() || c.size() != A_I.cols())
          throw std::invalid_argument("hsic_phi_pair: A_I, A_J and c must have the same m columns / entries");
        if (same && X_J.rows() != X_I.rows())
          throw std::invalid_argument("hsic_phi_pair: same=True needs X_I and X_J of the same shape");
        // O(b d) checks against the O(b^2 d) work: a NaN would otherwise only show in the sum.
        if (!X_I.allFinite() || !X_J.allFinite() || !W.allFinite() || !A_I.allFinite() || !A_J.allFinite() ||
            !c.allFinite())
          throw std::invalid_argument("hsic_phi_pair: X_I, X_J, W, A_I, A_J and c must be finite");
        const InterruptPoll poll = python_interrupt_poll();
        PhiResult r = run_interruptible([&] {
          const Eigen::MatrixXd Wc = W;  // explicit column-major copy of the small d x q W
          ThreadTeam team(n_threads);
          return hsic_phi_pair(X_I, X_J, Wc, A_I, A_J, c, sigma, with_bound, same, team, poll);
        });
        return py::make_tuple(std::move(r.phi), r.trace_gamma_k, r.bound_rhs);
      },
      "X_I"_a.noconvert(), "X_J"_a.noconvert(), "W"_a.noconvert(), "A_I"_a.noconvert(), "A_J"_a.noconvert(),
      "c"_a.noconvert(), py::kw_only(), "sigma"_a, "same"_a, "with_bound"_a = false, "n_threads"_a = 1,
      "hsic_phi's (Phi, Tr(gamma K), bound) over the pairs of two row blocks of a column-centred X, both "
      "orders counted; same: one block with itself. Summed over the block pairs J >= I: hsic_phi.");

  m.def(
      "gaussian_degree",
      [](const MatrixRef& Z, double sigma, int n_threads) {
        const InterruptPoll poll = python_interrupt_poll();
        return run_interruptible([&] {
          ThreadTeam team(n_threads);
          return gaussian_degree(Z, sigma, team, poll);
        });
      },
      "Z"_a.noconvert(), py::kw_only(), "sigma"_a, "n_threads"_a = 1);
}

}  // namespace kernlearn::bindings
