#include "kernlearn/core/simd.hpp"

#include <cstdlib>
#include <cstring>

namespace kernlearn {

namespace {

Simd detect_simd() {
  Simd best = Simd::none;
#ifdef KERNLEARN_X86_DISPATCH
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) best = Simd::avx2;
  if (best == Simd::avx2 && __builtin_cpu_supports("avx512f")) best = Simd::avx512;
#endif
  const char* cap = std::getenv("KERNLEARN_SIMD");
  if (cap == nullptr) return best;
  if (std::strcmp(cap, "none") == 0) return Simd::none;
  if (std::strcmp(cap, "avx2") == 0 && best == Simd::avx512) return Simd::avx2;
  return best;
}

}  // namespace

Simd active_simd() {
  static const Simd simd = detect_simd();
  return simd;
}

}  // namespace kernlearn
