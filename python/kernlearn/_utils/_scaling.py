"""One rule for running a computation on data divided by a power of two.

Squares, products and fourth powers of float64 data near 1e±200 overflow or underflow where the
answer itself is representable. Dividing the data by 2^e (exact: only the exponent changes),
computing, and multiplying back by the right power of 2^e keeps every intermediate near 1.
"""

import numpy as np


def binary_exponent(*arrays):
    """The e with max |entries| / 2^e in [0.5, 1) over all ``arrays`` (0 when all are zero or empty),
    but never below -1021: for subnormal data (max below 2^-1022) the quotient is then smaller
    than 0.5, and the factor ``2.0**-e`` (or ``np.ldexp(1.0, -e)``) stays finite, where 2^1030
    would overflow.

    Scale by ``np.ldexp(x, -e)`` and back by ``np.ldexp(y, k * e)`` for a result of degree k:
    both are exact barring underflow of the smallest entries below 2^-1074.
    """
    peak = max((float(np.abs(a).max()) for a in map(np.asarray, arrays) if a.size), default=0.0)
    return max(int(np.frexp(peak)[1]), -1021) if peak > 0.0 else 0
