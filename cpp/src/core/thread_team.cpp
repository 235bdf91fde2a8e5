#include "kernlearn/core/thread_team.hpp"

#include <stdexcept>
#include <string>

#if defined(__linux__)
#include <sched.h>
#endif

#include "kernlearn/core/parallel.hpp"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define KERNLEARN_PAUSE() _mm_pause()
#else
#define KERNLEARN_PAUSE() std::this_thread::yield()
#endif

namespace kernlearn {

namespace {
// About a millisecond of pause instructions: longer than the serial work between the sections of
// one Lanczos step, shorter than anything a user would notice as a busy core.
constexpr int kSpinLimit = 1 << 13;
}  // namespace

int usable_threads(int requested) {
  if (requested < 1) throw std::invalid_argument("n_threads must be >= 1, got " + std::to_string(requested));
  int cores = 0;
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) cores = CPU_COUNT(&set);
#endif
  if (cores < 1) cores = static_cast<int>(std::thread::hardware_concurrency());
  if (cores < 1) cores = 1;
  return requested < cores ? requested : cores;
}

ThreadTeam::ThreadTeam(int n_threads) : size_(usable_threads(n_threads)) {
  errors_.resize(static_cast<std::size_t>(size_));
  workers_.reserve(static_cast<std::size_t>(size_ - 1));
  try {
    for (int t = 1; t < size_; ++t) workers_.emplace_back(&ThreadTeam::work, this, t);
  } catch (...) {
    // The destructor does not run for a half-built team: stop and join the workers that started
    // (they would otherwise wait forever, and a joinable std::thread's destructor terminates).
    shut_down();
    throw;
  }
}

ThreadTeam::~ThreadTeam() { shut_down(); }

void ThreadTeam::shut_down() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_.store(true);
    generation_.fetch_add(1);
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadTeam::work(int member) {
  std::uint64_t seen = 0;
  for (;;) {
    std::uint64_t now = generation_.load(std::memory_order_acquire);
    for (int spin = 0; now == seen && spin < kSpinLimit; ++spin) {
      KERNLEARN_PAUSE();
      now = generation_.load(std::memory_order_acquire);
    }
    if (now == seen) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return generation_.load() != seen; });
      now = generation_.load();
    }
    if (quit_.load()) return;
    seen = now;
    try {
      (*task_)(member);
    } catch (...) {
      errors_[static_cast<std::size_t>(member)] = std::current_exception();
    }
    pending_.fetch_sub(1, std::memory_order_release);
  }
}

void ThreadTeam::run(const std::function<void(int)>& task) {
  if (size_ == 1) return task(0);
  task_ = &task;
  pending_.store(size_ - 1, std::memory_order_relaxed);
  {
    // Under the mutex, so a worker about to sleep either sees the new generation or is woken.
    std::lock_guard<std::mutex> lock(mutex_);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  try {
    task(0);
  } catch (...) {
    errors_[0] = std::current_exception();
  }
  for (int spin = 0; pending_.load(std::memory_order_acquire) != 0; ++spin) {
    if (spin < kSpinLimit) {
      KERNLEARN_PAUSE();
    } else {
      std::this_thread::yield();  // a worker was descheduled: give it the core
    }
  }
  task_ = nullptr;
  for (auto& e : errors_) {
    if (e) {
      std::exception_ptr first = e;
      for (auto& clear : errors_) clear = nullptr;
      std::rethrow_exception(first);
    }
  }
}

}  // namespace kernlearn
