"""Run mypy on the package and compare its errors with tools/mypy_baseline.txt.

The baseline lists the errors we live with today, one per line as ``path: message [code]``
(no line numbers, so unrelated edits do not churn it). New errors fail the check; errors that
disappeared are reported so the baseline can shrink (``--update`` rewrites it). The baseline may
only shrink: a reviewer rejects a change that adds lines to it.
"""

import argparse
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "tools" / "mypy_baseline.txt"
ERROR = re.compile(r"^(?P<path>[^:]+):\d+(?::\d+)?: error: (?P<message>.*)$")


def current_errors():
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--no-incremental"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode not in (0, 1):
        sys.exit(f"mypy failed to run:\n{result.stdout}{result.stderr}")
    found = Counter()
    for line in result.stdout.splitlines():
        match = ERROR.match(line)
        if match:
            found[f"{match['path']}: {match['message']}"] += 1
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="rewrite the baseline with the current errors")
    args = parser.parse_args(argv)
    found = current_errors()
    if args.update:
        BASELINE.write_text("".join(f"{e}\n" * n for e, n in sorted(found.items())))
        print(f"baseline: {sum(found.values())} error(s)")
        return 0
    lines = [line for line in BASELINE.read_text().splitlines() if line and not line.startswith("#")]
    baseline = Counter(lines)
    new = found - baseline
    gone = baseline - found
    for error in sorted(new):
        print(f"new mypy error: {error}")
    if gone:
        print(f"{sum(gone.values())} baselined error(s) are gone: run tools/check_mypy_baseline.py --update")
    print(f"mypy: {sum(found.values())} error(s), baseline {sum(baseline.values())}")
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
