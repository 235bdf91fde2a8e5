// The two inner loops of the brute-force kNN: blocks of float32 inner products G = Q C', and the
// screen that finds the few candidates worth an exact float64 distance; and the screen's seeds.
//
// Each runs on the widest kernel family simd.hpp picks: AVX-512F, AVX2+FMA (not the seeds), or
// portable code (Eigen's GEMM and scalar loops); all give the same neighbours.
#pragma once

#include <vector>

#include "kernlearn/core/simd.hpp"
#include "kernlearn/core/types.hpp"

namespace kernlearn {

using RowMatrixXf = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The rows of C cut into blocks of `block` rows, repacked for the micro-kernel: within a block,
// panels of panel_width() rows stored dimension-major, so the kernel streams contiguous memory.
class PackedRows {
 public:
  // C must outlive this object (the portable kernel reads it in place).
  PackedRows(const RowMatrixXf& C, Index block);

  // G[i * ldg + j] = <Q row i, C row (b * block + j)> for i < nq, j < rows_in_block(b). Q is nq
  // rows of d floats. Columns up to the next multiple of 32 may be written: ldg must allow it.
  void dot(const float* Q, Index nq, Index b, float* G, Index ldg) const;

  Index rows_in_block(Index b) const;
  Index n_blocks() const { return (n_ + block_ - 1) / block_; }
  static constexpr Index kMaxPanel = 32;

 private:
  const RowMatrixXf& C_;
  Index n_, d_, block_, panel_;
  std::vector<float> packed_;  // empty for the portable kernel
};

// The screen, row-wise: the first j in [from, n) with b[j] - s * g[j] <= threshold, or n.
Index next_candidate(const float* b, const float* g, float s, float threshold, Index from, Index n);

// Seeds for the row-wise screen: candidate j falls in lane j mod kSeedLanes, and where[l] is the
// j < n of lane l with the smallest b[j] - s * g[j] (the lowest such j on a tie; -1 for a lane
// with no candidate). where holds kSeedLanes entries; n < 2^31 (one block of candidates).
constexpr int kSeedLanes = 16;
void lane_minima(const float* b, const float* g, float s, Index n, Index* where);

// The screen, column-wise (one candidate against a row of queries, each with its own threshold):
// the first j in [from, n) with b - s * g[j] <= threshold[j], or n.
Index next_query(float b, const float* g, float s, const float* threshold, Index from, Index n);

}  // namespace kernlearn
