// Linear operators: what every iterative solver of the library is written against (DESIGN.md
// section 6). A solver sees only apply (Y = A X on a block of columns), column, diagonal, the
// shape and whether A is symmetric; what varies is the representation: a dense array (DenseOperator
// here, DenseKernel in kernels/ for float32 storage), CSR, sums and shifts of operators, low-rank
// factors, a kernel computed tile by tile on the fly (kernels/kernel_operator.hpp), or a Python
// object on the other side of the bindings (a Dask cluster's products).
//
// An operator is a view: it refers to data and to the thread team its products run on, both owned
// by the caller and alive while it is used. Products are const and may be called from one thread
// at a time (they use the team).
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "kernlearn/core/interrupt.hpp"
#include "kernlearn/core/thread_team.hpp"
#include "kernlearn/core/types.hpp"

namespace kernlearn {

class LinearOperator {
 public:
  virtual ~LinearOperator() = default;
  virtual Index rows() const = 0;
  virtual Index cols() const { return rows(); }
  // Whether A = A' (the eigensolvers and the kernel methods require it; square by definition).
  virtual bool symmetric() const { return true; }
  // Y = A X for the column-major blocks X (cols() x b) and Y (rows() x b), b >= 1.
  virtual void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const = 0;
  // Column j of A into out (rows() entries). Default: A e_j, one product; representations that can
  // read or compute a column directly (O(n) or O(n d)) override it.
  virtual void column(Index j, Eigen::Ref<Eigen::VectorXd> out) const;
  // The diagonal of a square A. Default: e_i' A e_i from products with blocks of unit vectors, n
  // products in all (a dense kernel would cost O(n^2) per block): the representations the solvers
  // use override it.
  virtual Eigen::VectorXd diagonal() const;
  // max |a_ij| when the operator can tell in O(nnz) (|A|_max <= |A|_2 <= n |A|_max), NaN when it
  // cannot or when an entry is NaN or infinite (the callers tell the two apart by is_explicit).
  virtual double max_abs() const { return std::numeric_limits<double>::quiet_NaN(); }
  virtual bool is_explicit() const { return false; }
};

// Throws std::invalid_argument naming `name` unless A is square and symmetric (the eigensolvers'
// and the kernel methods' requirement), with `rows` rows when rows >= 0.
void require_symmetric(const LinearOperator& A, const std::string& name, Index rows = -1);

// Y = A X by blocks of columns, polling between them (a product with hundreds of columns takes
// seconds at n = 10^5); throws Interrupted when poll says stop.
void apply_polled(const LinearOperator& A, const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y,
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
class ScaledOperator final : public LinearOperator {
 public:
  ScaledOperator(const LinearOperator& A, double scale) : A_(A), scale_(scale) {}
  Index rows() const override { return A_.rows(); }
  void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override {
    A_.apply(X, Y);
    Y *= scale_;
  }
  bool symmetric() const override { return A_.symmetric(); }
  void column(Index j, Eigen::Ref<Eigen::VectorXd> out) const override {
    A_.column(j, out);
    out *= scale_;
  }
  Eigen::VectorXd diagonal() const override { return scale_ * A_.diagonal(); }
  double max_abs() const override { return scale_ * A_.max_abs(); }
  bool is_explicit() const override { return A_.is_explicit(); }

 private:
  const LinearOperator& A_;
  double scale_;
};

// A CSR matrix, multiplied by row blocks on a thread team (rows are independent, so the result
// does not depend on the team's size). Square; symmetric as the caller declares it.
class CsrOperator final : public LinearOperator {
 public:
  CsrOperator(Index n, const Index* indptr, const Index* indices, const double* data, ThreadTeam& team,
              bool is_symmetric = true)
      : n_(n), indptr_(indptr), indices_(indices), data_(data), team_(team), symmetric_(is_symmetric) {}
  Index rows() const override { return n_; }
  bool symmetric() const override { return symmetric_; }
  void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override;
  Eigen::VectorXd diagonal() const override;
  double max_abs() const override { return max_abs_entry(data_, indptr_[n_]); }
  bool is_explicit() const override { return true; }

 private:
  Index n_;
  const Index* indptr_;
  const Index* indices_;
  const double* data_;
  ThreadTeam& team_;
  bool symmetric_;
};

// A dense row-major float64 matrix (numpy's layout, any shape), multiplied with Eigen's GEMM by row
// blocks on a thread team. Symmetric as the caller declares it (only a square one can be).
class DenseOperator final : public LinearOperator {
 public:
  DenseOperator(const MatrixRef& A, ThreadTeam& team, bool is_symmetric = true)
      : A_(A), team_(team), symmetric_(is_symmetric && A.rows() == A.cols()) {}
  Index rows() const override { return A_.rows(); }
  Index cols() const override { return A_.cols(); }
  bool symmetric() const override { return symmetric_; }
  void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override;
  void column(Index j, Eigen::Ref<Eigen::VectorXd> out) const override;
  Eigen::VectorXd diagonal() const override { return A_.diagonal(); }
  double max_abs() const override;
  bool is_explicit() const override { return true; }

 private:
  MatrixRef A_;
  ThreadTeam& team_;
  bool symmetric_;
};

// sum_t c_t A_t + shift I + constant 11' over operators of one shape: A = C T - L (the saddle
// point), K + c 11' (a kernel with an intercept), the mean of several similarities. The terms are
// views; their products run one after the other, each on its own team.
class SumOperator final : public LinearOperator {
 public:
  struct Term {
    const LinearOperator* op;
    double coefficient;
  };
  // Throws std::invalid_argument unless there is a term or the sum is square, and every term has
  // the first one's shape (shift and constant need a square sum).
  SumOperator(std::vector<Term> terms, double shift = 0.0, double constant = 0.0, Index n = -1);
  Index rows() const override { return rows_; }
  Index cols() const override { return cols_; }
  bool symmetric() const override { return symmetric_; }
  void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override;
  void column(Index j, Eigen::Ref<Eigen::VectorXd> out) const override;
  Eigen::VectorXd diagonal() const override;

 private:
  std::vector<Term> terms_;
  double shift_, constant_;
  Index rows_ = 0, cols_ = 0;
  bool symmetric_ = true;
};

// U diag(c) U' for an n x r factor U (column-major, the caller's): O(n r) per column of a product.
// A Nystrom approximation C W^+ C' is one (nystrom_factor below gives its U and c).
class LowRankOperator final : public LinearOperator {
 public:
  LowRankOperator(const Eigen::Ref<const Eigen::MatrixXd>& U, const Eigen::Ref<const Eigen::VectorXd>& c);
  Index rows() const override { return U_.rows(); }
  void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override;
  void column(Index j, Eigen::Ref<Eigen::VectorXd> out) const override;
  Eigen::VectorXd diagonal() const override;

 private:
  Eigen::Ref<const Eigen::MatrixXd> U_;
  Eigen::Ref<const Eigen::VectorXd> c_;
};

// The factor of the Nystrom approximation C W^+ C' (C: n x M columns of a PSD kernel at M
// centres, W: their M x M block): U = C V diag(1 / mu) over the eigenpairs (mu, V) of W with mu >
// rcond * mu_max, and c = mu, so that U diag(c) U' = C W^+ C' restricted to the kept pairs.
// Throws std::invalid_argument unless W is square with C's columns and both are finite.
void nystrom_factor(const Eigen::Ref<const Eigen::MatrixXd>& C, const Eigen::Ref<const Eigen::MatrixXd>& W,
                    double rcond, Eigen::MatrixXd& U, Eigen::VectorXd& c);

// H diag(s) A diag(s) H, H = I - 11'/n when centred (else without H): a symmetric A scaled on both
// sides, e.g. KDAC's Q = H D^-1/2 K D^-1/2 H or a normalised Laplacian's D^-1/2 S D^-1/2.
class NormalizedOperator final : public LinearOperator {
 public:
  NormalizedOperator(const LinearOperator& A, const Eigen::Ref<const Eigen::VectorXd>& s, bool center)
      : A_(A), s_(s), center_(center) {}
  Index rows() const override { return A_.rows(); }
  bool symmetric() const override { return A_.symmetric(); }
  void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override;

 private:
  const LinearOperator& A_;
  Eigen::Ref<const Eigen::VectorXd> s_;
  bool center_;
};

// (S + U diag(c) U' + shift I), optionally centred as H (.) H with H = I - 11'/n: the saddle-point
// matrices of the embeddings (colored MVU's HYH, MVE's 2 V V' - I) without an n x n array.
class StructuredOperator final : public LinearOperator {
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
