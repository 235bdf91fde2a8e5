"""Compiler CPU time per translation unit of one or more CMake build trees.

Usage: python bench/build_time.py BUILD_DIR [BUILD_DIR ...] [--repeat N] [--filter REGEX]

Each BUILD_DIR is a configured CMake build with compile_commands.json (e.g. ``cmake -S . -B
build/t -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON``); its objects are rebuilt in place. Every
compile command runs alone, one after the other, and is charged its user+sys CPU seconds, which
the other work on a shared machine disturbs far less than wall time. With several build trees
(say before and after a change), each file is compiled in every tree before the next file, so
that each pair of figures is taken under the same load; with --repeat N each figure is the
minimum of N runs. After the compiles (unless --filter), the archives, the link of _core and
its strip run the same way, as one row.

Prints a markdown table, heaviest file first, and per tree the total and the wall time two
cores need at the least for it: the longest file, or half the total, whichever is larger (the
link comes after every compile and adds to that).
"""

import argparse
import json
import os
import re
import resource
import shlex
import subprocess
import time
from pathlib import Path

LINK = "(archives, link of _core, strip)"


def cpu_of_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_timed(cmd, cwd):
    c0, w0 = cpu_of_children(), time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, shell=isinstance(cmd, str))
    return cpu_of_children() - c0, time.perf_counter() - w0


def source_dir(build_dir):
    for line in (build_dir / "CMakeCache.txt").read_text().splitlines():
        if line.startswith("CMAKE_HOME_DIRECTORY:"):
            return Path(line.split("=", 1)[1])
    raise SystemExit(f"{build_dir}: no CMAKE_HOME_DIRECTORY in CMakeCache.txt")


def compiles(build_dir):
    """{name: (command, directory)}, names relative to the source tree (or the build tree, for
    generated files such as a precompiled header), in the order CMake listed them."""
    src = source_dir(build_dir)
    out = {}
    for e in json.loads((build_dir / "compile_commands.json").read_text()):
        cmd = e["command"] if "command" in e else shlex.join(e["arguments"])
        path = Path(e["file"])
        if path.is_relative_to(build_dir.resolve()):
            name = "(build) " + path.name
        else:
            name = os.path.relpath(path, src)
        out[name] = (cmd, e["directory"])
    return out


def link_commands(build_dir, compile_files):
    listed = subprocess.run(
        ["ninja", "-C", str(build_dir), "-t", "commands", "_core"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    # ninja's compile lines carry -MD/-MF, which compile_commands.json leaves out: a compile is
    # recognised by its " -c " and its source file.
    return [line for line in listed if not (" -c " in line and any(line.endswith(" " + f) for f in compile_files))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build_dirs", type=Path, nargs="+")
    ap.add_argument("--repeat", type=int, default=1, help="runs per file; the minimum CPU time is kept")
    ap.add_argument("--filter", default="", help="only files whose name matches this regular expression")
    args = ap.parse_args()

    trees = [compiles(d) for d in args.build_dirs]
    names = []
    for tree in trees:
        names += [n for n in tree if n not in names and re.search(args.filter, n)]
    cpu = {}  # (name, tree index) -> (cpu, wall)
    for name in names:
        for i, tree in enumerate(trees):
            if name in tree:
                cmd, cwd = tree[name]
                cpu[name, i] = min((run_timed(cmd, cwd) for _ in range(args.repeat)), key=lambda t: t[0])
        figures = "  ".join(f"{cpu[name, i][0]:6.1f} s" if (name, i) in cpu else "     -  " for i in range(len(trees)))
        print(f"{name:48s} {figures}   (CPU; load {os.getloadavg()[0]:.1f})", flush=True)
    if not args.filter:
        names.append(LINK)
        for i, (d, tree) in enumerate(zip(args.build_dirs, trees)):
            total = [0.0, 0.0]
            for line in link_commands(d, [shlex.split(c)[-1] for c, _ in tree.values()]):
                t = run_timed(line, d)
                total = [total[0] + t[0], total[1] + t[1]]
            cpu[LINK, i] = tuple(total)
        print(f"{LINK:48s} " + "  ".join(f"{cpu[LINK, i][0]:6.1f} s" for i in range(len(trees))), flush=True)

    print()
    heads = [str(d) for d in args.build_dirs]
    print("| file | " + " | ".join(f"CPU s, {h}" for h in heads) + " |")
    print("|---|" + "---:|" * len(heads))
    order = sorted(names, key=lambda n: -max(cpu.get((n, i), (0, 0))[0] for i in range(len(trees))))
    for name in order:
        cells = [f"{cpu[name, i][0]:.1f}" if (name, i) in cpu else "-" for i in range(len(trees))]
        print(f"| `{name}` | " + " | ".join(cells) + " |")
    for i, h in enumerate(heads):
        files = [cpu[n, i][0] for n in names if (n, i) in cpu and n != LINK]
        total = sum(files)
        print(
            f"{h}: {len(files)} compiles, {total:.1f} s CPU, longest {max(files):.1f} s, 2-core lower bound "
            f"{max(max(files), total / 2):.1f} s + link {cpu.get((LINK, i), (0.0,))[0]:.1f} s CPU"
        )
    print(f"load average at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
