"""The eigen-certificate of a saddle-point result as a plain dict (``spectrum_certificate_``)."""

import math


def spectrum_certificate(result):
    """What certifies that the learned kernel kept every positive eigenpair of A.

    ``method``: "lanczos" (threshold-mode Lanczos: ``next_eigenvalue`` is the converged Ritz
    value at or below ``level`` that ends the solve), "dense" (LAPACK), "projected" (the
    fixed basis of Section 5.4: the statement holds in its subspace) or "top" (p = 1 with the
    trace bound: ``next_eigenvalue`` is lambda_max(A)). ``level``: eigenvalues at or below it
    count as zero. ``next_eigenvalue``: the largest eigenvalue of A known beyond the ``kept``
    pairs, within ``residual`` of a true eigenvalue (None where not computed). ``certified``:
    the eigensolve converged.
    """
    cert = result.spectrum
    return {
        "method": cert.method.name,
        "level": float(cert.level),
        "next_eigenvalue": None if math.isnan(cert.next) else float(cert.next),
        "residual": float(cert.residual),
        "kept": int(cert.kept),
        "certified": bool(cert.certified),
    }
