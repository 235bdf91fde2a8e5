// Bindings of the operator layer (operators.hpp): the Operator class Python holds, its products,
// and one factory per representation. kernlearn/_utils/_operators.py turns arrays, sparse
// matrices and LinearOperators into these.
#include <optional>

#include "operators.hpp"

namespace kernlearn::bindings {

using namespace pybind11::literals;

namespace {

// Runs fn(op) on the recipe's operator built on a team of n_threads, without the GIL.
template <class Fn>
auto with_operator(const OperatorRecipe& recipe, int n_threads, Fn&& fn) {
  const InterruptPoll poll = python_interrupt_poll();
  return run_interruptible([&] {
    ThreadTeam team(n_threads);
    const auto op = recipe.build(team, poll);
    return fn(*op);
  });
}

// The one rule for a product that overflows: finite inputs whose product holds an infinity or NaN
// (entries beyond the float64 range) are a ValueError naming the operator's arguments, never a
// silent inf (as numpy warns "overflow encountered"; a solver would only propagate it).
template <class Matrix>
Matrix finite_product(Matrix out, const OperatorRecipe& r, const std::string& what, const std::string& also = "") {
  if (!out.allFinite())
    throw std::invalid_argument(what + " of the operator (" + r.kind() + ") overflows the float64 range: rescale " +
                                r.inputs() + also);
  return out;
}

}  // namespace

void register_operators(py::module_& linalg, py::module_& kernels) {
  py::class_<OperatorRecipe, std::shared_ptr<OperatorRecipe>>(
      linalg, "Operator",
      "A linear operator for the core's solvers: a dense array (viewed, not copied), CSR, a kernel computed on "
      "the fly, a sum, a low-rank factor, or a Python object's products. Made by the factories of this module "
      "and kernels.kernel_operator; built on each call's thread team.")
      .def_property_readonly("shape", [](const OperatorRecipe& r) { return py::make_tuple(r.rows(), r.cols()); })
      .def_property_readonly("symmetric", &OperatorRecipe::symmetric)
      .def_property_readonly("kind", &OperatorRecipe::kind)
      .def("__repr__",
           [](const OperatorRecipe& r) {
             return "<Operator " + r.kind() + " (" + std::to_string(r.rows()) + ", " + std::to_string(r.cols()) + ")>";
           })
      .def(
          "matmat",
          [](const OperatorRecipe& r, const Eigen::Ref<const RowMatrixXd>& V, int n_threads) {
            if (V.rows() != r.cols() || V.cols() < 1)
              throw std::invalid_argument("V must have shape (" + std::to_string(r.cols()) +
                                          ", b), b >= 1, to match the operator made from " + r.inputs() + ", got (" +
                                          std::to_string(V.rows()) + ", " + std::to_string(V.cols()) + ")");
            if (!V.allFinite()) throw std::invalid_argument("V must be finite");
            RowMatrixXd out = with_operator(r, n_threads, [&](const LinearOperator& op) {
              const Eigen::MatrixXd in = V;
              Eigen::MatrixXd Y(op.rows(), in.cols());
              apply_polled(op, in, Y, python_interrupt_poll());
              return RowMatrixXd(Y);
            });
            return finite_product(std::move(out), r, "A @ V", " or V");
          },
          "V"_a.noconvert(), py::kw_only(), "n_threads"_a = 1, "A @ V for a float64 C-contiguous (n, b) V.")
      .def(
          "column",
          [](const OperatorRecipe& r, Index j, int n_threads) {
            if (j < 0 || j >= r.cols())
              throw std::invalid_argument("j must lie in [0, " + std::to_string(r.cols()) + "), got " +
                                          std::to_string(j));
            return finite_product(with_operator(r, n_threads,
                                                [&](const LinearOperator& op) {
                                                  Eigen::VectorXd out(op.rows());
                                                  op.column(j, out);
                                                  return out;
                                                }),
                                  r, "column j");
          },
          "j"_a, py::kw_only(), "n_threads"_a = 1, "Column j of A.")
      .def(
          "diagonal",
          [](const OperatorRecipe& r, int n_threads) {
            if (r.rows() != r.cols()) throw std::invalid_argument("diagonal: the operator must be square");
            return finite_product(with_operator(r, n_threads, [&](const LinearOperator& op) { return op.diagonal(); }),
                                  r, "the diagonal");
          },
          py::kw_only(), "n_threads"_a = 1, "The diagonal of a square A.");

  linalg.def(
      "dense_operator",
      [](const py::array& A, bool symmetric, const std::string& name) -> RecipePtr {
        return std::make_shared<DenseRecipe>(A, symmetric, name);
      },
      "A"_a.noconvert(), py::kw_only(), "symmetric"_a = true, "name"_a = "A",
      "A C-contiguous float32 / float64 array as an Operator, viewed without a copy (kept alive); checked finite.");
  linalg.def(
      "csr_operator",
      [](const py::array_t<Index, py::array::c_style>& indptr, const py::array_t<Index, py::array::c_style>& indices,
         const py::array_t<double, py::array::c_style>& data,
         bool symmetric) -> RecipePtr { return std::make_shared<CsrRecipe>(indptr, indices, data, symmetric); },
      "indptr"_a.noconvert(), "indices"_a.noconvert(), "data"_a.noconvert(), py::kw_only(), "symmetric"_a = true,
      "A square CSR matrix (int64 indptr and indices, float64 data; copied) as an Operator.");
  linalg.def(
      "callback_operator",
      [](const py::object& matmat, Index rows, Index cols, const py::object& column, bool symmetric,
         const std::string& name) -> RecipePtr {
        return std::make_shared<CallbackRecipe>(matmat, column, rows, cols, symmetric, name);
      },
      "matmat"_a, "rows"_a, "cols"_a, py::kw_only(), "column"_a = py::none(), "symmetric"_a = true, "name"_a = "A",
      "A Python callable X -> A @ X (float64 (cols, b) in, (rows, b) out) as an Operator; column(j) -> A[:, j] "
      "when given. The solvers call it with the GIL re-taken; its exceptions propagate.");
  linalg.def(
      "sum_operator",
      [](const std::vector<std::pair<RecipePtr, double>>& terms, double shift, double constant, std::optional<Index> n)
          -> RecipePtr { return std::make_shared<SumRecipe>(terms, shift, constant, n.value_or(-1)); },
      "terms"_a, py::kw_only(), "shift"_a = 0.0, "constant"_a = 0.0, "n"_a = py::none(),
      "sum_t c_t A_t + shift I + constant 11' for terms [(A_t, c_t)] (n: the size when there are none).");
  linalg.def(
      "low_rank_operator",
      [](const MatrixRef& U, const Eigen::Ref<const Eigen::VectorXd>& c) -> RecipePtr {
        return std::make_shared<LowRankRecipe>(U, c);
      },
      "U"_a.noconvert(), "c"_a.noconvert(), "U diag(c) U' (U: n x r, copied).");

  linalg.def(
      "nystrom_operator",
      [](const MatrixRef& C, const MatrixRef& W, double rcond) -> RecipePtr {
        if (!(rcond >= 0.0 && rcond < 1.0)) throw std::invalid_argument("rcond must lie in [0, 1)");
        if (C.cols() < 1 || C.rows() < 1) throw std::invalid_argument("C must have at least one row and column");
        if (W.rows() != C.cols() || W.cols() != C.cols())
          throw std::invalid_argument("W must have shape (" + std::to_string(C.cols()) + ", " +
                                      std::to_string(C.cols()) + ") to match C's columns, got (" +
                                      std::to_string(W.rows()) + ", " + std::to_string(W.cols()) + ")");
        Eigen::MatrixXd U;
        Eigen::VectorXd c;
        {
          py::gil_scoped_release release;
          nystrom_factor(C, W, rcond, U, c);
        }
        if (!U.allFinite() || !c.allFinite())
          throw std::invalid_argument(
              "C W^+ C' overflows the float64 range (W's kept eigenvalues too small for C): rescale C or W");
        return std::make_shared<LowRankRecipe>(U, c, "C, W");
      },
      "C"_a.noconvert(), "W"_a.noconvert(), py::kw_only(), "rcond"_a = 1e-12,
      "The Nystrom approximation C W^+ C' (C: n x M kernel columns at M centres, W: their M x M block) as a "
      "low-rank Operator; W's eigenvalues below rcond times the largest are dropped.");
  linalg.def(
      "normalized_operator",
      [](const RecipePtr& A, const Eigen::Ref<const Eigen::VectorXd>& s, bool center) -> RecipePtr {
        return std::make_shared<NormalizedRecipe>(A, s, center);
      },
      "A"_a, "s"_a.noconvert(), py::kw_only(), "center"_a = false,
      "H diag(s) A diag(s) H with H = I - 11'/n when center, else diag(s) A diag(s).");

  kernels.def(
      "kernel_operator",
      [](const MatrixRef& X, const PairwiseKernel& kernel, double constant, bool single) -> RecipePtr {
        return std::make_shared<KernelRecipe>(X, kernel, constant, single);
      },
      "X"_a.noconvert(), py::kw_only(), "kernel"_a, "constant"_a = 0.0, "single"_a = false,
      "k(X, X) + constant 11' as an Operator computed tile by tile on the fly (X copied; single: float32 tiles).");
}

}  // namespace kernlearn::bindings
