// Symmetric linear operators for the eigensolver: y = A x on blocks of vectors.
#pragma once

#include <limits>

#include <Eigen/Core>

#include "kernlearn/core/interrupt.hpp"
#include "kernlearn/core/thread_team.hpp"
#include "kernlearn/core/types.hpp"

namespace kernlearn {

class SymmetricOperator {
 public:
  virtual ~SymmetricOperator() = default;
  virtual Index rows() const = 0;
  // Y = A X for the n x b column-major blocks X and Y (b >= 1).
  virtual void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const = 0;
  // max |a_ij| when the operator can tell in O(nnz) (|A|_max <= |A|_2 <= n |A|_max), NaN when it
  // cannot or when an entry is NaN or infinite (the callers tell the two apart by is_explicit).
  virtual double max_abs() const { return std::numeric_limits<double>::quiet_NaN(); }
  virtual bool is_explicit() const { return false; }
};

// Y = A X by blocks of columns, polling between them (a product with hundreds of columns takes
// seconds at n = 10^5); throws Interrupted when poll says stop.
void apply_polled(const SymmetricOperator& A, const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y,
                  const InterruptPoll& poll);

// max |x_i| over `count` values; NaN when one is NaN or infinite.
double max_abs_entry(const double* x, Index count);

// The power of two s that brings a matrix of norm about `norm` (> 0, finite) to norm about 1 when
// it lies outside [2^-480, 2^480]: there squares of its entries and of its vectors' norms
// neither overflow nor underflow (the range LAPACK's dsyevd keeps to: sqrt(safmin / eps) to its
// inverse, about 1e-146 to 1e146, with a wider margin here for sums of n squares); 1 inside it.
// A power of two, so scaling by s and back is exact.
double safe_scale(double norm);

// s A: a badly scaled operator brought into the safe range (safe_scale); the solver's values
// and residuals are scaled back by 1 / s.
class ScaledOperator final : public SymmetricOperator {
 public:
  ScaledOperator(const SymmetricOperator& A, double scale) : A_(A), scale_(scale) {}
  Index rows() const override { return A_.rows(); }
  void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override {
    A_.apply(X, Y);
    Y *= scale_;
  }
  double max_abs() const override { return scale_ * A_.max_abs(); }
  bool is_explicit() const override { return A_.is_explicit(); }

 private:
  const SymmetricOperator& A_;
  double scale_;
};

// A CSR matrix, multiplied by row blocks on a thread team (rows are independent, so the result
// does not depend on the team's size).
class CsrOperator final : public SymmetricOperator {
 public:
  CsrOperator(Index n, const Index* indptr, const Index* indices, const double* data, ThreadTeam& team)
      : n_(n), indptr_(indptr), indices_(indices), data_(data), team_(team) {}
  Index rows() const override { return n_; }
  void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override;
  double max_abs() const override { return max_abs_entry(data_, indptr_[n_]); }
  bool is_explicit() const override { return true; }

 private:
  Index n_;
  const Index* indptr_;
  const Index* indices_;
  const double* data_;
  ThreadTeam& team_;
};

// A dense row-major matrix (numpy's layout), multiplied with Eigen's GEMM by row blocks on a
// thread team.
class DenseOperator final : public SymmetricOperator {
 public:
  DenseOperator(const MatrixRef& A, ThreadTeam& team) : A_(A), team_(team) {}
  Index rows() const override { return A_.rows(); }
  void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override;
  double max_abs() const override;
  bool is_explicit() const override { return true; }

 private:
  MatrixRef A_;
  ThreadTeam& team_;
};

// (S + U diag(c) U' + shift I), optionally centred as H (.) H with H = I - 11'/n: the saddle-point
// matrices of the embeddings (colored MVU's HYH, MVE's 2 V V' - I) without an n x n array.
class StructuredOperator final : public SymmetricOperator {
 public:
  StructuredOperator(const CsrOperator& sparse, const Eigen::MatrixXd& U, const Eigen::VectorXd& c, double shift,
                     bool center)
      : sparse_(sparse), U_(U), c_(c), shift_(shift), center_(center) {}
  Index rows() const override { return sparse_.rows(); }
  void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override;

 private:
  const CsrOperator& sparse_;
  const Eigen::MatrixXd& U_;
  const Eigen::VectorXd& c_;
  double shift_;
  bool center_;
};

}  // namespace kernlearn
