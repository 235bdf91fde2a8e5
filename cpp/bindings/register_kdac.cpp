// Bindings of methods/kdac.hpp: ISM and the whole KDAC loop.
// kernlearn/_kdac.py validates the arrays (finite, float64, C-contiguous) before they get here.
// Every call runs the core through run_interruptible, i.e. without the GIL: safe because the core
// sees only Eigen maps of the argument arrays (alive for the whole call) and C++ objects; the
// result dicts are built after the GIL is re-taken. Ctrl-C is polled between tiles and iterations.
#include <optional>

#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "kernlearn/methods/kdac.hpp"

#include "common.hpp"

namespace kernlearn::bindings {

void register_kdac(py::module_& m) {
  m.def(
      "ism",
      [](const MatrixRef& X, const Eigen::MatrixXd& W0, const MatrixRef& A, const Eigen::VectorXd& c, double sigma,
         Index max_iter, double tol, int n_threads, Index anderson_depth) {
        const InterruptPoll poll = python_interrupt_poll();
        IsmResult r = run_interruptible([&] {
          const RowMatrixXd Xc = X.rowwise() - X.colwise().mean();
          ThreadTeam team(n_threads);
          return ism(Xc, W0, A, c, sigma, max_iter, tol, anderson_depth, team, poll);
        });
        py::dict out;
        out["W"] = std::move(r.W);
        out["eigenvalues"] = std::move(r.eigenvalues);
        out["trace_gamma_k"] = to_numpy(std::move(r.trace_gamma_k));
        out["distance"] = to_numpy(std::move(r.distance));
        out["n_iter"] = r.n_iter;
        out["converged"] = r.converged;
        out["cycled"] = r.cycled;
        out["n_damped"] = r.n_damped;
        return out;
      },
      py::arg("X").noconvert(), py::arg("W0"), py::arg("A").noconvert(), py::arg("c"), py::arg("sigma"),
      py::arg("max_iter"), py::arg("tol"), py::arg("n_threads"), py::arg("anderson_depth") = 0);

  m.def(
      "kdac",
      [](const MatrixRef& X, const MatrixRef& Y, const Eigen::MatrixXd& W0, Index q, Index n_clusters, double sigma,
         double lam, Index max_iter, Index ism_max_iter, double tol, Index dense_max_n, double eig_tol,
         std::uint64_t seed, int n_threads, const std::optional<py::function>& callback, Index anderson_depth) {
        KdacOptions opt;
        opt.n_clusters = n_clusters;
        opt.q = q;
        opt.sigma = sigma;
        opt.lambda = lam;
        opt.max_iter = max_iter;
        opt.ism_max_iter = ism_max_iter;
        opt.anderson_depth = anderson_depth;
        opt.tol = tol;
        opt.dense_max_n = dense_max_n;
        opt.eig_tol = eig_tol;
        opt.seed = seed;
        opt.n_threads = n_threads;
        // Runs on the calling thread between outer iterations: takes the GIL to run signal
        // handlers and the user's callback; the core holds no Python object.
        const KdacMonitor monitor = [&callback](Index it, const KdacIteration& rec) {
          py::gil_scoped_acquire gil;
          if (PyErr_CheckSignals() != 0) throw Interrupted();
          if (!callback) return false;
          py::dict info;
          info["iteration"] = it;
          info["cost"] = rec.cost;
          info["quality"] = rec.quality;
          info["hsic_y"] = rec.hsic_y;
          info["dist_w"] = rec.dist_w;
          info["dist_u"] = rec.dist_u;
          info["ism_iter"] = rec.ism_iter;
          info["ism_cycled"] = rec.ism_cycled;
          info["ism_damped"] = rec.ism_damped;
          return py::bool_((*callback)(info)).cast<bool>();
        };
        const InterruptPoll poll = python_interrupt_poll();
        KdacResult r = run_interruptible([&] { return kdac(X, Y, W0, opt, monitor, poll); });
        std::vector<double> cost, quality, hsic_y, dist_w, dist_u;
        std::vector<Index> ism_iter, ism_damped, matvecs;
        std::vector<bool> cycled;
        for (const auto& h : r.history) {
          cost.push_back(h.cost);
          quality.push_back(h.quality);
          hsic_y.push_back(h.hsic_y);
          dist_w.push_back(h.dist_w);
          dist_u.push_back(h.dist_u);
          ism_iter.push_back(h.ism_iter);
          matvecs.push_back(h.matvecs);
          cycled.push_back(h.ism_cycled);
          ism_damped.push_back(h.ism_damped);
        }
        py::dict out;
        out["W"] = std::move(r.W);
        out["U"] = std::move(r.U);
        out["degree"] = std::move(r.degree);
        out["W_init"] = std::move(r.W_init);
        out["init_eigenvalues"] = std::move(r.init_eigenvalues);
        out["phi_eigenvalues"] = std::move(r.phi_eigenvalues);
        out["q"] = r.q;
        out["cost"] = r.cost;
        out["quality"] = r.quality;
        out["hsic_y"] = r.hsic_y;
        out["eigengap"] = r.eigengap;
        out["sigma_lhs"] = r.sigma_lhs;
        out["sigma_rhs"] = r.sigma_rhs;
        out["fixed_point_residual"] = r.fixed_point_residual;
        out["n_iter"] = r.n_iter;
        out["converged"] = r.converged;
        out["ism_cycled"] = r.ism_cycled;
        out["outer_cycled"] = r.outer_cycled;
        out["cycle_period"] = r.cycle_period;
        out["used_dense"] = r.used_dense;
        py::dict history;
        history["cost"] = to_numpy(std::move(cost));
        history["quality"] = to_numpy(std::move(quality));
        history["hsic_y"] = to_numpy(std::move(hsic_y));
        history["dist_w"] = to_numpy(std::move(dist_w));
        history["dist_u"] = to_numpy(std::move(dist_u));
        history["ism_iter"] = to_numpy(std::move(ism_iter));
        history["matvecs"] = to_numpy(std::move(matvecs));
        history["ism_cycled"] = py::cast(cycled);
        history["ism_damped"] = to_numpy(std::move(ism_damped));
        out["history"] = history;
        return out;
      },
      py::arg("X").noconvert(), py::arg("Y").noconvert(), py::arg("W0"), py::arg("q"), py::arg("n_clusters"),
      py::arg("sigma"), py::arg("lam"), py::arg("max_iter"), py::arg("ism_max_iter"), py::arg("tol"),
      py::arg("dense_max_n"), py::arg("eig_tol"), py::arg("seed"), py::arg("n_threads"), py::arg("callback"),
      py::arg("anderson_depth") = 0);
}

}  // namespace kernlearn::bindings
