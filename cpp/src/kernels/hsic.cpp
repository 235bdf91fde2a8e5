#include "kernlearn/kernels/hsic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernlearn/kernels/kernel_operator.hpp"

namespace kernlearn {

namespace {

using Tile = Eigen::MatrixXd;  // column-major scratch, b x b

// Depth of the pieces of the G X_J product: a 256 x 32 panel packs in 64 KiB (Scratch below).
constexpr Index kGemmDepth = 32;

// Tiles (I, J) of an ni x nj pair matrix cut into blocks of kHsicTile rows and columns: all of
// them, or for the pairs of one block with itself (same) those with J >= I.
std::vector<std::pair<Index, Index>> pair_tiles(Index ni, Index nj, bool same) {
  const Index nbi = (ni + kHsicTile - 1) / kHsicTile, nbj = (nj + kHsicTile - 1) / kHsicTile;
  std::vector<std::pair<Index, Index>> tiles;
  tiles.reserve(static_cast<std::size_t>(same ? nbi * (nbi + 1) / 2 : nbi * nbj));
  for (Index I = 0; I < nbi; ++I)
    for (Index J = same ? I : 0; J < nbj; ++J) tiles.emplace_back(I, J);
  return tiles;
}

// Runs fn(member, i0, bi, j0, bj) over pair_tiles on the team, one tile per item. The calling
// thread (which may take the GIL) polls for interruption between tiles; a tile is 65k kernel
// entries (its time: bench/results/kdac.md).
template <class Fn>
void for_each_tile(Index ni, Index nj, bool same, ThreadTeam& team, const InterruptPoll& poll, Fn&& fn) {
  const auto tiles = pair_tiles(ni, nj, same);
  team.for_each(
      static_cast<Index>(tiles.size()),
      [&](int member, Index t) {
        const Index i0 = tiles[static_cast<std::size_t>(t)].first * kHsicTile;
        const Index j0 = tiles[static_cast<std::size_t>(t)].second * kHsicTile;
        fn(member, i0, std::min(kHsicTile, ni - i0), j0, std::min(kHsicTile, nj - j0));
      },
      poll);
}

// The upper tiles (J >= I) of the n x n pair matrix.
template <class Fn>
void for_each_upper_tile(Index n, ThreadTeam& team, const InterruptPoll& poll, Fn&& fn) {
  for_each_tile(n, n, true, team, poll, std::forward<Fn>(fn));
}

// K (bi x bj) = exp(-|z_i - z_j|^2 / (2 sigma^2)) for rows i0.. of ZI and j0.. of ZJ; sqI, sqJ hold
// their |z|^2. The squared distance comes from one GEMM; rounding can make it slightly negative
// (clamped) and leaves ~1e-16 |z|^2 on the diagonal of a diagonal tile (diagonal: ZI and ZJ are
// the same rows), where it is exactly 0.
void kernel_tile(const MatrixRef& ZI, const Eigen::VectorXd& sqI, const MatrixRef& ZJ, const Eigen::VectorXd& sqJ,
                 double sigma, Index i0, Index bi, Index j0, Index bj, bool diagonal, Tile& K) {
  K.resize(bi, bj);
  K.noalias() = ZI.middleRows(i0, bi) * ZJ.middleRows(j0, bj).transpose();
  const double scale = -0.5 / (sigma * sigma);
  // d2 = sq_i + sq_j - 2 z_i'z_j, then K = exp(scale * d2): Eigen vectorises exp (SSE2 packets).
  // One fused pass over the tile (Eigen evaluates the whole expression per coefficient).
  K.array() = ((sqI.segment(i0, bi).rowwise().replicate(bj).array() +
                sqJ.segment(j0, bj).transpose().colwise().replicate(bi).array() - 2.0 * K.array())
                   .max(0.0) *
               scale)
                  .exp();
  if (diagonal) K.diagonal().setOnes();
}

// The tile (i0, j0) of the kernel of Z with itself.
void kernel_tile(const MatrixRef& Z, const Eigen::VectorXd& sq, double sigma, Index i0, Index bi, Index j0, Index bj,
                 Tile& K) {
  kernel_tile(Z, sq, Z, sq, sigma, i0, bi, j0, bj, i0 == j0, K);
}

Eigen::VectorXd row_norms2(const MatrixRef& Z) { return Z.rowwise().squaredNorm(); }

}  // namespace

void check_sigma(double sigma) {
  if (!(sigma >= kMinSigma && sigma <= kMaxSigma)) {
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", sigma);
    throw std::invalid_argument(
        std::string("sigma must lie in [1e-150, 1e150] (sigma^2 and 1 / sigma^2 finite), got ") + text);
  }
}

namespace {

// The Gaussian kernel of Z = X W with the Z it reads: KernelOperator refers to its points.
class ProjectedKernel final : public LinearOperator {
 public:
  ProjectedKernel(RowMatrixXd Z, double sigma, ThreadTeam& team, const InterruptPoll& poll)
      : Z_(std::move(Z)), K_(Z_, gaussian(sigma), 0.0, false, team, poll) {}
  Index rows() const override { return K_.rows(); }
  void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override {
    K_.apply(X, Y);
  }
  void column(Index j, Eigen::Ref<Eigen::VectorXd> out) const override { K_.column(j, out); }
  Eigen::VectorXd diagonal() const override { return K_.diagonal(); }

 private:
  static PairwiseKernel gaussian(double sigma) {
    check_sigma(sigma);
    PairwiseKernel k;
    k.kind = PairwiseKind::rbf;
    k.gamma = 0.5 / (sigma * sigma);
    return k;
  }
  RowMatrixXd Z_;
  KernelOperator K_;
};

}  // namespace

std::unique_ptr<LinearOperator> LocalHsicSums::kernel(const Eigen::MatrixXd& W, double sigma) {
  return std::make_unique<ProjectedKernel>(RowMatrixXd(Xc_ * W), sigma, team_, poll_);
}

Eigen::VectorXd operator_degree(const LinearOperator& K) {
  const Eigen::MatrixXd ones = Eigen::MatrixXd::Ones(K.rows(), 1);
  Eigen::MatrixXd degree(K.rows(), 1);
  K.apply(ones, degree);
  return degree.col(0);
}

Eigen::VectorXd gaussian_degree(const MatrixRef& Z, double sigma, ThreadTeam& team, const InterruptPoll& poll) {
  check_sigma(sigma);
  if (!Z.allFinite()) throw std::invalid_argument("Z must be finite");
  if (Z.size() > 0 && Z.cwiseAbs().maxCoeff() > kMaxCoordinate)
    throw std::invalid_argument("Z's entries must be at most 1e150 in magnitude (squared distances must be finite)");
  if (Z.rows() == 0) return Eigen::VectorXd();
  return operator_degree(ProjectedKernel(RowMatrixXd(Z), sigma, team, poll));
}

RowMatrixXd gaussian_kernel_dense(const MatrixRef& Z, double sigma, ThreadTeam& team, const InterruptPoll& poll) {
  check_sigma(sigma);
  const Index n = Z.rows();
  const Eigen::VectorXd sq = row_norms2(Z);
  RowMatrixXd out(n, n);
  std::vector<Tile> scratch(static_cast<std::size_t>(team.size()));
  for_each_upper_tile(n, team, poll, [&](int t, Index i0, Index bi, Index j0, Index bj) {
    Tile& K = scratch[static_cast<std::size_t>(t)];
    kernel_tile(Z, sq, sigma, i0, bi, j0, bj, K);
    out.block(i0, j0, bi, bj) = K;
    if (i0 != j0) out.block(j0, i0, bj, bi) = K.transpose();
  });
  return out;
}

void gaussian_kernel_dense_scaled(const MatrixRef& Z, double sigma, const Eigen::VectorXd& s, float* out,
                                  ThreadTeam& team, const InterruptPoll& poll) {
  check_sigma(sigma);
  const Index n = Z.rows();
  if (s.size() != n) throw std::invalid_argument("gaussian_kernel_dense_scaled: s must have n entries");
  const Eigen::VectorXd sq = row_norms2(Z);
  using FloatMap = Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
  FloatMap Q(out, n, n);
  std::vector<Tile> scratch(static_cast<std::size_t>(team.size()));
  for_each_upper_tile(n, team, poll, [&](int t, Index i0, Index bi, Index j0, Index bj) {
    Tile& K = scratch[static_cast<std::size_t>(t)];
    kernel_tile(Z, sq, sigma, i0, bi, j0, bj, K);
    K = s.segment(i0, bi).asDiagonal() * K * s.segment(j0, bj).asDiagonal();
    Q.block(i0, j0, bi, bj) = K.cast<float>();
    if (i0 != j0) Q.block(j0, i0, bj, bi) = K.transpose().cast<float>();
  });
}

PhiResult hsic_phi_pair(const MatrixRef& XI, const MatrixRef& XJ, const Eigen::Ref<const Eigen::MatrixXd>& W,
                        const MatrixRef& AI, const MatrixRef& AJ, const Eigen::Ref<const Eigen::VectorXd>& c,
                        double sigma, bool with_bound, bool same, ThreadTeam& team, const InterruptPoll& poll) {
  check_sigma(sigma);
  const Index ni = XI.rows(), nj = XJ.rows(), d = XI.cols(), m = AI.cols();
  if (XJ.cols() != d) throw std::invalid_argument("hsic_phi_pair: X_I and X_J must have the same columns");
  if (W.rows() != d) throw std::invalid_argument("hsic_phi: W must have one row per column of X");
  if (AI.rows() != ni || AJ.rows() != nj || AJ.cols() != m || c.size() != m)
    throw std::invalid_argument("hsic_phi: A must be n x m and c of length m");
  if (same && nj != ni) throw std::invalid_argument("hsic_phi_pair: same=True needs X_I and X_J of the same shape");
  // NaN or inf in any input spread to all of Phi unnoticed (issue 48).
  if (!XI.allFinite() || !XJ.allFinite() || !W.allFinite() || !AI.allFinite() || !AJ.allFinite() || !c.allFinite())
    throw std::invalid_argument("hsic_phi: X, W, A and c must be finite");
  const RowMatrixXd ZI = XI * W;
  const RowMatrixXd ZJ = same ? RowMatrixXd() : RowMatrixXd(XJ * W);
  const MatrixRef ZJr = same ? MatrixRef(ZI) : MatrixRef(ZJ);
  const Eigen::VectorXd sqI = row_norms2(ZI);
  const Eigen::VectorXd sqJ = same ? sqI : row_norms2(ZJr);
  const Eigen::VectorXd xsqI = with_bound ? row_norms2(XI) : Eigen::VectorXd();
  const Eigen::VectorXd xsqJ = with_bound ? row_norms2(XJ) : Eigen::VectorXd();
  const RowMatrixXd Ac = AI * c.asDiagonal();  // gamma_ij = (A_I diag(c))_i . (A_J)_j

  // Every buffer a tile needs lives here, sized once per thread: for d up to 64 (KDAC's data; the
  // benchmark's d = 16) the tile loop allocates nothing (ragged edge tiles resize once each).
  // With the 256 x 256 tile, Eigen's GEMM G X_J packs more than its stack limit (128 KiB) and
  // took that from malloc on every tile; under a fixed malloc trim / mmap threshold (Dask's nanny
  // sets MALLOC_TRIM_THRESHOLD_=65536 in every worker) each such buffer was mapped and unmapped
  // again, and a Phi(W) task ran 22 % slower than the same call elsewhere
  // (bench/results/distributed.md). The products below are cut so their packing fits the stack.
  struct Scratch {
    Tile K, G, D2;
    Eigen::MatrixXd GX, M, XtD;
    Eigen::VectorXd r, col;
    Eigen::MatrixXd phi;  // this member's sum of X'(D_G - G)X pieces, doubled for off-diagonal tiles
    double trace = 0.0, bound = 0.0;
  };
  std::vector<Scratch> scr(static_cast<std::size_t>(team.size()));
  for (auto& s : scr) s.phi = Eigen::MatrixXd::Zero(d, d);

  for_each_tile(ni, nj, same, team, poll, [&](int t, Index i0, Index bi, Index j0, Index bj) {
    Scratch& s = scr[static_cast<std::size_t>(t)];
    const bool diagonal = same && i0 == j0;
    kernel_tile(ZI, sqI, ZJr, sqJ, sigma, i0, bi, j0, bj, diagonal, s.K);
    // G = gamma o K on the tile, gamma from its rank-m factor (one GEMM, m = k + k_y).
    s.G.resize(bi, bj);
    s.G.noalias() = Ac.middleRows(i0, bi) * AJ.middleRows(j0, bj).transpose();
    s.G.array() *= s.K.array();
    const double w = diagonal ? 1.0 : 2.0;  // an off-diagonal tile stands for (I, J) and (J, I)
    s.trace += w * s.G.sum();
    // sum_{i in I, j in J} G_ij (x_i - x_j)(x_i - x_j)'
    //   = X_I' diag(G 1) X_I + X_J' diag(G' 1) X_J - X_I' G X_J - (X_I' G X_J)'.
    const auto XIt = XI.middleRows(i0, bi);
    const auto XJt = XJ.middleRows(j0, bj);
    s.r.resize(bi);
    s.r.noalias() = s.G.rowwise().sum();
    s.col.resize(bj);
    s.col.noalias() = s.G.colwise().sum().transpose();
    s.GX.resize(bi, d);
    s.GX.setZero();
    for (Index k0 = 0; k0 < bj; k0 += kGemmDepth) {  // depth cut: GEMM packing within the stack limit
      const Index kb = std::min(kGemmDepth, bj - k0);
      s.GX.noalias() += s.G.middleCols(k0, kb) * XJt.middleRows(k0, kb);
    }
    s.M.resize(d, d);
    s.M.noalias() = XIt.transpose() * s.GX;
    s.XtD.resize(d, std::max(bi, bj));
    s.XtD.leftCols(bi).noalias() = XIt.transpose() * s.r.asDiagonal();
    s.phi.noalias() += w * (s.XtD.leftCols(bi) * XIt);
    s.XtD.leftCols(bj).noalias() = XJt.transpose() * s.col.asDiagonal();
    s.phi.noalias() += w * (s.XtD.leftCols(bj) * XJt);
    s.phi -= w * (s.M + s.M.transpose());
    if (with_bound) {
      // |x_i - x_j|^4 from one more GEMM over the d features.
      s.D2.resize(bi, bj);
      s.D2.noalias() = XIt * XJt.transpose();
      s.D2 = -2.0 * s.D2;
      s.D2.colwise() += xsqI.segment(i0, bi);
      s.D2.rowwise() += xsqJ.segment(j0, bj).transpose();
      s.D2 = s.D2.cwiseMax(0.0);
      if (diagonal) s.D2.diagonal().setZero();
      s.bound += w * (s.G.array().abs() * s.D2.array().square()).sum();
    }
  });

  PhiResult out;
  out.phi = Eigen::MatrixXd::Zero(d, d);
  for (const auto& s : scr) {
    out.phi += s.phi;
    out.trace_gamma_k += s.trace;
    out.bound_rhs += s.bound;
  }
  // sum_ij G_ij A_ij was accumulated above (it equals 2 X'(D_G - G)X, see the header); eq. (8)
  // divides by sigma^2.
  out.phi /= sigma * sigma;
  out.phi = (0.5 * (out.phi + out.phi.transpose())).eval();  // eval: the transpose aliases the target
  out.bound_rhs /= sigma * sigma;
  if (!out.phi.allFinite() || !std::isfinite(out.trace_gamma_k) || !std::isfinite(out.bound_rhs))
    throw std::invalid_argument("hsic_phi: Phi(W) overflows float64 for this X, A, c and sigma: rescale X or c");
  return out;
}

PhiResult hsic_phi(const MatrixRef& X, const Eigen::Ref<const Eigen::MatrixXd>& W, const MatrixRef& A,
                   const Eigen::Ref<const Eigen::VectorXd>& c, double sigma, bool with_bound, ThreadTeam& team,
                   const InterruptPoll& poll) {
  if (A.rows() != X.rows()) throw std::invalid_argument("hsic_phi: A must be n x m and c of length m");
  return hsic_phi_pair(X, X, W, A, A, c, sigma, with_bound, true, team, poll);
}

double projection_distance(const Eigen::Ref<const Eigen::MatrixXd>& W1, const Eigen::Ref<const Eigen::MatrixXd>& W2) {
  if (W1.rows() != W2.rows() || W1.cols() != W2.cols())
    throw std::invalid_argument("projection_distance: W1 and W2 must have the same shape");
  // |W2 - W1 (W1' W2)|_F: the part of span W2 outside span W1. Equal to sqrt(q - |W1'W2|_F^2) but
  // without its cancellation, which would put a floor of ~1e-8 under the distance.
  const Eigen::MatrixXd residual = W2 - W1 * (W1.transpose() * W2);
  return residual.norm();
}

void fix_signs(Eigen::Ref<Eigen::MatrixXd> V) {
  for (Index j = 0; j < V.cols(); ++j) {
    Index imax = 0;
    V.col(j).cwiseAbs().maxCoeff(&imax);
    if (V(imax, j) < 0.0) V.col(j) = -V.col(j);
  }
}

}  // namespace kernlearn
