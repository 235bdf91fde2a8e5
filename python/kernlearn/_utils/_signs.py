"""The sign convention for eigenvectors (DESIGN.md section 5)."""

import numpy as np
from sklearn.utils.extmath import svd_flip


def fix_signs(V):
    """Make each column's largest-magnitude entry positive (first one on ties): a deterministic
    representative of each eigenvector's sign class, scikit-learn's ``svd_flip`` convention."""
    V = np.array(V, dtype=np.float64, order="C")
    if V.size:
        V = svd_flip(V, None)[0]
    return V
