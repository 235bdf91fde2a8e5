// The one instantiation of Eigen's symmetric eigensolver for MatrixXd (core/symmetric_eigen.hpp).
#include "kernlearn/core/symmetric_eigen.hpp"

template Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>&
Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>::compute<Eigen::MatrixXd>(const Eigen::EigenBase<Eigen::MatrixXd>&, int);
