// Operators as Python holds them (the _core.linalg.Operator class): the data, owned or kept alive,
// and how to build the core's LinearOperator (linalg/operator.hpp) on the thread team of a call.
// A core operator is a view bound to one team; a Python object lives across calls and threads,
// so it holds this recipe instead, and every solver binding builds the operator inside its
// run_interruptible section, on its own team.
//
// Any Python object with a matmat method becomes a callback operator: its products re-take the
// GIL (the solver runs without it), are checked for shape and finiteness, and a Python exception
// raised in them (KeyboardInterrupt included) propagates out of the solver as itself.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernlearn/kernels/kernel_matrix.hpp"
#include "kernlearn/kernels/kernel_operator.hpp"
#include "kernlearn/linalg/operator.hpp"

#include "common.hpp"

namespace kernlearn::bindings {

class OperatorRecipe {
 public:
  virtual ~OperatorRecipe() = default;
  virtual Index rows() const = 0;
  virtual Index cols() const { return rows(); }
  virtual bool symmetric() const = 0;
  virtual std::string kind() const = 0;
  // The arguments the operator was made from, for the messages of its products.
  virtual std::string inputs() const = 0;
  // The core operator on `team`; called without the GIL, and the result must not outlive the
  // recipe (Python keeps the recipe alive for the call).
  virtual std::unique_ptr<LinearOperator> build(ThreadTeam& team, const InterruptPoll& poll) const = 0;
};

using RecipePtr = std::shared_ptr<const OperatorRecipe>;

// A numpy array, float32 or float64, C-contiguous, seen without a copy (the array is kept alive):
// DenseKernel (SIMD rows) when square and symmetric, else DenseOperator (float64 only).
class DenseRecipe final : public OperatorRecipe {
 public:
  DenseRecipe(py::array A, bool is_symmetric, const std::string& name)
      : A_(std::move(A)), symmetric_(is_symmetric), name_(name) {
    if (A_.ndim() != 2) throw std::invalid_argument(name + " must be a 2-D array");
    if (!(A_.flags() & py::array::c_style)) throw std::invalid_argument(name + " must be C-contiguous");
    single_ = A_.dtype().is(py::dtype::of<float>());
    if (!single_ && !A_.dtype().is(py::dtype::of<double>()))
      throw std::invalid_argument(name + " must be float32 or float64");
    if (symmetric_ && A_.shape(0) != A_.shape(1))
      throw std::invalid_argument(name + " must be square to be symmetric, got shape (" + std::to_string(A_.shape(0)) +
                                  ", " + std::to_string(A_.shape(1)) + ")");
    if (!symmetric_ && single_) throw std::invalid_argument(name + ": a non-symmetric dense operator must be float64");
    const auto count = static_cast<std::size_t>(A_.size());
    bool finite = true;
    if (single_) {
      const float* p = static_cast<const float*>(A_.data());
      for (std::size_t i = 0; i < count && finite; ++i) finite = std::isfinite(p[i]);
    } else {
      const double* p = static_cast<const double*>(A_.data());
      for (std::size_t i = 0; i < count && finite; ++i) finite = std::isfinite(p[i]);
    }
    if (!finite) throw std::invalid_argument(name + " must be finite");
  }
  Index rows() const override { return A_.shape(0); }
  Index cols() const override { return A_.shape(1); }
  bool symmetric() const override { return symmetric_; }
  std::string kind() const override { return single_ ? "dense float32" : "dense float64"; }
  std::string inputs() const override { return name_; }
  std::unique_ptr<LinearOperator> build(ThreadTeam& team, const InterruptPoll&) const override {
    if (symmetric_ && single_)
      return std::make_unique<DenseKernel<float>>(static_cast<const float*>(A_.data()), rows(), team);
    if (symmetric_) return std::make_unique<DenseKernel<double>>(static_cast<const double*>(A_.data()), rows(), team);
    const Eigen::Map<const RowMatrixXd> map(static_cast<const double*>(A_.data()), rows(), cols());
    return std::make_unique<DenseOperator>(MatrixRef(map), team, false);
  }

 private:
  py::array A_;
  bool symmetric_;
  std::string name_;
  bool single_ = false;
};

// A square CSR matrix from int64 indptr / indices and float64 data (copied), checked once.
class CsrRecipe final : public OperatorRecipe {
 public:
  CsrRecipe(const py::array_t<Index, py::array::c_style>& indptr, const py::array_t<Index, py::array::c_style>& indices,
            const py::array_t<double, py::array::c_style>& data, bool is_symmetric)
      : symmetric_(is_symmetric) {
    if (indptr.ndim() != 1 || indices.ndim() != 1 || data.ndim() != 1)
      throw std::invalid_argument("indptr, indices and data must be 1-D");
    n_ = indptr.shape(0) - 1;
    if (n_ < 1)
      throw std::invalid_argument("indptr must have n + 1 >= 2 entries, got " + std::to_string(indptr.shape(0)));
    if (indices.shape(0) != data.shape(0))
      throw std::invalid_argument("indices and data must have the same length, got " +
                                  std::to_string(indices.shape(0)) + " and " + std::to_string(data.shape(0)));
    indptr_.assign(indptr.data(), indptr.data() + indptr.shape(0));
    indices_.assign(indices.data(), indices.data() + indices.shape(0));
    data_.assign(data.data(), data.data() + data.shape(0));
    const Index nnz = static_cast<Index>(indices_.size());
    if (indptr_[0] != 0 || indptr_[static_cast<std::size_t>(n_)] != nnz)
      throw std::invalid_argument("indptr must run from 0 to len(indices) = " + std::to_string(nnz));
    for (Index i = 0; i < n_; ++i)
      if (indptr_[static_cast<std::size_t>(i)] > indptr_[static_cast<std::size_t>(i) + 1])
        throw std::invalid_argument("indptr must be non-decreasing");
    for (const Index j : indices_)
      if (j < 0 || j >= n_)
        throw std::invalid_argument("indices must lie in [0, n = " + std::to_string(n_) + "), got " +
                                    std::to_string(j));
  }
  Index rows() const override { return n_; }
  bool symmetric() const override { return symmetric_; }
  std::string kind() const override { return "CSR"; }
  std::string inputs() const override { return "data"; }
  std::unique_ptr<LinearOperator> build(ThreadTeam& team, const InterruptPoll&) const override {
    return std::make_unique<CsrOperator>(n_, indptr_.data(), indices_.data(), data_.data(), team, symmetric_);
  }

 private:
  // Copies, checked once: the products index with them unchecked, so the caller's arrays, which
  // Python may change afterwards, are never read again.
  std::vector<Index> indptr_, indices_;
  std::vector<double> data_;
  Index n_ = 0;
  bool symmetric_;
};

// A Python object's products: X -> matmat(X) (and column(j) when given), with the GIL re-taken for
// each call. The results are checked: real, the right shape, finite.
class CallbackOperator final : public LinearOperator {
 public:
  CallbackOperator(const py::object& matmat, const py::object& column, Index rows, Index cols, bool is_symmetric,
                   const std::string& name)
      : matmat_(matmat), column_(column), rows_(rows), cols_(cols), symmetric_(is_symmetric), name_(name) {}
  Index rows() const override { return rows_; }
  Index cols() const override { return cols_; }
  bool symmetric() const override { return symmetric_; }
  void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override {
    py::gil_scoped_acquire gil;
    // The callback may keep its argument: it gets an array of its own (row-major, numpy's layout).
    py::array_t<double> block({X.rows(), X.cols()});
    Eigen::Map<RowMatrixXd>(block.mutable_data(), X.rows(), X.cols()) = X;
    Y = checked(matmat_(block), Y.rows(), Y.cols(), "matmat");
  }
  void column(Index j, Eigen::Ref<Eigen::VectorXd> out) const override {
    if (column_.is_none()) return LinearOperator::column(j, out);
    py::gil_scoped_acquire gil;
    out = checked(column_(j), out.size(), -1, "column").col(0);
  }

 private:
  // The callback's result as an (rows x cols) matrix (cols -1: a vector of rows entries).
  Eigen::MatrixXd checked(const py::object& result, Index rows, Index cols, const char* what) const {
    const std::string who = name_ + "." + what;
    py::array arr = py::array::ensure(result);
    if (!arr)
      throw py::type_error(who + " returned " + py::str(py::type::of(result)).cast<std::string>() + ", not an array");
    const char kind = arr.dtype().kind();
    if (kind == 'c') throw py::type_error(who + " returned complex values; the operator must be real");
    if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b')
      throw py::type_error(who + " returned an array of dtype " + py::str(arr.dtype()).cast<std::string>() +
                           ", not real numbers");
    const Index expected_cols = cols < 0 ? 1 : cols;
    const bool vector_ok = arr.ndim() == 1 && arr.shape(0) == rows && expected_cols == 1;
    const bool matrix_ok = arr.ndim() == 2 && arr.shape(0) == rows && arr.shape(1) == expected_cols;
    if (!vector_ok && !matrix_ok) {
      std::string shape = "(";
      for (py::ssize_t d = 0; d < arr.ndim(); ++d) shape += (d ? ", " : "") + std::to_string(arr.shape(d));
      throw std::invalid_argument(who + " returned shape " + shape + (arr.ndim() == 1 ? ",)" : ")") + ", expected (" +
                                  std::to_string(rows) +
                                  (cols < 0 ? ",)" : ", " + std::to_string(expected_cols) + ")"));
    }
    const auto as_double = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(arr);
    Eigen::MatrixXd out = Eigen::Map<const RowMatrixXd>(as_double.data(), rows, expected_cols);
    if (!out.allFinite()) throw std::invalid_argument(who + " returned NaN or infinity");
    return out;
  }

  const py::object& matmat_;
  const py::object& column_;
  Index rows_, cols_;
  bool symmetric_;
  const std::string& name_;
};

class CallbackRecipe final : public OperatorRecipe {
 public:
  CallbackRecipe(py::object matmat, py::object column, Index rows, Index cols, bool is_symmetric, std::string name)
      : matmat_(std::move(matmat)),
        column_(std::move(column)),
        rows_(rows),
        cols_(cols),
        symmetric_(is_symmetric),
        name_(std::move(name)) {
    if (rows < 1 || cols < 1)
      throw std::invalid_argument(name_ + " must be at least 1 x 1 (n must be >= 1), got shape (" +
                                  std::to_string(rows) + ", " + std::to_string(cols) + ")");
    if (!PyCallable_Check(matmat_.ptr())) throw py::type_error(name_ + ": matmat must be callable");
    if (!column_.is_none() && !PyCallable_Check(column_.ptr()))
      throw py::type_error(name_ + ": column must be callable or None");
    if (symmetric_ && rows != cols) throw std::invalid_argument(name_ + " must be square to be symmetric");
  }
  Index rows() const override { return rows_; }
  Index cols() const override { return cols_; }
  bool symmetric() const override { return symmetric_; }
  std::string kind() const override { return "callback"; }
  std::string inputs() const override { return name_; }
  std::unique_ptr<LinearOperator> build(ThreadTeam&, const InterruptPoll&) const override {
    return std::make_unique<CallbackOperator>(matmat_, column_, rows_, cols_, symmetric_, name_);
  }

 private:
  py::object matmat_, column_;
  Index rows_, cols_;
  bool symmetric_;
  std::string name_;
};

// k(X, X) + c 11' computed on the fly (kernels/kernel_operator.hpp), from a copy of X.
class KernelRecipe final : public OperatorRecipe {
 public:
  KernelRecipe(const MatrixRef& X, const PairwiseKernel& kernel, double constant, bool single)
      : X_(X), kernel_(kernel), constant_(constant), single_(single) {
    if (X_.rows() < 1) throw std::invalid_argument("X must have at least one row");
    check_pairwise_kernel(kernel_, X_, "X");
    if (single_) check_single_precision_range(X_);
    if (!std::isfinite(constant_)) throw std::invalid_argument("constant must be finite");
  }
  Index rows() const override { return X_.rows(); }
  bool symmetric() const override { return true; }
  std::string kind() const override {
    return std::string(kernel_.kind == PairwiseKind::rbf ? "RBF" : "TL1") + " kernel on the fly" +
           (single_ ? " (float32 tiles)" : "");
  }
  std::string inputs() const override { return "X"; }
  std::unique_ptr<LinearOperator> build(ThreadTeam& team, const InterruptPoll& poll) const override {
    return std::make_unique<KernelOperator>(X_, kernel_, constant_, single_, team, poll);
  }
  const RowMatrixXd& points() const { return X_; }

 private:
  RowMatrixXd X_;
  PairwiseKernel kernel_;
  double constant_;
  bool single_;
};

// sum_t c_t A_t + shift I + constant 11'.
class SumRecipe final : public OperatorRecipe {
 public:
  SumRecipe(std::vector<std::pair<RecipePtr, double>> terms, double shift, double constant, Index n)
      : terms_(std::move(terms)), shift_(shift), constant_(constant) {
    if (!std::isfinite(shift) || !std::isfinite(constant))
      throw std::invalid_argument("shift and constant must be finite");
    rows_ = cols_ = n;
    symmetric_ = true;
    for (std::size_t t = 0; t < terms_.size(); ++t) {
      if (!terms_[t].first) throw std::invalid_argument("terms: a term is None");
      if (!std::isfinite(terms_[t].second)) throw std::invalid_argument("terms: coefficients must be finite");
      if (t == 0 && n < 0) {
        rows_ = terms_[t].first->rows();
        cols_ = terms_[t].first->cols();
      }
      if (terms_[t].first->rows() != rows_ || terms_[t].first->cols() != cols_)
        throw std::invalid_argument("terms: every term must have the shape (" + std::to_string(rows_) + ", " +
                                    std::to_string(cols_) + ")");
      symmetric_ = symmetric_ && terms_[t].first->symmetric();
    }
    if (rows_ < 1) throw std::invalid_argument("sum_operator: needs a term, or n >= 1");
    if ((shift_ != 0.0 || constant_ != 0.0) && rows_ != cols_)
      throw std::invalid_argument("sum_operator: a shift or a constant needs square terms");
  }
  Index rows() const override { return rows_; }
  Index cols() const override { return cols_; }
  bool symmetric() const override { return symmetric_; }
  std::string kind() const override { return "sum of " + std::to_string(terms_.size()) + " operators"; }
  std::string inputs() const override {
    std::string out = "terms (";
    for (std::size_t t = 0; t < terms_.size(); ++t) out += (t ? "; " : "") + terms_[t].first->inputs();
    return out + "), shift, constant";
  }
  std::unique_ptr<LinearOperator> build(ThreadTeam& team, const InterruptPoll& poll) const override {
    auto out = std::make_unique<BuiltSum>();
    std::vector<SumOperator::Term> terms;
    for (const auto& [recipe, coefficient] : terms_) {
      out->parts.push_back(recipe->build(team, poll));
      terms.push_back({out->parts.back().get(), coefficient});
    }
    out->sum.emplace(std::move(terms), shift_, constant_, rows_);
    return out;
  }

 private:
  struct BuiltSum final : LinearOperator {
    std::vector<std::unique_ptr<LinearOperator>> parts;
    std::optional<SumOperator> sum;
    Index rows() const override { return sum->rows(); }
    Index cols() const override { return sum->cols(); }
    bool symmetric() const override { return sum->symmetric(); }
    void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override {
      sum->apply(X, Y);
    }
    void column(Index j, Eigen::Ref<Eigen::VectorXd> out) const override { sum->column(j, out); }
    Eigen::VectorXd diagonal() const override { return sum->diagonal(); }
  };

  std::vector<std::pair<RecipePtr, double>> terms_;
  double shift_, constant_;
  Index rows_ = 0, cols_ = 0;
  bool symmetric_ = true;
};

// U diag(c) U' from copies of U (n x r) and c.
class LowRankRecipe final : public OperatorRecipe {
 public:
  // names: the arguments U and c came from (nystrom_operator's C and W), for the messages.
  LowRankRecipe(const MatrixRef& U, const Eigen::Ref<const Eigen::VectorXd>& c, std::string names = "U, c")
      : U_(U), c_(c), names_(std::move(names)) {
    if (U_.rows() < 1) throw std::invalid_argument("U must have at least one row");
    if (U_.cols() != c_.size())
      throw std::invalid_argument("c must have one entry per column of U, got " + std::to_string(c_.size()) + " for " +
                                  std::to_string(U_.cols()));
    if (!U_.allFinite() || !c_.allFinite()) throw std::invalid_argument("U and c must be finite");
  }
  Index rows() const override { return U_.rows(); }
  bool symmetric() const override { return true; }
  std::string kind() const override { return "rank-" + std::to_string(U_.cols()) + " factor"; }
  std::string inputs() const override { return names_; }
  std::unique_ptr<LinearOperator> build(ThreadTeam&, const InterruptPoll&) const override {
    return std::make_unique<LowRankOperator>(U_, c_);
  }

 private:
  Eigen::MatrixXd U_;
  Eigen::VectorXd c_;
  std::string names_;
};

// H diag(s) A diag(s) H (H = I - 11'/n when centred) over another recipe's operator.
class NormalizedRecipe final : public OperatorRecipe {
 public:
  NormalizedRecipe(RecipePtr A, const Eigen::Ref<const Eigen::VectorXd>& s, bool center)
      : A_(std::move(A)), s_(s), center_(center) {
    if (!A_) throw std::invalid_argument("A must be an Operator, got None");
    if (A_->rows() != A_->cols()) throw std::invalid_argument("A must be square");
    if (s_.size() != A_->rows())
      throw std::invalid_argument("s must have one entry per row of A (" + std::to_string(A_->rows()) + "), got " +
                                  std::to_string(s_.size()));
    if (!s_.allFinite()) throw std::invalid_argument("s must be finite");
  }
  Index rows() const override { return A_->rows(); }
  bool symmetric() const override { return A_->symmetric(); }
  std::string kind() const override { return std::string(center_ ? "centred " : "") + "scaled " + A_->kind(); }
  std::string inputs() const override { return "s, " + A_->inputs(); }
  std::unique_ptr<LinearOperator> build(ThreadTeam& team, const InterruptPoll& poll) const override {
    auto out = std::make_unique<Built>();
    out->inner = A_->build(team, poll);
    out->outer.emplace(*out->inner, s_, center_);
    return out;
  }

 private:
  struct Built final : LinearOperator {
    std::unique_ptr<LinearOperator> inner;
    std::optional<NormalizedOperator> outer;
    Index rows() const override { return outer->rows(); }
    bool symmetric() const override { return outer->symmetric(); }
    void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override {
      outer->apply(X, Y);
    }
  };

  RecipePtr A_;
  Eigen::VectorXd s_;
  bool center_;
};

// The Operator argument of a solver binding: an Operator, or a numpy array taken as a symmetric
// dense operator (the solvers' array form, kept for their callers).
inline RecipePtr as_recipe(const py::object& A, const std::string& name) {
  if (py::isinstance<OperatorRecipe>(A)) return A.cast<RecipePtr>();
  if (py::isinstance<py::array>(A)) return std::make_shared<DenseRecipe>(A.cast<py::array>(), true, name);
  throw py::type_error(name + " must be a numpy array or a kernlearn._core.linalg.Operator, got " +
                       py::str(py::type::of(A)).cast<std::string>());
}

void register_operators(py::module_& linalg, py::module_& kernels);

}  // namespace kernlearn::bindings
