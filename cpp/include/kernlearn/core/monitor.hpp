// The one progress mechanism of the iterative solvers: after each iteration a solver hands its
// monitor the iteration number and a record of that iteration; a monitor that returns true stops
// the solver, which then reports SolverStatus::interrupted. The binding's monitor polls Ctrl-C
// and calls the user's Python callback (cpp/bindings/boundary.hpp).
#pragma once

#include <functional>

#include "kernlearn/core/types.hpp"

namespace kernlearn {

template <class Record>
using Monitor = std::function<bool(Index iteration, const Record& record)>;

// True when the monitor asks the solver to stop; an empty monitor never does.
template <class Record>
bool monitor_stops(const Monitor<Record>& monitor, Index iteration, const Record& record) {
  return monitor && monitor(iteration, record);
}

}  // namespace kernlearn
