#include "kernlearn/npkl.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "kernlearn/constraints.hpp"
#include "kernlearn/dense_eigen.hpp"
#include "kernlearn/lanczos.hpp"
#include "kernlearn/operator.hpp"

namespace kernlearn {

namespace {

// The positive part of A's spectrum that K is built from, and what K is.
struct Kernel {
  Eigen::VectorXd sigma;   // positive eigenvalues of A used, decreasing
  Eigen::MatrixXd V;       // their eigenvectors
  Eigen::VectorXd lambda;  // eigenvalues of K
  double phi = 0.0;        // max_K tr(A K) (B form) or max_K tr(A K) - (G/p) tr K^p (G form)
  double trace_AK = 0.0;
  double trace_Kp = 0.0;
  Index matvecs = 0;
};

class SimpleNpkl {
 public:
  SimpleNpkl(const Csr& L, const RowMatrixXi& pairs, const Eigen::VectorXd& labels, const NpklOptions& opt,
             ThreadTeam& team, const InterruptPoll& poll, const Eigen::MatrixXd& basis)
      : opt_(opt), team_(team), poll_(poll), n_(L.n), t_(labels), pairs_(pairs),
        acc_(pairs, PairPattern::entry, negated(L)), data_(static_cast<std::size_t>(acc_.nnz())),
        op_(n_, acc_.indptr().data(), acc_.indices().data(), data_.data(), team), rng_(opt.seed),
        basis_(basis) {
    use_dense_ = opt.eigen_solver == NpklEigenSolver::dense;
    if (basis_.cols() > 0) {  // U' L U, once
      Eigen::MatrixXd LU(n_, basis_.cols());
      CsrOperator(n_, L.indptr.data(), L.indices.data(), L.data.data(), team).apply(basis_, LU);
      projected_laplacian_ = basis_.transpose() * LU;
      basis_rows_ = basis_;
    }
  }

  NpklResult run(const NpklMonitor& monitor) {
    const Index m = t_.size();
    Eigen::VectorXd alpha = Eigen::VectorXd::Constant(m, opt_.C);  // the linear-loss solution first
    Kernel K = kernel_at(alpha, nullptr);
    NpklResult out;
    Eigen::VectorXd tk(m), grad(m), trial(m);
    if (opt_.loss == NpklLoss::linear) {
      // Closed form (Proposition 1 / 2): the optimum is -phi, which P(K) must equal.
      inner_products(K, tk);
      const double primal = primal_value(alpha, K, tk);
      out.history.push_back({-K.phi, primal, primal + K.phi, 0.0, K.matvecs, K.sigma.size()});
      out.converged = true;
      return finish(std::move(out), alpha, K);
    }

    for (Index it = 0;; ++it) {
      inner_products(K, tk);
      const double dual = dual_value(alpha, K);
      const double primal = primal_value(alpha, K, tk);
      const double gap = primal - dual;
      gradient(alpha, tk, grad);
      const NpklIteration record{dual, primal, gap, last_step_, K.matvecs, K.sigma.size()};
      out.history.push_back(record);
      if (gap <= opt_.tol * std::max(std::abs(primal), std::numeric_limits<double>::min())) {
        out.converged = true;
        break;
      }
      if (it >= opt_.max_iter) break;
      if (monitor && monitor(it, record)) break;
      out.n_iter = it + 1;

      // Projected gradient ascent on J with step 1 / L_t: the gradient 2 (1 - t K_ij - alpha / C)
      // is Lipschitz with 2 (1 / G_t + 1 / C), G_t the local scale of K = A_+ / G_t (each pair
      // moves one entry of A, so Lemma 5's factor m does not apply). Backtracking keeps the
      // ascent guarantee of Proposition 6 where G_t is only an estimate.
      double step = opt_.step > 0 ? opt_.step : default_step(K);
      Kernel next;
      Index spent = 0;  // mat-vecs of this iteration, rejected trials included
      for (int tries = 0;; ++tries) {
        trial = alpha + step * grad;
        project(trial);
        next = kernel_at(trial, &K);
        spent += next.matvecs;
        if (opt_.step > 0) break;
        const Eigen::VectorXd move = trial - alpha;
        const double bound = dual + grad.dot(move) - move.squaredNorm() / (2.0 * step);
        const double next_dual = dual_value(trial, next);
        if (next_dual >= bound - 1e-12 * std::max(1.0, std::abs(dual)) || tries == 40) break;
        step *= 0.5;
      }
      last_step_ = step;
      alpha = trial;
      K = std::move(next);
      K.matvecs = spent;
    }
    return finish(std::move(out), alpha, K);
  }

 private:
  static Csr negated(const Csr& L) {
    Csr out = L;
    for (double& v : out.data) v = -v;
    return out;
  }

  double default_step(const Kernel& K) const {
    const bool hinge = opt_.loss == NpklLoss::hinge;
    if (K.lambda.size() == 0) return opt_.C / 2.0;  // K = 0: near alpha, J is quadratic with curvature 2 / C
    const double G = (opt_.p - 1.0) * K.sigma.norm() / K.lambda.norm();
    const double lipschitz = 2.0 * (1.0 / G + (hinge ? 0.0 : 1.0 / opt_.C));
    return 1.0 / lipschitz;
  }

  void project(Eigen::VectorXd& alpha) const {
    switch (opt_.loss) {
      case NpklLoss::squared_hinge: alpha = alpha.cwiseMax(0.0); break;
      case NpklLoss::hinge: alpha = alpha.cwiseMax(0.0).cwiseMin(opt_.C); break;
      case NpklLoss::square:
      case NpklLoss::linear: break;
    }
  }

  // tk[p] = t_p K_ij.
  void inner_products(const Kernel& K, Eigen::VectorXd& tk) const {
    if (K.lambda.size() == 0) {
      tk.setZero();
      return;
    }
    acc_.inner(K.V, K.lambda, tk.data(), team_.size());
    tk = 0.5 * tk.cwiseProduct(t_);  // inner() gives tr(T_p K) = 2 K_ij
  }

  void gradient(const Eigen::VectorXd& alpha, const Eigen::VectorXd& tk, Eigen::VectorXd& grad) const {
    grad = 2.0 * (1.0 - tk.array()).matrix();
    if (opt_.loss != NpklLoss::hinge) grad -= (2.0 / opt_.C) * alpha;
  }

  double dual_value(const Eigen::VectorXd& alpha, const Kernel& K) const {
    double J = -K.phi + 2.0 * alpha.sum();
    if (opt_.loss != NpklLoss::hinge) J -= alpha.squaredNorm() / opt_.C;
    return J;
  }

  // P(K) at the K of alpha. tr(L K) = sum_p alpha_p t_p tr(T_p K) - tr(A K) needs no mat-vec.
  double primal_value(const Eigen::VectorXd& alpha, const Kernel& K, const Eigen::VectorXd& tk) const {
    const double trace_LK = 2.0 * alpha.dot(tk) - K.trace_AK;
    const Eigen::ArrayXd slack = 1.0 - tk.array();
    double loss = 0.0;
    switch (opt_.loss) {
      case NpklLoss::squared_hinge: loss = opt_.C * slack.cwiseMax(0.0).square().sum(); break;
      case NpklLoss::square: loss = opt_.C * slack.square().sum(); break;
      case NpklLoss::hinge: loss = 2.0 * opt_.C * slack.cwiseMax(0.0).sum(); break;
      case NpklLoss::linear: loss = -2.0 * opt_.C * tk.sum(); break;
    }
    return trace_LK + loss + (opt_.penalty ? opt_.G / opt_.p * K.trace_Kp : 0.0);
  }

  // A(alpha) = sum_p alpha_p t_p T_p - L, its positive spectrum, and K from it.
  Kernel kernel_at(const Eigen::VectorXd& alpha, const Kernel* previous) {
    current_a_ = alpha.cwiseProduct(t_);
    acc_.assemble(current_a_.data(), data_.data());
    Kernel K;
    positive_spectrum(previous, K);
    closed_form(K);
    return K;
  }

  // Eigenvalues below this count as zero: rounding, and the exact zeros of untouched components.
  double zero_level() const {
    double norm = 0.0;  // Gershgorin bound on |A|
    const auto& indptr = acc_.indptr();
    for (Index i = 0; i < n_; ++i) {
      double row = 0.0;
      for (Index q = indptr[i]; q < indptr[i + 1]; ++q) row += std::abs(data_[q]);
      norm = std::max(norm, row);
    }
    return std::max(opt_.eig_tol, 1e-12) * 10.0 * norm;
  }

  Index wanted_count() const {
    if (opt_.p == 1.0) return std::min<Index>(8, n_ - 1);  // the top eigenvalue and its copies
    return opt_.rank > 0 ? std::min(opt_.rank, n_ - 1) : 0;
  }

  void positive_spectrum(const Kernel* previous, Kernel& K) {
    const double zero = zero_level();
    Eigen::VectorXd values;
    Eigen::MatrixXd vectors;
    if (basis_.cols() > 0) {
      projected_spectrum(values, vectors);
    } else if (use_dense_) {
      dense_spectrum(zero, values, vectors);
    } else {
      // Automatic choice: Lanczos while the positive rank stays below dense_fraction n (where
      // it is faster, measured), LAPACK from the first solve that finds more, for good.
      const bool automatic = opt_.eigen_solver == NpklEigenSolver::automatic;
      const Index cap = std::max<Index>(1, static_cast<Index>(opt_.dense_fraction * static_cast<double>(n_)));
      if (automatic && wanted_count() > cap) {
        use_dense_ = true;
        dense_spectrum(zero, values, vectors);
      } else if (!lanczos_spectrum(previous, zero, automatic ? cap : 0, K, values, vectors)) {
        use_dense_ = true;
        dense_spectrum(zero, values, vectors);
      }
    }
    Index count = 0;
    const Index cap = opt_.p == 1.0 ? values.size() : (opt_.rank > 0 ? opt_.rank : values.size());
    while (count < std::min(cap, values.size()) && values(count) > zero) ++count;
    if (opt_.p == 1.0 && count > 0) {  // the eigenspace of the largest eigenvalue
      Index top = 1;
      while (top < count && values(0) - values(top) <= zero) ++top;
      count = top;
    }
    K.sigma = values.head(count);
    K.V = vectors.leftCols(count);
  }

  void dense_spectrum(double zero, Eigen::VectorXd& values, Eigen::MatrixXd& vectors) const {
    Eigen::MatrixXd D = Eigen::MatrixXd::Zero(n_, n_);
    const auto& indptr = acc_.indptr();
    const auto& indices = acc_.indices();
    for (Index i = 0; i < n_; ++i)
      for (Index q = indptr[i]; q < indptr[i + 1]; ++q) D(i, indices[q]) = data_[q];
    // p = 1 needs the top eigenvalue and its copies: all pairs above the level, then trimmed.
    dense_eigenpairs_above(D, zero, opt_.p == 1.0 ? 0 : opt_.rank, opt_.syevd, values, vectors);
  }

  // Lanczos in threshold mode (every pair above `zero`) or for the wanted top pairs; with
  // max_rank > 0, gives up (returns false) once more than max_rank pairs lie above `zero`.
  bool lanczos_spectrum(const Kernel* previous, double zero, Index max_rank, Kernel& K, Eigen::VectorXd& values,
                        Eigen::MatrixXd& vectors) {
    LanczosOptions lo;
    lo.tol = opt_.eig_tol;
    lo.seed = opt_.seed;
    const Index wanted = wanted_count();
    if (wanted > 0) {
      lo.k = wanted;
    } else {
      lo.threshold_mode = true;
      lo.threshold = zero;
      lo.max_rank = max_rank;
      lo.k = std::min<Index>(n_ - 1, std::max<Index>(10, previous ? previous->sigma.size() + 5 : 10));
      if (max_rank > 0) lo.k = std::min(lo.k, max_rank);
    }
    Eigen::MatrixXd start;
    if (opt_.warm_start && previous && previous->V.cols() > 0) {
      // The block's Rayleigh-Ritz step costs one mat-vec per column and pays only when it
      // locks pairs (late iterations, small steps). After a block that locked nothing, the
      // next solve starts from the vectors' sum alone (free), and every third tries the block.
      const bool try_block = block_pays_ || ++solves_since_block_ >= 3;
      start = try_block ? previous->V : Eigen::MatrixXd(previous->V.rowwise().sum());
      if (try_block) solves_since_block_ = 0;
    } else {
      std::normal_distribution<double> normal;
      start.resize(n_, 1);
      for (Index i = 0; i < n_; ++i) start(i, 0) = normal(rng_);
    }
    LanczosResult r = lanczos(op_, start, lo, team_, poll_);
    if (start.cols() > 1) block_pays_ = r.n_locked > 0;
    K.matvecs = r.n_matvec;
    if (r.status == LanczosStatus::max_rank_reached) return false;
    values = std::move(r.values);
    vectors = std::move(r.vectors);
    return true;
  }

  // Section 5.4: the eigenpairs of U' A U (r x r), lifted back by U. Each pair adds
  // a_p (u_i u_j' + u_j u_i') to -U' L U, u_i the i-th row of U.
  void projected_spectrum(Eigen::VectorXd& values, Eigen::MatrixXd& vectors) const {
    Eigen::MatrixXd M = -projected_laplacian_;
    for (Index p = 0; p < pairs_.rows(); ++p) {
      const double a = current_a_(p);
      if (a == 0.0) continue;
      const auto ui = basis_rows_.row(pairs_(p, 0)), uj = basis_rows_.row(pairs_(p, 1));
      M.noalias() += a * (ui.transpose() * uj + uj.transpose() * ui);
    }
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(M);
    if (eig.info() != Eigen::Success) throw std::runtime_error("eigensolver of U' A U failed");
    values = eig.eigenvalues().reverse();
    vectors = basis_ * eig.eigenvectors().rowwise().reverse();
  }

  void closed_form(Kernel& K) const {
    const Eigen::ArrayXd s = K.sigma.array();
    const double p = opt_.p;
    if (s.size() == 0) {  // A has no positive part: K = 0 is optimal (phi = 0)
      K.lambda.resize(0);
      return;
    }
    Eigen::ArrayXd lam;
    if (p == 1.0) {  // K = B times the average projector onto the top eigenspace
      lam = Eigen::ArrayXd::Constant(s.size(), opt_.B / static_cast<double>(s.size()));
      K.phi = opt_.B * s(0);
    } else {
      const double q = p / (p - 1.0);
      const double sum_q = s.pow(q).sum();
      if (opt_.penalty) {  // Proposition 2, eq. (20)
        lam = (s / opt_.G).pow(1.0 / (p - 1.0));
        K.phi = sum_q / (q * std::pow(opt_.G, q - 1.0));
      } else {  // Proposition 1, eq. (14)
        lam = std::pow(opt_.B / sum_q, 1.0 / p) * s.pow(1.0 / (p - 1.0));
        K.phi = std::pow(opt_.B, 1.0 / p) * std::pow(sum_q, 1.0 / q);
      }
    }
    K.lambda = lam.matrix();
    K.trace_AK = (s * lam).sum();
    K.trace_Kp = lam.pow(p).sum();
  }

  NpklResult finish(NpklResult out, const Eigen::VectorXd& alpha, const Kernel& K) const {
    out.alpha = alpha;
    out.eigenvalues = K.lambda;
    out.eigenvectors = K.V;  // lambda is increasing in sigma, so already in decreasing order
    out.used_dense = use_dense_;
    return out;
  }

  const NpklOptions& opt_;
  ThreadTeam& team_;
  const InterruptPoll& poll_;
  Index n_;
  Eigen::VectorXd t_;
  RowMatrixXi pairs_;
  ConstraintAccumulator acc_;
  std::vector<double> data_;
  CsrOperator op_;
  std::mt19937_64 rng_;
  double last_step_ = 0.0;
  bool block_pays_ = true;       // the last warm block locked pairs
  bool use_dense_ = false;       // LAPACK for every solve from now on
  int solves_since_block_ = 0;
  Eigen::MatrixXd basis_;           // Section 5.4's U (empty: the exact problem)
  Eigen::VectorXd current_a_;       // alpha o t of the matrix assembled last
  RowMatrixXd basis_rows_;          // U row-major, for the pairs' rows
  Eigen::MatrixXd projected_laplacian_;  // U' L U
};

}  // namespace

NpklResult simple_npkl(const Csr& L, const RowMatrixXi& pairs, const Eigen::VectorXd& labels,
                       const NpklOptions& options, ThreadTeam& team, const NpklMonitor& monitor,
                       const InterruptPoll& poll, const Eigen::MatrixXd& basis) {
  if (pairs.rows() != labels.size()) throw std::invalid_argument("pair_labels must have one value per pair");
  if (pairs.rows() == 0) throw std::invalid_argument("pairs must not be empty");
  if (L.n < 2) throw std::invalid_argument("need at least 2 points");
  if (!(options.p >= 1.0)) throw std::invalid_argument("p must be >= 1");
  if (!(options.C > 0.0)) throw std::invalid_argument("C must be positive");
  if (options.penalty ? !(options.G > 0.0) : !(options.B > 0.0))
    throw std::invalid_argument(options.penalty ? "G must be positive" : "B must be positive");
  if (options.penalty && options.p == 1.0)
    throw std::invalid_argument("p = 1 needs the trace bound B: with the penalty G the problem is unbounded or K = 0");
  if (options.p == 1.0 && options.loss != NpklLoss::linear)
    throw std::invalid_argument("p = 1 is only supported with loss='linear' (J is not differentiable)");
  if (basis.cols() > 0 && basis.rows() != L.n) throw std::invalid_argument("basis must have n rows");
  return SimpleNpkl(L, pairs, labels, options, team, poll, basis).run(monitor);
}

}  // namespace kernlearn
