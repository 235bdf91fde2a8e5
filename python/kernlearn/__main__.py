"""Command line: ``python -m kernlearn demo`` (also installed as the ``kernlearn`` command)."""

import argparse
import sys

__all__ = ["main"]

# The demo's smallest data set (iris) has 150 points; a kNN graph needs fewer neighbours.
MAX_DEMO_NEIGHBORS = 149


def _int_in(low, high, what):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what}: expected an integer, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{what}: expected an integer in [{low}, {high}], got {value}")
        return value

    return parse


def _n_jobs(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value == 0 or value < -1:
        raise argparse.ArgumentTypeError(f"expected a positive integer or -1 (all cores), got {value}")
    return value


def main(argv=None):
    from . import __version__

    parser = argparse.ArgumentParser(prog="kernlearn", description=__doc__)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="run the library's methods on the bundled real data")
    demo.add_argument("--out-dir", default=".", help="where plots are saved (default: .)")
    demo.add_argument(
        "--n-neighbors",
        type=_int_in(1, MAX_DEMO_NEIGHBORS, "number of neighbours"),
        default=10,
        help=f"neighbours of the kNN graphs, 1 to {MAX_DEMO_NEIGHBORS} (default: 10)",
    )
    demo.add_argument("--n-jobs", type=_n_jobs, default=None, help="threads, or -1 for all cores (default: all)")
    demo.add_argument("--no-plot", action="store_true", help="skip the plots")
    args = parser.parse_args(argv)

    from .demo import run_demo

    run_demo(out_dir=args.out_dir, n_neighbors=args.n_neighbors, n_jobs=args.n_jobs, plot=not args.no_plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
