// Exact kNN split into row blocks: the search of one block of query rows among one block of data
// rows, the merge of two partial results, and the step that turns keys into distances. A search
// spread over machines (kernlearn.distributed) runs one block pair per task and merges the partial
// results of a query block; knn() itself ends with neighbors_from_keys, so both give bitwise equal
// neighbours and distances.
//
// Rows are named by their global index (their row in the whole data set): a block of rows is
// given with the global index of its first row (its offset). Partial results have k columns; a
// query with fewer than k candidates in a block fills the rest with padding, index -1 and key
// +inf, which sorts after every candidate (keys of finite data in the safe range are finite).
#pragma once

#include <utility>

#include "kernlearn/core/types.hpp"
#include "kernlearn/neighbors/knn.hpp"

namespace kernlearn {

// The exponent e such that searching X 2^-e keeps squared distances finite and exact
// (distance.hpp's safe range): 0 unless the largest |x| lies outside [2^-200, 2^200]. Every block
// of one search must use the exponent of the largest |x| of the whole data set.
int knn_scale_exponent(double largest_magnitude);

// The k nearest rows of `data` to each row of `queries`, as keys and global indices, with every
// row scaled by 2^-scale_exponent for euclidean (scale_exponent must be 0 for cosine). The global
// index ranges [query_offset, query_offset + rows) of the two blocks are either disjoint, or equal
// (a diagonal block: queries and data are the same rows, and each row is excluded from its own
// list). The search is knn()'s: a kd-tree or the screened brute force by choose_knn_algorithm on
// the data block. Throws std::invalid_argument on k < 1, blocks without columns or with different
// column counts, non-finite rows, negative offsets, ranges that overlap without being equal, or a
// scale exponent that leaves a scaled entry above 2^200.
NeighborKeys knn_block(const MatrixRef& queries, Index query_offset, const MatrixRef& data, Index data_offset, Index k,
                       Metric metric, int scale_exponent, int n_threads, const InterruptPoll& poll = {});

// knn_block both ways for disjoint blocks: (queries among data, data among queries), equal to two
// knn_block calls. The brute search finds both from one pass over the distance tiles, half the
// arithmetic of two calls; blocks the kd-tree would search, or with fewer than k rows, run as two
// calls. Throws as knn_block, and on equal (diagonal) ranges.
std::pair<NeighborKeys, NeighborKeys> knn_block_pair(const MatrixRef& queries, Index query_offset,
                                                     const MatrixRef& data, Index data_offset, Index k, Metric metric,
                                                     int scale_exponent, int n_threads, const InterruptPoll& poll = {});

// The k best of two partial results of the same queries (equal shapes; each row ascending by
// (key, index), padding last). Throws std::invalid_argument on mismatched shapes, unsorted rows,
// non-finite keys of candidates, or a candidate present in both (overlapping data blocks).
NeighborKeys merge_neighbor_keys(const NeighborKeys& a, const NeighborKeys& b);

// Distances from keys: sqrt(key) 2^scale_exponent (euclidean) or the key clamped to [0, 2]
// (cosine, where rounding can leave 1 - cos just outside). Throws std::invalid_argument when a row
// still holds padding (a query with fewer than k candidates in the whole data set).
Neighbors neighbors_from_keys(NeighborKeys&& keys, Metric metric, int scale_exponent);

}  // namespace kernlearn
