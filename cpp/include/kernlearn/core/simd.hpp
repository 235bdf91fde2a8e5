// Run-time choice of SIMD kernels. Wheels are built for baseline x86-64, so AVX2/AVX-512 cannot
// be assumed at compile time: kernels are compiled per instruction set with target attributes and
// picked here once per process. The environment variable KERNLEARN_SIMD ("avx512", "avx2",
// "none") caps the choice; the tests use it to check that every kernel family agrees.
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KERNLEARN_X86_DISPATCH 1
#endif

namespace kernlearn {

enum class Simd { none, avx2, avx512 };

// The kernel family in use: the CPU's best (AVX-512F, AVX2 with FMA, or none), capped by
// KERNLEARN_SIMD.
Simd active_simd();

}  // namespace kernlearn
