"""matplotlib, imported on first use with a message naming the extra that brings it.

Neither function selects a backend: the user's choice (``MPLBACKEND``, ``%matplotlib inline``,
``matplotlib.use``) stays in force after any kernlearn call.
"""

_MISSING = 'plotting needs matplotlib: pip install "kernlearn[plot]"'


def pyplot():
    """matplotlib.pyplot with the user's backend: for figures the user will show."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(_MISSING) from exc
    return plt


def figure_class():
    """matplotlib.figure.Figure: a figure saved to a file without pyplot, so no backend and no
    pyplot state is touched (the demo's figures)."""
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError(_MISSING) from exc
    return Figure
