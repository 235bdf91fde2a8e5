// Symmetric linear operators for the eigensolver: y = A x on blocks of vectors.
#pragma once

#include <Eigen/Core>

#include "kernlearn/core/thread_team.hpp"
#include "kernlearn/core/types.hpp"

namespace kernlearn {

class SymmetricOperator {
 public:
  virtual ~SymmetricOperator() = default;
  virtual Index rows() const = 0;
  // Y = A X for the n x b column-major blocks X and Y (b >= 1).
  virtual void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const = 0;
};

// A CSR matrix, multiplied by row blocks on a thread team (rows are independent, so the result
// does not depend on the team's size).
class CsrOperator final : public SymmetricOperator {
 public:
  CsrOperator(Index n, const Index* indptr, const Index* indices, const double* data, ThreadTeam& team)
      : n_(n), indptr_(indptr), indices_(indices), data_(data), team_(team) {}
  Index rows() const override { return n_; }
  void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override;

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
