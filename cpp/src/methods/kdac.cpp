#include "kernlearn/methods/kdac.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernlearn/core/solver_choice.hpp"
#include "kernlearn/core/symmetric_eigen.hpp"
#include "kernlearn/kernels/kernel_matrix.hpp"
#include "kernlearn/linalg/lanczos.hpp"
#include "kernlearn/linalg/operator.hpp"

namespace kernlearn {

namespace {

// Lanczos basis beyond k for a warm-started U-step (20 for a cold one): a warm start is near the
// answer, and the smaller basis cost the fewest mat-vecs per U-step. Figures: bench/results/kdac.md.
constexpr Index kWarmExtra = 8;

// Q = H S H with S = D^-1/2 K D^-1/2 held in single precision (DenseKernel<float>: SIMD rows,
// double accumulation) and H applied on the fly: the dense U-step above solver_choice::kKdacFloatMinN points, where
// the Lanczos products stream n^2 entries each and are memory-bound.
class CentredFloatOperator final : public LinearOperator {
 public:
  CentredFloatOperator(const float* S, Index n, ThreadTeam& team) : S_(S, n, team) {}
  Index rows() const override { return S_.rows(); }
  void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override {
    Eigen::VectorXd x, y(X.rows());
    for (Index j = 0; j < X.cols(); ++j) {
      x = X.col(j).array() - X.col(j).mean();
      S_.multiply(x.data(), y.data());
      Y.col(j) = y.array() - y.mean();
    }
  }

 private:
  DenseKernel<float> S_;
};

struct UStep {
  Eigen::MatrixXd U;       // n x k, the top-k eigenvectors of Q
  Eigen::VectorXd values;  // their eigenvalues, decreasing
  double hsic_y = 0.0;     // Tr(Yc' Q Yc)
  Index matvecs = 0;
};

// The Lanczos settings of a U-step. A warm start (the previous U, near the answer once the outer
// loop settles) needs few Lanczos steps, so a smaller basis lets a cycle end and test convergence
// sooner.
LanczosOptions u_step_lanczos_options(Index n, Index k, bool warm, const KdacOptions& opt) {
  const Index extra = warm ? std::max<Index>(kWarmExtra, (3 * k + 4) / 5) : std::max<Index>(20, (3 * k + 4) / 5);
  LanczosOptions lo;
  lo.k = k;
  lo.which = LanczosWhich::largest;
  lo.ncv = std::min<Index>(n, k + extra);
  lo.tol = opt.eig_tol;
  lo.seed = opt.seed;
  return lo;
}

// A cold Lanczos start: one standard normal n-vector from seed.
Eigen::MatrixXd random_start(Index n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd start(n, 1);
  for (Index i = 0; i < n; ++i) start(i, 0) = normal(rng);
  return start;
}

// Tr(Yc' Q Yc) with Q applied by op.
double trace_yqy(const LinearOperator& op, const RowMatrixXd& Yc) {
  Eigen::MatrixXd QY(Yc.rows(), Yc.cols());
  op.apply(Eigen::MatrixXd(Yc), QY);
  return (Yc.transpose() * QY).trace();
}

// The U-step by Lanczos on S = D^-1/2 K D^-1/2 stored in single precision, H applied on the fly.
UStep u_step_float(const RowMatrixXd& Z, const Eigen::VectorXd& dinv_sqrt, const RowMatrixXd& Yc, double sigma,
                   const Eigen::MatrixXd& start, const LanczosOptions& lo, ThreadTeam& team,
                   const InterruptPoll& poll) {
  const Index n = Z.rows();
  std::vector<float> S(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
  gaussian_kernel_dense_scaled(Z, sigma, dinv_sqrt, S.data(), team, poll);
  CentredFloatOperator op(S.data(), n, team);
  LanczosResult r = lanczos(op, start, lo, team, poll);
  UStep out;
  out.U = std::move(r.vectors);
  out.values = std::move(r.values);
  out.matvecs = r.n_matvec;
  out.hsic_y = trace_yqy(op, Yc);
  return out;
}

// The U-step on the explicit double-precision Q: a full eigendecomposition up to
// solver_choice::kKdacFullEigenMaxN points (or when Lanczos has no room, ncv <= k), else Lanczos.
UStep u_step_dense(const RowMatrixXd& Z, const Eigen::VectorXd& dinv_sqrt, const RowMatrixXd& Yc, double sigma,
                   const Eigen::MatrixXd& start, const LanczosOptions& lo, ThreadTeam& team,
                   const InterruptPoll& poll) {
  const Index n = Z.rows(), k = lo.k;
  RowMatrixXd Q = gaussian_kernel_dense(Z, sigma, team, poll);
  // In place: Q may be 512 MB, so no temporaries of its size.
  Q.array().colwise() *= dinv_sqrt.array();
  Q.array().rowwise() *= dinv_sqrt.transpose().array();
  // H Q H: subtract row and column means (Q is symmetric, so both are the same vector).
  const Eigen::VectorXd mean = Q.rowwise().mean();
  const double total = mean.mean();
  Q.colwise() -= mean;
  Q.rowwise() -= mean.transpose();
  Q.array() += total;
  UStep out;
  const Eigen::MatrixXd QY = Q * Yc;
  out.hsic_y = (Yc.transpose() * QY).trace();
  if (n <= solver_choice::kKdacFullEigenMaxN || lo.ncv <= k) {
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(Eigen::MatrixXd(Q), Eigen::ComputeEigenvectors);
    if (es.info() != Eigen::Success) throw std::runtime_error("kdac: dense eigensolver failed");
    out.U = es.eigenvectors().rightCols(k).rowwise().reverse();
    out.values = es.eigenvalues().tail(k).reverse();
  } else {
    DenseOperator op(Q, team);
    LanczosResult r = lanczos(op, start, lo, team, poll);
    out.U = std::move(r.vectors);
    out.values = std::move(r.values);
    out.matvecs = r.n_matvec;
  }
  return out;
}

// The U-step by Lanczos on the kernel operator of the sums (recomputed on every product, here or
// on a cluster), normalised and centred as Q.
UStep u_step_matrix_free(const LinearOperator& K, const Eigen::VectorXd& dinv_sqrt, const RowMatrixXd& Yc,
                         const Eigen::MatrixXd& start, const LanczosOptions& lo, ThreadTeam& team,
                         const InterruptPoll& poll) {
  const NormalizedOperator op(K, dinv_sqrt, true);
  LanczosResult r = lanczos(op, start, lo, team, poll);
  UStep out;
  out.U = std::move(r.vectors);
  out.values = std::move(r.values);
  out.hsic_y = trace_yqy(op, Yc);
  out.matvecs = r.n_matvec + Yc.cols();  // the product with Yc too
  return out;
}

// Eq. (3): U = the k eigenvectors of Q = H D^-1/2 K D^-1/2 H with the largest eigenvalues, for the
// kernel of Z = X W and the degrees D. warm (n x k or empty) starts Lanczos from the previous U.
// The explicit Q is formed here from Z; the matrix-free products come from the sums' operator.
UStep u_step(HsicSums& sums, const Eigen::MatrixXd& W, const RowMatrixXd& Z, const Eigen::VectorXd& degree,
             const RowMatrixXd& Yc, double sigma, Index k, const Eigen::MatrixXd& warm, const KdacOptions& opt,
             ThreadTeam& team, const InterruptPoll& poll) {
  const Index n = Z.rows();
  const Eigen::VectorXd dinv_sqrt = degree.array().rsqrt().matrix();
  const bool warm_start = warm.cols() == k;
  const LanczosOptions lo = u_step_lanczos_options(n, k, warm_start, opt);
  const Eigen::MatrixXd start = warm_start ? warm : random_start(n, opt.seed);
  UStep out;
  if (!opt.landmarks.empty() && lo.ncv > k)  // the low-rank path: never an n x n matrix
    out = u_step_matrix_free(*sums.kernel(W, sigma), dinv_sqrt, Yc, start, lo, team, poll);
  else if (n <= opt.dense_max_n && n > solver_choice::kKdacFloatMinN && lo.ncv > k)
    out = u_step_float(Z, dinv_sqrt, Yc, sigma, start, lo, team, poll);
  else if (n <= opt.dense_max_n || n <= solver_choice::kKdacFullEigenMaxN || lo.ncv <= k)
    out = u_step_dense(Z, dinv_sqrt, Yc, sigma, start, lo, team, poll);
  else
    out = u_step_matrix_free(*sums.kernel(W, sigma), dinv_sqrt, Yc, start, lo, team, poll);
  if (out.U.cols() != k) throw std::runtime_error("kdac: the U-step found fewer than n_clusters eigenpairs");
  fix_signs(out.U);
  return out;
}

// A = D^-1/2 [H U, H Y] and c = (1 x k, -lambda x k_y): gamma = A diag(c) A' (eq. 4).
void gamma_factor(const Eigen::MatrixXd& U, const RowMatrixXd& Yc, const Eigen::VectorXd& degree, double lambda,
                  RowMatrixXd& A, Eigen::VectorXd& c) {
  const Index n = U.rows(), k = U.cols(), ky = Yc.cols();
  const Eigen::VectorXd dinv_sqrt = degree.array().rsqrt().matrix();
  A.resize(n, k + ky);
  A.leftCols(k) = U.rowwise() - U.colwise().mean();
  A.rightCols(ky) = Yc;
  A = dinv_sqrt.asDiagonal() * A;
  c.resize(k + ky);
  c.head(k).setOnes();
  c.tail(ky).setConstant(-lambda);
}

// The q leading eigenvectors of a symmetric d x d matrix (a combination of projectors), signs
// fixed; false if the eigensolver fails.
bool leading_subspace(const Eigen::MatrixXd& P, Index q, Eigen::MatrixXd& W) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(P);
  if (es.info() != Eigen::Success) return false;
  W = es.eigenvectors().rightCols(q);  // ascending order: the q largest
  fix_signs(W);
  return true;
}

// min ||A x - b|| by Householder QR with column pivoting: the pivot is the remaining column of
// largest norm, and columns whose pivot falls below epsilon x min(m, h) x the largest pivot are
// dropped (x = 0 there), the rank rule of Eigen's ColPivHouseholderQR. Written out for the tall,
// narrow (d^2 x depth) systems below: Eigen's version was a quarter of this file's compile time
// (bench/results/build_time.md).
Eigen::VectorXd pivoted_least_squares(Eigen::MatrixXd A, Eigen::VectorXd b) {
  const Index m = A.rows(), h = A.cols(), steps = std::min(m, h);
  std::vector<Index> order(static_cast<std::size_t>(h));
  for (Index j = 0; j < h; ++j) order[static_cast<std::size_t>(j)] = j;
  const auto column = [&](Index j) { return A.data() + j * m; };
  const auto tail_dot = [&](const double* u, const double* v, Index k) {
    double s = 0.0;
    for (Index i = k; i < m; ++i) s += u[i] * v[i];
    return s;
  };
  std::vector<double> diagonal(static_cast<std::size_t>(steps), 0.0);
  for (Index k = 0; k < steps; ++k) {
    Index pivot = k;
    double largest = -1.0;
    for (Index j = k; j < h; ++j) {
      const double norm2 = tail_dot(column(j), column(j), k);
      if (norm2 > largest) {
        largest = norm2;
        pivot = j;
      }
    }
    if (pivot != k) {
      std::swap_ranges(column(k), column(k) + m, column(pivot));
      std::swap(order[static_cast<std::size_t>(k)], order[static_cast<std::size_t>(pivot)]);
    }
    double* v = column(k);
    const double alpha = std::sqrt(largest);
    if (alpha == 0.0) break;  // the remaining columns are zero
    // Reflector I - v v' / (beta v_k) mapping A(k:, k) to beta e_k, beta of the sign that avoids
    // cancellation in v_k = a_k - beta.
    const double beta = v[k] > 0.0 ? -alpha : alpha;
    v[k] -= beta;
    const double scale = beta * v[k];  // = -v'v / 2
    for (Index j = k + 1; j < h; ++j) {
      double* a = column(j);
      const double f = tail_dot(v, a, k) / scale;
      for (Index i = k; i < m; ++i) a[i] += f * v[i];
    }
    const double f = tail_dot(v, b.data(), k) / scale;
    for (Index i = k; i < m; ++i) b[i] += f * v[i];
    diagonal[static_cast<std::size_t>(k)] = beta;
    v[k] = beta;  // R's diagonal; below it, column k holds v (unused from here)
  }
  double max_pivot = 0.0;
  for (double r : diagonal) max_pivot = std::max(max_pivot, std::abs(r));
  const double cut = max_pivot * std::numeric_limits<double>::epsilon() * static_cast<double>(steps);
  Index rank = 0;
  while (rank < steps && std::abs(diagonal[static_cast<std::size_t>(rank)]) > cut) ++rank;
  Eigen::VectorXd x = Eigen::VectorXd::Zero(h);
  for (Index k = rank - 1; k >= 0; --k) {
    double s = b[k];
    for (Index j = k + 1; j < rank; ++j) s -= A(k, j) * x[order[static_cast<std::size_t>(j)]];
    x[order[static_cast<std::size_t>(k)]] = s / A(k, k);
  }
  return x;
}

// Anderson acceleration (type II, Walker & Ni, SIAM J. Numer. Anal. 2011) of the ISM map, acting
// on the projectors P = W W' (d x d: the subspace, free of the sign and basis of W). From the last
// few iterates x_i = vec(P_i) and map values g_i = vec(P(eig_min Phi(W_i))), it extrapolates
// g - dG gamma with gamma the least-squares fit of the residual f = g - x by the residual
// differences dF, and returns the q leading eigenvectors of that (symmetrised) matrix.
class AndersonProjector {
 public:
  AndersonProjector(Index d, Index q, Index depth) : d_(d), q_(q), depth_(depth) {}

  void clear() {
    x_.clear();
    g_.clear();
  }

  // Records (W, W_map) and returns the next iterate: W_map itself until two pairs are known.
  Eigen::MatrixXd next(const Eigen::MatrixXd& W, const Eigen::MatrixXd& W_map) {
    x_.push_back(projector(W));
    g_.push_back(projector(W_map));
    if (static_cast<Index>(x_.size()) > depth_ + 1) {
      x_.pop_front();
      g_.pop_front();
    }
    const Index h = static_cast<Index>(x_.size()) - 1;
    if (h < 1) return W_map;
    const Eigen::VectorXd f = g_.back() - x_.back();
    Eigen::MatrixXd dF(f.size(), h), dG(f.size(), h);
    for (Index i = 0; i < h; ++i) {
      const auto a = static_cast<std::size_t>(i), b = static_cast<std::size_t>(i + 1);
      dF.col(i) = (g_[b] - x_[b]) - (g_[a] - x_[a]);
      dG.col(i) = g_[b] - g_[a];
    }
    const Eigen::VectorXd gamma = pivoted_least_squares(dF, f);
    if (!gamma.allFinite()) return W_map;
    const Eigen::VectorXd x = g_.back() - dG * gamma;
    Eigen::MatrixXd P = Eigen::Map<const Eigen::MatrixXd>(x.data(), d_, d_);
    P = (0.5 * (P + P.transpose())).eval();  // eval: the transpose aliases the target
    Eigen::MatrixXd W_next;
    return leading_subspace(P, q_, W_next) ? W_next : W_map;
  }

 private:
  Eigen::VectorXd projector(const Eigen::MatrixXd& W) const {
    const Eigen::MatrixXd P = W * W.transpose();
    return Eigen::Map<const Eigen::VectorXd>(P.data(), P.size());
  }

  Index d_, q_, depth_;
  std::deque<Eigen::VectorXd> x_, g_;
};

// The ISM iteration (Algorithm 2) as named steps on its state: the iterate W, the previous one
// (for the 2-cycle test) and the map value W_next = eig_min(Phi(W)). ism() below is the loop.
class IsmSolver {
 public:
  IsmSolver(HsicSums& sums, const Eigen::Ref<const Eigen::MatrixXd>& W0, const IsmOptions& options)
      : sums_(sums),
        opt_(options),
        d_(W0.rows()),
        q_(W0.cols()),
        W_(W0),
        anderson_(W0.rows(), W0.cols(), options.anderson_depth) {}

  // Iteration s of the map: Phi(W) and W_next = eig_min(Phi(W)), the q eigenvectors with the
  // smallest eigenvalues (Alg. 2); returns the projection distance from W to W_next.
  double map(Index s) {
    const PhiResult ph = sums_.phi(W_, opt_.sigma, false);
    trace_ = ph.trace_gamma_k;
    out_.trace_gamma_k.push_back(trace_);
    es_.compute(ph.phi, Eigen::ComputeEigenvectors);
    if (es_.info() != Eigen::Success) throw std::runtime_error("ism: eigensolver failed on Phi");
    out_.eigenvalues = es_.eigenvalues();
    W_next_ = es_.eigenvectors().leftCols(q_);
    fix_signs(W_next_);
    dist_ = projection_distance(W_, W_next_);
    out_.distance.push_back(dist_);
    out_.n_iter = s;
    return dist_;
  }

  // Period 2: W_{s+1} is W_{s-1} again.
  bool two_cycle() const {
    const double near = std::max(opt_.tol, 1e-3 * dist_);
    return projection_distance(W_prev_, W_next_) <= near;
  }

  // On a 2-cycle, step to the subspace between the two ends (the top q eigenvectors of
  // W W' + W_next W_next') and iterate on: from random starts on the paper's MoonN far more runs
  // then reach the alternative clustering (bench/results/kdac.md). False once kMaxDampedSteps
  // were taken (or the eigensolver fails).
  bool damp() {
    Eigen::MatrixXd middle;
    if (out_.n_damped >= kMaxDampedSteps ||
        !leading_subspace(W_ * W_.transpose() + W_next_ * W_next_.transpose(), q_, middle))
      return false;
    ++out_.n_damped;
    W_prev_ = std::move(W_);
    trace_prev_ = trace_;
    W_ = std::move(middle);
    anderson_.clear();
    residual_prev_ = std::numeric_limits<double>::infinity();
    return true;
  }

  // The next iterate: Anderson-accelerated while the fixed-point residual shrinks, else (history
  // cleared) the plain step W_next.
  void advance() {
    Eigen::MatrixXd W_step;
    if (opt_.anderson_depth > 0 && q_ < d_ && dist_ < residual_prev_) {
      W_step = anderson_.next(W_, W_next_);
    } else {
      anderson_.clear();
      W_step = std::move(W_next_);
    }
    residual_prev_ = dist_;
    W_prev_ = std::move(W_);
    trace_prev_ = trace_;
    W_ = std::move(W_step);
  }

  IsmResult converged() {
    out_.W = std::move(W_next_);
    out_.status = SolverStatus::converged;
    return std::move(out_);
  }

  // Still a 2-cycle: keep the end with the larger Tr(gamma K), i.e. the smaller cost (4a) under
  // the fixed gamma of this W-step.
  IsmResult keep_better_end() {
    out_.cycled = true;
    out_.status = SolverStatus::not_converged;
    out_.W = trace_ >= trace_prev_ ? W_ : W_prev_;
    return std::move(out_);
  }

  IsmResult max_iter() {
    out_.W = std::move(W_);
    return std::move(out_);
  }

 private:
  HsicSums& sums_;
  const IsmOptions& opt_;
  const Index d_, q_;
  IsmResult out_;
  Eigen::MatrixXd W_, W_prev_, W_next_;
  double trace_ = 0.0, trace_prev_ = 0.0, dist_ = 0.0;
  double residual_prev_ = std::numeric_limits<double>::infinity();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es_;
  AndersonProjector anderson_;
};

}  // namespace

IsmResult ism(HsicSums& sums, const Eigen::Ref<const Eigen::MatrixXd>& W0, const RowMatrixXd& A,
              const Eigen::VectorXd& c, const IsmOptions& options) {
  if (W0.cols() < 1 || W0.cols() > W0.rows()) throw std::invalid_argument("ism: W0 must be d x q with 1 <= q <= d");
  if (sums.rows() < 2) throw std::invalid_argument("ism: X must have at least 2 rows");
  if (A.rows() != sums.rows() || c.size() != A.cols())
    throw std::invalid_argument("ism: A must be n x m and c of length m");
  if (!W0.allFinite() || !A.allFinite() || !c.allFinite())
    throw std::invalid_argument("ism: W0, A and c must be finite");
  check_sigma(options.sigma);
  if (options.max_iter < 0) throw std::invalid_argument("max_iter must be >= 0");
  if (!(options.tol >= 0.0) || !std::isfinite(options.tol)) throw std::invalid_argument("tol must be finite and >= 0");
  if (options.anderson_depth < 0) throw std::invalid_argument("anderson_depth must be >= 0");
  // ISM converges linearly (rate: bench/results/kdac.md), one Phi assembly per step; Anderson
  // acceleration is used while the fixed-point residual shrinks and dropped (history cleared,
  // plain steps) as soon as it does not, which also leaves a 2-cycle (constant residual) to the
  // plain iteration and the 2-cycle test.
  sums.set_weights(A, c);
  IsmSolver solver(sums, W0, options);
  for (Index s = 1; s <= options.max_iter; ++s) {
    if (solver.map(s) <= options.tol) return solver.converged();
    if (s >= 2 && solver.two_cycle()) {
      if (solver.damp()) continue;
      return solver.keep_better_end();
    }
    solver.advance();
  }
  return solver.max_iter();
}

IsmResult ism(const MatrixRef& X, const Eigen::Ref<const Eigen::MatrixXd>& W0, const MatrixRef& A,
              const Eigen::Ref<const Eigen::VectorXd>& c, const IsmOptions& options, ThreadTeam& team,
              const InterruptPoll& poll) {
  if (W0.rows() != X.cols())
    throw std::invalid_argument("ism: W0 must be d x q with d = X's column count (" + std::to_string(X.cols()) +
                                ") and 1 <= q <= d, got " + std::to_string(W0.rows()) + " x " +
                                std::to_string(W0.cols()));
  if (!X.allFinite()) throw std::invalid_argument("ism: X, W0, A and c must be finite");
  LocalHsicSums sums(X, team, poll);
  return ism(sums, W0, RowMatrixXd(A), Eigen::VectorXd(c), options);
}

namespace {

// Shapes (they guard the indexing below), finiteness and every option, by its Python field name.
void check_kdac_shapes(const MatrixRef& X, const MatrixRef& Y, const std::optional<MatrixRef>& W0,
                       const KdacOptions& opt) {
  const Index n = X.rows(), d = X.cols(), k = opt.n_clusters;
  if (n < 2 || d < 1) throw std::invalid_argument("kdac: X must have at least 2 rows and 1 column");
  if (Y.rows() != n || Y.cols() < 1)
    throw std::invalid_argument("kdac: Y must be n x k_y with n = X's row count (" + std::to_string(n) +
                                ") and k_y >= 1, got " + std::to_string(Y.rows()) + " x " + std::to_string(Y.cols()));
  if (k < 1 || k > n) throw std::invalid_argument("kdac: n_clusters must satisfy 1 <= n_clusters <= n");
  if (W0 && (W0->rows() != d || W0->cols() < 1 || W0->cols() > d))
    throw std::invalid_argument("kdac: W0 must be d x q with 1 <= q <= d");
  if (!W0 && opt.q && (*opt.q < 1 || *opt.q > d)) throw std::invalid_argument("kdac: q must satisfy 1 <= q <= d");
  if (!X.allFinite() || !Y.allFinite() || (W0 && !W0->allFinite()))
    throw std::invalid_argument("kdac: X, Y and W0 must be finite");
  if (X.cwiseAbs().maxCoeff() > kMaxCoordinate)
    throw std::invalid_argument(
        "kdac: X's entries must be at most 1e150 in magnitude (squared distances must be finite)");
  check_sigma(opt.sigma);
  if (!(opt.lambda >= 0.0) || !std::isfinite(opt.lambda))
    throw std::invalid_argument("lambda_ must be finite and >= 0");
  if (opt.max_iter < 0 || opt.ism_max_iter < 0) throw std::invalid_argument("max_iter and ism_max_iter must be >= 0");
  if (opt.anderson_depth < 0) throw std::invalid_argument("anderson_depth must be >= 0");
  if (!(opt.tol >= 0.0) || !std::isfinite(opt.tol)) throw std::invalid_argument("tol must be finite and >= 0");
  if (!(opt.ism_tol_factor >= 0.0) || !std::isfinite(opt.ism_tol_factor))
    throw std::invalid_argument("ism_tol_factor must be finite and >= 0");
  if (opt.dense_max_n < 0) throw std::invalid_argument("dense_max_n must be >= 0");
  if (!(opt.eig_tol >= 0.0 && opt.eig_tol < 1.0)) throw std::invalid_argument("eig_tol must lie in [0, 1)");
  if (opt.n_random_features < 0)
    throw std::invalid_argument("n_random_features must be >= 0 (0: no random features), got " +
                                std::to_string(opt.n_random_features));
  if (!opt.landmarks.empty())
    check_low_rank(n, opt.landmarks);
  else if (opt.n_random_features > 0)
    throw std::invalid_argument("kdac: n_random_features > 0 needs landmarks (the U-step's Nystrom kernel)");
}

// Eq. (11): q at the largest gap between consecutive ascending eigenvalues of Phi_0.
Index largest_gap_q(const Eigen::VectorXd& eigenvalues) {
  Index q = 1;
  double best = -1.0;
  for (Index j = 1; j < eigenvalues.size(); ++j) {
    const double gap = eigenvalues(j) - eigenvalues(j - 1);
    if (gap > best) {
      best = gap;
      q = j;
    }
  }
  return q;
}

// Spectral initialisation, eq. (12), the second-order Taylor expansion at W = 0: there K = 11'
// and D = n I, so gamma = H (U U' - lambda Y Y') H / n has zero row sums, D_gamma = 0, and
//   Phi_0 = sum_ij gamma_ij A_ij / sigma^2 = -(2 / (n sigma^2)) X' H (U U' - lambda Y Y') H X.
// Its smallest eigenvectors are the largest of X'H(UU' - lambda YY')HX. Stores the eigenvalues of
// Phi_0 (ascending) in eigenvalues; q is options.q or chosen by eq. (11) on Phi_0 ("init-gap").
// The Taylor-order wording of the paper: KDAC docstring, Notes, "Errata".
Eigen::MatrixXd spectral_w0(const RowMatrixXd& Xc, const RowMatrixXd& Yc, const Eigen::MatrixXd& U,
                            const KdacOptions& opt, double lambda, Eigen::VectorXd& eigenvalues) {
  const double sigma = opt.sigma;
  const Eigen::MatrixXd XU = Xc.transpose() * U, XY = Xc.transpose() * Yc;
  const Eigen::MatrixXd M = XU * XU.transpose() - lambda * (XY * XY.transpose());
  const Eigen::MatrixXd phi0 = (-2.0 / (static_cast<double>(Xc.rows()) * sigma * sigma)) * M;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(phi0, Eigen::ComputeEigenvectors);
  eigenvalues = es.eigenvalues();
  const Index q = opt.q ? *opt.q : largest_gap_q(eigenvalues);
  Eigen::MatrixXd W = es.eigenvectors().leftCols(q);
  fix_signs(W);
  return W;
}

// The outer alternation of Algorithm 1 as named steps on its state (W, D, U); kdac() below is the
// loop. Each step reads and writes the members in the order Algorithm 1 (as amended in the
// comments) prescribes.
class KdacSolver {
 public:
  KdacSolver(const MatrixRef& X, const MatrixRef& Y, const KdacOptions& opt, HsicSums* sums, ThreadTeam& team,
             const InterruptPoll& poll)
      : opt_(opt),
        team_(team),
        poll_(poll),
        // Centre once: H X and H Y are what every formula sees (Phi and the kernel are translation
        // invariant).
        Xc_(X.rowwise() - X.colwise().mean()),
        Yc_(Y.rowwise() - Y.colwise().mean()),
        local_(Xc_, team, poll),
        low_rank_(!opt.landmarks.empty() ? std::make_unique<LowRankHsicSums>(Xc_, opt.n_random_features, opt.landmarks,
                                                                             opt.seed, team, poll)
                                         : nullptr),
        sums_(sums        ? *sums
              : low_rank_ ? *low_rank_
                          : static_cast<HsicSums&>(local_)) {
    res_.used_dense = !low_rank_ && X.rows() <= opt.dense_max_n;
  }

  // U_0, then W_0 (eq. 12 or the caller's W0) and the degrees D of its kernel.
  void initialise(const std::optional<MatrixRef>& W0) {
    // U_0: the spectral step (3) on the kernel of the full space (W = I), i.e. spectral clustering
    // of X itself ("initialise U_0 from the original clustering" of Algorithm 1, read as the
    // clustering the data show before any projection). A choice of ours: KDAC docstring, Notes.
    const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(Xc_.cols(), Xc_.cols());
    degree_ = operator_degree(*sums_.kernel(identity, opt_.sigma));
    UStep start = kernlearn::u_step(sums_, identity, Xc_, degree_, Yc_, opt_.sigma, opt_.n_clusters, Eigen::MatrixXd(),
                                    opt_, team_, poll_);
    U_ = std::move(start.U);
    // lambda_relative: scale lambda by HSIC(X, U_0) / HSIC(X, Y) at W = I, the two terms of (2a)
    // where U_0 is found (1 if either is not positive: there is no scale to match). Figures
    // for the default: bench/results/kdac_defaults.md.
    lambda_ = opt_.lambda;
    const double quality0 = start.values.sum();
    if (opt_.lambda_relative && quality0 > 0.0 && start.hsic_y > 0.0 && std::isfinite(quality0 / start.hsic_y))
      lambda_ *= quality0 / start.hsic_y;
    res_.lambda_effective = lambda_;
    if (!W0)
      W_ = spectral_w0(Xc_, Yc_, U_, opt_, lambda_, res_.init_eigenvalues);
    else
      W_ = *W0;  // a copy: the iterate, column-major like every d x q matrix here
    res_.q = W_.cols();
    res_.W_init = W_;
    // The first D-step; Z is constructed here (evaluated straight into it), assigned in d_step().
    Z_ = RowMatrixXd(Xc_ * W_);
    degree_ = operator_degree(*sums_.kernel(W_, opt_.sigma));
  }

  // W-step (4) by ISM with U and D held, from the previous W (Alg. 1; the first from eq. 12).
  void w_step(Index it, KdacIteration& rec) {
    gamma_factor(U_, Yc_, degree_, lambda_, A_, c_);
    // Inexact W-steps: solve each to a tenth of how far the previous outer iteration moved W (the
    // first to 1e-3), never tighter than tol. Early W-steps chase a gamma that the next U- and
    // D-steps change anyway; the outer test still needs a W-step whose first ISM step moved
    // <= tol, i.e. a fixed point of Algorithm 2 under the final gamma.
    const double ism_tol = std::max(opt_.tol, it == 1 ? 1e-3 : opt_.ism_tol_factor * res_.history.back().dist_w);
    IsmOptions ism_opt;
    ism_opt.sigma = opt_.sigma;
    ism_opt.max_iter = opt_.ism_max_iter;
    ism_opt.tol = ism_tol;
    ism_opt.anderson_depth = opt_.anderson_depth;
    IsmResult w = ism(sums_, W_, A_, c_, ism_opt);
    rec.dist_w = projection_distance(W_, w.W);
    rec.ism_iter = w.n_iter;
    rec.ism_cycled = w.cycled;
    rec.ism_damped = w.n_damped;
    res_.ism_cycled = res_.ism_cycled || w.cycled;
    W_ = std::move(w.W);
  }

  // D-step: the degrees of the new kernel. Algorithm 1 updates D at the top of the next
  // iteration, so its U-step uses the new K with the old D; we use the new D at once (Q is then
  // exactly H D^-1/2 K D^-1/2 H of the current W), and the next W-step sees the same D. A choice
  // of ours, listed in KDAC's docstring (Notes).
  void d_step() {
    Z_ = Xc_ * W_;
    degree_ = operator_degree(*sums_.kernel(W_, opt_.sigma));
  }

  // U-step (3), warm-started from the previous U.
  void u_step(KdacIteration& rec) {
    UStep u = kernlearn::u_step(sums_, W_, Z_, degree_, Yc_, opt_.sigma, opt_.n_clusters, U_, opt_, team_, poll_);
    rec.dist_u = projection_distance(U_, u.U);
    U_ = std::move(u.U);
    rec.quality = u.values.sum();  // Tr(U'QU) = HSIC(XW, U) without the 1/(n-1)^2
    rec.hsic_y = u.hsic_y;
    rec.cost = rec.quality - lambda_ * rec.hsic_y;
    rec.matvecs = u.matvecs;
  }

  void record(Index it, const KdacIteration& rec) {
    res_.history.push_back(rec);
    res_.n_iter = it;
    res_.cost = rec.cost;
    res_.quality = rec.quality;
    res_.hsic_y = rec.hsic_y;
  }

  // Cycles of the whole alternation: D moves with W but is held during the W-step, so the
  // (W, D, U) map is not an ascent map and can settle into a cycle, W_t ~ W_{t-p} != W_{t-1}, of
  // period p = 2 (Moon, sigma = 0.1, exact W-steps: the cost alternates in the 4th digit forever),
  // 3 or 4 (Moon and MoonN from some random starts). Detected when both W and U are back (to 1 %
  // of the last step, or tol) where they were p iterations ago; the state of the cycle with the
  // largest cost (2a) is kept. True if a cycle ended the alternation.
  bool cycled(const KdacIteration& rec) {
    for (std::size_t p = 2; p <= recent_.size(); ++p) {
      const State& old = recent_[recent_.size() - p];
      if (projection_distance(old.W, W_) <= std::max(opt_.tol, 1e-2 * rec.dist_w) &&
          projection_distance(old.U, U_) <= std::max(opt_.tol, 1e-2 * rec.dist_u)) {
        res_.cycle_period = static_cast<Index>(p);
        keep_best_of_cycle(p, rec);
        res_.outer_cycled = true;
        return true;
      }
    }
    return false;
  }

  // Appends the current state to the last few, for the cycle test.
  void remember(const KdacIteration& rec) {
    recent_.push_back(State{W_, U_, degree_, rec.cost, rec.quality, rec.hsic_y});
    if (recent_.size() > kMaxPeriod) recent_.pop_front();
  }

  // Certificates at the end: Phi(W*) with the final gamma; Lemma 2 (W* spans the q smallest
  // eigenvectors), the eigengap (11) and both sides of inequality (10).
  KdacResult finish(SolverStatus status) {
    res_.status = status;
    const double sigma = opt_.sigma;
    gamma_factor(U_, Yc_, degree_, lambda_, A_, c_);
    sums_.set_weights(A_, c_);
    const PhiResult ph = sums_.phi(W_, sigma, true);
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(ph.phi, Eigen::EigenvaluesOnly);
    res_.phi_eigenvalues = es.eigenvalues();
    const Index q = W_.cols(), d = Xc_.cols();
    res_.eigengap =
        q < d ? res_.phi_eigenvalues(q) - res_.phi_eigenvalues(q - 1) : std::numeric_limits<double>::quiet_NaN();
    res_.sigma_lhs = sigma * sigma * res_.eigengap;
    res_.sigma_rhs = ph.bound_rhs;
    const Eigen::MatrixXd PW = ph.phi * W_;
    const double phi_norm = std::max(ph.phi.norm(), std::numeric_limits<double>::min());
    res_.fixed_point_residual = (PW - W_ * (W_.transpose() * PW)).norm() / phi_norm;
    res_.W = std::move(W_);
    res_.U = std::move(U_);
    res_.degree = std::move(degree_);
    return std::move(res_);
  }

 private:
  // The state after one outer iteration, for the cycle test.
  struct State {
    Eigen::MatrixXd W, U;
    Eigen::VectorXd degree;
    double cost = 0.0, quality = 0.0, hsic_y = 0.0;
  };
  static constexpr std::size_t kMaxPeriod = 4;

  // Restores the state of the cycle of period p with the largest cost, if it is not the current one.
  void keep_best_of_cycle(std::size_t p, const KdacIteration& rec) {
    // The cycle's other states: the last p - 1 entries of recent_.
    const State* best = nullptr;
    for (std::size_t j = recent_.size() - (p - 1); j < recent_.size(); ++j)
      if (recent_[j].cost > (best ? best->cost : rec.cost)) best = &recent_[j];
    if (!best) return;
    W_ = best->W;
    U_ = best->U;
    degree_ = best->degree;
    res_.cost = best->cost;
    res_.quality = best->quality;
    res_.hsic_y = best->hsic_y;
  }

  const KdacOptions& opt_;
  ThreadTeam& team_;
  const InterruptPoll& poll_;
  const RowMatrixXd Xc_, Yc_;
  LocalHsicSums local_;
  std::unique_ptr<LowRankHsicSums> low_rank_;  // the low-rank path's sums (options.landmarks given)
  HsicSums& sums_;  // the caller's (a cluster's) sums if given, else low_rank_ if set, else local_
  KdacResult res_;
  Eigen::MatrixXd W_, U_;
  RowMatrixXd Z_, A_;  // Z = X W; A, c: the factors of gamma (gamma_factor)
  Eigen::VectorXd degree_, c_;
  double lambda_ = 0.0;       // the novelty weight used (options.lambda, scaled if lambda_relative)
  std::deque<State> recent_;  // oldest first, at most kMaxPeriod entries
};

}  // namespace

KdacResult kdac(const MatrixRef& X, const MatrixRef& Y, const std::optional<MatrixRef>& W0, const KdacOptions& opt,
                ThreadTeam& team, const Monitor<KdacIteration>& monitor, const InterruptPoll& poll, HsicSums* sums) {
  check_kdac_shapes(X, Y, W0, opt);
  if (sums && !opt.landmarks.empty())
    throw std::invalid_argument("kdac: the low-rank path (landmarks) computes its own sums");
  if (sums && sums->rows() != X.rows())
    throw std::invalid_argument("kdac: the kernel sums must be over the n = " + std::to_string(X.rows()) +
                                " rows of X, got " + std::to_string(sums->rows()));
  KdacSolver solver(X, Y, opt, sums, team, poll);
  solver.initialise(W0);
  SolverStatus status = SolverStatus::max_iter;
  for (Index it = 1; it <= opt.max_iter; ++it) {
    KdacIteration rec;
    solver.w_step(it, rec);
    solver.d_step();
    solver.u_step(rec);
    solver.record(it, rec);
    const bool converged = rec.dist_w <= opt.tol && rec.dist_u <= opt.tol;
    if (monitor_stops(monitor, it, rec)) {
      status = SolverStatus::interrupted;
      break;
    }
    if (converged) {
      status = SolverStatus::converged;
      break;
    }
    if (solver.cycled(rec)) {
      status = SolverStatus::not_converged;  // a cycle of the alternation, its best state kept
      break;
    }
    solver.remember(rec);
    if (poll && poll()) throw Interrupted();
  }
  return solver.finish(status);
}

}  // namespace kernlearn
