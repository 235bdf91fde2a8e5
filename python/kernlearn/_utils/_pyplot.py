"""matplotlib.pyplot, imported on first use with a message naming the extra that brings it."""


def pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)  # headless-safe; an interactive backend already set wins
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError('plotting needs matplotlib: pip install "kernlearn[plot]"') from exc
    return plt
