// Blocked Gaussian-kernel sums for KDAC / ISM (Wu et al., "Iterative Spectral Method for
// Alternative Clustering", AISTATS 2018): the degree vector of the Gaussian kernel of Z = X W, the
// matrix Phi(W) of eq. (8), the HSIC cost Tr(gamma K) of eq. (4a), and the right-hand side of the
// second-order condition (10) -- all streamed over b x b tiles of the upper triangle of the pair
// matrix, so memory is O(b^2) per thread (plus O(n m) per thread for kernel mat-vecs), never n x n.
//
// Notation. K_ij = exp(-|z_i - z_j|^2 / (2 sigma^2)) with z_i = W' x_i. The weights
//   gamma = D^-1/2 H (U U' - lambda Y Y') H D^-1/2  (eq. 4, below it)
// are never formed: the caller passes the low-rank factor A = D^-1/2 [H U, H Y] (n x m) and the
// signs c = (1, ..., 1, -lambda, ..., -lambda), so gamma_ij = sum_r c_r A_ir A_jr costs m per pair
// (a GEMM per tile).
//
// The factor 2 of the appendix. Summed over ordered pairs,
//   sum_ij G_ij (x_i - x_j)(x_i - x_j)' = 2 X' (D_G - G) X,   G = gamma o K, D_G = diag(G 1),
// because each pair contributes x_i x_i' + x_j x_j' - x_i x_j' - x_j x_i'. The appendix
// ("Implementation details of the derivative") writes sum Psi_ij A_ij = X'(D_Psi - Psi)X and so
// loses this 2; eigenvectors do not care, but the eigenvalues enter the eigengap (11) and
// inequality (10). We return eq. (8) exactly: Phi(W) = (2 / sigma^2) X' (D_G - G) X.
// (Listed for users with the paper's other errata in KDAC's docstring, Notes.)
//
// Accuracy. Phi is translation invariant (it only sees differences x_i - x_j), so callers pass
// column-centred X: X'(D_G - G)X is then a difference of two terms of the size of the result
// rather than of |mean|^2 n^2. Squared distances come from a GEMM (|z_i|^2 + |z_j|^2 - 2 z_i'z_j),
// clamped at 0 and set to exactly 0 on the diagonal.
#pragma once

#include <memory>

#include <Eigen/Core>

#include "kernlearn/core/parallel.hpp"
#include "kernlearn/core/thread_team.hpp"
#include "kernlearn/core/types.hpp"
#include "kernlearn/linalg/operator.hpp"

namespace kernlearn {

// Rows (and columns) per tile. 256 x 256 doubles = 512 KB per scratch matrix: the tile's kernel,
// weights and products stay in L2, and the number of tiles (n / 256)^2 / 2 balances two threads.
constexpr Index kHsicTile = 256;

// d_i = sum_j K_ij for the Gaussian kernel of the rows of Z (n x q): one product of the
// on-the-fly KernelOperator (kernel_operator.hpp) with the vector of ones.
Eigen::VectorXd gaussian_degree(const MatrixRef& Z, double sigma, ThreadTeam& team, const InterruptPoll& poll = {});

// The n x n Gaussian kernel of the rows of Z (only for the dense U-step at small n).
RowMatrixXd gaussian_kernel_dense(const MatrixRef& Z, double sigma, ThreadTeam& team, const InterruptPoll& poll = {});

// out (n x n, row-major float) = s_i K_ij s_j: the scaled kernel D^-1/2 K D^-1/2 of the U-step kept
// in single precision (half the bytes per Lanczos product; each entry is computed in double).
void gaussian_kernel_dense_scaled(const MatrixRef& Z, double sigma, const Eigen::VectorXd& s, float* out,
                                  ThreadTeam& team, const InterruptPoll& poll = {});

struct PhiResult {
  Eigen::MatrixXd phi;         // d x d, eq. (8)
  double trace_gamma_k = 0.0;  // sum_ij gamma_ij K_ij = Tr(gamma K) = -F(W) of eq. (4a)
  double bound_rhs = 0.0;      // sum_ij |gamma_ij| K_ij |x_i - x_j|^4 / sigma^2, the right side of (10)
};

// The Gaussian bandwidths every function here accepts: sigma^2 and 1 / sigma^2 stay finite and
// normal. Throws std::invalid_argument naming sigma outside, or for NaN.
constexpr double kMinSigma = 1e-150, kMaxSigma = 1e150;
void check_sigma(double sigma);

// Phi(W) of eq. (8) for X (n x d, column-centred), W (d x q), gamma = A diag(c) A' (A: n x m).
// with_bound also sums the right-hand side of inequality (10) (one more GEMM per tile).
PhiResult hsic_phi(const MatrixRef& X, const Eigen::Ref<const Eigen::MatrixXd>& W, const MatrixRef& A,
                   const Eigen::Ref<const Eigen::VectorXd>& c, double sigma, bool with_bound, ThreadTeam& team,
                   const InterruptPoll& poll = {});

// The part of hsic_phi over the pairs (i in I, j in J) of two row blocks X_I, X_J of the same
// column-centred X (A_I, A_J: the matching rows of A), each pair counted for both orders; with
// same, X_I and X_J are one block and its pairs are counted as hsic_phi counts them. Phi(W) of X
// is the sum of these over the block pairs J >= I (exactly symmetric, like each part), for a
// Phi assembled from tile pairs on several machines (kernlearn.distributed).
PhiResult hsic_phi_pair(const MatrixRef& XI, const MatrixRef& XJ, const Eigen::Ref<const Eigen::MatrixXd>& W,
                        const MatrixRef& AI, const MatrixRef& AJ, const Eigen::Ref<const Eigen::VectorXd>& c,
                        double sigma, bool with_bound, bool same, ThreadTeam& team, const InterruptPoll& poll = {});

// The kernel sums KDAC needs over the pairs of a column-centred X (n x d), wherever X lives: in
// this process (LocalHsicSums) or on a cluster (the bindings wrap a Python object whose tasks
// compute the same sums, kernlearn/distributed/_hsic.py). KDAC's loop is written once against it.
class HsicSums {
 public:
  virtual ~HsicSums() = default;
  virtual Index rows() const = 0;
  // gamma = A diag(c) A' (A: n x m) for the phi() calls that follow (one W-step's ISM).
  virtual void set_weights(const RowMatrixXd& A, const Eigen::VectorXd& c) = 0;
  // hsic_phi with the weights set last.
  virtual PhiResult phi(const Eigen::MatrixXd& W, double sigma, bool with_bound) = 0;
  // The Gaussian kernel exp(-|W'(x_i - x_j)|^2 / (2 sigma^2)) as a symmetric operator.
  virtual std::unique_ptr<LinearOperator> kernel(const Eigen::MatrixXd& W, double sigma) = 0;
};

// The sums over an X held here: hsic_phi, and the on-the-fly KernelOperator of Z = X W.
class LocalHsicSums final : public HsicSums {
 public:
  LocalHsicSums(const MatrixRef& Xc, ThreadTeam& team, InterruptPoll poll)
      : Xc_(Xc), team_(team), poll_(std::move(poll)) {}
  Index rows() const override { return Xc_.rows(); }
  void set_weights(const RowMatrixXd& A, const Eigen::VectorXd& c) override {
    A_ = A;
    c_ = c;
  }
  PhiResult phi(const Eigen::MatrixXd& W, double sigma, bool with_bound) override {
    return hsic_phi(Xc_, W, A_, c_, sigma, with_bound, team_, poll_);
  }
  std::unique_ptr<LinearOperator> kernel(const Eigen::MatrixXd& W, double sigma) override;

 private:
  MatrixRef Xc_;
  ThreadTeam& team_;
  InterruptPoll poll_;
  RowMatrixXd A_;
  Eigen::VectorXd c_;
};

// d_i = sum_j K_ij of the kernel operator: one product with the vector of ones.
Eigen::VectorXd operator_degree(const LinearOperator& K);

// sqrt(q - |W1' W2|_F^2) = |W1 W1' - W2 W2'|_F / sqrt 2 for orthonormal d x q W1, W2: the root sum
// of squared sines of the principal angles. Independent of the sign and order of the columns.
double projection_distance(const Eigen::Ref<const Eigen::MatrixXd>& W1, const Eigen::Ref<const Eigen::MatrixXd>& W2);

// Flips each column so that its entry of largest magnitude is positive (the first on ties).
void fix_signs(Eigen::Ref<Eigen::MatrixXd> V);

}  // namespace kernlearn
