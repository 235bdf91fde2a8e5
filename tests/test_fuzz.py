"""Hostile input to every public entry point and ``_core`` binding (cases: tests/fuzz_cases.py).

Each case runs in a forked child of one fork-server subprocess (8 GiB address-space limit, a wall
clock), so a segfault or a hang fails one test instead of killing pytest. A case passes when it
ends in a ValueError/TypeError naming the argument, or (valid input) in a finite, correctly shaped
result that passes a cheap independent check, with every input unmodified; see the classes in
fuzz_cases. Hypothesis picks the mutation, seed and size; the default profile is derandomized,
``pytest --hypothesis-profile=long`` runs ten times the examples on larger shapes.

The full classification (thousands of cases, a table per class) is bench/fuzz_classify.py.
"""

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import fuzz_cases as fz

LONG = getattr(settings, "_current_profile", "default") == "long"
EXAMPLES = max(4, settings().max_examples // 8)
SIZES = ("s", "m", "l") if LONG else ("s", "m")
TIMEOUT = 60.0 if LONG else 10.0


@pytest.fixture(scope="module")
def worker():
    w = fz.Worker()
    yield w
    w.close()


# Findings of the fuzz cases that are not fixed: entry|mutation -> the class it lands in today.
# bench/results/fuzz.md lists them; fixing one makes its case pass anyway (the class it is
# expected to reach is still acceptable), and the entry must then go. None since issue 48's round 2.
KNOWN: dict[str, str] = {}


def _verdict(worker, case):
    _, _, kind, _ = fz.build(case)
    res = worker.run(case, timeout=TIMEOUT)
    if res["cls"] == KNOWN.get("|".join(case.split("|")[:2])):
        return
    if res["cls"] not in fz.ACCEPTABLE[kind]:  # (lost in ef41ec2, which left the check unreachable)
        pytest.fail(
            f"{case} ({kind} input) -> {res['cls']}: {res.get('detail', '')}\n"
            f"  call: {fz.describe(case)}\n  repro: {fz.repro_line(case)}",
            pytrace=False,
        )


@pytest.mark.parametrize("name", sorted(fz.ENTRIES))
def test_hostile_input(worker, name):
    """Hypothesis-drawn mutations of one entry point's arguments."""
    muts = [m for m, _ in fz.mutations(fz.ENTRIES[name])]
    # The options classes' every case runs in-process in tests/test_options.py: a few here.
    examples = 4 if fz.ENTRIES[name].sampled_only else EXAMPLES

    # No shrinking: an example is a subprocess round trip, and the case id is already minimal.
    @settings(max_examples=examples, phases=[Phase.explicit, Phase.generate], report_multiple_bugs=False)
    @given(mut=st.sampled_from(muts), seed=st.integers(0, 2**16), size=st.sampled_from(SIZES))
    def check(mut, seed, size):
        _verdict(worker, f"{name}|{mut}|{seed}|{size}")

    check()


SPECIFIC = sorted(
    f"{e.name}|{m}|0|s"
    for e in fz.ENTRIES.values()
    if not e.sampled_only
    for m, _ in fz.mutations(e)
    if m.startswith("ex:") or m == "base"
)


@pytest.mark.parametrize("case", SPECIFIC)
def test_specific_case(worker, case):
    """Every entry-specific case (the defects of issue 27 among them) once, at a fixed seed."""
    _verdict(worker, case)
