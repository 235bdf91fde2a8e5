// Matrix types shared across the core. numpy arrays are row-major, so the core works row-major
// too: an Eigen::Ref of a column-major type would silently copy every array crossing the binding.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Core>

namespace kernlearn {

using Index = std::int64_t;
using RowMatrixXd = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMatrixXi = Eigen::Matrix<Index, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using VectorXi = Eigen::Matrix<Index, Eigen::Dynamic, 1>;
using MatrixRef = Eigen::Ref<const RowMatrixXd>;

// The largest coordinate magnitude the distance-based methods accept: squared distances of such
// points stay finite (sums of d squares below 4e300 for any realistic d).
constexpr double kMaxCoordinate = 1e150;

// A square CSR matrix with sorted column indices in every row.
struct Csr {
  Index n = 0;
  std::vector<Index> indptr, indices;
  std::vector<double> data;
};

}  // namespace kernlearn
