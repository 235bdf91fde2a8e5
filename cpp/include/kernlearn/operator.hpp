// Symmetric linear operators for the eigensolver: y = A x on blocks of vectors.
#pragma once

#include <Eigen/Core>

#include "kernlearn/graph.hpp"
#include "kernlearn/types.hpp"

namespace kernlearn {

class SymmetricOperator {
 public:
  virtual ~SymmetricOperator() = default;
  virtual Index rows() const = 0;
  // Y = A X for the n x b column-major blocks X and Y (b >= 1).
  virtual void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const = 0;
};

// A CSR matrix, multiplied by row blocks on n_threads threads (rows are independent, so the
// result does not depend on the thread count).
class CsrOperator final : public SymmetricOperator {
 public:
  CsrOperator(Index n, const Index* indptr, const Index* indices, const double* data, int n_threads)
      : n_(n), indptr_(indptr), indices_(indices), data_(data), n_threads_(n_threads) {}
  Index rows() const override { return n_; }
  void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override;

 private:
  Index n_;
  const Index* indptr_;
  const Index* indices_;
  const double* data_;
  int n_threads_;
};

// A dense row-major matrix (numpy's layout), multiplied with Eigen's GEMM.
class DenseOperator final : public SymmetricOperator {
 public:
  explicit DenseOperator(const MatrixRef& A) : A_(A) {}
  Index rows() const override { return A_.rows(); }
  void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override {
    Y.noalias() = A_ * X;
  }

 private:
  MatrixRef A_;
};

}  // namespace kernlearn
