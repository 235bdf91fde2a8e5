// Symmetric linear operators for the eigensolver: y = A x on blocks of vectors.
#pragma once

#include <Eigen/Core>

#include "kernlearn/graph.hpp"
#include "kernlearn/thread_team.hpp"
#include "kernlearn/types.hpp"

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

}  // namespace kernlearn
