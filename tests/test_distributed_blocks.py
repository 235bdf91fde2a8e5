"""The default block sizes of kernlearn.distributed (BlockRule): enough blocks for every thread,
enough rows per pair task that the scheduler's serial work stays a small share on many threads,
never more than the cap. No cluster needed."""

import math

import pytest

from kernlearn.distributed import _hsic, _kernel_operator, _knn
from kernlearn.distributed._row_blocks import _SCHEDULER_SECONDS_PER_TASK, _SCHEDULER_SHARE, BlockRule

RULES = {"knn": _knn._BLOCKS, "phi": _hsic._BLOCKS, "kernel operator": _kernel_operator._BLOCKS}


@pytest.mark.parametrize("name", list(RULES))
@pytest.mark.parametrize("n_threads", [1, 2, 8, 32, 128, 256, 1024])
@pytest.mark.parametrize("n", [10**3, 5 * 10**4, 10**6, 10**7])
def test_default_blocks_respect_the_rule(name, n_threads, n):
    rule = RULES[name]
    rows = rule.rows(n, n_threads)
    assert 1 <= rows <= rule.max_rows + rule.multiple - 1 and rows % rule.multiple == 0
    if rows < rule.max_rows:  # not capped: at least the per-thread share ...
        assert rows >= math.ceil(n / (rule.blocks_per_thread * n_threads))
        if rule.seconds_per_pair:  # ... and a pair task long enough for the scheduler
            task = rows**2 * rule.seconds_per_pair
            assert task * _SCHEDULER_SHARE >= n_threads * _SCHEDULER_SECONDS_PER_TASK * (1 - 1e-9)


def test_rows_grow_with_threads_where_the_scheduler_binds():
    rule = _knn._BLOCKS
    # n = 10^6 on 8 threads: n / 8 rows, capped; on 32 threads n / 32 = 31,250 is above the floor
    assert rule.rows(10**6, 8) == 32768 and rule.rows(10**6, 32) == 31250
    # 50,000 points: one block per thread on 2 threads, the scheduler floor on 8 (n / 8 = 6,250)
    assert rule.rows(50_000, 2) == 25_000
    assert rule.rows(50_000, 8) == math.ceil(math.sqrt(8 * 2e-3 / (0.1 * 1.7e-9)))


def test_phi_blocks_are_whole_core_tiles():  # kHsicTile = 256 in cpp/include/kernlearn/kernels/hsic.hpp
    assert all(_hsic._BLOCKS.rows(n, t) % 256 == 0 for n in (1000, 12345, 10**6) for t in (1, 3, 64))


def test_a_rule_without_pair_cost_has_no_floor():
    assert BlockRule(blocks_per_thread=2, max_rows=4096).rows(10**6, 1024) == math.ceil(10**6 / 2048)
