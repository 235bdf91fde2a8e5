// How an iterative solver ended: the one status every result carries (Spectra's CompInfo plays
// this part there).
#pragma once

namespace kernlearn {

enum class SolverStatus {
  converged,      // the stopping certificate (duality gap, KKT or eigen-residual) met tol
  max_iter,       // the iteration cap came first
  not_converged,  // stopped early without the certificate: stalled, diverged or cycled
  interrupted,    // a monitor (the user's callback) asked to stop
};

}  // namespace kernlearn
