#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>

#if defined(__linux__)
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <sched.h>
#include <unistd.h>
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

#if defined(__linux__)
// Runnable tasks on the whole machine now: the fourth field of /proc/loadavg ("3/250"). -1 if unknown.
int machine_running() {
  std::FILE* f = std::fopen("/proc/loadavg", "r");
  if (!f) return -1;
  double l1 = 0, l5 = 0, l15 = 0;
  int running = -1, total = 0;
  if (std::fscanf(f, "%lf %lf %lf %d/%d", &l1, &l5, &l15, &running, &total) != 5) running = -1;
  std::fclose(f);
  return running;
}

// Runnable threads of this process now (state R in /proc/self/task/*/stat), the caller included.
int own_running() {
  DIR* dir = opendir("/proc/self/task");
  if (!dir) return 1;
  int running = 0;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    char path[64], line[512];
    std::snprintf(path, sizeof path, "/proc/self/task/%.20s/stat", entry->d_name);
    std::FILE* f = std::fopen(path, "r");
    if (!f) continue;
    const std::size_t got = std::fread(line, 1, sizeof line - 1, f);
    std::fclose(f);
    line[got] = '\0';
    const char* close = std::strrchr(line, ')');  // the state follows the command name "(...)"
    if (close && close[1] == ' ' && close[2] == 'R') ++running;
  }
  closedir(dir);
  return running > 0 ? running : 1;
}
#endif

int idle_cores() {
  const int cores = usable_cores();
#if defined(__linux__)
  // The machine-wide count says nothing about a process confined to a subset of the CPUs (a
  // container's cpuset): there, all usable cores.
  if (cores != static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN))) return cores;
  const int running = machine_running();
  if (running < 0) return cores;
  const int others = running - own_running();
  return others <= 0 ? cores : (cores - others > 1 ? cores - others : 1);
#else
  return cores;
#endif
}

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
  if (threads_ > 1) threads_ = std::min(threads_, idle_cores());
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
