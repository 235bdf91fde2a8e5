// ThreadTeam: worker threads kept alive across many short parallel sections.
//
// A Lanczos step has three or four parallel sections (mat-vec, projections, subtraction), each a
// fraction of a millisecond at n = 10^4; starting threads for each would cost more than it saves
// (parallel_for's model). Two rules make the team degrade gracefully on a busy machine, where the
// OS may preempt any worker at any time (figures: bench/results/threads.md):
//  - Nobody waits for a member that has not started. A section's items are claimed one at a time,
//    and the calling thread claims whatever is left, so a worker that wakes late finds nothing to
//    do and one that never wakes holds nothing back. The caller waits only for items in progress.
//  - Idle workers spin for a short window that adapts (it shrinks while they keep arriving too late
//    to help), then block on a condition variable, so they do not take cores from other processes.
//  - A worker preempted in the middle of an item still holds the section for the rest of its time
//    slice (milliseconds, against sections of tens of microseconds). When the caller waits for one
//    longer than it worked itself, it runs the next sections alone: 1, 2, 4, ... up to 4096 of them
//    while stalls keep coming within 64 team sections of each other, 1 again after a rarer one. On
//    a busy machine the team then costs little more than one thread; on an idle one it keeps its
//    speed-up.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "kernlearn/core/interrupt.hpp"
#include "kernlearn/core/parallel.hpp"

namespace kernlearn {

class ThreadTeam {
 public:
  using Item = std::int64_t;
  // fn(member, item): member in [0, size()) identifies the thread (for per-thread scratch).
  using ItemFn = std::function<void(int, Item)>;

  // The caller is member 0: ThreadReservation(n_threads).threads() - 1 workers start (parallel.hpp),
  // fewer than asked while other sections in the process hold the cores. If one
  // fails to start, those started are stopped and joined and the std::system_error is rethrown.
  explicit ThreadTeam(int n_threads);
  ~ThreadTeam();
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  int size() const { return size_; }

  // Calls fn(member, item) once for every item in [0, n_items) and returns when all have returned.
  // Member t first takes the items of its own contiguous run [n_items t / size(), n_items (t + 1) /
  // size()), so that successive sections over the same rows find them in its cache, then the items
  // left in the other runs. Which member runs an item may differ between calls: fn must write
  // per-item (or per-member) results for the outcome not to depend on it.
  // The calling thread alone calls poll(), between items; when it returns true the items not yet
  // started are skipped and Interrupted is thrown. An exception thrown by fn likewise skips the
  // items not yet started and is rethrown here (the first one, if several threw). Not reentrant:
  // fn must not call for_each on the same team.
  void for_each(Item n_items, const ItemFn& fn, const InterruptPoll& poll = {});

 private:
  struct alignas(64) Cursor {
    std::atomic<std::uint64_t> word{0};  // section tag (high 32 bits) | next item of the run (low 32)
    // section tag | end of the run: tagged too, so that a worker still in the last section never
    // pairs that section's position with the next section's end (it once ran a finished section's
    // item in the new one and counted it there: done_ overshot n_items and the caller waited
    // forever; seen under AddressSanitizer's timing).
    std::atomic<std::uint64_t> end{0};
  };

  void work(int member);
  void shut_down();  // wakes every worker to quit and joins it
  bool claim(int run, std::uint32_t tag, Item& item);
  void for_each_shared(Item n_items, const ItemFn& fn, const InterruptPoll& poll);
  bool run_items(int member, std::uint32_t tag, const InterruptPoll* poll);  // true if it ran any
  void finish_item();

  ThreadReservation reservation_;
  int size_;
  std::vector<std::thread> workers_;
  std::unique_ptr<Cursor[]> cursors_;  // one per member's run

  // The current section. Written by the caller before the cursors publish the new tag; a worker
  // reads them only after claiming an item of that section, which the caller cannot end before
  // the item is done.
  std::atomic<const ItemFn*> fn_{nullptr};
  std::atomic<Item> n_items_{0};
  std::atomic<Item> done_{0};      // items finished (or skipped) in the current section
  std::atomic<bool> stop_{false};  // skip the items not yet started
  std::atomic_flag error_taken_ = ATOMIC_FLAG_INIT;
  std::exception_ptr error_;

  std::mutex mutex_;
  std::condition_variable wake_;       // workers: a new section or quit
  std::condition_variable all_done_;   // the caller: done_ reached n_items_
  std::atomic<std::uint32_t> tag_{0};  // bumped once per section
  std::atomic<int> sleepers_{0};       // workers blocked on wake_
  std::atomic<bool> caller_sleeping_{false};
  std::atomic<bool> quit_{false};

  // The caller's stall back-off (only the calling thread reads and writes these).
  int solo_sections_ = 0;      // sections still to run alone
  int backoff_ = 1;            // the last solo run's length
  int clean_since_stall_ = 0;  // team sections since the last stall
};

}  // namespace kernlearn
