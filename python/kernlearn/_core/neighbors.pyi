"""
Exact kNN, kNN graphs and Laplacians.
"""

from __future__ import annotations

import typing

import numpy
import numpy.typing

class Metric:
    """
    The distance kNN ranks by.

    Members:

      euclidean

      cosine : 1 - cos(x, y)
    """

    __members__: typing.ClassVar[dict[str, Metric]]
    cosine: typing.ClassVar[Metric]
    euclidean: typing.ClassVar[Metric]
    @typing.overload
    def __eq__(self, other: Metric) -> bool: ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool: ...
    def __getstate__(self) -> int: ...
    def __hash__(self) -> int: ...
    def __index__(self) -> int: ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    def __int__(self) -> int: ...
    @typing.overload
    def __ne__(self, other: Metric) -> bool: ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool: ...
    def __repr__(self) -> str: ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    def __str__(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def value(self) -> int: ...

class KnnAlgorithm:
    """
    The kNN search.

    Members:

      auto : the faster of the two by choose_knn_algorithm's rule

      kd_tree : euclidean only

      brute
    """

    __members__: typing.ClassVar[dict[str, KnnAlgorithm]]
    auto: typing.ClassVar[KnnAlgorithm]
    brute: typing.ClassVar[KnnAlgorithm]
    kd_tree: typing.ClassVar[KnnAlgorithm]
    @typing.overload
    def __eq__(self, other: KnnAlgorithm) -> bool: ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool: ...
    def __getstate__(self) -> int: ...
    def __hash__(self) -> int: ...
    def __index__(self) -> int: ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    def __int__(self) -> int: ...
    @typing.overload
    def __ne__(self, other: KnnAlgorithm) -> bool: ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool: ...
    def __repr__(self) -> str: ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    def __str__(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def value(self) -> int: ...

class GraphMode:
    """
    Which kNN relations make an edge.

    Members:

      symmetric : either point among the other's neighbours

      mutual : both
    """

    __members__: typing.ClassVar[dict[str, GraphMode]]
    mutual: typing.ClassVar[GraphMode]
    symmetric: typing.ClassVar[GraphMode]
    @typing.overload
    def __eq__(self, other: GraphMode) -> bool: ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool: ...
    def __getstate__(self) -> int: ...
    def __hash__(self) -> int: ...
    def __index__(self) -> int: ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    def __int__(self) -> int: ...
    @typing.overload
    def __ne__(self, other: GraphMode) -> bool: ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool: ...
    def __repr__(self) -> str: ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    def __str__(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def value(self) -> int: ...

class EdgeWeight:
    """
    A kNN graph's edge weight.

    Members:

      binary : 1

      heat : exp(-d^2 / (2 sigma^2))

      distance : d
    """

    __members__: typing.ClassVar[dict[str, EdgeWeight]]
    binary: typing.ClassVar[EdgeWeight]
    distance: typing.ClassVar[EdgeWeight]
    heat: typing.ClassVar[EdgeWeight]
    @typing.overload
    def __eq__(self, other: EdgeWeight) -> bool: ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool: ...
    def __getstate__(self) -> int: ...
    def __hash__(self) -> int: ...
    def __index__(self) -> int: ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    def __int__(self) -> int: ...
    @typing.overload
    def __ne__(self, other: EdgeWeight) -> bool: ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool: ...
    def __repr__(self) -> str: ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    def __str__(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def value(self) -> int: ...

class LaplacianKind:
    """
    The graph Laplacian's normalisation.

    Members:

      normalized : I - D^-1/2 S D^-1/2

      unnormalized : D - S

      random_walk : I - D^-1 S
    """

    __members__: typing.ClassVar[dict[str, LaplacianKind]]
    normalized: typing.ClassVar[LaplacianKind]
    random_walk: typing.ClassVar[LaplacianKind]
    unnormalized: typing.ClassVar[LaplacianKind]
    @typing.overload
    def __eq__(self, other: LaplacianKind) -> bool: ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool: ...
    def __getstate__(self) -> int: ...
    def __hash__(self) -> int: ...
    def __index__(self) -> int: ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    def __int__(self) -> int: ...
    @typing.overload
    def __ne__(self, other: LaplacianKind) -> bool: ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool: ...
    def __repr__(self) -> str: ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    def __str__(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def value(self) -> int: ...

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
