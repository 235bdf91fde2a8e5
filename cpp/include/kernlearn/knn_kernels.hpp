// The two inner loops of the brute-force kNN: blocks of inner products G = Q C', and the screen
// that finds the few candidates worth an exact distance. Each runs on an AVX2/FMA kernel chosen at
// run time on x86-64 (wheels are built for baseline x86-64, so the instructions cannot be assumed
// at compile time), else on portable code (Eigen's GEMM, a scalar loop).
#pragma once

#include <vector>

#include "kernlearn/types.hpp"

namespace kernlearn {

// The rows of C cut into blocks of `block` rows and repacked for the micro-kernel: within a
// block, panels of kPanel rows stored dimension-major, so the kernel streams contiguous memory.
class PackedRows {
 public:
  static constexpr Index kPanel = 8;

  PackedRows(const MatrixRef& C, Index block);

  // G[i * ldg + j] = <Q row i, C row (b * block + j)> for i < nq, j < rows_in_block(b).
  void dot(const double* Q, Index nq, Index b, double* G, Index ldg) const;

  Index rows_in_block(Index b) const;
  Index n_blocks() const { return (n_ + block_ - 1) / block_; }

  // True when the AVX2/FMA kernel runs: the CPU has it and the environment variable
  // KERNLEARN_DISABLE_SIMD is unset (tests use it to check the portable path).
  static bool simd_enabled();

 private:
  Index n_, d_, block_;
  MatrixRef C_;
  std::vector<double> packed_;  // filled only when the SIMD kernel runs
};

// The first j in [from, n) with b[j] - s * g[j] <= threshold, or n if there is none.
Index next_candidate(const double* b, const double* g, double s, double threshold, Index from,
                     Index n);

}  // namespace kernlearn
