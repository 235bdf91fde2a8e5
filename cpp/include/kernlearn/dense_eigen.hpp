// Eigenpairs of a dense symmetric matrix above a level: LAPACK's dsyevr (MRRR) when the caller
// supplies it, Eigen's SelfAdjointEigenSolver otherwise.
//
// The core links no LAPACK of its own (the wheel would have to ship one); the Python binding
// hands in scipy's dsyevr, taken from scipy.linalg.cython_lapack, which runs 4-5x faster than
// Eigen's solver at n = 1000-2000 on two cores (measured) and computes only the wanted part.
#pragma once

#include <Eigen/Core>

#include "kernlearn/types.hpp"

namespace kernlearn {

// LAPACK's dsyevr with 32-bit integers (scipy's LP64 build), Fortran calling convention.
using SyevrFn = void (*)(char* jobz, char* range, char* uplo, int* n, double* a, int* lda, double* vl,
                         double* vu, int* il, int* iu, double* abstol, int* m, double* w, double* z,
                         int* ldz, int* isuppz, double* work, int* lwork, int* iwork, int* liwork, int* info);

// The eigenpairs of the symmetric A (column-major n x n, overwritten) with eigenvalue > lower,
// at most max_count of them (the largest; 0 = no cap), in decreasing order.
void dense_eigenpairs_above(Eigen::MatrixXd& A, double lower, Index max_count, SyevrFn syevr,
                            Eigen::VectorXd& values, Eigen::MatrixXd& vectors);

}  // namespace kernlearn
