"""The sign convention for eigenvectors (DESIGN.md section 5)."""

import numpy as np


def fix_signs(V):
    """Make each column's largest-magnitude entry positive (first one on ties): a deterministic
    representative of each eigenvector's sign class."""
    V = np.array(V, dtype=np.float64, order="C")
    if V.size:
        rows = np.argmax(np.abs(V), axis=0)
        V *= np.where(V[rows, np.arange(V.shape[1])] < 0, -1.0, 1.0)
    return V
