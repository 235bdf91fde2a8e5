#include "kernlearn/core/thread_team.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>

#include "kernlearn/core/parallel.hpp"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define KERNLEARN_PAUSE() _mm_pause()
#else
#define KERNLEARN_PAUSE() std::this_thread::yield()
#endif

namespace kernlearn {

namespace {
// At most about half a millisecond of pause instructions: longer than the serial work between the
// sections of one Lanczos step, shorter than anything a user would notice as a busy core.
constexpr int kSpinMax = 1 << 13;
constexpr int kMaxBackoff = 1 << 12;
constexpr int kStallSpacing = 64;
// Waits shorter than this never count as a stall: a worker finishing its last item a little after
// the caller is the normal end of a balanced section, not a preemption.
constexpr std::chrono::microseconds kStallFloor{20};
constexpr std::uint64_t kRunMask = 0xffffffffu;
}  // namespace

ThreadTeam::ThreadTeam(int n_threads)
    : reservation_(n_threads), size_(reservation_.threads()), cursors_(new Cursor[size_]) {
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
    tag_.fetch_add(1);
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadTeam::work(int member) {
  std::uint32_t seen = 0;
  int spin_limit = kSpinMax;
  for (;;) {
    std::uint32_t now = tag_.load(std::memory_order_acquire);
    for (int spin = 0; now == seen && spin < spin_limit; ++spin) {
      KERNLEARN_PAUSE();
      now = tag_.load(std::memory_order_acquire);
    }
    if (now == seen) {
      std::unique_lock<std::mutex> lock(mutex_);
      sleepers_.fetch_add(1);
      wake_.wait(lock, [&] { return tag_.load() != seen; });
      sleepers_.fetch_sub(1);
      now = tag_.load();
    }
    if (quit_.load()) return;
    seen = now;
    // A worker that keeps arriving after the items are gone (sections too short for it, or a
    // machine too busy to run it promptly) spins less and less and ends up sleeping until woken;
    // one that gets work spins longer again.
    spin_limit = run_items(member, now, nullptr) ? std::min(kSpinMax, 2 * spin_limit + 64) : spin_limit / 2;
  }
}

bool ThreadTeam::claim(int run, std::uint32_t tag, Item& item) {
  Cursor& cursor = cursors_[run];
  std::uint64_t word = cursor.word.load(std::memory_order_acquire);
  for (;;) {
    if (static_cast<std::uint32_t>(word >> 32) != tag) return false;  // that section is over
    const std::uint64_t end = cursor.end.load(std::memory_order_acquire);
    if (static_cast<std::uint32_t>(end >> 32) != tag) return false;  // the next section is being set up
    const auto next = static_cast<Item>(word & kRunMask);
    if (next >= static_cast<Item>(end & kRunMask)) return false;
    if (cursor.word.compare_exchange_weak(word, word + 1, std::memory_order_acq_rel, std::memory_order_acquire)) {
      item = next;
      return true;
    }
  }
}

bool ThreadTeam::run_items(int member, std::uint32_t tag, const InterruptPoll* poll) {
  bool ran = false;
  for (int k = 0; k < size_; ++k) {
    const int run = (member + k) % size_;  // its own run first, then the others'
    Item item = 0;
    while (claim(run, tag, item)) {
      ran = true;
      if (poll && *poll && !stop_.load(std::memory_order_relaxed) && (*poll)()) stop_.store(true);
      if (!stop_.load(std::memory_order_relaxed)) {
        try {
          (*fn_.load(std::memory_order_acquire))(member, item);
        } catch (...) {
          if (!error_taken_.test_and_set()) error_ = std::current_exception();
          stop_.store(true);
        }
      }
      finish_item();
    }
  }
  return ran;
}

void ThreadTeam::finish_item() {
  // n_items_ is still this section's: the caller cannot start another before this item counts.
  const Item n = n_items_.load(std::memory_order_relaxed);
  if (done_.fetch_add(1) + 1 == n && caller_sleeping_.load()) {
    std::lock_guard<std::mutex> lock(mutex_);  // the caller is either before its check or waiting
    all_done_.notify_one();
  }
}

void ThreadTeam::for_each(Item n_items, const ItemFn& fn, const InterruptPoll& poll) {
  if (n_items <= 0) return;
  if (n_items > std::numeric_limits<std::int32_t>::max())
    throw std::invalid_argument("ThreadTeam::for_each: more than 2^31 - 1 items");
  if (solo_sections_ > 0)
    --solo_sections_;
  else if (size_ > 1 && n_items > 1)
    return for_each_shared(n_items, fn, poll);
  for (Item item = 0; item < n_items; ++item) {
    if (poll && poll()) throw Interrupted();
    fn(0, item);
  }
}

void ThreadTeam::for_each_shared(Item n_items, const ItemFn& fn, const InterruptPoll& poll) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  fn_.store(&fn, std::memory_order_relaxed);
  n_items_.store(n_items, std::memory_order_relaxed);
  done_.store(0, std::memory_order_relaxed);
  stop_.store(false, std::memory_order_relaxed);
  error_taken_.clear();
  error_ = nullptr;
  const std::uint32_t tag = tag_.load(std::memory_order_relaxed) + 1;
  for (int run = 0; run < size_; ++run) {
    cursors_[run].end.store((std::uint64_t{tag} << 32) | static_cast<std::uint64_t>(n_items * (run + 1) / size_),
                            std::memory_order_release);
    const auto begin = static_cast<std::uint64_t>(n_items * run / size_);
    cursors_[run].word.store((std::uint64_t{tag} << 32) | begin, std::memory_order_release);
  }
  tag_.store(tag);
  if (sleepers_.load() > 0) {
    std::lock_guard<std::mutex> lock(mutex_);  // a worker is either before its check or waiting
    wake_.notify_all();
  }

  run_items(0, tag, &poll);  // the caller takes every item nobody else has claimed

  // Only items already in progress remain: spin briefly, then sleep until the last one is done.
  const auto own_done = Clock::now();
  for (int spin = 0; done_.load(std::memory_order_acquire) != n_items && spin < kSpinMax; ++spin) KERNLEARN_PAUSE();
  if (done_.load() != n_items) {
    std::unique_lock<std::mutex> lock(mutex_);
    caller_sleeping_.store(true);
    all_done_.wait(lock, [&] { return done_.load() == n_items; });
    caller_sleeping_.store(false);
  }
  const auto waited = Clock::now() - own_done;
  if (waited > kStallFloor && waited > own_done - start) {
    // A stall costs the rest of a time slice, a clean section saves half its length: the team
    // pays only while stalls are rarer than about one section in a hundred. Stalls closer than
    // kStallSpacing team sections double the solo run; a rare one starts it over at 1.
    backoff_ = clean_since_stall_ < kStallSpacing ? std::min(2 * backoff_, kMaxBackoff) : 1;
    solo_sections_ = backoff_;
    clean_since_stall_ = 0;
  } else {
    ++clean_since_stall_;
  }
  fn_.store(nullptr, std::memory_order_relaxed);
  if (error_) {
    std::exception_ptr first = error_;
    error_ = nullptr;
    std::rethrow_exception(first);
  }
  if (stop_.load()) throw Interrupted();
}

}  // namespace kernlearn
