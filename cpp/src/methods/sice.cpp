#include "kernlearn/methods/sice.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <Eigen/Cholesky>

#include "kernlearn/core/symmetric_eigen.hpp"
#include "kernlearn/core/vector_ops.hpp"

namespace kernlearn {

namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
constexpr double kInf = std::numeric_limits<double>::infinity();

double pair_weight(Index i, Index j) { return i == j ? 1.0 : 2.0; }  // entries the pair (i, j), i >= j, holds

// A = (A + A') / 2 in place (no m x m temporary): exactly symmetric, as the clips and the
// transposed views handed to Python rely on.
void symmetrize(MatrixXd& A) {
  for (Index j = 0; j < A.cols(); ++j)
    for (Index i = j + 1; i < A.rows(); ++i) A(i, j) = A(j, i) = 0.5 * (A(i, j) + A(j, i));
}

// The Cholesky factor of a symmetric matrix, for its positive definiteness, log det and inverse:
// LAPACK (scipy's, handed in by the binding) when available, Eigen's LLT otherwise.
class SpdFactor {
 public:
  explicit SpdFactor(const SpdRoutines& lapack) : lapack_(lapack) {}

  // Factors A (its lower triangle); false when A is not (numerically) positive definite.
  bool compute(const MatrixXd& A) {
    if (lapack_.potrf) {
      factor_.resize(A.rows(), A.cols());
      factor_.triangularView<Eigen::Lower>() = A;  // dpotrf reads (and overwrites) only this half
      char uplo = 'L';
      int n = static_cast<int>(A.rows()), lda = n, info = 0;
      lapack_.potrf(&uplo, &n, factor_.data(), &lda, &info);
      if (info != 0) return false;
    } else {
      llt_.compute(A);
      if (llt_.info() != Eigen::Success) return false;
    }
    const MatrixXd& L = lapack_.potrf ? factor_ : llt_.matrixLLT();
    double sum = 0.0;
    for (Index i = 0; i < L.rows(); ++i) {
      const double d = L(i, i);
      if (!(d > 0.0) || !std::isfinite(d)) return false;
      sum += std::log(d);
    }
    logdet_ = 2.0 * sum;
    return true;
  }

  double logdet() const { return logdet_; }

  // The inverse of the last matrix factored, exactly symmetric (the clips downstream rely on it),
  // written into inv (its storage is reused: an m x m allocation per iteration page-faults).
  void inverse(MatrixXd& inv) const {
    if (lapack_.can_invert()) {
      inv.resize(factor_.rows(), factor_.cols());
      inv.triangularView<Eigen::Lower>() = factor_;
      invert_lower_triangle(inv);
      char uplo = 'L';
      int n = static_cast<int>(inv.rows()), lda = n, info = 0;
      lapack_.lauum(&uplo, &n, inv.data(), &lda, &info);  // L^-T L^-1 into the lower triangle
      if (info != 0) throw std::runtime_error("dlauum failed, info = " + std::to_string(info));
      inv.triangularView<Eigen::StrictlyUpper>() = inv.transpose();
      return;
    }
    const Index m = lapack_.potrf ? factor_.rows() : llt_.matrixLLT().rows();
    if (lapack_.potrf) {
      const MatrixXd half = factor_.triangularView<Eigen::Lower>().solve(MatrixXd::Identity(m, m));
      inv.noalias() = half.transpose() * half;  // (L L')^-1 = L^-T L^-1
    } else {
      inv = llt_.solve(MatrixXd::Identity(m, m));
    }
    symmetrize(inv);
  }

 private:
  // L^-1 in place (lower triangle), LAPACK's blocked dtrtri: blocks from the bottom right, where
  // with L = [A 0; B C] and C^-1 known, the block column below A becomes -C^-1 B A^-1.
  void invert_lower_triangle(MatrixXd& L) const {
    constexpr int block = 64;
    const int n = static_cast<int>(L.rows());
    int lda = n, info = 0;
    char left = 'L', right = 'R', lower = 'L', no_trans = 'N', non_unit = 'N';
    double one = 1.0, minus_one = -1.0;
    for (int j = ((n - 1) / block) * block; j >= 0; j -= block) {
      int jb = std::min(block, n - j), rest = n - j - jb;
      double* diagonal = &L(j, j);
      if (rest > 0) {
        double* below = &L(j + jb, j);
        lapack_.trmm(&left, &lower, &no_trans, &non_unit, &rest, &jb, &one, &L(j + jb, j + jb), &lda, below, &lda);
        lapack_.trsm(&right, &lower, &no_trans, &non_unit, &rest, &jb, &minus_one, diagonal, &lda, below, &lda);
      }
      lapack_.trtri(&lower, &non_unit, &jb, diagonal, &lda, &info);
      if (info != 0) throw std::runtime_error("dtrtri failed, info = " + std::to_string(info));
    }
  }

  SpdRoutines lapack_;
  MatrixXd factor_;
  Eigen::LLT<MatrixXd> llt_;
  double logdet_ = 0.0;
};

// F(M) + log det M: the part of F that is linear on each orthant, <S, M> + sum R |M|.
double linear_part(const MatrixXd& M, const MatrixXd& S, const MatrixXd& R) {
  return (S.array() * M.array() + R.array() * M.array().abs()).sum();  // one pass over the three
}

// F(M), or +inf when M is not positive definite; factor keeps M's factor for M^-1.
double objective(const MatrixXd& M, const MatrixXd& S, const MatrixXd& R, SpdFactor& factor) {
  if (!factor.compute(M)) return kInf;
  return -factor.logdet() + linear_part(M, S, R);
}

// Keeps the best dual point seen: every positive definite Z with |Z - S| <= R is a lower bound
// log det Z + m on the optimum, so the best one only ever tightens the certificate.
class DualCertificate {
 public:
  DualCertificate(const MatrixXd& S, const MatrixXd& R, const SiceOptions& opt) : S_(S), R_(R), factor_(opt.lapack) {}

  // Offers Z = S + clip(W - S, -R, R), the box point nearest to W (an estimate of M^-1, which
  // is the dual optimum at the solution), and returns whether it improved the bound.
  bool offer_inverse(const MatrixXd& W) {
    candidate_ = S_ + (W - S_).cwiseMax(-R_).cwiseMin(R_);
    return offer_candidate();
  }

  // Offers the box point that meets complementary slackness with X: Z = S + R o sign(X) on X's
  // non-zero pairs (`support`, which holds the diagonal, X_ii > 0), and S + clip(W - S, -R, R) off
  // them. Then F(X) - (log det Z + m) = <X, Z> - log det(X Z) - m, about |X^1/2 (Z - W) X^1/2|^2 / 2:
  // second order in the distance to the optimum (as F(X) - F* is), where offer_inverse's gap also
  // has the first-order term of certifiable_gap_bound. On the bench's problems it certified 1e-5
  // one to two iterations earlier.
  bool offer_kkt_point(const MatrixXd& X, const MatrixXd& W, const std::vector<std::pair<Index, Index>>& support) {
    candidate_ = S_ + (W - S_).cwiseMax(-R_).cwiseMin(R_);
    for (const auto& [i, j] : support)
      candidate_(i, j) = candidate_(j, i) = S_(i, j) + std::copysign(R_(i, j), X(i, j));
    return offer_candidate();
  }

  // Offers Z = S + clip(U, -R, R) for a step U (exactly in the box after the clip).
  bool offer_step(const MatrixXd& U) {
    candidate_ = S_ + U.cwiseMax(-R_).cwiseMin(R_);
    return offer_candidate();
  }

  double value() const { return value_; }
  MatrixXd take_point() { return std::move(Z_); }  // at the end of a solve (no m x m copy)

 private:
  bool offer_candidate() {
    if (!factor_.compute(candidate_)) return false;
    const double value = factor_.logdet() + static_cast<double>(S_.rows());
    if (value <= value_) return false;
    value_ = value;
    Z_.swap(candidate_);
    return true;
  }

  const MatrixXd& S_;
  const MatrixXd& R_;
  SpdFactor factor_;
  MatrixXd Z_, candidate_;
  double value_ = -kInf;
};

// A lower bound, in one pass over X, on the gap that the dual point Z = S + clip(W - S, -R, R)
// of DualCertificate::offer_inverse can certify for X (W = X^-1): log det is concave, so
// log det Z <= log det W + <X, Z - W> = -log det X + <X, Z> - m, and then
// F(X) - (log det Z + m) >= <S - Z, X> + sum R |X| = sum_ij R_ij |X_ij| - X_ij clip(W_ij - S_ij).
// Every term is >= 0 and vanishes at the optimum (Z = S + R o sign(X) on the support), so while
// the bound exceeds the tolerance the factorisation of Z, O(m^3), cannot succeed and is skipped.
// support: X's non-zero pairs (i, j), i >= j.
double certifiable_gap_bound(const MatrixXd& X, const MatrixXd& W, const MatrixXd& S, const MatrixXd& R,
                             const std::vector<std::pair<Index, Index>>& support) {
  double bound = 0.0;  // the terms off X's support are 0
  for (const auto& [i, j] : support) {
    const double x = X(i, j), r = R(i, j);
    bound += pair_weight(i, j) * (r * std::abs(x) - x * std::clamp(W(i, j) - S(i, j), -r, r));
  }
  return bound;
}

// An estimate of the gap that offer_kkt_point can certify for X, over X's support alone:
// |X^1/2 E X^1/2|^2 / 2 <= |X|_2^2 |E|^2 / 2 for E = Z - W, with |X|_2 bounded by X's largest
// absolute column sum, and E taken on the support only (off it E is the clip of W - S, which
// vanishes once the support has settled). Not a bound: on the bench's problems it was 5 to 35
// times the gap once the gap was below 1e-4.
double kkt_gap_estimate(const MatrixXd& X, const MatrixXd& W, const MatrixXd& S, const MatrixXd& R,
                        const std::vector<std::pair<Index, Index>>& support, VectorXd& column_sums) {
  column_sums.setZero(X.rows());
  double squares = 0.0;
  for (const auto& [i, j] : support) {
    const double x = X(i, j), residual = W(i, j) - S(i, j) - std::copysign(R(i, j), x);
    squares += pair_weight(i, j) * residual * residual;
    column_sums[j] += std::abs(x);
    if (i != j) column_sums[i] += std::abs(x);
  }
  const double largest = column_sums.maxCoeff();
  return 0.5 * largest * largest * squares;
}

// Whether the problem is bounded below, i.e. a positive definite Z lies in the box |Z - S| <= R.
// Both solvers first offer their start's dual point (for the default diagonal start, S with each
// off-diagonal entry moved towards 0 by R_ij); if that failed, S itself is tried.
bool find_dual_point(DualCertificate& certificate, const MatrixXd& S) {
  return std::isfinite(certificate.value()) || certificate.offer_step(MatrixXd::Zero(S.rows(), S.cols()));
}

constexpr double kSymmetryRtol = 1e-10;

double relative_gap(double primal, double dual) { return (primal - dual) / std::max(1.0, std::abs(primal)); }

double soft_threshold(double z, double t) { return z > t ? z - t : (z < -t ? z + t : 0.0); }

// The change of linear_part when the pair (i, j) moves from x to t.
double linear_change(const MatrixXd& S, const MatrixXd& R, Index i, Index j, double x, double t) {
  return pair_weight(i, j) * (S(i, j) * (t - x) + R(i, j) * (std::abs(t) - std::abs(x)));
}

// The non-zero pairs (i, j) among `pairs` (all of X's when pairs hold its support).
std::vector<std::pair<Index, Index>> nonzero_pairs(const MatrixXd& X,
                                                   const std::vector<std::pair<Index, Index>>& pairs) {
  std::vector<std::pair<Index, Index>> out;
  out.reserve(pairs.size());
  for (const auto& [i, j] : pairs)
    if (X(i, j) != 0.0) out.emplace_back(i, j);
  return out;
}

void check_interrupt(const InterruptPoll& poll) {
  if (poll && poll()) throw Interrupted();
}

// The free pairs p = (i, j), i >= j, of an orthant-wise Newton step, and the two products its
// conjugate-gradient solve needs, out_p = c_p (B E B)_ij for a symmetric E supported on the pairs
// (c_p = 2 off the diagonal, where the pair holds two entries, 1 on it):
// - the Hessian of -log det at X applied to a direction, c o (W D W) with W = X^-1 dense:
//   T = W D by one contiguous axpy per non-zero of D, then out_p = w_i . (row j of T), the rows
//   copied out 8 at a time; O(|pairs| m) with an m x m scratch (CD's, idle meanwhile). Gathering
//   y = D w_j column by column instead (O(m) scratch) was slower (bench/results/sice.md);
// - the preconditioner (X rho X), the exact inverse of that Hessian on the full space (so the
//   preconditioned system is the identity when every pair is free). X is supported on the pairs
//   (they are its non-zeros and the diagonal), so y = E x_j is sparse and out_p = x_i . y costs
//   O(deg): O(|pairs| deg) in all, deg the mean non-zeros per column of X, not O(|pairs| m).
class FreePairs {
 public:
  // scratch: an m x m buffer for hessian_times (newton lends CD's, idle during orthant steps).
  FreePairs(Index m, MatrixXd& scratch) : m_(m), T_(scratch), y_(VectorXd::Zero(m)) {}

  // pairs sorted by j, then i (so that the pairs of column j are contiguous).
  void reset(std::vector<std::pair<Index, Index>> pairs) {
    pairs_ = std::move(pairs);
    // The symmetric pattern in compressed columns: (i, j) sits in column j, and (j, i) in column i.
    start_.assign(static_cast<std::size_t>(m_) + 1, 0);
    first_.assign(static_cast<std::size_t>(m_) + 1, 0);
    for (const auto& [i, j] : pairs_) {
      ++start_[static_cast<std::size_t>(j) + 1];
      if (i != j) ++start_[static_cast<std::size_t>(i) + 1];
      ++first_[static_cast<std::size_t>(j) + 1];
    }
    for (Index c = 0; c < m_; ++c) {
      start_[c + 1] += start_[c];
      first_[c + 1] += first_[c];
    }
    row_.resize(static_cast<std::size_t>(start_[m_]));
    pair_.resize(row_.size());
    std::vector<Index> next(start_.begin(), start_.end() - 1);
    for (std::size_t p = 0; p < pairs_.size(); ++p) {
      const auto [i, j] = pairs_[p];
      const auto place = [&](Index row, Index col) {
        const auto e = static_cast<std::size_t>(next[col]++);
        row_[e] = row;
        pair_[e] = static_cast<Index>(p);
      };
      place(i, j);
      if (i != j) place(j, i);
    }
    value_.resize(row_.size());
  }

  Index size() const { return static_cast<Index>(pairs_.size()); }
  const std::pair<Index, Index>& operator[](Index p) const { return pairs_[static_cast<std::size_t>(p)]; }
  const std::vector<std::pair<Index, Index>>& list() const { return pairs_; }

  // out = c o (W D(v) W) on the pairs, with D(v)_ij = D(v)_ji = v_p.
  void hessian_times(const MatrixXd& W, const VectorXd& v, VectorXd& out) {
    out.resize(size());
    for (std::size_t e = 0; e < row_.size(); ++e) value_[e] = v[pair_[e]];
    T_.resize(m_, m_);
    for (Index c = 0; c < m_; ++c) {  // T = W D column by column: contiguous axpys
      double* t = T_.col(c).data();
      std::fill(t, t + m_, 0.0);
      for (Index e = start_[c]; e < start_[c + 1]; ++e) axpy(value_[e], W.col(row_[e]).data(), t, m_);
    }
    constexpr Index rows = 8;  // row j of T is D w_j; rows copied 8 at a time (one cache line per column)
    rows_.resize(rows * m_);
    for (Index j0 = 0; j0 < m_; j0 += rows) {
      const Index nb = std::min(rows, m_ - j0);
      for (Index c = 0; c < m_; ++c)
        for (Index b = 0; b < nb; ++b) rows_[b * m_ + c] = T_(j0 + b, c);
      for (Index p = first_[j0]; p < first_[j0 + nb]; ++p) {
        const auto [i, j] = pairs_[p];
        out[p] = pair_weight(i, j) * dot(W.col(i).data(), rows_.data() + (j - j0) * m_, m_);
      }
    }
  }

  // out = (X rho X) on the pairs, with rho_ij = rho_ji = r_p / c_p; X must be zero off the pairs.
  void precondition(const MatrixXd& X, const VectorXd& r, VectorXd& out) {
    out.resize(size());
    for (std::size_t e = 0; e < row_.size(); ++e) {
      const Index p = pair_[e];
      value_[e] = r[p] / pair_weight(pairs_[p].first, pairs_[p].second);
    }
    for (Index j = 0; j < m_; ++j) {
      // y = rho x_j: x_j's non-zeros are the rows k of column j, and rho's column k those of k.
      for (Index e = start_[j]; e < start_[j + 1]; ++e) {
        const Index k = row_[e];
        const double x = X(k, j);
        for (Index f = start_[k]; f < start_[k + 1]; ++f) y_[row_[f]] += value_[f] * x;
      }
      for (Index p = first_[j]; p < first_[j + 1]; ++p) {
        const Index i = pairs_[p].first;
        double sum = 0.0;
        for (Index f = start_[i]; f < start_[i + 1]; ++f) sum += y_[row_[f]] * X(row_[f], i);
        out[p] = sum;
      }
      for (Index e = start_[j]; e < start_[j + 1]; ++e)  // clear y where it was touched
        for (Index f = start_[row_[e]]; f < start_[row_[e] + 1]; ++f) y_[row_[f]] = 0.0;
    }
  }

 private:
  Index m_;
  std::vector<std::pair<Index, Index>> pairs_;
  std::vector<Index> start_, row_, pair_;  // column c of the pattern: rows row_[e], pairs pair_[e]
  std::vector<Index> first_;               // the pairs (i, j) of column j: first_[j] .. first_[j + 1]
  std::vector<double> value_;              // E on the pattern, entry by entry
  MatrixXd& T_;                            // hessian_times: W D (borrowed)
  std::vector<double> rows_;               // hessian_times: rows of T
  VectorXd y_;                             // precondition: rho x_j, zero between columns
};

// Solves H v = rhs on the free pairs by preconditioned conjugate gradients from v = 0, to a
// relative residual of `forcing` (inexact Newton). Returns the iteration count.
Index conjugate_gradients(FreePairs& pairs, const MatrixXd& W, const MatrixXd& X, const VectorXd& rhs, double forcing,
                          Index max_iter, VectorXd& v, const InterruptPoll& poll) {
  const Index n = pairs.size();
  v = VectorXd::Zero(n);
  VectorXd r = rhs, z, dir, Hdir;
  pairs.precondition(X, r, z);
  dir = z;
  double rz = r.dot(z);
  const double target = forcing * rhs.norm();
  Index it = 0;
  while (it < max_iter && r.norm() > target && rz > 0.0) {
    check_interrupt(poll);
    pairs.hessian_times(W, dir, Hdir);
    const double curvature = dir.dot(Hdir);
    if (!(curvature > 0.0)) break;  // rounding: H is positive definite in exact arithmetic
    const double alpha = rz / curvature;
    v += alpha * dir;
    r -= alpha * Hdir;
    pairs.precondition(X, r, z);
    const double rz_next = r.dot(z);
    dir = z + (rz_next / rz) * dir;
    rz = rz_next;
    ++it;
  }
  return it;
}

// QUIC's direction: coordinate descent on the l1-penalised quadratic model over the free set
// {(i, j), i >= j: X_ij != 0 or |G_ij| > R_ij}, G = S - W the gradient (off it the zero is
// optimal for the model, so D is stored as one value per free pair). For a symmetric change mu of
// (D_ij, D_ji) the model changes by (1/2) a mu^2 + b mu + R_ij |c + mu| (halved for i != j), with
// a = W_ij^2 + W_ii W_jj (W_ii^2 on the diagonal), b = G_ij + w_i' D w_j and c = X_ij + D_ij,
// minimised by c + mu = soft(c - b / a, R_ij / a). w_i' D w_j is read from U = D W, kept up to date
// in O(m) per coordinate; Ut = U' = W D makes the updates contiguous, and the column U e_j = Ut' e_j
// the sweep reads (a strided row of Ut) is copied once per j.
void coordinate_descent_direction(const MatrixXd& X, const MatrixXd& W, const MatrixXd& S, const MatrixXd& R,
                                  Index sweeps, std::vector<std::pair<Index, Index>>& free_set, std::vector<double>& D,
                                  MatrixXd& Ut, const InterruptPoll& poll) {
  const Index m = X.rows();
  free_set.clear();
  free_set.reserve(static_cast<std::size_t>(m * (m + 1) / 2));  // at most; untouched pages cost nothing
  for (Index j = 0; j < m; ++j)
    for (Index i = j; i < m; ++i)
      if (i == j || X(i, j) != 0.0 || std::abs(S(i, j) - W(i, j)) > R(i, j)) free_set.emplace_back(i, j);
  D.assign(free_set.size(), 0.0);
  Ut.setZero();
  VectorXd u(m);  // U e_j = D w_j, that is u_c = Ut(j, c)
  for (Index sweep = 0; sweep < sweeps; ++sweep) {
    Index column = -1;
    for (std::size_t p = 0; p < free_set.size(); ++p) {
      const auto [i, j] = free_set[p];
      if (j != column) {  // a column of pairs costs O(m^2): poll there
        check_interrupt(poll);
        u = Ut.row(j).transpose();
        column = j;
      }
      const double a = i == j ? W(i, i) * W(i, i) : W(i, j) * W(i, j) + W(i, i) * W(j, j);
      const double b = S(i, j) - W(i, j) + dot(W.col(i).data(), u.data(), m);
      const double c = X(i, j) + D[p];
      const double target = soft_threshold(c - b / a, R(i, j) / a);
      const double mu = target - c;
      if (mu == 0.0) continue;
      D[p] = target - X(i, j);  // so that X + D is exactly 0 where the threshold says so
      axpy(mu, W.col(i).data(), Ut.col(j).data(), m);
      u[j] += mu * W(j, i);
      if (i != j) {
        axpy(mu, W.col(j).data(), Ut.col(i).data(), m);
        u[i] += mu * W(j, j);
      }
    }
  }
}

// The orthant-wise direction on the current support: each non-zero pair (and the diagonal) keeps
// the sign s of X_ij, zero pairs stay zero (adding pairs is the CD step's job: freeing them here
// took Newton steps that broke positive definiteness, measured). On that orthant F is smooth,
// -log det X + <S + R o s, X>, and v solves its Newton system H v = rhs = -c o (S - W + R o s)
// inexactly by preconditioned CG. Returns false when no pair is free.
bool orthant_direction(const MatrixXd& X, const MatrixXd& W, const MatrixXd& S, const MatrixXd& R, Index max_cg,
                       FreePairs& pairs, std::vector<double>& sign, VectorXd& rhs, VectorXd& v,
                       const InterruptPoll& poll) {
  const Index m = X.rows();
  std::vector<std::pair<Index, Index>> free;
  sign.clear();
  for (Index j = 0; j < m; ++j)
    for (Index i = j; i < m; ++i) {
      const double x = X(i, j);
      if (x != 0.0 || i == j) {
        free.emplace_back(i, j);
        sign.push_back(x >= 0.0 ? 1.0 : -1.0);  // the diagonal is positive
      }
    }
  pairs.reset(std::move(free));
  const Index n = pairs.size();
  if (n == 0) return false;
  rhs.resize(n);
  for (Index p = 0; p < n; ++p) {
    const auto [i, j] = pairs[p];
    rhs[p] = -pair_weight(i, j) * (S(i, j) - W(i, j) + R(i, j) * sign[static_cast<std::size_t>(p)]);
  }
  // Forcing term min(0.1, |rhs|): quadratic convergence near the solution. CG steps cost
  // O(|pairs| m) against the O(m^3) of a Newton step, and the tighter solve saved a Newton step in
  // 4 of 6 bench problems over min(0.1, sqrt|rhs|) (1e-8 certified; a fixed 1e-6 cost more CG).
  conjugate_gradients(pairs, W, X, rhs, std::min(0.1, rhs.norm()), max_cg, v, poll);
  return true;
}

// ---------------------------------------------------------------------------------------------
// A start for Newton's method from sweeps of block coordinate descent on the dual, the graphical
// lasso (Banerjee, El Ghaoui & d'Aspremont 2008; Friedman, Hastie & Tibshirani 2008). It keeps W,
// the estimate of M^-1, with W_jj = S_jj + R_jj, and for each column j in turn solves the lasso
//     min_b  b' W_11 b / 2 - b' s_12 + sum_k R_kj |b_k|      (W_11: W without row and column j)
// by coordinate descent to a change of 1e-4 max_j W_jj, then sets w_12 = W_11 b; at a fixed point
// M_jj = 1 / (W_jj - w_12' b) and M_12 = -b M_jj. Newton's first phase finds the support slowly from
// the diagonal start (most of its iterations on the bench), while these sweeps,
// O(m^2) each, find it in a few: they stop once no entry of W moves by more than 3e-3 max_j W_jj
// (at most 6 sweeps: their convergence is linear, at a rate that degrades with cond(M), where
// Newton's is not). No sweep starts after 64 m^2 column updates (O(m) each), a guard for lassos
// that hit their pass limits (near-singular W), above what the measured problems took. A sweep is
// never cut short: that measured worse than finishing it (bench/results/sice.md). Returns false if the
// sweeps break down (non-finite values); the caller checks that the start is positive definite
// and better than the diagonal one. W and B are m x m work space; X receives the start.
bool block_descent_start(const MatrixXd& S, const MatrixXd& R, MatrixXd& W, MatrixXd& B, MatrixXd& X,
                         const InterruptPoll& poll) {
  constexpr Index max_sweeps = 6, max_passes = 20;
  const Index m = S.rows();
  W = S;
  B.setZero();                                            // column j: the lasso solution b of column j
  const VectorXd diagonal = S.diagonal() + R.diagonal();  // W's, fixed
  W.diagonal() = diagonal;
  const double lasso_tol = 1e-4 * diagonal.maxCoeff(), sweep_tol = 3e-3 * diagonal.maxCoeff();
  VectorXd g(m);  // W_11 b - s_12 (row j unused)
  std::vector<Index> active;
  Index updates = 0;  // axpys of a column of W, O(m) each
  for (Index sweep = 0; sweep < max_sweeps && updates <= 64 * m * m; ++sweep) {
    double moved = 0.0;
    for (Index j = 0; j < m; ++j) {
      check_interrupt(poll);  // one column's lasso: O(m^2) per pass
      double* b = B.col(j).data();
      const double* r = R.col(j).data();
      g = -S.col(j);
      for (Index k = 0; k < m; ++k)
        if (b[k] != 0.0) {
          axpy(b[k], W.col(k).data(), g.data(), m);
          ++updates;
        }
      // One coordinate: returns its change in the scale of g.
      const auto update = [&](Index k) {
        const double a = diagonal[k], next = soft_threshold(a * b[k] - g[k], r[k]) / a;
        if (next == b[k]) return 0.0;
        const double delta = next - b[k];
        axpy(delta, W.col(k).data(), g.data(), m);
        ++updates;
        b[k] = next;
        return std::abs(delta) * a;
      };
      // Full passes that pick the active set, each followed by passes over it (as glmnet does).
      for (Index round = 0; round < max_passes; ++round) {
        double largest = 0.0;
        active.clear();
        for (Index k = 0; k < m; ++k) {
          if (k == j || (b[k] == 0.0 && std::abs(g[k]) <= r[k])) continue;
          largest = std::max(largest, update(k));
          if (b[k] != 0.0) active.push_back(k);
        }
        if (largest <= lasso_tol) break;
        for (Index inner = 0; inner < max_passes; ++inner) {
          double change = 0.0;
          for (const Index k : active) change = std::max(change, update(k));
          if (change <= lasso_tol) break;
        }
      }
      for (Index k = 0; k < m; ++k)
        if (k != j) {
          const double w = g[k] + S(k, j);
          moved = std::max(moved, std::abs(w - W(k, j)));
          W(k, j) = W(j, k) = w;
        }
    }
    if (moved <= sweep_tol) break;
  }
  for (Index j = 0; j < m; ++j) {
    const double* b = B.col(j).data();
    double wb = 0.0;
    for (Index k = 0; k < m; ++k)
      if (k != j) wb += W(k, j) * b[k];
    const double pivot = 1.0 / (W(j, j) - wb);
    for (Index k = 0; k < m; ++k) X(k, j) = k == j ? pivot : -b[k] * pivot;
  }
  symmetrize(X);
  return X.allFinite();
}

// ---------------------------------------------------------------------------------------------
// Newton's method for F, in two phases.
//
// Far from the solution, QUIC's direction (Hsieh, Sustik, Dhillon & Ravikumar, JMLR 2014): the
// soft threshold of coordinate descent puts entries at exactly zero even when the step is damped,
// so the support shrinks quickly. But its sweeps converge at a rate set by cond(X)^2, which
// stalls it on ill-conditioned problems (bench/results/sice.md, "Figures moved from the code").
// Near the solution, once full steps are taken and the support has settled, orthant-wise Newton
// (as in Byrd, Chin, Nocedal & Oztoprak, Math. Program. 2016, who test it on this problem): on
// a fixed orthant F is smooth and CG, preconditioned by X (x) X (the inverse of the Hessian
// W (x) W of -log det on the full space), does not see that conditioning. Its line search
// projects onto the orthant (pairs crossing zero stop there: the support keeps adjusting). A
// damped orthant step sends the method back to the first phase. Both phases start from
// block_descent_start's point when the caller gives none.
class NewtonSolver {
 public:
  NewtonSolver(const MatrixXd& S, const MatrixXd& R, MatrixXd X, const SiceOptions& opt, const InterruptPoll& poll)
      : S_(S),
        R_(R),
        opt_(opt),
        poll_(poll),
        m_(S.rows()),
        X_(std::move(X)),
        factor_(opt.lapack),
        certificate_(S, R, opt),
        W_(m_, m_),
        Ut_(m_, m_),
        trial_(m_, m_),
        pairs_(m_, Ut_) {}

  SiceResult run() {
    if (!start()) return std::move(result_);
    for (Index iter = result_.n_iter; iter < opt_.max_iter; ++iter) {
      check_interrupt(poll_);
      if (gap_met()) {
        result_.status = SolverStatus::converged;
        break;
      }
      const Step outcome = orthant_phase() ? orthant_step() : cd_step();
      if (outcome == Step::stop) break;
      if (outcome == Step::retry) continue;
      accept();
      result_.n_iter = iter + 1;
      check_interrupt(poll_);
    }
    return finish();
  }

 private:
  enum class Step { accepted, retry, stop };
  static constexpr double kArmijo = 1e-4;

  // The start point's F and W = X^-1, the bounded check, then block_descent_start's point when it
  // is better. Returns false when no positive definite dual point exists (nothing to solve).
  bool start() {
    // The default start is diagonal (1 / S_ii): its log det and inverse are free, a factorisation
    // and an O(m^3) inverse are not. It serves the bounded check; then block_descent_start replaces
    // it when that is better.
    const bool diagonal_start = X_.isDiagonal(0.0);
    evaluate_start(diagonal_start);
    certificate_.offer_inverse(W_);
    if (!(result_.bounded = find_dual_point(certificate_, S_))) return false;
    const bool start_taken = diagonal_start && opt_.max_iter > 0 && take_block_descent_start();
    // Every step moves only a list of pairs (the CD step's free set, the orthant step's support), so
    // the trial point, F's linear part, the non-zero count and X's support are kept up to date over
    // that list instead of over all m^2 entries (bench/results/sice.md).
    trial_ = X_;  // and equals X between iterations
    for (Index j = 0; j < m_; ++j)
      for (Index i = j; i < m_; ++i)
        if (X_(i, j) != 0.0) support_.emplace_back(i, j);
    nnz_ = (X_.array() != 0.0).count();
    if (start_taken) {  // the start counts as the first iteration
      certify();
      result_.n_iter = 1;
    }
    return true;
  }

  // F and W at the caller's start; throws when it is not positive definite.
  void evaluate_start(bool diagonal_start) {
    linear_ = linear_part(X_, S_, R_);  // then kept up to date over the pairs each step moves
    f_ = kInf;
    if (diagonal_start) {
      if ((X_.diagonal().array() > 0.0).all()) f_ = -X_.diagonal().array().log().sum() + linear_;
    } else if (factor_.compute(X_)) {
      f_ = -factor_.logdet() + linear_;
    }
    if (!std::isfinite(f_))
      throw std::invalid_argument("the start point is not positive definite (S is too badly scaled: rescale S)");
    if (diagonal_start)
      W_ = X_.diagonal().cwiseInverse().asDiagonal();
    else
      factor_.inverse(W_);
  }

  // Replaces the diagonal start by block_descent_start's point when F is lower there (W serves as
  // the sweeps' work space, Ut and trial as well). Returns whether it did.
  bool take_block_descent_start() {
    bool taken = false;
    if (block_descent_start(S_, R_, W_, Ut_, trial_, poll_) && factor_.compute(trial_)) {
      const double linear_start = linear_part(trial_, S_, R_), f_start = -factor_.logdet() + linear_start;
      if ((taken = f_start < f_)) {
        X_.swap(trial_);
        f_ = f_start;
        linear_ = linear_start;
        factor_.inverse(W_);
      }
    }
    if (!taken) W_ = X_.diagonal().cwiseInverse().asDiagonal();
    return taken;
  }

  bool gap_met() const { return relative_gap(f_, certificate_.value()) <= opt_.tol; }

  // Phase 2 (orthant-wise Newton), unless CD is due to revise the support.
  bool orthant_phase() const { return local_ && !cd_next_; }

  // Near the optimum F is flat to rounding while the certificate (first order in the KKT
  // residual) is not yet tight: steps that do not raise F beyond rounding are taken.
  double rounding_slack() const { return 1e-13 * std::max(1.0, std::abs(f_)); }

  // A failed step: the first may be retried (by the other phase), two failures in a row end the run.
  Step fail(bool may_retry) {
    if (!may_retry || stalled_) return Step::stop;
    stalled_ = true;
    return Step::retry;
  }

  Step orthant_step() {
    if (!orthant_direction(X_, W_, S_, R_, opt_.max_cg, pairs_, sign_, rhs_, v_, poll_)) return Step::stop;
    moved_ = pairs_.list();
    double step = 1.0;
    const bool accepted = orthant_line_search(step);
    cd_next_ = !accepted || step < 1.0 || ++orthant_run_ % 3 == 0;  // then let CD revise the support
    if (!accepted) {
      restore_trial();
      return fail(true);
    }
    return Step::accepted;
  }

  // Backtracking along the orthant direction, projected onto the orthant (pairs crossing zero stop
  // there). Returns whether a step met the Armijo condition; `step` is the last one tried.
  bool orthant_line_search(double& step) {
    const double slack = rounding_slack();
    for (int attempt = 0; attempt < 40; ++attempt, step *= 0.5) {
      double predicted = 0.0;  // orthant gradient times the projected move
      linear_trial_ = write_trial([&](std::size_t p, double x) {
        double t = x + step * v_[static_cast<Index>(p)];
        if (t * sign_[p] < 0.0) t = 0.0;
        predicted -= rhs_[static_cast<Index>(p)] * (t - x);
        return t;
      });
      if (!(predicted < 0.0)) return false;
      check_interrupt(poll_);  // each trial costs a factorisation
      if (!factor_.compute(trial_)) continue;
      f_trial_ = -factor_.logdet() + linear_trial_;
      if (f_trial_ <= f_ + kArmijo * predicted + slack) return true;
    }
    return false;
  }

  Step cd_step() {
    // More sweeps as the iterates settle (QUIC's 1 + k / 3), capped: late accuracy is phase 2's.
    cd_next_ = false;
    coordinate_descent_direction(X_, W_, S_, R_, std::min<Index>(1 + cd_steps_ / 3, 10), moved_, D_, Ut_, poll_);
    ++cd_steps_;
    const double decrease = cd_model_decrease();
    // The model sees no descent: optimal to rounding, or support settled (then let the orthant
    // step refine the values on this support).
    if (!(decrease < 0.0)) return fail(local_);
    double step = 1.0;
    if (!cd_line_search(decrease, step)) {  // rounding stalls the search
      restore_trial();
      return fail(local_);  // when it ends the run, the certificate reports the gap reached
    }
    if (step == 1.0 && std::abs(nnz_trial_ - nnz_) <= std::max<Index>(2, nnz_ / 100)) local_ = true;
    return Step::accepted;
  }

  // <G, D> + sum R (|X + D| - |X|), G = S - W; D is 0 off the free set.
  double cd_model_decrease() const {
    double decrease = 0.0;
    for (std::size_t p = 0; p < moved_.size(); ++p) {
      const auto [i, j] = moved_[p];
      decrease += linear_change(S_, R_, i, j, X_(i, j), X_(i, j) + D_[p]) - pair_weight(i, j) * W_(i, j) * D_[p];
    }
    return decrease;
  }

  // Backtracking along the CD direction. Returns whether a step met the Armijo condition.
  bool cd_line_search(double decrease, double& step) {
    const double slack = rounding_slack();
    for (int attempt = 0; attempt < 40; ++attempt, step *= 0.5) {
      linear_trial_ = write_trial([&](std::size_t p, double x) { return x + step * D_[p]; });
      check_interrupt(poll_);
      if (!factor_.compute(trial_)) continue;
      f_trial_ = -factor_.logdet() + linear_trial_;
      if (f_trial_ <= f_ + kArmijo * step * decrease + slack) return true;
    }
    return false;
  }

  // trial = X + step * change on the moved pairs; returns F's linear part there and sets the
  // non-zero count.
  template <class Change>
  double write_trial(Change&& change) {
    double linear_trial = linear_;
    nnz_trial_ = nnz_;
    for (std::size_t p = 0; p < moved_.size(); ++p) {
      const auto [i, j] = moved_[p];
      const double x = X_(i, j), t = change(p, x);
      trial_(i, j) = t;
      trial_(j, i) = t;
      linear_trial += linear_change(S_, R_, i, j, x, t);
      nnz_trial_ += static_cast<Index>(pair_weight(i, j)) * ((t != 0.0) - (x != 0.0));
    }
    return linear_trial;
  }

  void restore_trial() {
    for (const auto& [i, j] : moved_) trial_(i, j) = trial_(j, i) = X_(i, j);
  }

  // The trial point becomes the iterate, factored (W = X^-1) and certified.
  void accept() {
    stalled_ = false;
    X_.swap(trial_);
    restore_trial();                       // trial (the old X) takes the new values on the moved pairs
    support_ = nonzero_pairs(X_, moved_);  // X's non-zeros lie among the pairs just moved
    nnz_ = nnz_trial_;
    f_ = f_trial_;
    linear_ = linear_trial_;
    check_interrupt(poll_);
    factor_.inverse(W_);
    check_interrupt(poll_);
    certify();
  }

  // At a new iterate X with W = X^-1 (X factored). Each dual point costs a factorisation: the KKT
  // point is tried once its estimate is within 10x of the tolerance (the estimate overstates the
  // gap), the clip point only once its bound says it can meet the tolerance (the slack covers the
  // bound's rounding).
  void certify() {
    const double scale = std::max(1.0, std::abs(f_));
    const bool try_kkt = kkt_gap_estimate(X_, W_, S_, R_, support_, column_sums_) <= 10.0 * opt_.tol * scale;
    const bool try_clip = certifiable_gap_bound(X_, W_, S_, R_, support_) <= (opt_.tol + 1e-13) * scale;
    if (try_kkt || try_clip) {
      linear_ = linear_part(X_, S_, R_);  // F exactly (no drift from the updates) for the certified gap
      f_ = -factor_.logdet() + linear_;
    }
    if (try_kkt) certificate_.offer_kkt_point(X_, W_, support_);
    clip_offered_ = try_clip && relative_gap(f_, certificate_.value()) > opt_.tol;
    if (clip_offered_) certificate_.offer_inverse(W_);
    result_.relative_gaps.push_back(relative_gap(f_, certificate_.value()));
  }

  // The final status from F exactly and the best certificate, and the result.
  SiceResult finish() {
    if (result_.status != SolverStatus::converged) {
      // F exactly: f has been kept up to date step by step (rounding drift about 1e-9 relative), and
      // the factor may hold a rejected trial point.
      if (factor_.compute(X_)) f_ = -factor_.logdet() + linear_part(X_, S_, R_);
      if (!clip_offered_) certificate_.offer_inverse(W_);  // the best bound for the last iterate
      result_.status = relative_gap(f_, certificate_.value()) <= opt_.tol ? SolverStatus::converged
                       : result_.n_iter >= opt_.max_iter                  ? SolverStatus::max_iter
                                                                          : SolverStatus::not_converged;  // stalled
    }
    result_.precision = std::move(X_);
    result_.primal = f_;
    result_.dual = certificate_.take_point();
    result_.dual_value = certificate_.value();
    return std::move(result_);
  }

  const MatrixXd& S_;
  const MatrixXd& R_;
  const SiceOptions& opt_;
  const InterruptPoll& poll_;
  const Index m_;
  MatrixXd X_;  // the iterate
  SpdFactor factor_;
  DualCertificate certificate_;
  MatrixXd W_;           // X^-1
  MatrixXd Ut_, trial_;  // CD's U' and the trial point (equal to X between iterations)
  FreePairs pairs_;      // the orthant step's free pairs (borrows Ut as scratch)
  SiceResult result_;
  double f_ = kInf, linear_ = 0.0;  // F at X and its linear part, kept up to date over the moved pairs
  double f_trial_ = kInf, linear_trial_ = 0.0;
  Index nnz_ = 0, nnz_trial_ = 0, cd_steps_ = 0, orthant_run_ = 0;
  std::vector<double> D_;  // the CD direction on its free set (0 elsewhere)
  std::vector<std::pair<Index, Index>> moved_, support_;
  std::vector<double> sign_;
  VectorXd rhs_, v_, column_sums_;
  bool local_ = false;        // phase 2
  bool cd_next_ = false;      // in phase 2: revise the support by a CD step after damped or every 3rd Newton step
  bool stalled_ = false;      // the previous step failed: two failures in a row end the run
  bool clip_offered_ = true;  // the current W's clip point has been offered to the certificate
};

SiceResult newton(const MatrixXd& S, const MatrixXd& R, MatrixXd X, const SiceOptions& opt, const InterruptPoll& poll) {
  return NewtonSolver(S, R, std::move(X), opt, poll).run();
}

// ---------------------------------------------------------------------------------------------
// Alternating linearization (Algorithm 1 of the paper), smoothed (sigma > 0) or not (sigma = 0).
// The paper's own choices and where this code departs from them are listed, with equation
// numbers, in the errata of python/kernlearn/metric/_s3ml.py; the notes here are the derivations.
//
// With Lambda = grad h_sigma(Y) (for sigma = 0: the subgradient of h at Y that the previous
// Y-step produced), the two steps are
//     M = argmin f(M) + <Lambda, M> + |M - Y|^2 / (2 mu)           = prox_{mu f}(Y - mu Lambda)
//     Y = argmin <grad f(M), Y> + h_sigma(Y) + |Y - M|^2 / (2 mu)  = prox_{mu h_sigma}(M - mu grad f(M))
// i.e. Peaceman-Rachford splitting. The M-step is eq. (23): with Y - mu (S + Lambda) = V diag(d) V',
// M = V diag(g) V' where g = (d + sqrt(d^2 + 4 mu)) / 2 (with Theorem 5's bound, g = max(lambda, .)),
// and M^-1 = V diag(1 / g) V' comes free. The Y-step is eq. (25): with Z = M - mu (S - M^-1),
// Y = Z - mu clip(Z / (sigma + mu), -R, R), and then Lambda = clip(Y / sigma, -R, R) =
// clip(Z / (sigma + mu), -R, R) (the same expression, also at sigma = 0, where Y = soft(Z, mu R)).
//
// sigma > 0: Y_ij = sigma Z_ij / (sigma + mu) wherever |Z_ij| <= R_ij (sigma + mu), so Y has no
// exact zeros (Remark 2's sparsity holds only at sigma = 0). The primal candidates are Y, and Y
// rounded: its entries with |Y_ij| <= sigma R_ij (the quadratic zone of h_sigma) set to 0, which
// restores the sparsity pattern that sigma = 0 would give; the one with the lower F (eq. 13) is kept.
//
// Theorem 5's bounds. lambda = 1 / (|S|_2 + |R|_2) <= the smallest eigenvalue of the optimum
// (Lu 2009, Prop. 3.1, with |Z - S|_2 <= |R|_2 for every dual point Z; the paper's m rho bounds |R|_2).
// The M-step bound is exact (eq. after 23). The constrained Y-step has no closed form (h_sigma is
// entrywise, the bound spectral); we project the unconstrained Y onto {Y >= lambda I} (eigenvalues
// clamped at lambda), an approximation of ours, and take Lambda = grad h_sigma at the projected Y.
//
// Step rule (adaptive, ours). f is smooth and strongly convex near M: its Hessian M^-1 (x) M^-1 has
// eigenvalues 1 / (g_i g_j) in [1 / g_max^2, 1 / g_min^2]. For splitting with an L-smooth,
// c-strongly convex term the linear rate is best at mu = 1 / sqrt(L c) (Giselsson & Boyd, IEEE TAC
// 2017), which here is mu = g_min * g_max of the current M. The paper's rule
// mu = 1 / max(L(f), L(h_sigma)) = min(lambda^2, sigma) (paper_mu) is kept to show that it stalls
// (bench/results/sice.md): at sigma = 1e-6 M moves by about mu per iteration.
SiceResult alternating_linearization(const MatrixXd& S, const MatrixXd& R, const MatrixXd& M0, const SiceOptions& opt,
                                     const InterruptPoll& poll) {
  const Index m = S.rows();
  const double sigma = opt.sigma;
  SpdFactor factor(opt.lapack);
  if (!std::isfinite(objective(M0, S, R, factor)))
    throw std::invalid_argument("the start point is not positive definite (S is too badly scaled: rescale S)");
  MatrixXd Y = M0, Lambda(m, m);
  if (sigma > 0.0) {
    Lambda = (Y / sigma).cwiseMax(-R).cwiseMin(R);  // grad h_sigma(Y^0)
  } else {
    factor.inverse(Lambda);
    Lambda = (Lambda - S).cwiseMax(-R).cwiseMin(R);
  }
  SiceResult result;
  DualCertificate certificate(S, R, opt);
  certificate.offer_step(Lambda);
  if (!(result.bounded = find_dual_point(certificate, S))) return result;

  double lambda = 0.0;  // Theorem 5's lower bound on the optimum's eigenvalues
  if (opt.bounds || opt.paper_mu) {
    Eigen::SelfAdjointEigenSolver<MatrixXd> eig_s(S, Eigen::EigenvaluesOnly), eig_r(R, Eigen::EigenvaluesOnly);
    const double norm_s = eig_s.eigenvalues().cwiseAbs().maxCoeff();
    const double norm_r = eig_r.eigenvalues().cwiseAbs().maxCoeff();
    lambda = 1.0 / (norm_s + norm_r);
  }
  double mu = opt.mu.value_or(0.0);
  if (!opt.mu) {
    if (opt.paper_mu) {
      mu = std::min(lambda * lambda, sigma);
    } else {
      Eigen::SelfAdjointEigenSolver<MatrixXd> eig(M0, Eigen::EigenvaluesOnly);
      mu = eig.eigenvalues().minCoeff() * eig.eigenvalues().maxCoeff();
    }
  }
  MatrixXd A(m, m), V, M = M0, Minv(m, m), Z(m, m), best_primal_point = M0;  // M = M0: max_iter = 0
  MatrixXd rounded;
  VectorXd d, g, e;
  double best_primal = kInf;
  const auto consider = [&](const MatrixXd& candidate) {
    const double value = objective(candidate, S, R, factor);
    if (value < best_primal) {
      best_primal = value;
      best_primal_point = candidate;
    }
  };

  for (Index iter = 0; iter < opt.max_iter; ++iter) {
    check_interrupt(poll);
    A = Y - mu * (S + Lambda);
    dense_eigenpairs_above(A, -kInf, 0, opt.dense_lapack, d, V, poll);
    g = (d.array() + (d.array().square() + 4.0 * mu).sqrt()) / 2.0;
    if (opt.bounds) g = g.cwiseMax(lambda);
    M.noalias() = V * g.asDiagonal() * V.transpose();
    Minv.noalias() = V * g.cwiseInverse().asDiagonal() * V.transpose();
    symmetrize(Minv);  // V diag(1 / g) V' is symmetric only to rounding
    Z = M - mu * (S - Minv);
    symmetrize(Z);
    // Lambda = clip(Z / (sigma + mu)) is grad h_sigma at the new Y (the subgradient at sigma = 0).
    Lambda = (Z / (sigma + mu)).cwiseMax(-R).cwiseMin(R);
    Y = Z - mu * Lambda;
    if (sigma == 0.0) {  // exact zeros: the soft threshold, entry by entry
      for (Index j = 0; j < m; ++j)
        for (Index i = 0; i < m; ++i) Y(i, j) = soft_threshold(Z(i, j), mu * R(i, j));
    }
    if (opt.bounds) {  // projection onto {Y >= lambda I} (approximate constrained Y-step: see above)
      check_interrupt(poll);
      A = Y;
      dense_eigenpairs_above(A, -kInf, 0, opt.dense_lapack, e, V, poll);
      if (e.minCoeff() < lambda) {
        Y.noalias() = V * e.cwiseMax(lambda).asDiagonal() * V.transpose();
        symmetrize(Y);
        Lambda = (Y / sigma).cwiseMax(-R).cwiseMin(R);
      }
    }

    certificate.offer_step(Lambda);  // the paper's dual point S + grad h_sigma (may be indefinite)
    certificate.offer_inverse(Minv);
    // The sparse answer is Y (rounded for sigma > 0); M (dense, always positive definite) only
    // stands in while no Y is.
    consider(Y);
    if (sigma > 0.0) {
      rounded = Y;
      for (Index j = 0; j < m; ++j)
        for (Index i = 0; i < m; ++i)
          if (R(i, j) > 0.0 && std::abs(rounded(i, j)) <= sigma * R(i, j)) rounded(i, j) = 0.0;
      consider(rounded);
    }
    result.n_iter = iter + 1;
    // While no Y is positive definite the gap is the dense M's (positive definite by
    // construction): relative_gap(inf, dual) was inf / inf, a NaN in the history (issue 48).
    const double primal_now = std::isfinite(best_primal) ? best_primal : objective(M, S, R, factor);
    result.relative_gaps.push_back(std::isfinite(primal_now) ? relative_gap(primal_now, certificate.value()) : kInf);
    if (std::isfinite(best_primal) && relative_gap(best_primal, certificate.value()) <= opt.tol) {
      result.status = SolverStatus::converged;
      break;
    }
    if (!opt.mu && !opt.paper_mu && (iter + 1) % opt.mu_period == 0) mu = g.minCoeff() * g.maxCoeff();
    check_interrupt(poll);
  }
  if (!std::isfinite(best_primal)) {  // no positive definite Y yet: report the dense M
    best_primal_point = M;
    symmetrize(best_primal_point);  // V diag(g) V' is symmetric only to rounding
    best_primal = objective(best_primal_point, S, R, factor);
  }
  result.precision = std::move(best_primal_point);
  result.primal = best_primal;
  result.dual = certificate.take_point();
  result.dual_value = certificate.value();
  return result;
}

// ---------------------------------------------------------------------------------------------
// Exact covariance thresholding (Witten, Friedman & Simon 2011; Mazumder & Hastie 2012): the
// solution is block diagonal over the connected components of the graph with an edge (i, j)
// wherever |S_ij| > R_ij. On a block-diagonal M with W = M^-1 every cross-block pair has
// |S_ij - W_ij| = |S_ij| <= R_ij, so it meets the optimality conditions, and F is strictly convex.
// Each block is solved alone: O(sum m_k^3) for O(m^3) per iteration. The blocks' dual points make
// a dual point of the whole (zero across blocks, allowed by the same inequality), so gaps and
// objectives add. The saving on the bench's problems is in bench/results/sice.md.

// The components, each with its indices ascending, in the order of their smallest index.
std::vector<std::vector<Index>> independent_blocks(const MatrixXd& S, const MatrixXd& R) {
  const Index m = S.rows();
  std::vector<Index> parent(static_cast<std::size_t>(m));
  for (Index i = 0; i < m; ++i) parent[i] = i;
  const auto root = [&](Index i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];  // path halving
    return i;
  };
  for (Index j = 0; j < m; ++j)
    for (Index i = j + 1; i < m; ++i)
      if (std::abs(S(i, j)) > R(i, j)) {
        const Index a = root(i), b = root(j);
        if (a != b) parent[std::max(a, b)] = std::min(a, b);
      }
  std::vector<std::vector<Index>> blocks;
  std::vector<Index> block_of(static_cast<std::size_t>(m), -1);
  for (Index i = 0; i < m; ++i) {
    const Index r = root(i);
    if (block_of[r] < 0) {
      block_of[r] = static_cast<Index>(blocks.size());
      blocks.emplace_back();
    }
    blocks[block_of[r]].push_back(i);
  }
  return blocks;
}

SiceResult solve_connected(const MatrixXd& S, const MatrixXd& R, MatrixXd start, const SiceOptions& options,
                           const InterruptPoll& poll) {
  if (options.solver == SiceSolver::newton) return newton(S, R, std::move(start), options, poll);
  return alternating_linearization(S, R, start, options, poll);
}

// Every block solved to the relative tolerance; if the summed gap misses it (the blocks' own
// scales max(1, |F_k|) add up to more than the whole's), the blocks are solved again from their
// answers to tol * max(1, |F|) / sum_k max(1, |F_k|), which meets it unless F moves on the way or
// a block stops at max_iter (status then says so). n_iter and the history are those of the
// block that took the most iterations.
SiceResult solve_blocks(const MatrixXd& S, const MatrixXd& R, const MatrixXd& start,
                        const std::vector<std::vector<Index>>& blocks, const SiceOptions& options,
                        const InterruptPoll& poll) {
  const Index m = S.rows();
  std::vector<SiceResult> parts(blocks.size());
  std::vector<Index> iterations(blocks.size(), 0);
  std::vector<std::vector<double>> histories(blocks.size());
  SiceOptions opt = options;
  double primal = 0.0, dual = 0.0;
  bool stalled = false;  // a block of the last pass stopped short of max_iter without converging
  for (int pass = 0; pass < 2; ++pass) {
    double scale = 0.0;
    primal = dual = 0.0;
    for (std::size_t k = 0; k < blocks.size(); ++k) {
      const std::vector<Index>& b = blocks[k];
      MatrixXd block_start = pass == 0 ? MatrixXd(start(b, b)) : std::move(parts[k].precision);
      parts[k] = solve_connected(S(b, b), R(b, b), std::move(block_start), opt, poll);
      SiceResult& part = parts[k];
      if (!part.bounded) {
        SiceResult out;
        out.bounded = false;
        return out;
      }
      iterations[k] += part.n_iter;
      histories[k].insert(histories[k].end(), part.relative_gaps.begin(), part.relative_gaps.end());
      primal += part.primal;
      dual += part.dual_value;
      scale += std::max(1.0, std::abs(part.primal));
    }
    stalled = false;
    for (const SiceResult& part : parts) stalled = stalled || part.status == SolverStatus::not_converged;
    if (relative_gap(primal, dual) <= options.tol) break;
    opt.tol = options.tol * std::max(1.0, std::abs(primal)) / scale;
  }
  SiceResult out;
  out.precision = MatrixXd::Zero(m, m);
  out.dual = MatrixXd::Zero(m, m);
  std::size_t hardest = 0;
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    const std::vector<Index>& b = blocks[k];
    out.precision(b, b) = parts[k].precision;
    out.dual(b, b) = parts[k].dual;
    if (iterations[k] > iterations[hardest]) hardest = k;
  }
  out.primal = primal;
  out.dual_value = dual;
  out.n_iter = iterations[hardest];
  out.relative_gaps = std::move(histories[hardest]);
  out.status = relative_gap(primal, dual) <= options.tol ? SolverStatus::converged
               : stalled                                 ? SolverStatus::not_converged
                                                         : SolverStatus::max_iter;
  return out;
}

}  // namespace

SiceResult solve_sice(const MatrixXd& S, const MatrixXd& R, const std::optional<MatrixXd>& M0,
                      const SiceOptions& options, const InterruptPoll& poll) {
  const Index m = S.rows();
  if (S.cols() != m || R.rows() != m || R.cols() != m)
    throw std::invalid_argument("S and R must be square matrices of the same size");
  if (m < 1) throw std::invalid_argument("S must be at least 1 x 1");
  if (M0 && (M0->rows() != m || M0->cols() != m)) throw std::invalid_argument("M0 must be m x m");
  if (!S.allFinite()) throw std::invalid_argument("S must be finite");
  if (!R.allFinite() || (R.array() < 0.0).any()) throw std::invalid_argument("R must be finite and >= 0");
  if (M0 && !M0->allFinite()) throw std::invalid_argument("M0 must be finite");
  // The solvers read S and R as symmetric (one triangle, or both as if equal): a non-symmetric S
  // gave all-NaN gaps (issue 48). The tolerance is the Python layer's SYMMETRY_RTOL.
  const auto asymmetric = [](const MatrixXd& A) {
    const double scale = A.cwiseAbs().maxCoeff();
    return (A - A.transpose()).cwiseAbs().maxCoeff() > kSymmetryRtol * scale;
  };
  if (asymmetric(S)) throw std::invalid_argument("S must be symmetric");
  if (asymmetric(R)) throw std::invalid_argument("R must be symmetric");
  if (M0 && asymmetric(*M0)) throw std::invalid_argument("M0 must be symmetric");
  if (!(options.tol >= 0.0) || !std::isfinite(options.tol))
    throw std::invalid_argument("tol must be a finite number >= 0, got " + std::to_string(options.tol));
  if (options.max_iter < 0) throw std::invalid_argument("max_iter must be >= 0");
  if (options.max_cg < 1) throw std::invalid_argument("max_cg must be >= 1");
  if (options.mu && !(*options.mu > 0.0 && std::isfinite(*options.mu)))
    throw std::invalid_argument("mu must be a positive finite number or None");
  if (options.mu_period < 1) throw std::invalid_argument("mu_period must be >= 1");
  if (!(options.sigma >= 0.0) || !std::isfinite(options.sigma))
    throw std::invalid_argument("sigma must be a finite number >= 0");
  if ((options.paper_mu || options.bounds) && !(options.sigma > 0.0))
    throw std::invalid_argument("the paper's step rule and Theorem 5's bounds need sigma > 0");
  // The default start: a start that is not positive definite (S_ii <= 0) is reported by the
  // solvers' own check.
  MatrixXd start = M0 ? *M0 : MatrixXd(S.diagonal().cwiseInverse().asDiagonal());
  const std::vector<std::vector<Index>> blocks = independent_blocks(S, R);
  if (blocks.size() == 1) return solve_connected(S, R, std::move(start), options, poll);
  return solve_blocks(S, R, start, blocks, options, poll);
}

}  // namespace kernlearn
