#include "kernlearn/linalg/chebyshev_filter.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include "kernlearn/core/solver_choice.hpp"

namespace kernlearn {

namespace {

// The far end of the spectrum is wanted only roughly: residual 1e-2 |A|, about the 1% margin
// below, which is put beyond the Ritz value by at least the residual anyway (an eigenvalue lies
// within it). A tighter 1e-3 cost more products (bench/results/eigsh.md).
constexpr double kFarTolerance = 1e-2;

// a sits this part of |b - estimate| beyond the estimate (or a residual beyond, if more).
constexpr double kFarMargin = 0.01;

// Below this |b - estimate| relative to their size, the filter has nothing to damp.
constexpr double kMinWidth = 1e-6;

// The filtered run's tolerance, relative to the caller's: residuals on p(A) are relative to
// p(lambda_max), and a pair just above b, where p' is smallest, then missed tol against A and sent
// the solve to plain Lanczos; 0.1 tol avoids that fallback at no cost in products
// (bench/results/eigsh.md).
constexpr double kFilteredTolerance = 0.1;

// The interval's end sits this part of |b - a| short of b (see filtered_lanczos).
constexpr double kTransition = 0.05;

// The filtered run stops after kCapPerPair k + kCapExtra products with p(A), well above what the
// measured runs needed (bench/results/eigsh.md); one that needs more has met the equioscillation band.
constexpr Index kCapPerPair = 12;
constexpr Index kCapExtra = 200;

}  // namespace

ChebyshevFilter::ChebyshevFilter(const LinearOperator& A, double far, double level, int degree)
    : A_(A), scale_(2.0 / (level - far)), centre_((level + far) / (level - far)), degree_(degree) {}

void ChebyshevFilter::apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const {
  // T_0 = X, T_1 = S X, T_j = 2 S T_{j-1} - T_{j-2} with S = scale A - centre I.
  // The three buffers are members: Lanczos calls this once a step, with the same shape.
  product_.resize(X.rows(), X.cols());
  A_.apply(X, product_);
  current_ = scale_ * product_ - centre_ * X;
  previous_ = X;
  for (int j = 2; j <= degree_; ++j) {
    A_.apply(current_, product_);
    previous_ = 2.0 * (scale_ * product_ - centre_ * current_) - previous_;
    previous_.swap(current_);
  }
  Y = current_;
}

namespace {

// filtered_lanczos's steps: the far end of the spectrum, the filtered run on p(A), the Rayleigh-Ritz
// values on A, then the check that decides between those and plain Lanczos.
class FilteredLanczos {
 public:
  FilteredLanczos(const LinearOperator& A, const Eigen::MatrixXd& start, const LanczosOptions& options,
                  ThreadTeam& team, const InterruptPoll& poll)
      : A_(A),
        start_(start),
        options_(options),
        team_(team),
        poll_(poll),
        level_(options.filter->level),
        degree_(options.filter->degree),
        n_(A.rows()),
        sign_(options.largest() ? 1.0 : -1.0) {}  // sign: the wanted side of the level

  // Estimates the far end of the spectrum (from far_end when it holds a vector, which it then
  // receives) and places the filter's interval [a, b] there. Returns false when there is nothing
  // (or next to nothing) on the unwanted side of the level to damp.
  bool find_far_end(Eigen::VectorXd& far_end) {
    LanczosOptions far_options;
    far_options.k = 1;
    far_options.which = options_.largest() ? LanczosWhich::smallest : LanczosWhich::largest;
    far_options.tol = kFarTolerance;
    far_options.seed = options_.seed + 1;
    far_options.max_matvec = options_.max_matvec;
    Eigen::MatrixXd far_start(n_, 1);
    if (far_end.size() == n_) {
      far_start.col(0) = far_end;
    } else {
      std::mt19937_64 rng(options_.seed + 2);
      std::normal_distribution<double> normal;
      for (Index i = 0; i < n_; ++i) far_start(i, 0) = normal(rng);
    }
    far_ = lanczos(A_, far_start, far_options, team_, poll_);
    const double estimate = far_.values(0);
    far_end = far_.vectors.col(0);
    const double width = sign_ * (level_ - estimate);
    if (!(width > kMinWidth * std::max(std::abs(estimate), std::abs(level_)))) return false;
    a_ = estimate - sign_ * std::max(far_.residuals(0), kFarMargin * width);
    return true;
  }

  Index far_matvecs() const { return far_.n_matvec; }

  // Plain Lanczos on what is left of the mat-vec budget (none: the default).
  LanczosResult plain(const Eigen::MatrixXd& from, Index spent, Index restarts) const {
    LanczosOptions rest = options_;
    if (options_.max_matvec) rest.max_matvec = std::max<Index>(1, *options_.max_matvec - spent);
    LanczosResult r = lanczos(A_, from, rest, team_, poll_);
    r.n_matvec += spent;
    r.n_restart += restarts;
    return r;
  }

  // Lanczos on p(A), p the Chebyshev filter of [a, edge].
  void run_filtered() {
    // The polynomial's interval ends short of the level: the pairs just on the unwanted side of it
    // map above 1 too, in order, so that a k larger than the count beyond the level is served
    // from them instead of from the equioscillation band, where Lanczos crawls.
    edge_ = level_ - sign_ * kTransition * std::abs(level_ - a_);
    const ChebyshevFilter filter(A_, a_, edge_, degree_);
    filtered_options_ = options_;
    filtered_options_.which = LanczosWhich::largest;  // beyond the edge, on either side, p > 1
    filtered_options_.tol = options_.tol * kFilteredTolerance;
    // Threshold mode: Lanczos counts on p(A) beyond p(threshold). It treats p values within
    // tol_p |p(A)| of that as at it, which is tol_p |p(A)| / p'(threshold) in A's units: checked
    // in finish against the plain band, tol |A|.
    if (options_.threshold) {
      x_threshold_ = (2.0 * *options_.threshold - a_ - edge_) / (edge_ - a_);
      filtered_options_.threshold = std::cosh(degree_ * std::acosh(x_threshold_));
    }
    std::optional<Index> budget;  // none: Lanczos's default
    if (options_.max_matvec) budget = std::max<Index>(1, (*options_.max_matvec - far_.n_matvec) / degree_);
    // By count, or up to max_rank: capped (threshold mode with no max_rank: the count is unknown).
    const std::optional<Index> pairs = options_.threshold ? options_.max_rank : std::optional<Index>(options_.k);
    if (pairs && *pairs > 0) {
      const Index cap = kCapPerPair * std::min(*pairs, n_) + kCapExtra;
      budget = budget ? std::min(*budget, cap) : cap;
    }
    filtered_options_.max_matvec = budget;
    found_ = lanczos_on_filter(filter, start_, filtered_options_, team_, poll_);
  }

  // A's eigenvalues: the Rayleigh quotients of the vectors found, in the wanted order; residuals
  // against A.
  LanczosResult rayleigh_ritz() {
    const Index m = found_.vectors.cols();
    Eigen::MatrixXd AV(n_, m);
    if (m > 0) apply_polled(A_, found_.vectors, AV, poll_);
    Eigen::VectorXd quotient(m);
    for (Index c = 0; c < m; ++c) quotient(c) = found_.vectors.col(c).dot(AV.col(c));
    std::vector<Index> order(static_cast<std::size_t>(m));
    std::iota(order.begin(), order.end(), Index{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](Index x, Index y) { return sign_ * quotient(x) > sign_ * quotient(y); });

    LanczosResult result;
    result.values.resize(m);
    result.vectors.resize(n_, m);
    result.residuals.resize(m);
    for (Index i = 0; i < m; ++i) {
      const Index c = order[static_cast<std::size_t>(i)];
      result.values(i) = quotient(c);
      result.vectors.col(i) = found_.vectors.col(c);
      result.residuals(i) = (AV.col(c) - quotient(c) * found_.vectors.col(c)).norm();
    }
    spent_ = far_.n_matvec + degree_ * found_.n_matvec + m;
    result.n_matvec = spent_;
    result.n_restart = found_.n_restart;
    result.n_locked = found_.n_locked;
    result.norm_estimate = std::max(std::abs(a_), m > 0 ? std::abs(result.values(0)) : 0.0);
    result.status = found_.status;
    result.max_rank_reached = found_.max_rank_reached;
    result.filtered = true;
    return result;
  }

  // The filtered result when it answers the call, else plain Lanczos from it.
  LanczosResult finish(LanczosResult result) const {
    // On the unwanted side of b, p is not monotone: the order holds only when every pair found
    // lies beyond b. The tolerance held on p(A), relative to |p(A)|, is checked against A.
    // Otherwise plain Lanczos finishes from the pairs found (its warm start locks those that
    // have converged).
    const Index m = result.values.size();
    const bool ordered = m == 0 || sign_ * (result.values(m - 1) - edge_) > 0.0;
    bool accurate = m == 0 || result.residuals.maxCoeff() <= options_.tol * result.norm_estimate;
    const double band = options_.tol * result.norm_estimate;  // plain Lanczos's, in A's units
    if (options_.threshold) {
      // p'(threshold) = d sinh(d t) / sinh(t) (d^2 at t = 0) times dx/dlambda, t = acosh(x).
      const double t = std::acosh(x_threshold_);
      const double slope = (t > 1e-8 ? degree_ * std::sinh(degree_ * t) / std::sinh(t) : double(degree_) * degree_) *
                           2.0 / std::abs(edge_ - a_);
      accurate = accurate && filtered_options_.tol * found_.norm_estimate / slope <= band;
    }
    // More pairs beyond the threshold than max_rank: the caller's signal, nothing to finish.
    if (found_.max_rank_reached) return trimmed(std::move(result), band);
    if (found_.status == SolverStatus::converged && ordered && accurate) return trimmed(std::move(result), band);
    if (options_.max_matvec && spent_ >= *options_.max_matvec) {  // no budget left: as found
      result.status = SolverStatus::max_iter;
      return trimmed(std::move(result), band);
    }
    return plain(m > 0 ? result.vectors : start_, spent_, found_.n_restart);
  }

 private:
  // Threshold mode: only the pairs beyond the threshold by more than the band, as plain Lanczos.
  LanczosResult trimmed(LanczosResult r, double band) const {
    if (!options_.threshold) return r;
    Index kept = 0;
    while (kept < r.values.size() && sign_ * (r.values(kept) - *options_.threshold) > band) ++kept;
    r.values.conservativeResize(kept);
    r.vectors.conservativeResize(n_, kept);
    r.residuals.conservativeResize(kept);
    return r;
  }

  const LinearOperator& A_;
  const Eigen::MatrixXd& start_;
  const LanczosOptions& options_;
  ThreadTeam& team_;
  const InterruptPoll& poll_;
  const double level_;
  const int degree_;
  const Index n_;
  const double sign_;
  LanczosResult far_;  // the far end's run
  double a_ = 0.0;     // the filter's interval [a, edge]
  double edge_ = 0.0;
  double x_threshold_ = 1.0;
  LanczosOptions filtered_options_;
  LanczosResult found_;  // the run on p(A)
  Index spent_ = 0;      // products with A so far
};

}  // namespace

LanczosResult filtered_lanczos(const LinearOperator& A, const Eigen::MatrixXd& start, const LanczosOptions& options,
                               Eigen::VectorXd& far_end, ThreadTeam& team, const InterruptPoll& poll) {
  if (!options.filter) throw std::invalid_argument("filtered_lanczos: options.filter is not set");
  // Degree 1 is an affine map of A: the same Krylov spaces, nothing gained.
  if (A.rows() < solver_choice::kMinFilteredSize || options.filter->degree < 2)
    return lanczos(A, start, options, team, poll);
  FilteredLanczos solve(A, start, options, team, poll);
  if (!solve.find_far_end(far_end)) return solve.plain(start, solve.far_matvecs(), 0);
  solve.run_filtered();
  return solve.finish(solve.rayleigh_ritz());
}

namespace {

// The size of A's entries: max |a_ij| for a matrix, else |A x| / |x| for a random x (one product;
// within a few sqrt(n) of |A|, which is all the scaling needs).
double norm_scale(const LinearOperator& A, std::uint64_t seed) {
  if (A.is_explicit()) {
    const double largest = A.max_abs();
    if (std::isnan(largest)) throw std::invalid_argument("A (its data) contains NaN or infinity");
    return largest;
  }
  std::mt19937_64 rng(seed + 3);
  std::normal_distribution<double> normal;
  Eigen::VectorXd x(A.rows()), y(A.rows());
  for (Index i = 0; i < x.size(); ++i) x(i) = normal(rng);
  A.apply(x, y);
  return y.stableNorm() / x.stableNorm();
}

// The residuals |A v - lambda v| measured (Lanczos's are the Krylov relation's estimates, which
// rounding moves away from the truth; the filtered pairs' are measured already), and the
// certificate withdrawn when one misses tol |A|_est.
LanczosResult measured(const LinearOperator& A, LanczosResult r, const LanczosOptions& options,
                       const InterruptPoll& poll) {
  const Index m = r.values.size();
  if (!r.filtered && m > 0) {
    Eigen::MatrixXd AV(A.rows(), m);
    apply_polled(A, r.vectors, AV, poll);
    r.n_matvec += m;
    for (Index c = 0; c < m; ++c) r.residuals(c) = (AV.col(c) - r.values(c) * r.vectors.col(c)).norm();
  }
  if (r.status == SolverStatus::converged && m > 0 && !(r.residuals.maxCoeff() <= options.tol * r.norm_estimate))
    r.status = SolverStatus::not_converged;
  return r;
}

// A warm block (the eigenvectors of an earlier, similar matrix, at least k of them) sets the
// filter's level: its k-th Ritz value lies on the unwanted side of A's k-th eigenvalue (Cauchy
// interlacing), close to it when the block is close to invariant. The filtered run then starts
// from the sum of the k wanted Ritz vectors. On a sequence of saddle-point matrices this takes
// 0.6 of a cold solve's time, where the block as Lanczos's start saves nothing: its Ritz pairs
// are 1e-2 from invariant, eight orders short of tol, and a block method from them (ChASE-style
// filtered subspace iteration, LOBPCG) needs 7-10 times the products (figures:
// bench/results/eigsh.md, "sequence").
// Returns nullopt (plain Lanczos from the block, as before) for small, narrow or dependent blocks
// (before any product), and for a block too far from invariant for its k-th Ritz value to mean
// anything (a residual above a tenth of |A|: a random block). A block whose wanted pairs already
// meet tol also returns nullopt, with `start` replaced by its k wanted Ritz vectors: Lanczos's
// warm start confirms those in a fraction of a cold solve (on tests/test_eigsh.py's perturbed
// matrices pairs between 1% of tol and tol still made it 3x cheaper than cold) at k more products
// instead of b. `matvecs` counts the products spent either way.
std::optional<LanczosFilter> warm_block_filter(const LinearOperator& A, Eigen::MatrixXd& start,
                                               const LanczosOptions& options, Eigen::MatrixXd& sum_start,
                                               Index& matvecs, const InterruptPoll& poll) {
  constexpr double kFarFromInvariant = 0.1;
  const Index n = A.rows(), b = start.cols(), k = options.k;
  if (options.threshold || b < 2 || b < k || n < solver_choice::kMinFilteredSize || b > n / 2) return std::nullopt;
  if (options.max_matvec && *options.max_matvec <= 2 * b) return std::nullopt;
  // Unit columns (an embedding's columns carry their scales), then the Cholesky factor of V'V:
  // the Rayleigh-Ritz step runs on the orthonormal basis V L^-T without forming it.
  const Eigen::VectorXd norms = start.colwise().norm().transpose();
  if (!(norms.minCoeff() > 0.0) || !norms.allFinite()) return std::nullopt;
  const Eigen::MatrixXd V = start * norms.cwiseInverse().asDiagonal();
  const Eigen::LLT<Eigen::MatrixXd> chol(V.transpose() * V);
  if (chol.info() != Eigen::Success) return std::nullopt;
  const Eigen::VectorXd diag = Eigen::MatrixXd(chol.matrixL()).diagonal();
  if (!(diag.minCoeff() > 1e-6)) return std::nullopt;  // a nearly dependent block: Lanczos trims it
  Eigen::MatrixXd AV(n, b);
  apply_polled(A, V, AV, poll);
  matvecs += b;
  Eigen::MatrixXd H = chol.matrixL().solve(Eigen::MatrixXd(V.transpose() * AV));
  H = chol.matrixL().solve(Eigen::MatrixXd(H.transpose()));
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(0.5 * (H + H.transpose()));
  if (eig.info() != Eigen::Success || !eig.eigenvalues().allFinite()) return std::nullopt;
  // Ascending: the wanted k are the last k (largest) or the first k (smallest).
  const Index first = options.largest() ? b - k : 0;
  const Eigen::MatrixXd S = chol.matrixU().solve(Eigen::MatrixXd(eig.eigenvectors().middleCols(first, k)));
  const Eigen::VectorXd theta = eig.eigenvalues().segment(first, k);
  const double norm = eig.eigenvalues().cwiseAbs().maxCoeff();
  const Eigen::MatrixXd R = AV * S - V * S * theta.asDiagonal();
  const double worst = R.colwise().norm().maxCoeff();
  if (!(worst <= kFarFromInvariant * norm)) return std::nullopt;
  if (!(worst > options.tol * norm)) {
    start = V * S;
    return std::nullopt;
  }
  sum_start = V * S.rowwise().sum();
  return LanczosFilter{options.largest() ? theta(0) : theta(k - 1), kFilterDegree};
}

LanczosResult solve_in_range(const LinearOperator& A, const Eigen::MatrixXd& start, const LanczosOptions& options,
                             ThreadTeam& team, const InterruptPoll& poll) {
  Eigen::VectorXd far_end;  // a random estimate of the far end
  if (options.filter) return measured(A, filtered_lanczos(A, start, options, far_end, team, poll), options, poll);
  Eigen::MatrixXd sum_start, block = start;
  Index block_matvecs = 0;  // spent by the warm block's Rayleigh-Ritz step, whichever way it went
  const auto filter = warm_block_filter(A, block, options, sum_start, block_matvecs, poll);
  LanczosOptions rest = options;
  if (rest.max_matvec) rest.max_matvec = std::max<Index>(1, *rest.max_matvec - block_matvecs);
  LanczosResult r;
  if (filter) {
    rest.filter = filter;
    r = filtered_lanczos(A, sum_start, rest, far_end, team, poll);
  } else {
    r = lanczos(A, block, rest, team, poll);
  }
  r.n_matvec += block_matvecs;
  return measured(A, std::move(r), options, poll);
}

// A level scaled with A: beyond 1e300 (A's norm is about 1 now) it means the same as infinity.
double scaled_level(double level, double scale) { return std::clamp(level * scale, -1e300, 1e300); }

}  // namespace

LanczosResult solve_lanczos(const LinearOperator& A, const Eigen::MatrixXd& start, const LanczosOptions& options,
                            ThreadTeam& team, const InterruptPoll& poll) {
  check_lanczos_options(A, start, options);
  // As LAPACK's dsyevd: an operator whose squares would overflow or underflow runs scaled by a
  // power of two, and its eigenvalues and residuals are scaled back (exactly).
  const double scale = safe_scale(norm_scale(A, options.seed));
  if (scale == 1.0) return solve_in_range(A, start, options, team, poll);
  const ScaledOperator B(A, scale);
  LanczosOptions scaled = options;
  if (scaled.threshold) scaled.threshold = scaled_level(*scaled.threshold, scale);
  if (scaled.filter) scaled.filter->level = scaled_level(scaled.filter->level, scale);
  LanczosResult r = solve_in_range(B, start, scaled, team, poll);
  const double back = 1.0 / scale;
  r.values *= back;
  r.residuals *= back;
  r.norm_estimate *= back;
  if (!r.values.allFinite()) throw std::invalid_argument("A's eigenvalues overflow double precision");
  return r;
}

}  // namespace kernlearn
