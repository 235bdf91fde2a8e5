// Spectra (yixuan/spectra, the C++ implicitly restarted Lanczos of the ARPACK family) on a matrix
// that bench_eigsh.py writes, for the "spectra" section of that benchmark: measurement only,
// never part of the library. Built on demand by bench_eigsh.py from Debian's libspectra-dev:
//   g++ -O3 -march=native -std=c++17 -I/usr/include/eigen3 spectra_eigsh.cpp -o spectra_eigsh
// Usage: spectra_eigsh MATRIX k tol repeats -> "seconds matvecs max_residual" (median time)
// MATRIX: int64 n, int64 nnz, then indptr (n + 1 int64), indices (nnz int64), data (nnz double).
#include <Spectra/MatOp/SparseSymMatProd.h>
#include <Spectra/SymEigsSolver.h>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <Eigen/Sparse>

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: spectra_eigsh MATRIX k tol repeats\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::int64_t n = 0, nnz = 0;
  in.read(reinterpret_cast<char*>(&n), 8);
  in.read(reinterpret_cast<char*>(&nnz), 8);
  std::vector<std::int64_t> indptr(n + 1), indices(nnz);
  std::vector<double> data(nnz);
  in.read(reinterpret_cast<char*>(indptr.data()), 8 * (n + 1));
  in.read(reinterpret_cast<char*>(indices.data()), 8 * nnz);
  in.read(reinterpret_cast<char*>(data.data()), 8 * nnz);
  if (!in) {
    std::cerr << "cannot read " << argv[1] << "\n";
    return 2;
  }
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(nnz);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t p = indptr[i]; p < indptr[i + 1]; ++p) entries.emplace_back(i, indices[p], data[p]);
  Eigen::SparseMatrix<double> A(n, n);
  A.setFromTriplets(entries.begin(), entries.end());

  const int k = std::stoi(argv[2]);
  const double tol = std::stod(argv[3]);
  const int repeats = std::stoi(argv[4]);
  std::vector<double> times;
  long matvecs = 0;
  double residual = 0.0;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    Spectra::SparseSymMatProd<double> op(A);
    Spectra::SymEigsSolver<Spectra::SparseSymMatProd<double>> eigs(op, k, std::min<std::int64_t>(2 * k + 1, n));
    eigs.init();
    eigs.compute(Spectra::SortRule::LargestAlge, 10000, tol);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (eigs.info() != Spectra::CompInfo::Successful) {
      std::cerr << "Spectra did not converge\n";
      return 1;
    }
    matvecs = eigs.num_operations();
    const Eigen::VectorXd values = eigs.eigenvalues();
    const Eigen::MatrixXd vectors = eigs.eigenvectors();
    const Eigen::MatrixXd R = A * vectors - vectors * values.asDiagonal();
    residual = R.colwise().norm().maxCoeff() / values.cwiseAbs().maxCoeff();
  }
  std::sort(times.begin(), times.end());
  std::printf("%.6f %ld %.3e\n", times[times.size() / 2], matvecs, residual);
  return 0;
}
