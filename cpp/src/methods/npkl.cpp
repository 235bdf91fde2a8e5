#include "kernlearn/methods/npkl.hpp"

#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>

#include "kernlearn/methods/npkl_trace_bound.hpp"

namespace kernlearn {

SaddleResult simple_npkl(const Csr& L, const Eigen::Ref<const RowMatrixXi>& pairs,
                         const Eigen::Ref<const Eigen::VectorXd>& labels, const NpklOptions& options, ThreadTeam& team,
                         const Monitor<SaddleIteration>& monitor, const InterruptPoll& poll,
                         const Eigen::MatrixXd& basis) {
  const Index m = pairs.rows();
  if (labels.size() != m) throw std::invalid_argument("labels must have one value per row of pairs");
  if (m == 0) throw std::invalid_argument("pairs must not be empty");
  if (pairs.cols() != 2) throw std::invalid_argument("pairs must have 2 columns");
  for (Index p = 0; p < m; ++p)
    if (labels(p) != 1.0 && labels(p) != -1.0) throw std::invalid_argument("pair_labels must be +1 or -1");
  // rho = 2 / C and the box [0, C] must be representable with room for the iteration's sums.
  if (!(options.C >= kMinC && options.C <= kMaxC)) {
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", options.C);
    throw std::invalid_argument(std::string("C must lie in [1e-300, 1e300], got ") + text);
  }
  if (options.spectral.p == 1.0 && options.loss != NpklLoss::linear) {  // the dual is not differentiable
    if (basis.cols() > 0) throw std::invalid_argument("basis is not supported with p = 1 and a loss other than linear");
    check_spectral_options(options.spectral);
    return npkl_trace_bound(L, pairs, labels, options, team, monitor, poll);
  }
  SaddleProblem pb;
  pb.sparse = L;
  for (double& v : pb.sparse.data) v = -v;
  pb.pairs = pairs;
  pb.pattern = PairPattern::entry;
  pb.rows.indptr.resize(static_cast<std::size_t>(m + 1));
  std::iota(pb.rows.indptr.begin(), pb.rows.indptr.end(), Index{0});
  pb.rows.indices.assign(pb.rows.indptr.begin(), pb.rows.indptr.end() - 1);
  pb.rows.data.assign(labels.data(), labels.data() + m);
  pb.target = Eigen::VectorXd::Constant(m, 2.0);
  pb.alpha0 = Eigen::VectorXd::Constant(m, options.C);
  pb.upper = options.C;
  pb.rho = 2.0 / options.C;
  switch (options.loss) {
    case NpklLoss::linear:
      pb.set = DualSet::fixed;
      break;
    case NpklLoss::squared_hinge:
      pb.set = DualSet::nonnegative;
      break;
    case NpklLoss::square:
      pb.set = DualSet::free;
      break;
    case NpklLoss::hinge:
      pb.set = DualSet::box;
      pb.rho = 0.0;
      break;
  }
  SpectralOptions spectral = options.spectral;
  spectral.filter_degree = kFilterDegree;
  return solve_saddle_point(pb, spectral, team, monitor, poll, basis);
}

}  // namespace kernlearn
