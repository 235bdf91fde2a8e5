#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

#include "kernlearn/core/parallel.hpp"

namespace kernlearn {

namespace {
std::atomic<int> process_limit{0};  // 0: no limit
std::atomic<int> reserved{0};       // threads held by the sections running now

int usable_cores() {
  int cores = 0;
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) cores = CPU_COUNT(&set);
#endif
  if (cores < 1) cores = static_cast<int>(std::thread::hardware_concurrency());
  return cores < 1 ? 1 : cores;
}
}  // namespace

int thread_cap() {
  const int cores = usable_cores(), limit = process_limit.load(std::memory_order_relaxed);
  return limit > 0 && limit < cores ? limit : cores;
}

void set_thread_limit(int limit) {
  if (limit < 0) throw std::invalid_argument("the thread limit must be >= 0 (0: none), got " + std::to_string(limit));
  process_limit.store(limit, std::memory_order_relaxed);
}

int usable_threads(int requested) {
  if (requested < 1) throw std::invalid_argument("n_threads must be >= 1, got " + std::to_string(requested));
  const int cap = thread_cap();
  return requested < cap ? requested : cap;
}

ThreadReservation::ThreadReservation(int requested) : threads_(usable_threads(requested)) {
  int held = reserved.load();
  for (;;) {
    const int free = thread_cap() - held;
    const int take = threads_ < free ? threads_ : (free > 1 ? free : 1);
    if (reserved.compare_exchange_weak(held, held + take)) {
      threads_ = take;
      return;
    }
  }
}

ThreadReservation::~ThreadReservation() { reserved.fetch_sub(threads_); }

}  // namespace kernlearn
