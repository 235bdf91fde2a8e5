#include "kernlearn/kernels/hsic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kernlearn {

namespace {

using Tile = Eigen::MatrixXd;  // column-major scratch, b x b

// Tiles (I, J) with J >= I of the n x n pair matrix cut into blocks of kHsicTile rows.
std::vector<std::pair<Index, Index>> upper_tiles(Index n) {
  const Index nb = (n + kHsicTile - 1) / kHsicTile;
  std::vector<std::pair<Index, Index>> tiles;
  tiles.reserve(static_cast<std::size_t>(nb * (nb + 1) / 2));
  for (Index I = 0; I < nb; ++I)
    for (Index J = I; J < nb; ++J) tiles.emplace_back(I, J);
  return tiles;
}

// Runs fn(member, i0, bi, j0, bj) over the upper tiles on the team, one tile per item. The calling
// thread (which may take the GIL) polls for interruption between tiles; a tile is 65k kernel
// entries (its time: bench/results/kdac.md).
template <class Fn>
void for_each_upper_tile(Index n, ThreadTeam& team, const InterruptPoll& poll, Fn&& fn) {
  const auto tiles = upper_tiles(n);
  team.for_each(
      static_cast<Index>(tiles.size()),
      [&](int member, Index t) {
        const Index i0 = tiles[static_cast<std::size_t>(t)].first * kHsicTile;
        const Index j0 = tiles[static_cast<std::size_t>(t)].second * kHsicTile;
        fn(member, i0, std::min(kHsicTile, n - i0), j0, std::min(kHsicTile, n - j0));
      },
      poll);
}

// K (bi x bj) = exp(-|z_i - z_j|^2 / (2 sigma^2)) for rows i0.., j0.. of Z; sq holds |z_i|^2.
// The squared distance comes from one GEMM; rounding can make it slightly negative (clamped) and
// leaves ~1e-16 |z|^2 on the diagonal of a diagonal tile, where it is exactly 0.
void kernel_tile(const MatrixRef& Z, const Eigen::VectorXd& sq, double sigma, Index i0, Index bi, Index j0, Index bj,
                 Tile& K) {
  K.resize(bi, bj);
  K.noalias() = Z.middleRows(i0, bi) * Z.middleRows(j0, bj).transpose();
  const double scale = -0.5 / (sigma * sigma);
  // d2 = sq_i + sq_j - 2 z_i'z_j, then K = exp(scale * d2): Eigen vectorises exp (SSE2 packets).
  // One fused pass over the tile (Eigen evaluates the whole expression per coefficient).
  K.array() = ((sq.segment(i0, bi).rowwise().replicate(bj).array() +
                sq.segment(j0, bj).transpose().colwise().replicate(bi).array() - 2.0 * K.array())
                   .max(0.0) *
               scale)
                  .exp();
  if (i0 == j0) K.diagonal().setOnes();
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

Eigen::VectorXd gaussian_degree(const MatrixRef& Z, double sigma, ThreadTeam& team, const InterruptPoll& poll) {
  check_sigma(sigma);
  if (!Z.allFinite()) throw std::invalid_argument("Z must be finite");
  if (Z.size() > 0 && Z.cwiseAbs().maxCoeff() > kMaxCoordinate)
    throw std::invalid_argument("Z's entries must be at most 1e150 in magnitude (squared distances must be finite)");
  const Index n = Z.rows();
  const Eigen::VectorXd sq = row_norms2(Z);
  std::vector<Eigen::VectorXd> acc(static_cast<std::size_t>(team.size()), Eigen::VectorXd::Zero(n));
  std::vector<Tile> scratch(static_cast<std::size_t>(team.size()));
  for_each_upper_tile(n, team, poll, [&](int t, Index i0, Index bi, Index j0, Index bj) {
    Tile& K = scratch[static_cast<std::size_t>(t)];
    kernel_tile(Z, sq, sigma, i0, bi, j0, bj, K);
    Eigen::VectorXd& d = acc[static_cast<std::size_t>(t)];
    d.segment(i0, bi) += K.rowwise().sum();
    if (i0 != j0) d.segment(j0, bj) += K.colwise().sum().transpose();  // the mirrored tile (J, I)
  });
  for (std::size_t t = 1; t < acc.size(); ++t) acc[0] += acc[t];
  return acc[0];
}

void gaussian_kernel_apply(const MatrixRef& Z, double sigma, const Eigen::Ref<const Eigen::MatrixXd>& V,
                           Eigen::Ref<Eigen::MatrixXd> Y, ThreadTeam& team, const InterruptPoll& poll) {
  check_sigma(sigma);
  const Index n = Z.rows(), m = V.cols();
  if (V.rows() != n || Y.rows() != n || Y.cols() != m)
    throw std::invalid_argument("gaussian_kernel_apply: V and Y must be n x m");
  const Eigen::VectorXd sq = row_norms2(Z);
  std::vector<Eigen::MatrixXd> acc(static_cast<std::size_t>(team.size()), Eigen::MatrixXd::Zero(n, m));
  std::vector<Tile> scratch(static_cast<std::size_t>(team.size()));
  for_each_upper_tile(n, team, poll, [&](int t, Index i0, Index bi, Index j0, Index bj) {
    Tile& K = scratch[static_cast<std::size_t>(t)];
    kernel_tile(Z, sq, sigma, i0, bi, j0, bj, K);
    Eigen::MatrixXd& y = acc[static_cast<std::size_t>(t)];
    y.middleRows(i0, bi).noalias() += K * V.middleRows(j0, bj);
    if (i0 != j0) y.middleRows(j0, bj).noalias() += K.transpose() * V.middleRows(i0, bi);
  });
  for (std::size_t t = 1; t < acc.size(); ++t) acc[0] += acc[t];
  Y = acc[0];
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

PhiResult hsic_phi(const MatrixRef& X, const Eigen::Ref<const Eigen::MatrixXd>& W, const MatrixRef& A,
                   const Eigen::Ref<const Eigen::VectorXd>& c, double sigma, bool with_bound, ThreadTeam& team,
                   const InterruptPoll& poll) {
  check_sigma(sigma);
  const Index n = X.rows(), d = X.cols(), m = A.cols();
  if (W.rows() != d) throw std::invalid_argument("hsic_phi: W must have one row per column of X");
  if (A.rows() != n || c.size() != m) throw std::invalid_argument("hsic_phi: A must be n x m and c of length m");
  const RowMatrixXd Z = X * W;
  const Eigen::VectorXd sq = row_norms2(Z);
  const Eigen::VectorXd xsq = with_bound ? row_norms2(X) : Eigen::VectorXd();
  const RowMatrixXd Ac = A * c.asDiagonal();  // gamma_ij = (A diag(c))_i . A_j

  struct Scratch {
    Tile K, G, D2;
    Eigen::MatrixXd GX, M;
    Eigen::MatrixXd phi;  // this member's sum of X'(D_G - G)X pieces, doubled for off-diagonal tiles
    double trace = 0.0, bound = 0.0;
  };
  std::vector<Scratch> scr(static_cast<std::size_t>(team.size()));
  for (auto& s : scr) s.phi = Eigen::MatrixXd::Zero(d, d);

  for_each_upper_tile(n, team, poll, [&](int t, Index i0, Index bi, Index j0, Index bj) {
    Scratch& s = scr[static_cast<std::size_t>(t)];
    kernel_tile(Z, sq, sigma, i0, bi, j0, bj, s.K);
    // G = gamma o K on the tile, gamma from its rank-m factor (one GEMM, m = k + k_y).
    s.G.resize(bi, bj);
    s.G.noalias() = Ac.middleRows(i0, bi) * A.middleRows(j0, bj).transpose();
    s.G.array() *= s.K.array();
    const double w = i0 == j0 ? 1.0 : 2.0;  // an off-diagonal tile stands for (I, J) and (J, I)
    s.trace += w * s.G.sum();
    // sum_{i in I, j in J} G_ij (x_i - x_j)(x_i - x_j)'
    //   = X_I' diag(G 1) X_I + X_J' diag(G' 1) X_J - X_I' G X_J - (X_I' G X_J)'.
    const auto XI = X.middleRows(i0, bi);
    const auto XJ = X.middleRows(j0, bj);
    const Eigen::VectorXd r = s.G.rowwise().sum();
    const Eigen::VectorXd col = s.G.colwise().sum().transpose();
    s.GX.resize(bi, d);
    s.GX.noalias() = s.G * XJ;
    s.M.resize(d, d);
    s.M.noalias() = XI.transpose() * s.GX;
    s.phi.noalias() += w * (XI.transpose() * r.asDiagonal() * XI);
    s.phi.noalias() += w * (XJ.transpose() * col.asDiagonal() * XJ);
    s.phi -= w * (s.M + s.M.transpose());
    if (with_bound) {
      // |x_i - x_j|^4 from one more GEMM over the d features.
      s.D2.resize(bi, bj);
      s.D2.noalias() = XI * XJ.transpose();
      s.D2 = -2.0 * s.D2;
      s.D2.colwise() += xsq.segment(i0, bi);
      s.D2.rowwise() += xsq.segment(j0, bj).transpose();
      s.D2 = s.D2.cwiseMax(0.0);
      if (i0 == j0) s.D2.diagonal().setZero();
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
  return out;
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
