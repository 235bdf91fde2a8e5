// ThreadTeam: worker threads kept alive across many short parallel sections.
//
// A Lanczos step has three or four parallel sections (mat-vec, projections, subtraction), each a
// fraction of a millisecond at n = 10^4; starting threads for each would cost more than it saves
// (parallel_for's model). The team's workers spin briefly between sections and sleep when idle.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kernlearn {

class ThreadTeam {
 public:
  // The caller is member 0: usable_threads(n_threads) - 1 workers start (parallel.hpp). If one
  // fails to start, those started are stopped and joined and the std::system_error is rethrown.
  explicit ThreadTeam(int n_threads);
  ~ThreadTeam();
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  int size() const { return size_; }

  // Calls task(t) for every member t in [0, size()), t = 0 on the calling thread, and returns when
  // all have returned; then rethrows the exception of the lowest member that threw, if any.
  void run(const std::function<void(int)>& task);

 private:
  void work(int member);
  void shut_down();  // wakes every worker to quit and joins it

  int size_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<std::uint64_t> generation_{0};  // bumped once per section
  std::atomic<int> pending_{0};               // workers still inside the current section
  std::atomic<bool> quit_{false};
  const std::function<void(int)>* task_ = nullptr;
  std::vector<std::exception_ptr> errors_;
};

}  // namespace kernlearn
