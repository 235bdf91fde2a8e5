"""Exact kNN graphs and kernel operators on a Dask cluster (the optional extra ``kernlearn[dask]``).

The functions here equal their single-machine counterparts (:func:`kernlearn.graph.knn`,
:func:`kernlearn.graph.knn_graph`, a dense kernel matrix's products) and spread the work over the
workers of a ``distributed.Client``: X lives on the workers in blocks of consecutive rows, each task
works on one or two blocks with the C++ core, and only O(n k) kNN lists or O(n m) products come
back. Without a client they run on Dask's local threaded scheduler.

Dask is imported on the first call, not with this module; without it a call raises an ImportError
that names ``pip install "kernlearn[dask]"``.
"""

from ._graph_operator import GraphOperator
from ._kernel_operator import KernelOperator
from ._knn import knn, knn_graph

__all__ = ["knn", "knn_graph", "GraphOperator", "KernelOperator"]
