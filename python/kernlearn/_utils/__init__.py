"""Private helpers shared by the estimator families: validation, solver choice, monitoring."""
