#include "kernlearn/linalg/operator.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include <Eigen/Eigenvalues>

#include "kernlearn/core/solver_choice.hpp"

namespace kernlearn {

namespace {

// fn(first row, row count) over blocks of [0, n) on the team: eight blocks per thread, so that a
// thread the OS preempts holds back an eighth of its share, not all of it (thread_team.hpp).
template <class Fn>
void split_rows(ThreadTeam& team, Index n, Fn&& fn) {
  if (n < solver_choice::kTeamMinRows || team.size() == 1) return fn(Index{0}, n);
  const Index blocks = std::min<Index>(8 * team.size(), n / 256);
  team.for_each(blocks, [&](int, Index b) {
    const Index first = n * b / blocks, last = n * (b + 1) / blocks;
    fn(first, last - first);
  });
}
}  // namespace

void LinearOperator::column(Index j, Eigen::Ref<Eigen::VectorXd> out) const {
  Eigen::MatrixXd unit = Eigen::MatrixXd::Zero(cols(), 1);
  unit(j, 0) = 1.0;
  Eigen::MatrixXd product(rows(), 1);
  apply(unit, product);
  out = product.col(0);
}

Eigen::VectorXd LinearOperator::diagonal() const {
  constexpr Index kColumns = 32;
  const Index n = rows();
  Eigen::VectorXd out(n);
  for (Index first = 0; first < n; first += kColumns) {
    const Index b = std::min(kColumns, n - first);
    Eigen::MatrixXd units = Eigen::MatrixXd::Zero(n, b), product(n, b);
    for (Index c = 0; c < b; ++c) units(first + c, c) = 1.0;
    apply(units, product);
    for (Index c = 0; c < b; ++c) out[first + c] = product(first + c, c);
  }
  return out;
}

void require_symmetric(const LinearOperator& A, const std::string& name, Index rows) {
  if (A.rows() != A.cols())
    throw std::invalid_argument(name + " must be a square operator, got shape (" + std::to_string(A.rows()) + ", " +
                                std::to_string(A.cols()) + ")");
  if (!A.symmetric()) throw std::invalid_argument(name + " must be a symmetric operator");
  if (rows >= 0 && A.rows() != rows)
    throw std::invalid_argument(name + " must have shape (" + std::to_string(rows) + ", " + std::to_string(rows) +
                                "), got (" + std::to_string(A.rows()) + ", " + std::to_string(A.cols()) + ")");
}

void apply_polled(const LinearOperator& A, const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y,
                  const InterruptPoll& poll) {
  constexpr Index kColumns = 32;
  for (Index first = 0; first < X.cols(); first += kColumns) {
    if (first > 0 && poll && poll()) throw Interrupted();
    const Index cols = std::min(kColumns, X.cols() - first);
    A.apply(X.middleCols(first, cols), Y.middleCols(first, cols));
  }
}

double max_abs_entry(const double* x, Index count) {
  double largest = 0.0, poison = 0.0;  // poison: 0 * x is NaN exactly when x is NaN or infinite
  for (Index i = 0; i < count; ++i) {
    largest = std::max(largest, std::abs(x[i]));
    poison += 0.0 * x[i];
  }
  return poison == 0.0 ? largest : std::numeric_limits<double>::quiet_NaN();
}

double safe_scale(double norm) {
  constexpr int kSafeExponent = 480;
  if (!(norm > 0.0) || !std::isfinite(norm)) return 1.0;
  const int exponent = std::ilogb(norm);
  if (exponent >= -kSafeExponent && exponent <= kSafeExponent) return 1.0;
  // A subnormal norm (exponent below -1022) would want a factor beyond the double range: 2^1022
  // still brings it up to at least 2^-52, inside the safe range.
  return std::ldexp(1.0, std::min(-exponent, 1022));
}

void CsrOperator::apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const {
  const Index b = X.cols();
  // Column by column: a row of a column-major block spans b cache lines, and gathering whole rows
  // (Y.row(i) += a * X.row(j)) was slower (microbench_lanczos, BM_spmv; bench/results/eigsh.md).
  split_rows(team_, n_, [&](Index first, Index rows) {
    for (Index c = 0; c < b; ++c) {
      const double* x = X.col(c).data();
      for (Index i = first; i < first + rows; ++i) {
        // Four partial sums: one sum chained an addition per entry, its latency the bound (SimpleNPKL's
        // A at n = 10^5, 10 entries a row: bench/results/npkl_sequence.md, 2026-12-07). Each row's
        // order is fixed, so the result does not depend on the thread count.
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        Index p = indptr_[i];
        const Index end = indptr_[i + 1];
        for (; p + 4 <= end; p += 4) {
          s0 += data_[p] * x[indices_[p]];
          s1 += data_[p + 1] * x[indices_[p + 1]];
          s2 += data_[p + 2] * x[indices_[p + 2]];
          s3 += data_[p + 3] * x[indices_[p + 3]];
        }
        for (; p < end; ++p) s0 += data_[p] * x[indices_[p]];
        Y(i, c) = (s0 + s1) + (s2 + s3);
      }
    }
  });
}

Eigen::VectorXd CsrOperator::diagonal() const {
  Eigen::VectorXd out = Eigen::VectorXd::Zero(n_);
  for (Index i = 0; i < n_; ++i)
    for (Index p = indptr_[i]; p < indptr_[i + 1]; ++p)
      if (indices_[p] == i) out[i] += data_[p];
  return out;
}

void DenseOperator::apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const {
  split_rows(team_, A_.rows(),
             [&](Index first, Index rows) { Y.middleRows(first, rows).noalias() = A_.middleRows(first, rows) * X; });
}

void DenseOperator::column(Index j, Eigen::Ref<Eigen::VectorXd> out) const { out = A_.col(j); }

double DenseOperator::max_abs() const {
  double largest = 0.0;
  for (Index i = 0; i < A_.rows(); ++i) {
    const double row = max_abs_entry(A_.row(i).data(), A_.cols());
    if (std::isnan(row)) return row;
    largest = std::max(largest, row);
  }
  return largest;
}

SumOperator::SumOperator(std::vector<Term> terms, double shift, double constant, Index n)
    : terms_(std::move(terms)), shift_(shift), constant_(constant) {
  if (terms_.empty()) {
    if (n < 0) throw std::invalid_argument("SumOperator: without terms the size n is needed");
    rows_ = cols_ = n;
  } else {
    rows_ = terms_.front().op->rows();
    cols_ = terms_.front().op->cols();
  }
  for (const Term& t : terms_) {
    if (t.op->rows() != rows_ || t.op->cols() != cols_)
      throw std::invalid_argument("SumOperator: every term must have the shape (" + std::to_string(rows_) + ", " +
                                  std::to_string(cols_) + ")");
    symmetric_ = symmetric_ && t.op->symmetric();
  }
  if ((shift_ != 0.0 || constant_ != 0.0) && rows_ != cols_)
    throw std::invalid_argument("SumOperator: a shift or a constant needs a square sum");
  symmetric_ = symmetric_ && rows_ == cols_;
}

void SumOperator::apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const {
  Y.setZero();
  Eigen::MatrixXd product(rows_, X.cols());
  for (const Term& t : terms_) {
    t.op->apply(X, product);
    Y += t.coefficient * product;
  }
  if (shift_ != 0.0) Y += shift_ * X;
  if (constant_ != 0.0) Y.rowwise() += constant_ * X.colwise().sum();
}

void SumOperator::column(Index j, Eigen::Ref<Eigen::VectorXd> out) const {
  out.setZero();
  Eigen::VectorXd part(rows_);
  for (const Term& t : terms_) {
    t.op->column(j, part);
    out += t.coefficient * part;
  }
  if (shift_ != 0.0) out[j] += shift_;
  if (constant_ != 0.0) out.array() += constant_;
}

Eigen::VectorXd SumOperator::diagonal() const {
  Eigen::VectorXd out = Eigen::VectorXd::Constant(rows_, shift_ + constant_);
  for (const Term& t : terms_) out += t.coefficient * t.op->diagonal();
  return out;
}

LowRankOperator::LowRankOperator(const Eigen::Ref<const Eigen::MatrixXd>& U, const Eigen::Ref<const Eigen::VectorXd>& c)
    : U_(U), c_(c) {
  if (U.cols() != c.size())
    throw std::invalid_argument("LowRankOperator: c must have one entry per column of U, got " +
                                std::to_string(c.size()) + " for " + std::to_string(U.cols()));
}

void LowRankOperator::apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const {
  Y.noalias() = U_ * (c_.asDiagonal() * (U_.transpose() * X));
}

void LowRankOperator::column(Index j, Eigen::Ref<Eigen::VectorXd> out) const {
  out.noalias() = U_ * c_.cwiseProduct(U_.row(j).transpose());
}

Eigen::VectorXd LowRankOperator::diagonal() const { return (U_.array().square().matrix() * c_).eval(); }

void nystrom_factor(const Eigen::Ref<const Eigen::MatrixXd>& C, const Eigen::Ref<const Eigen::MatrixXd>& W,
                    double rcond, Eigen::MatrixXd& U, Eigen::VectorXd& c) {
  const Index m = W.rows();
  if (W.cols() != m || C.cols() != m)
    throw std::invalid_argument("nystrom_factor: W must be M x M with C's M columns, got W " +
                                std::to_string(W.rows()) + " x " + std::to_string(W.cols()) + " and C with " +
                                std::to_string(C.cols()));
  if (!C.allFinite() || !W.allFinite()) throw std::invalid_argument("nystrom_factor: C and W must be finite");
  if (!(rcond >= 0.0 && rcond < 1.0)) throw std::invalid_argument("nystrom_factor: rcond must lie in [0, 1)");
  const Eigen::MatrixXd Ws = 0.5 * (W + W.transpose());
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(Ws);
  if (es.info() != Eigen::Success) throw std::runtime_error("nystrom_factor: the eigensolver of W failed");
  const Eigen::VectorXd& mu = es.eigenvalues();
  const double cut = rcond * std::max(mu.maxCoeff(), 0.0);
  std::vector<Index> kept;
  for (Index i = 0; i < m; ++i)
    if (mu[i] > cut && mu[i] > 0.0) kept.push_back(i);
  const Index r = static_cast<Index>(kept.size());
  U.resize(C.rows(), r);
  c.resize(r);
  for (Index t = 0; t < r; ++t) {
    const Index i = kept[static_cast<std::size_t>(t)];
    U.col(t).noalias() = C * es.eigenvectors().col(i) / mu[i];
    c[t] = mu[i];
  }
}

void NormalizedOperator::apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const {
  Eigen::MatrixXd V = center_ ? Eigen::MatrixXd(X.rowwise() - X.colwise().mean()) : Eigen::MatrixXd(X);
  V = s_.asDiagonal() * V;
  A_.apply(V, Y);
  Y = s_.asDiagonal() * Y;
  if (center_) Y.rowwise() -= Y.colwise().mean();
}

void StructuredOperator::apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const {
  Eigen::MatrixXd centred;
  const Eigen::MatrixXd* in = nullptr;
  if (center_) {
    centred = X.rowwise() - X.colwise().mean();
    in = &centred;
  }
  const Eigen::Ref<const Eigen::MatrixXd> Z = in ? Eigen::Ref<const Eigen::MatrixXd>(*in) : X;
  sparse_.apply(Z, Y);
  if (U_.cols() > 0) Y.noalias() += U_ * (c_.asDiagonal() * (U_.transpose() * Z));
  if (shift_ != 0.0) Y += shift_ * Z;
  if (center_) Y.rowwise() -= Y.colwise().mean();
}

}  // namespace kernlearn
