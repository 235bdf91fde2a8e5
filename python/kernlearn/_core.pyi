# Type stubs of the C++ extension (cpp/bindings); argument names match the py::arg names.
import numpy as np
import numpy.typing as npt

def knn(
    X: npt.NDArray[np.float64], n_neighbors: int, metric: str, algorithm: str, n_threads: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]: ...
def choose_knn_algorithm(n: int, d: int, metric: str) -> str: ...
def knn_graph(
    indices: npt.NDArray[np.int64],
    distances: npt.NDArray[np.float64],
    mode: str,
    weight: str,
    sigma: float,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
def laplacian(
    n: int,
    data: npt.NDArray[np.float64],
    indices: npt.NDArray[np.int64],
    indptr: npt.NDArray[np.int64],
    kind: str,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
