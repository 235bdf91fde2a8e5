#include "kernlearn/core/thread_team.hpp"

#include <stdexcept>

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

ThreadTeam::ThreadTeam(int n_threads) : size_(n_threads) {
  if (n_threads < 1) throw std::invalid_argument("ThreadTeam: n_threads must be >= 1");
  errors_.resize(static_cast<std::size_t>(n_threads));
  workers_.reserve(static_cast<std::size_t>(n_threads - 1));
  for (int t = 1; t < n_threads; ++t) workers_.emplace_back(&ThreadTeam::work, this, t);
}

ThreadTeam::~ThreadTeam() {
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
