// Eigenpairs of a dense symmetric matrix above a level, by LAPACK's Householder route: reduction
// to a tridiagonal T = Q'AQ (xsytrd), T's eigenpairs, then only the wanted vectors transformed
// back (xormtr). dsyevd is that route with every vector transformed back. Here Sturm's count on
// T gives the number p of wanted pairs; for p <= n / 10 they come from MRRR (dstemr, O(n p)),
// otherwise from divide and conquer (dstedc); only p vectors are transformed back, which is what
// it saves over dsyevd (figures in bench/results/eigsh.md). The core links no LAPACK of its own
// (the wheel would have to ship one): the Python binding hands in scipy's routines from
// scipy.linalg.cython_lapack / _blas; without them, Eigen's SelfAdjointEigenSolver (several
// times slower).
//
// Mixed precision (mixed_eigenpairs_above): at large n, dsyevd spends about half its time in the
// reduction, which streams the trailing matrix from memory once per column and is bound by
// memory bandwidth, not by arithmetic. In single precision it moves half the bytes.
// T's eigenpairs come from divide and conquer (sstedc), only the wanted vectors are
// transformed back, and one Rayleigh-Ritz step in double against the exact operator makes the
// result orthonormal to rounding and its eigenvalues accurate to about (single-precision
// residual)^2 / gap; the residuals |A v - theta v| keep what single precision leaves in the
// vectors (figures in bench/results/eigsh.md).
#pragma once

#include <Eigen/Core>

#include "kernlearn/core/interrupt.hpp"
#include "kernlearn/core/types.hpp"
#include "kernlearn/linalg/operator.hpp"

namespace kernlearn {

// LAPACK / BLAS with 32-bit integers (scipy's LP64 build), Fortran calling convention.
template <class T>
using SytrdFn = void (*)(char* uplo, int* n, T* a, int* lda, T* d, T* e, T* tau, T* work, int* lwork, int* info);
template <class T>
using LatrdFn = void (*)(char* uplo, int* n, int* nb, T* a, int* lda, T* e, T* tau, T* w, int* ldw);
template <class T>
using Syr2kFn = void (*)(char* uplo, char* trans, int* n, int* k, T* alpha, T* a, int* lda, T* b, int* ldb, T* beta,
                         T* c, int* ldc);
template <class T>
using Sytd2Fn = void (*)(char* uplo, int* n, T* a, int* lda, T* d, T* e, T* tau, int* info);
template <class T>
using StedcFn = void (*)(char* compz, int* n, T* d, T* e, T* z, int* ldz, T* work, int* lwork, int* iwork, int* liwork,
                         int* info);
template <class T>
using OrmtrFn = void (*)(char* side, char* uplo, char* trans, int* m, int* n, T* a, int* lda, T* tau, T* c, int* ldc,
                         T* work, int* lwork, int* info);
using DstemrFn = void (*)(char* jobz, char* range, int* n, double* d, double* e, double* vl, double* vu, int* il,
                          int* iu, int* m, double* w, double* z, int* ldz, int* nzc, int* isuppz, int* tryrac,
                          double* work, int* lwork, int* iwork, int* liwork, int* info);
using DsygvdFn = void (*)(int* itype, char* jobz, char* uplo, int* n, double* a, int* lda, double* b, int* ldb,
                          double* w, double* work, int* lwork, int* iwork, int* liwork, int* info);
using DgemmFn = void (*)(char* transa, char* transb, int* m, int* n, int* k, double* alpha, double* a, int* lda,
                         double* b, int* ldb, double* beta, double* c, int* ldc);
using DsyrkFn = void (*)(char* uplo, char* trans, int* n, int* k, double* alpha, double* a, int* lda, double* beta,
                         double* c, int* ldc);

// The Householder route in one precision. With latrd, syr2k and sytd2 the reduction runs xsytrd's
// own blocked loop here, panel by panel, so that Ctrl-C is polled between panels.
template <class T>
struct HouseholderRoutines {
  SytrdFn<T> sytrd = nullptr;
  StedcFn<T> stedc = nullptr;
  OrmtrFn<T> ormtr = nullptr;
  LatrdFn<T> latrd = nullptr;
  Syr2kFn<T> syr2k = nullptr;
  Sytd2Fn<T> sytd2 = nullptr;
  bool available() const { return sytrd && stedc && ormtr; }
  bool panels_available() const { return latrd && syr2k && sytd2; }
};

struct DenseLapack {
  HouseholderRoutines<double> exact;  // dsytrd, dstedc, dormtr
  DstemrFn dstemr = nullptr;          // MRRR for a few of T's pairs
  HouseholderRoutines<float> single;  // ssytrd, sstedc, sormtr
  DsygvdFn dsygvd = nullptr;          // the Rayleigh-Ritz step of the mixed route
  DgemmFn dgemm = nullptr;
  DsyrkFn dsyrk = nullptr;
  bool exact_available() const { return exact.available() && dstemr; }
  bool mixed_available() const { return single.available() && dsygvd && dgemm && dsyrk; }
};

// C = op(A) op(B), op = transpose or not, by the BLAS handed in (the core's Eigen is built for
// baseline x86-64: its products run several times slower than OpenBLAS's), by Eigen without one.
void gemm(const DenseLapack& lapack, bool transpose_a, bool transpose_b, const Eigen::MatrixXd& A,
          const Eigen::MatrixXd& B, Eigen::MatrixXd& C);

// The eigenpairs of the symmetric A (column-major n x n, lower triangle read, overwritten) with
// eigenvalue > lower, at most max_count of them (the largest; 0 = no cap), in decreasing order.
// poll (Interrupted when it returns true) is called between the reduction's panels and between
// the stages and column blocks of the rest; the one call it cannot break is xstedc's.
void dense_eigenpairs_above(Eigen::MatrixXd& A, double lower, Index max_count, const DenseLapack& lapack,
                            Eigen::VectorXd& values, Eigen::MatrixXd& vectors, const InterruptPoll& poll = {});

// The same in mixed precision: A (the operator `op` as a dense matrix; lower triangle read,
// freed or overwritten) reduced in single precision, the result refined against `op` in double
// (see the header comment). Pairs whose single-precision eigenvalue lies within a margin below
// `lower` enter the Rayleigh-Ritz step, so no pair above `lower` is lost to rounding. When more
// than half of the pairs would enter it, the double-precision route runs on A instead: returns
// whether the mixed route ran. Peak memory 16 n^2 bytes, as the double route's.
bool mixed_eigenpairs_above(Eigen::MatrixXd& A, const LinearOperator& op, double lower, Index max_count,
                            const DenseLapack& lapack, Eigen::VectorXd& values, Eigen::MatrixXd& vectors,
                            const InterruptPoll& poll = {});

}  // namespace kernlearn
