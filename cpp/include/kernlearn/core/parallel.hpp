// parallel_for: the one place kernlearn starts threads.
//
// Work [0, n) is cut into chunks handed out through an atomic counter, so uneven chunks (a kd-tree
// query block in a dense region) balance by themselves. The calling thread works too and is the
// only one that polls for interruption: Python runs signal handlers on its main thread only, and
// the binding's poll function must take the GIL, which worker threads should never wait for.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

#include "kernlearn/core/interrupt.hpp"

namespace kernlearn {

// The thread count every parallel section uses for a requested n_threads: requested, capped at
// thread_cap(). More threads than cores only add contention, and a count like 10^6 would exhaust
// the address space on thread stacks. Throws std::invalid_argument naming n_threads when
// requested < 1. ThreadTeam and parallel_for both apply it, so no caller can start more. Python's
// kernlearn._utils._validation.resolve_n_threads applies the same rule to n_jobs.
int usable_threads(int requested);

// The most threads one parallel section may use: the cores this process may run on (its CPU
// affinity mask; std::thread::hardware_concurrency() where that is unavailable), lowered by the
// process-wide limit if one is set.
int thread_cap();

// The process-wide limit that threadpoolctl's threadpool_limits sets (bindings/thread_limit_abi.cpp
// exports it): limit >= 1 caps every later section, 0 removes the cap. Atomic; sections already
// running keep their threads.
void set_thread_limit(int limit);

// The cores other processes leave idle at this instant: the usable cores minus the runnable tasks
// of other processes (Linux: /proc/loadavg's running count minus this process's running threads),
// at least 1. All usable cores where that count does not describe them (a process confined to a
// subset of the machine's CPUs, as in a container's cpuset; systems without /proc).
int idle_cores();

// The threads one parallel section holds, reserved from a process-wide budget of thread_cap():
// usable_threads(requested), lowered to idle_cores(), and so that the sections running at once in
// this process (from several Python threads, or joblib's threading backend) hold at most
// thread_cap() threads together, but never below 1, the calling thread, which runs anyway.
// Released on destruction. On oversubscribed cores a team's threads take time slices from each
// other, and the serial parts between sections run slower than on one thread
// (bench/results/threads.md).
class ThreadReservation {
 public:
  explicit ThreadReservation(int requested);
  ~ThreadReservation();
  ThreadReservation(const ThreadReservation&) = delete;
  ThreadReservation& operator=(const ThreadReservation&) = delete;
  int threads() const { return threads_; }

 private:
  int threads_;
};

// Runs fn(begin, end) over chunks of [0, n) on ThreadReservation(n_threads).threads() threads (the
// caller included) and returns when all chunks are done. A thread that fails to start (std::system_error
// under a memory or process limit) is not an error: its chunks go to the threads that did start. The first exception
// thrown by any chunk is rethrown here after every thread has joined; the remaining chunks are skipped. If poll()
// returns true, the remaining chunks are skipped and Interrupted is thrown.
template <class Fn>
void parallel_for(std::size_t n, int n_threads, std::size_t chunk, Fn&& fn, const InterruptPoll& poll = {}) {
  const ThreadReservation reservation(n_threads);
  const int threads = reservation.threads();
  if (n == 0) return;
  chunk = std::max<std::size_t>(chunk, 1);
  const std::size_t n_chunks = (n + chunk - 1) / chunk;
  const std::size_t n_workers = std::min<std::size_t>(static_cast<std::size_t>(threads), n_chunks);

  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr error;
  std::atomic_flag error_taken = ATOMIC_FLAG_INIT;

  auto run_chunks = [&](bool is_caller) {
    for (;;) {
      if (stop.load(std::memory_order_relaxed)) return;
      if (is_caller && poll && poll()) {
        stop.store(true);
        return;
      }
      const std::size_t c = next.fetch_add(1);
      if (c >= n_chunks) return;
      const std::size_t begin = c * chunk;
      const std::size_t end = std::min(n, begin + chunk);
      try {
        fn(begin, end);
      } catch (...) {
        if (!error_taken.test_and_set()) error = std::current_exception();
        stop.store(true);
        return;
      }
    }
  };

  std::vector<std::thread> workers;
  workers.reserve(n_workers - 1);
  try {
    for (std::size_t t = 1; t < n_workers; ++t) workers.emplace_back(run_chunks, false);
  } catch (const std::system_error&) {
    // Fewer threads than asked: the chunk counter hands the rest to those running and the caller.
  }
  run_chunks(true);
  for (auto& w : workers) w.join();

  if (error) std::rethrow_exception(error);
  if (stop.load()) throw Interrupted();
}

}  // namespace kernlearn
