// Eigen's dense symmetric eigensolver for Eigen::MatrixXd, compiled once, in
// src/core/symmetric_eigen.cpp, instead of in each of the files that call it: its tridiagonal
// reduction and QL iteration were most of several files' compile time (bench/results/build_time.md).
// Include this rather than <Eigen/Eigenvalues> for SelfAdjointEigenSolver<MatrixXd>, and hand
// compute() and the constructor an Eigen::MatrixXd: an expression (a block, a sum, a product)
// would instantiate the whole solver again for its type, so evaluate it first,
// MatrixXd(0.5 * (X + X.transpose())), which gives the solver the same entries.
#pragma once

#include <Eigen/Core>
#include <Eigen/Eigenvalues>

// Only compute() is compiled once, not the whole class: its other members are small accessors, and
// operatorSqrt() and the closed-form 3 x 3 solver are never called.
extern template Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>&
Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>::compute<Eigen::MatrixXd>(const Eigen::EigenBase<Eigen::MatrixXd>&, int);
