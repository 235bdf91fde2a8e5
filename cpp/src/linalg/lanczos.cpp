#include "kernlearn/linalg/lanczos.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernlearn/core/symmetric_eigen.hpp"
#include "kernlearn/linalg/gram_schmidt.hpp"

namespace kernlearn {

namespace {

// The solver proper, on B = A (largest) or B = -A (smallest): it always seeks the largest.
class ThickRestart {
 public:
  ThickRestart(const LinearOperator& A, const LanczosOptions& opt, ThreadTeam& team, const InterruptPoll& poll,
               bool on_filter = false)
      : A_(A),
        opt_(opt),
        on_filter_(on_filter),
        poll_(poll),
        n_(A.rows()),
        sign_(opt.largest() ? 1.0 : -1.0),
        rng_(opt.seed),
        gs_(A.rows(), team) {}

  LanczosResult run(const Eigen::MatrixXd& start) {
    wanted_ = std::min(opt_.k, n_);
    max_wanted_ = opt_.threshold && opt_.max_rank ? std::min(*opt_.max_rank, n_) : n_;
    resize_basis(opt_.ncv ? *opt_.ncv : default_ncv(wanted_));
    const Index max_matvec = opt_.max_matvec ? *opt_.max_matvec : 100 * n_;

    kept_ = locked_ = 0;
    if (start.cols() == 1 || !warm_start(start)) {
      // One column: it is the start; a block that locked nothing: the sum of its Ritz vectors
      // (or of its columns, when it was too far from invariant for the Rayleigh-Ritz step).
      const Eigen::VectorXd v0 = start.cols() == 1 ? Eigen::VectorXd(start.col(0)) : warm_direction_;
      if (!(v0.norm() > 0.0)) throw std::invalid_argument("v0 must not sum to the zero vector");
      V_.col(0) = v0 / v0.norm();
    }

    for (;;) {
      extend();
      ritz();
      if (done()) {
        if (confirmed()) return finish(SolverStatus::converged);
        probe();
        continue;
      }
      if (hit_rank_cap_) return finish(SolverStatus::converged);  // max_rank_reached says why
      if (n_matvec_ >= max_matvec) return finish(SolverStatus::max_iter);
      stop_if_asked();
      restart();
    }
  }

 private:
  // On SimpleNPKL's A = C T - L (bench_eigsh.py) the mat-vec count hardly changes between
  // ncv = 1.6 k and 2 k, while the Gram-Schmidt cost grows with the basis. On a Chebyshev filter
  // of A, 1.3 k: top 50-200 at n = 10^5 ties 1.6 k, threshold solves of rank 230-400 run
  // 0.80-0.85x its time and SimpleNPKL's default fit at n = 10^5 0.86x
  // (bench/results/npkl_sequence.md, 2026-12-08).
  Index default_ncv(Index k) const { return k + std::max<Index>(20, on_filter_ ? (3 * k + 9) / 10 : (3 * k + 4) / 5); }

  // Threshold mode's next window: by half, at least 10 more, never past n or the rank cap + 1.
  Index grown_wanted() const { return std::min({n_, max_wanted_ + 1, std::max(wanted_ + 10, wanted_ + wanted_ / 2)}); }

  // A new Lanczos vector whose projection onto the basis is at most this fraction of its norm
  // is kept as it is (full reorthogonalisation leaves about 1e-15 |w|); the returned Ritz
  // vectors are then orthonormal to about sqrt(ncv) times this.
  static constexpr double kOrthogonality = 1e-13;

  // A wanted Ritz pair locks at a restart once its residual is below this fraction of tol: its
  // coupling to the rest is then dropped from the Ritz problem but still counted in the residuals
  // of the active pairs, where a hundred locked pairs add at most a tenth of tol.
  static constexpr double kLockFraction = 0.01;

  void resize_basis(Index ncv) {
    ncv = std::min(ncv, n_);
    if (ncv <= ncv_) return;
    set_basis_size(ncv);
  }

  // Back to ncv columns (a warm block wider than the basis grew it); keeps the first ones.
  void shrink_basis(Index ncv) {
    ncv = std::min(ncv, n_);
    if (ncv < ncv_) set_basis_size(ncv);
  }

  // conservativeResize keeps the leading vectors already computed (the threshold mode grows the
  // basis); the spare basis is scratch.
  void set_basis_size(Index ncv) {
    V_.conservativeResize(n_, ncv + 1);
    spare_.resize(n_, ncv + 1);
    H_.conservativeResize(ncv, ncv);
    ncv_ = ncv;
  }

  // Every Lanczos step, block of a product and panel of a basis rotation polls: a poll is a clock
  // read between the interpreter's checks, and a restart cycle takes seconds at n = 10^5.
  void stop_if_asked() const {
    if (poll_ && poll_()) throw Interrupted();
  }

  void apply(const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Ref<Eigen::VectorXd> y) {
    A_.apply(x, y);
    if (sign_ < 0) y = -y;
    ++n_matvec_;
  }

  // A random unit vector orthogonal to the first `cols` basis vectors (for breakdowns).
  Eigen::VectorXd fresh_vector(Index cols) {
    std::normal_distribution<double> normal;
    Eigen::VectorXd w(n_);
    // Redrawn while it lies in the span (a caller's start vector drawn from the same seed once
    // came back here as exactly the first basis vector, and 0 / 0 filled the basis with NaN).
    for (int draw = 0;; ++draw) {
      for (Index i = 0; i < n_; ++i) w(i) = normal(rng_);
      double drawn = 0.0;
      const double left = orthogonalize(cols, w.data(), drawn);
      if (left > 1e-16 * drawn) return w / std::sqrt(left);
      if (draw == 10) throw std::runtime_error("Lanczos: no direction left outside the basis");
    }
  }

  // w minus its projections on the first `cols` basis vectors: classical Gram-Schmidt on the
  // basis kernels, with a second pass when the first cancelled much (the DGKS criterion, as in
  // extend()). Sets `before` to |w|^2 as given and returns |w|^2 after.
  double orthogonalize(Index cols, double* w, double& before) {
    before = gs_.dot(w, w);
    if (cols == 0) return before;
    Eigen::VectorXd h(cols), h2(cols);
    gs_.project(V_.data(), n_, cols, w, h.data());
    const double left = gs_.subtract_then_project(V_.data(), n_, cols, h.data(), w, h2.data());
    return left < 0.5 * before ? gs_.subtract(V_.data(), n_, cols, h2.data(), w) : left;
  }

  // Lanczos steps from column kept_ (already holding the next vector) to ncv_.
  void extend() {
    w_.resize(n_);
    for (Index j = kept_; j < ncv_; ++j) {
      stop_if_asked();
      apply(V_.col(j), w_);
      const Index cols = j + 1;
      coef_.setZero(cols);
      h_.resize(cols);
      h2_.resize(cols);
      // Inside a cycle, A v_j = beta_{j-1} v_{j-1} + alpha_j v_j + beta_j v_{j+1} up to rounding:
      // the local terms go first, so the full classical Gram-Schmidt pass that follows removes
      // only rounding and rarely cancels enough to need a second pass (the DGKS criterion: |w|
      // shrank below 1/sqrt(2) of itself; Daniel et al. 1976). Started on the whole of w, it
      // asked for the second pass on nearly every step (bench/results/eigsh.md). The first step of a cycle couples to
      // every kept Ritz vector, so it goes straight to the full pass.
      double before;
      if (j > kept_) {
        const double alpha = gs_.dot(V_.col(j).data(), w_.data());
        coef_(j) = alpha;
        coef_(j - 1) = beta_;
        before = gs_.subtract_pair_then_project(V_.col(j).data(), alpha, V_.col(j - 1).data(), beta_, V_.data(), n_,
                                                cols, w_.data(), h_.data());
      } else {
        before = gs_.dot(w_.data(), w_.data());
        gs_.project(V_.data(), n_, cols, w_.data(), h_.data());
      }
      // After the local terms, h = V' w is the loss of orthogonality itself: |h| < 1e-13 |w| on
      // about half the steps (the 10^4 bench problem, top 50, and the Adult-like one, top 200),
      // and then the sweep over V that would subtract it is skipped. The Krylov relation stays
      // exact, since w keeps those components and H does not count them, so residual estimates
      // are unaffected; the basis stays orthogonal to kOrthogonality, and any growth of the loss
      // shows in the next step's h (skipping up to 1e-12 |w| only moved the loss to later steps).
      // On the other steps the loss sits in a few columns (Paige: along the Ritz vectors that
      // have converged; counts in bench/results/eigsh.md). Only the columns above
      // kOrthogonality |w| / sqrt(cols) are subtracted, which leaves less than kOrthogonality |w|
      // behind, the level a skipped step keeps: cheaper than sweeping all of V, with the same
      // mat-vecs and orthogonality. The first step of a cycle
      // couples to the kept Ritz vectors at full size; its subtraction also computes the
      // projection a second pass would subtract (one sweep), so only that pass is conditional.
      double after = before;
      if (j == kept_) {
        after = gs_.subtract_then_project(V_.data(), n_, cols, h_.data(), w_.data(), h2_.data());
        coef_ += h_;
        if (after < 0.5 * before) {
          after = gs_.subtract(V_.data(), n_, cols, h2_.data(), w_.data());
          coef_ += h2_;
        }
      } else if (h_.norm() > kOrthogonality * std::sqrt(before)) {
        const double cut = kOrthogonality * std::sqrt(before / static_cast<double>(cols));
        lost_.clear();
        for (Index c = 0; c < cols; ++c) {
          if (std::abs(h_(c)) > cut)
            lost_.push_back(c);
          else
            h_(c) = 0.0;
        }
        after = gs_.subtract_columns(V_.data(), n_, lost_, h_.data(), w_.data());
        coef_ += h_;
        if (after < 0.5 * before) {
          gs_.project(V_.data(), n_, cols, w_.data(), h2_.data());
          after = gs_.subtract(V_.data(), n_, cols, h2_.data(), w_.data());
          coef_ += h2_;
        }
      }
      H_.col(j).head(cols) = coef_;
      H_.row(j).head(cols) = coef_.transpose();
      norm_estimate_ = std::max(norm_estimate_, std::abs(coef_(j)));
      // |w|^2 can come out a hair below zero when w is all rounding: clamp, so that the breakdown
      // test below sees 0 and not NaN.
      beta_ = std::sqrt(std::max(after, 0.0));
      if (j + 1 == n_) {
        beta_ = 0.0;  // the basis spans the whole space: the projection is exact
        break;
      }
      // An invariant subspace: the Krylov relation holds with beta = 0; continue with a fresh
      // direction so the basis can still grow.
      if (beta_ <= 1e3 * std::numeric_limits<double>::epsilon() * std::max(norm_estimate_, coef_.norm())) {
        beta_ = 0.0;
        V_.col(j + 1) = fresh_vector(j + 1);
      } else {
        gs_.scale(w_.data(), 1.0 / beta_, V_.col(j + 1).data());
      }
    }
    basis_size_ = std::min(ncv_, n_);
  }

  // Ritz pairs of the projected matrix, largest first. The locked columns (converged Ritz vectors,
  // the basis's first locked_) are eigenvectors of it by construction: only the active block
  // H[L:, L:] is solved, and each active pair's residual also counts its coupling C s to the
  // locked vectors (C = H[:L, L:]), which the Krylov relation leaves out of beta |s_last|.
  void ritz() {
    const Index m = basis_size_, L = locked_, a = m - L;
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(Eigen::MatrixXd(H_.block(L, L, a, a)));
    if (eig.info() != Eigen::Success) throw std::runtime_error("eigensolver of the projected matrix failed");
    const Eigen::VectorXd active = eig.eigenvalues().reverse();
    const Eigen::MatrixXd Sa = eig.eigenvectors().rowwise().reverse();
    Eigen::VectorXd active_residual = (beta_ * Sa.row(a - 1).transpose()).cwiseAbs();
    if (L > 0) {
      const Eigen::MatrixXd CS = H_.block(0, L, L, a) * Sa;
      active_residual = (active_residual.array().square() + CS.colwise().squaredNorm().transpose().array()).sqrt();
    }
    // Merge the locked values (in column order) and the active ones (decreasing), largest first.
    std::vector<Index> locked_order(static_cast<std::size_t>(L));
    for (Index c = 0; c < L; ++c) locked_order[static_cast<std::size_t>(c)] = c;
    std::stable_sort(locked_order.begin(), locked_order.end(), [&](Index x, Index y) { return H_(x, x) > H_(y, y); });
    theta_.resize(m);
    residual_.resize(m);
    S_.setZero(m, m);
    ritz_locked_.assign(static_cast<std::size_t>(m), false);
    Index next_locked = 0, next_active = 0;
    for (Index i = 0; i < m; ++i) {
      const bool take_locked =
          next_locked < L &&
          (next_active == a || H_(locked_order[static_cast<std::size_t>(next_locked)],
                                  locked_order[static_cast<std::size_t>(next_locked)]) >= active(next_active));
      if (take_locked) {
        const Index c = locked_order[static_cast<std::size_t>(next_locked++)];
        theta_(i) = H_(c, c);
        residual_(i) = locked_residual_(c);
        S_(c, i) = 1.0;
        ritz_locked_[static_cast<std::size_t>(i)] = true;
      } else {
        theta_(i) = active(next_active);
        residual_(i) = active_residual(next_active);
        S_.col(i).tail(a) = Sa.col(next_active++);
      }
    }
    norm_estimate_ = std::max({norm_estimate_, std::abs(theta_(0)), std::abs(theta_(m - 1))});
  }

  // The threshold, raised by the residual tolerance: an eigenvalue within tol |A| of it cannot be
  // told apart from it, and resolving such a cluster (the exact zeros of a graph's untouched
  // components sit right at threshold 0) costs far more mat-vecs than the same pairs by count
  // (bench/results/eigsh.md).
  double effective_threshold() const { return sign_ * opt_.threshold.value_or(0.0) + opt_.tol * norm_estimate_; }

  bool converged(Index count) const {
    const double limit = opt_.tol * norm_estimate_;
    for (Index i = 0; i < count; ++i)
      if (!(residual_(i) <= limit)) return false;
    return true;
  }

  bool done() {
    const Index m = basis_size_;
    if (!opt_.threshold) return converged(std::min(wanted_, m));
    // Threshold mode: every pair above the threshold is certified once the pairs above it and
    // the first one at or below it have converged (or all n are found). Only that prefix of the
    // wanted window must converge: the window (a guess of the count) may reach into a cluster
    // below the threshold that is slow to resolve and not wanted.
    const double t = effective_threshold();
    for (;;) {
      Index count = std::min(wanted_, m);
      Index cross = 0;
      while (cross < count && theta_(cross) > t) ++cross;
      if (cross < count) count = cross + 1;
      if (!converged(count)) {
        // Every Ritz value of the window already lies above the threshold, and Ritz values are
        // lower bounds of the eigenvalues they approach (interlacing): more pairs are wanted than
        // the window holds. Growing it now, not once its pairs have converged, saves the cycles
        // spent converging each intermediate window (SimpleNPKL's first solve at n = 30,000, 73
        // pairs from a guess of 10: 782 Lanczos steps before, 371 now; bench/results/npkl_sequence.md).
        if (cross == count && count == wanted_ && wanted_ <= max_wanted_ && wanted_ < n_) wanted_ = grown_wanted();
        resize_basis(default_ncv(wanted_));  // the look-ahead below may have outgrown the basis
        return false;
      }
      if (theta_(count - 1) <= t || count == n_) {
        wanted_ = count;  // what confirmed(), probe() and finish() certify and return
        return true;
      }
      if (count > max_wanted_) {  // max_rank + 1 converged pairs, all above the threshold
        hit_rank_cap_ = true;
        return false;
      }
      if (count < m) {
        ++wanted_;  // the basis may already hold the next pair: look before growing it
        continue;
      }
      // Grow the wanted set and the basis with it.
      wanted_ = grown_wanted();
      resize_basis(default_ncv(wanted_));
      return false;
    }
  }

  // Warm start from a block (the eigenvectors of an earlier, similar matrix): one Rayleigh-Ritz
  // step on its span (one block product). If the wanted Ritz pairs already meet 1% of tol, they
  // are locked and only a probe (below) confirms them: a fraction of a cold solve. Otherwise
  // those that do are locked and Lanczos starts from the sum of the others. A block far from
  // invariant gets no Rayleigh-Ritz step: Lanczos starts from the sum of its columns. Returns
  // true when the basis was seeded here.
  bool warm_start(const Eigen::MatrixXd& block) {
    // The block may be wider than the basis the solve asked for: it is orthonormalised into a
    // basis grown to fit, which shrinks back below once only the Ritz vectors that matter remain.
    if (far_from_invariant(block)) return false;
    const Index ncv_asked = ncv_;
    const Index rank = orthonormalize_block(block);
    if (rank == 0) throw std::invalid_argument("v0 must not be zero");
    // The products run on the basis kernels (on the team, AVX-512 where present): with Eigen's
    // Householder QR and GEMMs on one thread, a warm start that locks nothing was slower than a
    // cold one (bench/results/eigsh.md).
    Eigen::MatrixXd W(n_, rank);
    apply_polled(A_, V_.leftCols(rank), W, poll_);
    if (sign_ < 0) W = -W;
    n_matvec_ += rank;
    // Q' A Q: its lower triangle is all the eigensolver reads, column c from row c down.
    Eigen::MatrixXd G = Eigen::MatrixXd::Zero(rank, rank);
    for (Index c = 0; c < rank; ++c) gs_.project(V_.col(c).data(), n_, rank - c, W.col(c).data(), G.col(c).data() + c);
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(G);
    if (eig.info() != Eigen::Success) throw std::runtime_error("eigensolver of the projected block failed");
    const Eigen::VectorXd theta = eig.eigenvalues().reverse();
    const Eigen::MatrixXd S = eig.eigenvectors().rowwise().reverse();
    norm_estimate_ = std::max(std::abs(theta(0)), std::abs(theta(rank - 1)));

    Index count = std::min(wanted_, rank);
    if (opt_.threshold) {
      count = 0;
      while (count < rank && theta(count) > effective_threshold()) ++count;
      count = std::min(count + 1, rank);  // one pair at or below the threshold certifies the rest
    }
    // Only the first `count` Ritz pairs are used: V[:, :count] = Q S, then A V into the spare
    // basis, which holds the dead Q after the swap.
    rotate_into_spare(rank, S, count);
    gs_.rotate(W.data(), n_, rank, S.data(), rank, count, spare_.data(), n_, poll_);
    Eigen::VectorXd res(count);
    for (Index c = 0; c < count; ++c) res(c) = (spare_.col(c) - theta(c) * V_.col(c)).norm();
    shrink_basis(std::max(ncv_asked, count));

    // Pairs lock only well below tol (as at a restart): a warm pair's residual points anywhere,
    // and the active pairs' residuals count their couplings to it, which never shrink. Locked at
    // tol itself, a block 0.3-0.9 tol off the answer held the active pairs above tol for good.
    const double lock_limit = kLockFraction * opt_.tol * norm_estimate_;
    const bool certified = !opt_.threshold || theta(count - 1) <= effective_threshold();
    const bool all_converged = (res.array() <= lock_limit).all();
    if (!(certified && all_converged && count >= std::min(wanted_, rank) && count < n_))
      return lock_converged(count, theta.head(count), res, lock_limit);
    wanted_ = std::max(wanted_, count);
    resize_basis(std::max(ncv_, count + std::max<Index>(20, count / 2)));  // keeps the Ritz vectors
    lock_kept(count, theta.head(count), res);
    V_.col(count) = fresh_vector(count);
    confirmed_values_ = theta.head(count);
    kept_ = n_locked_ = count;
    return true;
  }

  // Whether an orthonormal block Q is too far from invariant for any Ritz pair to meet tol,
  // judged by one product and a few sweeps over Q, before the Rayleigh-Ritz step spends b
  // products and an orthonormalisation (O(n b^2)) on it: for z = Q 1, |(I - Q Q') A z| is the
  // Ritz residuals' norm over the block's directions. Above sqrt(tol) |A z| (halfway to tol, in
  // orders of magnitude) the step would lock little (a few good columns could hide behind many
  // poor ones; they are then found again by Lanczos): on the benchmark sequence that step made
  // warm solves slower than cold ones (bench/results/eigsh.md). Sets the start vector to z; a block that is not
  // orthonormal (Q' z != 1) gets the step.
  bool far_from_invariant(const Eigen::MatrixXd& block) {
    const Index b = block.cols();
    warm_direction_ = block.rowwise().sum();
    if (b > n_) return false;
    Eigen::VectorXd g(b), h(b), Az(n_);
    gs_.project(block.data(), n_, b, warm_direction_.data(), g.data());
    if (!((g.array() - 1.0).abs().maxCoeff() <= 1e-8)) return false;
    apply(warm_direction_, Az);
    const double scale = gs_.dot(Az.data(), Az.data());
    gs_.project(block.data(), n_, b, Az.data(), h.data());
    const double residual = gs_.subtract(block.data(), n_, b, h.data(), Az.data());
    return residual > opt_.tol * scale;  // both squared
  }

  // The block's columns, orthonormalised in order into the first basis columns (columns that
  // leave less than 1e-10 of their norm are dependent and dropped). Returns the number kept, at
  // most n.
  Index orthonormalize_block(const Eigen::MatrixXd& block) {
    const Index b = std::min(block.cols(), n_);
    resize_basis(std::max(ncv_, b));
    Index rank = 0;
    for (Index c = 0; c < block.cols() && rank < b; ++c) {
      stop_if_asked();
      V_.col(rank) = block.col(c);
      double drawn = 0.0;
      const double left = orthogonalize(rank, V_.col(rank).data(), drawn);
      if (!(left > 1e-20 * drawn)) continue;
      V_.col(rank) /= std::sqrt(left);
      ++rank;
    }
    return rank;
  }

  // Part of a warm block met the lock limit: those Ritz pairs are locked as kept vectors (no
  // coupling, like converged Ritz vectors after a thick restart) and Lanczos starts from the sum
  // of the others,
  // so it spends its steps on the pairs that moved. Returns false when none converged: Lanczos
  // then starts from the sum of them all.
  bool lock_converged(Index count, const Eigen::Ref<const Eigen::VectorXd>& theta,
                      const Eigen::Ref<const Eigen::VectorXd>& res, double lock_limit) {
    // The Ritz vectors are the basis's first `count` columns and are compacted in place: column c
    // is read at step c, after every write (to columns locked <= c) that could reach it.
    warm_direction_.setZero(n_);
    Eigen::VectorXd kept_theta(count), kept_res(count);
    Index locked = 0;
    for (Index c = 0; c < count; ++c) {
      if (res(c) <= lock_limit) {
        if (locked != c) V_.col(locked) = V_.col(c);
        kept_theta(locked) = theta(c);
        kept_res(locked) = res(c);
        ++locked;
      } else {
        warm_direction_ += V_.col(c);
      }
    }
    if (locked == 0) return false;
    lock_kept(locked, kept_theta.head(locked), kept_res.head(locked));
    // Room for Lanczos steps beyond the locked pairs (as after the certified path's probe).
    resize_basis(std::max(ncv_, locked + std::max<Index>(20, locked / 2)));
    // Orthogonal to the locked ones (Ritz vectors are orthonormal); fresh if every pair converged
    // but the answer is not certified yet (threshold mode, or fewer pairs than wanted).
    const double norm = warm_direction_.norm();
    V_.col(locked) = norm > 0.0 ? Eigen::VectorXd(warm_direction_ / norm) : fresh_vector(locked);
    kept_ = n_locked_ = locked;
    return true;
  }

  // The basis's first `count` columns are converged Ritz vectors (values theta, residuals res),
  // decoupled in H: they are locked (see ritz and restart), and a cycle starts after them.
  void lock_kept(Index count, const Eigen::Ref<const Eigen::VectorXd>& theta,
                 const Eigen::Ref<const Eigen::VectorXd>& res) {
    H_.setZero();
    H_.diagonal().head(count) = theta;
    locked_residual_ = res;
    locked_ = count;
  }

  // A single-vector Krylov space holds one vector of each eigenspace: the start vector's
  // projection. Copies of a repeated eigenvalue (frequent here: every small connected component
  // of a kNN graph repeats its spectrum) are invisible to it. So a converged answer is confirmed
  // by locking it and continuing from a fresh random direction orthogonal to it; the answer stands
  // once such a probe reveals no new wanted pair. A probe costs ncv - k mat-vecs.
  bool confirmed() {
    const Index count = std::min(wanted_, basis_size_);
    if (count >= n_) return true;  // nothing outside the answer left to probe
    const double slack = 10.0 * opt_.tol * norm_estimate_;
    const bool same =
        confirmed_values_.size() == count && (confirmed_values_ - theta_.head(count)).cwiseAbs().maxCoeff() <= slack;
    confirmed_values_ = theta_.head(count);
    return same;
  }

  void probe() {
    const Index count = std::min(wanted_, basis_size_);
    resize_basis(std::max(ncv_, count + std::max<Index>(20, count / 2)));
    rotate_into_spare(basis_size_, count);
    // Locked at tol, not below: their residuals lie along the Lanczos vector dropped here, which
    // has no component along a missed copy of a repeated eigenvalue, the pair a probe looks for.
    lock_kept(count, theta_.head(count), residual_.head(count));
    V_.col(count) = fresh_vector(count);
    kept_ = count;
    ++n_restart_;
  }

  void restart() {
    const Index m = basis_size_, L = locked_, a = m - L;
    // A quarter of the spare room: the mat-vec count is flat from a tenth to two thirds (measured
    // as above), and every kept vector is swept by each Gram-Schmidt pass of the next cycle.
    const Index keep = std::min(m - 1, std::max(wanted_ + (ncv_ - wanted_) / 4, wanted_ + 1));
    // Thick restart: the locked vectors stay where they are (no rotation, a noticeable part of the
    // time: bench/results/eigsh.md, and most of the wanted pairs converge well before the
    // last), then the best keep - L active Ritz vectors, those converged among the wanted first
    // (they lock now), then the last Lanczos vector, which is orthogonal to all of them and
    // carries the couplings beta * S(m - 1, i).
    // Locked pairs that a better pair found later has pushed out of the wanted window (copies of
    // a repeated eigenvalue surface late) do not take the active part's room: counting them, the
    // active part shrank to nothing and Lanczos stalled. The basis grows to hold them instead.
    const double lock_limit = kLockFraction * opt_.tol * norm_estimate_;
    Index locked_wanted = 0;
    for (Index i = 0; i < std::min(wanted_, m); ++i) locked_wanted += ritz_locked_[static_cast<std::size_t>(i)] ? 1 : 0;
    const Index room = std::max<Index>(1, ncv_ - keep);  // Lanczos steps per cycle
    const Index active_target = std::max<Index>(1, keep - locked_wanted);
    std::vector<Index> newly_locked, still_active;
    for (Index i = 0; i < m && static_cast<Index>(newly_locked.size() + still_active.size()) < active_target; ++i) {
      if (ritz_locked_[static_cast<std::size_t>(i)]) continue;
      (i < wanted_ && residual_(i) <= lock_limit ? newly_locked : still_active).push_back(i);
    }
    std::vector<Index> order = newly_locked;
    order.insert(order.end(), still_active.begin(), still_active.end());
    const Index kept_active = static_cast<Index>(order.size()), nl = static_cast<Index>(newly_locked.size());
    Eigen::MatrixXd Ssel(a, kept_active);
    Eigen::VectorXd values(kept_active), residuals(kept_active);
    for (Index c = 0; c < kept_active; ++c) {
      const Index i = order[static_cast<std::size_t>(c)];
      Ssel.col(c) = S_.col(i).tail(a);
      values(c) = theta_(i);
      residuals(c) = residual_(i);
    }
    // A basis that spans the whole space (m = n) has no next Lanczos vector (column m was never
    // written): restart from a random direction orthogonal to the kept vectors instead.
    // The rotated vectors land in the spare basis; whichever is narrower, the locked columns or
    // the rotated ones, is copied so that both sit in one basis.
    gs_.rotate(V_.col(L).data(), n_, a, Ssel.data(), a, kept_active, spare_.col(L).data(), n_, poll_);
    const Index kept = L + kept_active;
    if (L <= kept_active) {
      if (L > 0) spare_.leftCols(L) = V_.leftCols(L);
      if (m < n_) spare_.col(kept) = V_.col(m);
      V_.swap(spare_);
    } else {
      V_.middleCols(L, kept_active) = spare_.middleCols(L, kept_active);
      if (m < n_) V_.col(kept) = V_.col(m);  // kept <= m: column m is read before any write reaches it
    }
    if (m == n_) V_.col(kept) = fresh_vector(kept);
    // The locked rows keep their couplings to the active vectors that stay active (rotated with
    // them); among locked vectors, and to the ones locking now, the couplings are left out: they
    // are part of the residuals already counted for the locked pairs.
    const Eigen::MatrixXd C = H_.block(0, L, L, a) * Ssel.rightCols(kept_active - nl);
    const Eigen::VectorXd locked_values = H_.diagonal().head(L);
    H_.setZero();
    H_.diagonal().head(L) = locked_values;
    H_.diagonal().segment(L, kept_active) = values;
    H_.block(0, L + nl, L, kept_active - nl) = C;
    H_.block(L + nl, 0, kept_active - nl, L) = C.transpose();
    locked_residual_.conservativeResize(L + nl);
    locked_residual_.tail(nl) = residuals.head(nl);
    locked_ = L + nl;
    kept_ = kept;
    if (kept_ + room > ncv_) resize_basis(kept_ + room);  // keeps the kept columns and H
    ++n_restart_;
  }

  // V[:, :count] = V[:, :m] S[:, :count], written into the spare basis, which then becomes the
  // basis (its columns from count on are stale until written): a copy back of the rotated vectors
  // (n x count, on one thread) cost as much as the rotation itself on two.
  void rotate_into_spare(Index m, Index count) { rotate_into_spare(m, S_, count); }
  void rotate_into_spare(Index m, const Eigen::MatrixXd& S, Index count) {
    gs_.rotate(V_.data(), n_, m, S.data(), S.rows(), count, spare_.data(), n_, poll_);
    V_.swap(spare_);
  }

  LanczosResult finish(SolverStatus status) {
    const Index m = basis_size_;
    Index count = std::min(wanted_, m);
    if (opt_.threshold) {
      const double t = effective_threshold();
      count = 0;
      while (count < std::min(wanted_, m) && count < max_wanted_ && theta_(count) > t) ++count;
    }
    LanczosResult out;
    out.values = sign_ * theta_.head(count);
    out.vectors.resize(n_, count);
    gs_.rotate(V_.data(), n_, m, S_.data(), S_.rows(), count, out.vectors.data(), n_, poll_);
    out.residuals = residual_.head(count);
    out.n_matvec = n_matvec_;
    out.n_restart = n_restart_;
    out.n_locked = n_locked_;
    out.norm_estimate = norm_estimate_;
    out.status = status;
    out.max_rank_reached = hit_rank_cap_;
    if (opt_.threshold && status == SolverStatus::converged && !hit_rank_cap_ && count < m) {
      out.beyond_value = sign_ * theta_(count);
      out.beyond_residual = residual_(count);
    }
    return out;
  }

  const LinearOperator& A_;
  const LanczosOptions& opt_;
  const bool on_filter_;  // A_ is a Chebyshev filter polynomial (lanczos_on_filter)
  const InterruptPoll& poll_;
  Index n_;
  double sign_;
  std::mt19937_64 rng_;

  Eigen::MatrixXd V_;  // n x (ncv + 1): the basis and the next Lanczos vector
  Eigen::MatrixXd H_;  // ncv x ncv projection V' B V
  Eigen::VectorXd theta_, residual_;
  Eigen::VectorXd confirmed_values_;  // the answer a probe must leave unchanged
  Eigen::VectorXd warm_direction_;    // start vector from a warm block that was not locked
  Eigen::VectorXd locked_residual_;   // per locked column, its residual when it locked
  std::vector<bool> ritz_locked_;     // per Ritz pair (theta_ order), whether it is a locked column
  Eigen::MatrixXd S_;
  Eigen::MatrixXd spare_;              // restart workspace, the size of V: the rotated basis
  Eigen::VectorXd w_, coef_, h_, h2_;  // Lanczos step workspace
  std::vector<Index> lost_;            // the columns a step's w has lost orthogonality to
  BasisProducts gs_;
  Index ncv_ = 0, kept_ = 0, basis_size_ = 0, wanted_ = 0, max_wanted_ = 0;
  Index n_matvec_ = 0, n_restart_ = 0, n_locked_ = 0, locked_ = 0;
  double beta_ = 0.0, norm_estimate_ = 0.0;
  bool hit_rank_cap_ = false;
};

}  // namespace

void check_lanczos_options(const LinearOperator& A, const Eigen::MatrixXd& start, const LanczosOptions& options) {
  const Index n = A.rows();
  const std::string n_is = " (n = " + std::to_string(n) + ")";
  if (n < 1) throw std::invalid_argument("A is empty" + n_is);
  require_symmetric(A, "A");
  if (start.rows() != n || start.cols() < 1)
    throw std::invalid_argument("v0 must have n = " + std::to_string(n) + " rows and a column, got shape (" +
                                std::to_string(start.rows()) + ", " + std::to_string(start.cols()) + ")");
  if (!start.allFinite()) throw std::invalid_argument("v0 contains NaN or infinity");
  if (!options.threshold && (options.k < 1 || options.k >= n))
    throw std::invalid_argument("k must satisfy 0 < k < n" + n_is + ", got " + std::to_string(options.k));
  // In threshold mode k is the first guess of the count; the window it sizes must hold a pair.
  if (options.threshold && (options.k < 1 || options.k > n))
    throw std::invalid_argument("k must satisfy 0 < k <= n" + n_is + " in threshold mode, got " +
                                std::to_string(options.k));
  if (options.threshold && std::isnan(*options.threshold)) throw std::invalid_argument("threshold must not be NaN");
  if (options.ncv && (*options.ncv <= options.k || *options.ncv > n))
    throw std::invalid_argument("ncv must satisfy k < ncv <= n" + n_is + ", got ncv = " + std::to_string(*options.ncv) +
                                " with k = " + std::to_string(options.k));
  if (options.max_rank && *options.max_rank < 1)
    throw std::invalid_argument("max_rank must be >= 1, got " + std::to_string(*options.max_rank));
  if (options.max_matvec && *options.max_matvec < 1)
    throw std::invalid_argument("max_matvec must be >= 1, got " + std::to_string(*options.max_matvec));
  if (!(options.tol > 0.0 && std::isfinite(options.tol)))
    throw std::invalid_argument("tol must be a positive finite number, got " + std::to_string(options.tol));
  if (options.filter) {
    if (!std::isfinite(options.filter->level)) throw std::invalid_argument("filter.level must be finite");
    if (options.filter->degree < 1 || options.filter->degree > kMaxFilterDegree || options.filter->degree % 2 == 0)
      throw std::invalid_argument("filter.degree must be odd, in [1, " + std::to_string(kMaxFilterDegree) + "], got " +
                                  std::to_string(options.filter->degree));
  }
}

LanczosResult lanczos(const LinearOperator& A, const Eigen::MatrixXd& start, const LanczosOptions& options,
                      ThreadTeam& team, const InterruptPoll& poll) {
  check_lanczos_options(A, start, options);
  return ThickRestart(A, options, team, poll).run(start);
}

LanczosResult lanczos_on_filter(const LinearOperator& P, const Eigen::MatrixXd& start, const LanczosOptions& options,
                                ThreadTeam& team, const InterruptPoll& poll) {
  check_lanczos_options(P, start, options);
  return ThickRestart(P, options, team, poll, true).run(start);
}

}  // namespace kernlearn
