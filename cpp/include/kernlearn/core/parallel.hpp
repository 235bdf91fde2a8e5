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
#include <thread>
#include <vector>

#include "kernlearn/core/interrupt.hpp"

namespace kernlearn {

// Runs fn(begin, end) over chunks of [0, n) on n_threads threads (the caller included) and returns
// when all chunks are done. The first exception thrown by any chunk is rethrown here after every
// thread has joined; the remaining chunks are skipped. If poll() returns true, the remaining
// chunks are skipped and Interrupted is thrown.
template <class Fn>
void parallel_for(std::size_t n, int n_threads, std::size_t chunk, Fn&& fn, const InterruptPoll& poll = {}) {
  if (n == 0) return;
  if (n_threads < 1) throw std::invalid_argument("parallel_for: n_threads must be >= 1");
  chunk = std::max<std::size_t>(chunk, 1);
  const std::size_t n_chunks = (n + chunk - 1) / chunk;
  const std::size_t n_workers = std::min<std::size_t>(n_threads, n_chunks);

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
  for (std::size_t t = 1; t < n_workers; ++t) workers.emplace_back(run_chunks, false);
  run_chunks(true);
  for (auto& w : workers) w.join();

  if (error) std::rethrow_exception(error);
  if (stop.load()) throw Interrupted();
}

}  // namespace kernlearn
