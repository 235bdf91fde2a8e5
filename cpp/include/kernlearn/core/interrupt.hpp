// Interruption: how a long computation learns that the user asked it to stop (Ctrl-C).
#pragma once

#include <functional>
#include <stdexcept>

namespace kernlearn {

// Thrown when the user asked to stop (Ctrl-C). The binding turns it back into the Python error
// that the poll function left set.
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

// A poll function returns true when the computation should stop. Empty = never stop.
using InterruptPoll = std::function<bool()>;

}  // namespace kernlearn
