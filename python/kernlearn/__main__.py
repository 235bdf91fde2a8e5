"""Command line: ``python -m kernlearn demo`` (also installed as the ``kernlearn`` command)."""

import argparse
import sys

__all__ = ["main"]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="kernlearn", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="run the library's methods on the bundled real data")
    demo.add_argument("--out-dir", default=".", help="where plots are saved (default: .)")
    demo.add_argument("--n-neighbors", type=int, default=10)
    demo.add_argument("--n-jobs", type=int, default=None)
    demo.add_argument("--no-plot", action="store_true", help="skip the plots")
    args = parser.parse_args(argv)

    from .demo import run_demo

    run_demo(out_dir=args.out_dir, n_neighbors=args.n_neighbors, n_jobs=args.n_jobs, plot=not args.no_plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
