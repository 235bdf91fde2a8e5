"""
Exact kNN, kNN graphs and Laplacians.
"""

from __future__ import annotations

import enum
import typing

import numpy
import numpy.typing

class Metric(enum.Enum):
    """
    The distance kNN ranks by.
    """

    cosine = 1
    euclidean = 0

class KnnAlgorithm(enum.Enum):
    """
    The kNN search.
    """

    auto = 0
    brute = 2
    kd_tree = 1

class GraphMode(enum.Enum):
    """
    Which kNN relations make an edge.
    """

    mutual = 1
    symmetric = 0

class EdgeWeight(enum.Enum):
    """
    A kNN graph's edge weight.
    """

    binary = 0
    distance = 2
    heat = 1

class LaplacianKind(enum.Enum):
    """
    The graph Laplacian's normalisation.
    """

    normalized = 0
    random_walk = 2
    unnormalized = 1

class Neighbors:
    """
    Exact kNN of every point among the others (knn.hpp).
    """
    def __init__(self, *args: typing.Any, **kwargs: typing.Any) -> None: ...  # not constructible
    _fields: typing.ClassVar[tuple] = ("indices", "distances")
    def __repr__(self) -> str: ...
    @property
    def distances(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]"]:
        """
        n x k: euclidean, or cosine distance 1 - cos(x, y)
        """
    @property
    def indices(self) -> typing.Annotated[numpy.typing.NDArray[numpy.int64], "[m, n]"]:
        """
        n x k, ascending by (distance, index), self excluded
        """

def choose_knn_algorithm(
    n: typing.SupportsInt | typing.SupportsIndex, d: typing.SupportsInt | typing.SupportsIndex, metric: Metric
) -> KnnAlgorithm:
    """
    The search algorithm auto runs.
    """

def knn(
    X: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    n_neighbors: typing.SupportsInt | typing.SupportsIndex,
    *,
    metric: Metric,
    algorithm: KnnAlgorithm,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> Neighbors:
    """
    Exact kNN of every row among the others, as a Neighbors result.
    """

def knn_block(
    queries: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    data: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    n_neighbors: typing.SupportsInt | typing.SupportsIndex,
    *,
    query_offset: typing.SupportsInt | typing.SupportsIndex,
    data_offset: typing.SupportsInt | typing.SupportsIndex,
    metric: Metric,
    scale_exponent: typing.SupportsInt | typing.SupportsIndex = 0,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> tuple:
    """
    The k nearest data rows of each query row as (indices, keys): global indices (data_offset + row), ascending by (key, index), padded with (-1, inf); index ranges disjoint, or equal for a diagonal block (self excluded).
    """

def knn_block_pair(
    queries: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    data: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    n_neighbors: typing.SupportsInt | typing.SupportsIndex,
    *,
    query_offset: typing.SupportsInt | typing.SupportsIndex,
    data_offset: typing.SupportsInt | typing.SupportsIndex,
    metric: Metric,
    scale_exponent: typing.SupportsInt | typing.SupportsIndex = 0,
    n_threads: typing.SupportsInt | typing.SupportsIndex = 1,
) -> tuple[tuple, tuple]:
    """
    knn_block both ways for disjoint index ranges, from one pass over the distance tiles: ((indices, keys) of the queries among the data, (indices, keys) of the data among the queries).
    """

def knn_graph(
    neighbors: Neighbors,
    mode: GraphMode,
    weight: EdgeWeight,
    sigma: typing.SupportsFloat | typing.SupportsIndex | None = None,
) -> tuple:
    """
    Symmetric kNN graph of a knn() result as CSR arrays (data, indices, indptr); sigma: the heat weight's width.
    """

def knn_scale_exponent(largest_magnitude: typing.SupportsFloat | typing.SupportsIndex) -> int:
    """
    The exponent e such that the search runs on X 2^-e (0 unless max |x| lies outside [2^-200, 2^200]); every block of one search uses the whole data set's.
    """

def laplacian(
    data: numpy.typing.NDArray[numpy.float64],
    indices: numpy.typing.NDArray[numpy.int64],
    indptr: numpy.typing.NDArray[numpy.int64],
    kind: LaplacianKind,
) -> tuple:
    """
    Graph Laplacian of a symmetric n x n CSR matrix (n = len(indptr) - 1), as CSR arrays (data, indices, indptr).
    """

def merge_neighbor_keys(
    indices_a: typing.Annotated[numpy.typing.NDArray[numpy.int64], "[m, n]", "flags.c_contiguous"],
    keys_a: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    indices_b: typing.Annotated[numpy.typing.NDArray[numpy.int64], "[m, n]", "flags.c_contiguous"],
    keys_b: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
) -> tuple:
    """
    The k best of two partial results of the same queries, as (indices, keys).
    """

def neighbors_from_keys(
    indices: typing.Annotated[numpy.typing.NDArray[numpy.int64], "[m, n]", "flags.c_contiguous"],
    keys: typing.Annotated[numpy.typing.NDArray[numpy.float64], "[m, n]", "flags.c_contiguous"],
    *,
    metric: Metric,
    scale_exponent: typing.SupportsInt | typing.SupportsIndex = 0,
) -> Neighbors:
    """
    The Neighbors result of merged partial results (no padding left): keys become distances.
    """
