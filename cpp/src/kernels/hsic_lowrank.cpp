#include "kernlearn/kernels/hsic_lowrank.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>

#include <Eigen/Eigenvalues>

namespace kernlearn {

namespace {

// Rows per block of the feature passes: a block's 2F features (F = 256: 4 MB) stay in L2/L3 while
// the three products that read them run.
constexpr Index kLowRankRows = 1024;

Index block_count(Index n) { return (n + kLowRankRows - 1) / kLowRankRows; }

// The d x F frequencies omega_s ~ N(0, I_d), column by column.
Eigen::MatrixXd draw_frequencies(Index d, Index F, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd omega(d, F);
  for (Index s = 0; s < F; ++s)
    for (Index j = 0; j < d; ++j) omega(j, s) = normal(rng);
  return omega;
}

// The b x 2F features of rows i0 .. i0 + b of Z = X W: [cos(Z Om), sin(Z Om)] / sqrt(F).
void rff_rows(const MatrixRef& X, const Eigen::MatrixXd& W, const Eigen::MatrixXd& Om, Index i0, Index b,
              Eigen::MatrixXd& out) {
  const Index F = Om.cols();
  const Eigen::MatrixXd P = (X.middleRows(i0, b) * W) * Om;
  const double scale = 1.0 / std::sqrt(static_cast<double>(F));
  out.resize(b, 2 * F);
  out.leftCols(F) = P.array().cos() * scale;
  out.rightCols(F) = P.array().sin() * scale;
}

// Gaussian kernel entries between rows of Z and the landmark rows ZL into C (rows i0 .. i0 + b).
void kernel_rows(const RowMatrixXd& Z, const Eigen::VectorXd& sq, const RowMatrixXd& ZL, const Eigen::VectorXd& sqL,
                 double sigma, Index i0, Index b, Eigen::Ref<RowMatrixXd> C) {
  const double scale = -0.5 / (sigma * sigma);
  C.noalias() = Z.middleRows(i0, b) * ZL.transpose();
  C = ((sq.segment(i0, b).rowwise().replicate(ZL.rows()).array() + sqL.transpose().colwise().replicate(b).array() -
        2.0 * C.array())
           .max(0.0) *
       scale)
          .exp()
          .matrix();
}

// The Nystrom basis of the Gaussian kernel of Z = X W on the landmark rows: K ~ C R R' C' with
// C = K(Z, Z_L) (by row blocks, on demand) and R R' = K_LL^+ over the eigenpairs above
// kNystromRcond x the largest.
struct NystromBasis {
  RowMatrixXd Z, ZL;
  Eigen::VectorXd sq, sqL;
  Eigen::MatrixXd R;
  double sigma;

  NystromBasis(const MatrixRef& X, const Eigen::MatrixXd& W, double sigma_, const std::vector<Index>& landmarks)
      : Z(X * W), sigma(sigma_) {
    check_sigma(sigma);
    // The squared distances of Z must be finite, as every Gaussian kernel's (kMaxCoordinate).
    if (!Z.allFinite() || (Z.size() > 0 && Z.cwiseAbs().maxCoeff() > kMaxCoordinate))
      throw std::invalid_argument(
          "the projected points X W must be finite with entries within [-1e150, 1e150]: "
          "rescale X or W");
    const Index M = static_cast<Index>(landmarks.size());
    ZL.resize(M, Z.cols());
    for (Index l = 0; l < M; ++l) ZL.row(l) = Z.row(landmarks[static_cast<std::size_t>(l)]);
    sq = Z.rowwise().squaredNorm();
    sqL = ZL.rowwise().squaredNorm();
    RowMatrixXd KLL(M, M);
    kernel_rows(ZL, sqL, ZL, sqL, sigma, 0, M, KLL);
    KLL.diagonal().setOnes();
    const Eigen::MatrixXd sym = 0.5 * (KLL + KLL.transpose());
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(sym);
    if (es.info() != Eigen::Success) throw std::runtime_error("nystrom: the eigensolver of K_LL failed");
    const Eigen::VectorXd& mu = es.eigenvalues();
    const double cut = kNystromRcond * std::max(mu.maxCoeff(), 0.0);
    Index r = 0;
    for (Index i = 0; i < M; ++i) r += mu[i] > cut && mu[i] > 0.0;
    R.resize(M, r);
    for (Index i = M - r, t = 0; i < M; ++i, ++t) R.col(t) = es.eigenvectors().col(i) / std::sqrt(mu[i]);
  }
  Index size() const { return ZL.rows(); }
};

// Phi(W), Tr(gamma K) for K ~ Phi S Phi' (Phi: n x w by row blocks from features(i0, b, out); S:
// w x w symmetric, or empty for the identity): the algebra of the header, two passes over row
// blocks on the team.
using FeatureRows = std::function<void(Index, Index, Eigen::MatrixXd&)>;

PhiResult factor_phi(const MatrixRef& X, Index width, const FeatureRows& features, const Eigen::MatrixXd& S,
                     const MatrixRef& A, const Eigen::Ref<const Eigen::VectorXd>& c, double sigma, ThreadTeam& team,
                     const InterruptPoll& poll) {
  const Index n = X.rows(), d = X.cols(), m = A.cols();
  const Index blocks = block_count(n);
  const auto members = static_cast<std::size_t>(team.size());
  const bool identity = S.size() == 0;
  struct Scratch {
    Eigen::MatrixXd Phi, XA;
    Eigen::MatrixXd V, B;  // pass 1: Phi' A (w x m) and [X o a_r]' Phi (m d x w)
    Eigen::MatrixXd xdx;   // pass 2: X' diag(G 1) X
  };
  std::vector<Scratch> scr(members);
  for (auto& s : scr) {
    s.V = Eigen::MatrixXd::Zero(width, m);
    s.B = Eigen::MatrixXd::Zero(m * d, width);
    s.xdx = Eigen::MatrixXd::Zero(d, d);
  }
  team.for_each(
      blocks,
      [&](int t, Index blk) {
        Scratch& s = scr[static_cast<std::size_t>(t)];
        const Index i0 = blk * kLowRankRows, b = std::min(kLowRankRows, n - i0);
        features(i0, b, s.Phi);
        const auto Ab = A.middleRows(i0, b);
        const auto Xb = X.middleRows(i0, b);
        s.V.noalias() += s.Phi.transpose() * Ab;
        s.XA.resize(b, m * d);
        for (Index r = 0; r < m; ++r)
          for (Index j = 0; j < d; ++j) s.XA.col(r * d + j) = Ab.col(r).cwiseProduct(Xb.col(j));
        s.B.noalias() += s.XA.transpose() * s.Phi;
      },
      poll);
  Eigen::MatrixXd V = scr[0].V, B = scr[0].B;
  for (std::size_t t = 1; t < members; ++t) {
    V += scr[t].V;
    B += scr[t].B;
  }
  Eigen::MatrixXd SV = V;
  if (!identity) SV = S * V;
  const RowMatrixXd Ac = A * c.asDiagonal();
  team.for_each(
      blocks,
      [&](int t, Index blk) {
        Scratch& s = scr[static_cast<std::size_t>(t)];
        const Index i0 = blk * kLowRankRows, b = std::min(kLowRankRows, n - i0);
        features(i0, b, s.Phi);
        const Eigen::MatrixXd PV = s.Phi * SV;  // b x m
        const Eigen::VectorXd g = (PV.array() * Ac.middleRows(i0, b).array()).rowwise().sum();
        const auto Xb = X.middleRows(i0, b);
        s.xdx.noalias() += Xb.transpose() * g.asDiagonal() * Xb;
      },
      poll);
  Eigen::MatrixXd xdx = scr[0].xdx;
  for (std::size_t t = 1; t < members; ++t) xdx += scr[t].xdx;
  Eigen::MatrixXd xgx = Eigen::MatrixXd::Zero(d, d);
  PhiResult out;
  for (Index r = 0; r < m; ++r) {
    const Eigen::MatrixXd Br = B.middleRows(r * d, d);
    const Eigen::MatrixXd SBr = identity ? Eigen::MatrixXd(Br.transpose()) : Eigen::MatrixXd(S * Br.transpose());
    xgx.noalias() += c[r] * (Br * SBr);
    out.trace_gamma_k += c[r] * V.col(r).dot(SV.col(r));
  }
  // sum over ordered pairs of G_ij (x_i - x_j)(x_i - x_j)' = 2 X'(diag(G1) - G)X (hsic.hpp).
  out.phi = (2.0 / (sigma * sigma)) * (xdx - xgx);
  out.phi = (0.5 * (out.phi + out.phi.transpose())).eval();
  return out;
}

void check_phi_shapes(const MatrixRef& X, const Eigen::Ref<const Eigen::MatrixXd>& W, const MatrixRef& A,
                      const Eigen::Ref<const Eigen::VectorXd>& c) {
  if (W.rows() != X.cols()) throw std::invalid_argument("hsic_phi: W must have one row per column of X");
  if (A.rows() != X.rows() || c.size() != A.cols())
    throw std::invalid_argument("hsic_phi: A must be n x m and c of length m");
}

// The sampled (or, for small n, complete) right side of (10) with exact K and gamma per pair.
double sampled_bound(const MatrixRef& X, const Eigen::MatrixXd& W, const MatrixRef& A, const Eigen::VectorXd& c,
                     double sigma, std::uint64_t seed) {
  const Index n = X.rows();
  const RowMatrixXd Z = X * W;
  const RowMatrixXd Ac = A * c.asDiagonal();
  const double scale = -0.5 / (sigma * sigma);
  const auto term = [&](Index i, Index j) {
    const double gamma = Ac.row(i).dot(A.row(j));
    const double dz = (Z.row(i) - Z.row(j)).squaredNorm();
    const double dx = (X.row(i) - X.row(j)).squaredNorm();
    return std::abs(gamma) * std::exp(scale * dz) * dx * dx;
  };
  const double pairs = static_cast<double>(n) * static_cast<double>(n - 1);
  double sum = 0.0;
  if (pairs <= static_cast<double>(kLowRankBoundPairs)) {
    for (Index i = 0; i < n; ++i)
      for (Index j = i + 1; j < n; ++j) sum += 2.0 * term(i, j);
  } else {
    std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
    std::uniform_int_distribution<Index> first(0, n - 1), second(0, n - 2);
    for (Index s = 0; s < kLowRankBoundPairs; ++s) {
      const Index i = first(rng);
      Index j = second(rng);
      if (j >= i) ++j;  // uniform over j != i
      sum += term(i, j);
    }
    sum *= pairs / static_cast<double>(kLowRankBoundPairs);
  }
  return sum / (sigma * sigma);
}

// K ~ C K_LL^+ C' + diag(1 - (C K_LL^+ C')_ii): the Nystrom kernel (header), C stored. Products by
// row blocks.
class NystromKernel final : public LinearOperator {
 public:
  NystromKernel(const MatrixRef& X, const Eigen::MatrixXd& W, double sigma, const std::vector<Index>& landmarks,
                ThreadTeam& team, const InterruptPoll& poll)
      : team_(team), poll_(poll) {
    const NystromBasis basis(X, W, sigma, landmarks);
    const Index n = X.rows(), M = basis.size();
    R_ = basis.R;
    C_.resize(n, M);
    correction_.resize(n);
    // C by row blocks, and the diagonal correction 1 - |R' c_i|^2 (>= 0 up to rounding: K - C
    // K_LL^+ C' is PSD).
    team_.for_each(
        block_count(n),
        [&](int, Index blk) {
          const Index i0 = blk * kLowRankRows, b = std::min(kLowRankRows, n - i0);
          kernel_rows(basis.Z, basis.sq, basis.ZL, basis.sqL, sigma, i0, b, C_.middleRows(i0, b));
          const Eigen::MatrixXd CR = C_.middleRows(i0, b) * R_;
          correction_.segment(i0, b) = (1.0 - CR.rowwise().squaredNorm().array()).max(0.0).matrix();
        },
        poll_);
  }

  Index rows() const override { return C_.rows(); }

  void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override {
    const Index n = C_.rows(), M = C_.cols(), p = X.cols();
    const Index blocks = block_count(n);
    // T = C' X by per-member partial sums, then S = R R' T, then Y = C S + correction o X.
    std::vector<Eigen::MatrixXd> partial(static_cast<std::size_t>(team_.size()), Eigen::MatrixXd::Zero(M, p));
    team_.for_each(
        blocks,
        [&](int t, Index blk) {
          const Index i0 = blk * kLowRankRows, b = std::min(kLowRankRows, n - i0);
          partial[static_cast<std::size_t>(t)].noalias() += C_.middleRows(i0, b).transpose() * X.middleRows(i0, b);
        },
        poll_);
    Eigen::MatrixXd T = partial[0];
    for (std::size_t t = 1; t < partial.size(); ++t) T += partial[t];
    const Eigen::MatrixXd S = R_ * (R_.transpose() * T);
    team_.for_each(
        blocks,
        [&](int, Index blk) {
          const Index i0 = blk * kLowRankRows, b = std::min(kLowRankRows, n - i0);
          Y.middleRows(i0, b).noalias() = C_.middleRows(i0, b) * S;
          Y.middleRows(i0, b) += correction_.segment(i0, b).asDiagonal() * X.middleRows(i0, b);
        },
        poll_);
  }

  Eigen::VectorXd diagonal() const override { return Eigen::VectorXd::Ones(C_.rows()); }

 private:
  ThreadTeam& team_;
  InterruptPoll poll_;
  RowMatrixXd C_;
  Eigen::MatrixXd R_;
  Eigen::VectorXd correction_;
};

}  // namespace

void check_low_rank(Index n, const std::vector<Index>& landmarks) {
  const Index M = static_cast<Index>(landmarks.size());
  if (M < 1 || M > n)
    throw std::invalid_argument("n_landmarks must lie in [1, n_samples = " + std::to_string(n) + "], got " +
                                std::to_string(M));
  std::vector<Index> sorted(landmarks);
  std::sort(sorted.begin(), sorted.end());
  if (sorted.front() < 0 || sorted.back() >= n)
    throw std::invalid_argument("landmarks must be rows in [0, " + std::to_string(n) + ")");
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw std::invalid_argument("landmarks must be distinct rows");
}

PhiResult hsic_phi_rff(const MatrixRef& X, const Eigen::Ref<const Eigen::MatrixXd>& W, const MatrixRef& A,
                       const Eigen::Ref<const Eigen::VectorXd>& c, double sigma, Index n_frequencies,
                       std::uint64_t seed, bool with_bound, ThreadTeam& team, const InterruptPoll& poll) {
  check_sigma(sigma);
  if (n_frequencies < 1)
    throw std::invalid_argument("n_random_features must be >= 1, got " + std::to_string(n_frequencies));
  check_phi_shapes(X, W, A, c);
  const Eigen::MatrixXd Wc = W;
  // Frequencies drawn in the d-dimensional space of X and projected, W' omega_s: N(0, I_q) for an
  // orthonormal W, and omega_s' W W' x depends on the subspace only, as the Gaussian kernel of X W
  // does. (Frequencies drawn in q coordinates would change with the basis ISM returns, and ISM
  // then wandered at a distance ~1e-3 instead of converging.)
  const Eigen::MatrixXd Om = Wc.transpose() * draw_frequencies(X.cols(), n_frequencies, seed) / sigma;
  const FeatureRows features = [&](Index i0, Index b, Eigen::MatrixXd& out) { rff_rows(X, Wc, Om, i0, b, out); };
  PhiResult out = factor_phi(X, 2 * n_frequencies, features, Eigen::MatrixXd(), A, c, sigma, team, poll);
  if (with_bound) out.bound_rhs = sampled_bound(X, Wc, A, Eigen::VectorXd(c), sigma, seed);
  return out;
}

PhiResult hsic_phi_nystrom(const MatrixRef& X, const Eigen::Ref<const Eigen::MatrixXd>& W, const MatrixRef& A,
                           const Eigen::Ref<const Eigen::VectorXd>& c, double sigma,
                           const std::vector<Index>& landmarks, std::uint64_t seed, bool with_bound, ThreadTeam& team,
                           const InterruptPoll& poll) {
  check_low_rank(X.rows(), landmarks);
  check_phi_shapes(X, W, A, c);
  const Eigen::MatrixXd Wc = W;
  const NystromBasis basis(X, Wc, sigma, landmarks);
  const Eigen::MatrixXd S = basis.R * basis.R.transpose();  // K_LL^+
  const FeatureRows features = [&](Index i0, Index b, Eigen::MatrixXd& out) {
    RowMatrixXd C(b, basis.size());
    kernel_rows(basis.Z, basis.sq, basis.ZL, basis.sqL, sigma, i0, b, C);
    out = C;
  };
  PhiResult out = factor_phi(X, basis.size(), features, S, A, c, sigma, team, poll);
  if (with_bound) out.bound_rhs = sampled_bound(X, Wc, A, Eigen::VectorXd(c), sigma, seed);
  return out;
}

std::unique_ptr<LinearOperator> nystrom_kernel(const MatrixRef& X, const Eigen::Ref<const Eigen::MatrixXd>& W,
                                               double sigma, const std::vector<Index>& landmarks, ThreadTeam& team,
                                               const InterruptPoll& poll) {
  check_low_rank(X.rows(), landmarks);
  if (W.rows() != X.cols()) throw std::invalid_argument("nystrom_kernel: W must have one row per column of X");
  return std::make_unique<NystromKernel>(X, Eigen::MatrixXd(W), sigma, landmarks, team, poll);
}

LowRankHsicSums::LowRankHsicSums(const MatrixRef& Xc, Index n_frequencies, std::vector<Index> landmarks,
                                 std::uint64_t seed, ThreadTeam& team, InterruptPoll poll)
    : Xc_(Xc),
      n_frequencies_(n_frequencies),
      landmarks_(std::move(landmarks)),
      seed_(seed),
      team_(team),
      poll_(std::move(poll)) {
  if (n_frequencies_ < 0)
    throw std::invalid_argument("n_random_features must be >= 0 (0: Nystrom), got " + std::to_string(n_frequencies_));
  check_low_rank(Xc.rows(), landmarks_);
}

PhiResult LowRankHsicSums::phi(const Eigen::MatrixXd& W, double sigma, bool with_bound) {
  if (n_frequencies_ > 0) return hsic_phi_rff(Xc_, W, A_, c_, sigma, n_frequencies_, seed_, with_bound, team_, poll_);
  return hsic_phi_nystrom(Xc_, W, A_, c_, sigma, landmarks_, seed_, with_bound, team_, poll_);
}

}  // namespace kernlearn
