"""The speed at equal accuracy (issue 47, item 4): :func:`compendium.experiments.estimator_games.seconds_at_error`,
which ``benchmarks/estimator_speed.py`` uses to read the seconds an estimator needs to reach an error.

The case, computed by hand: errors 0.4, 0.1, 0.025 at three budgets taking 1, 4 and 16 seconds.
Target 0.05: the error first falls to it or below at the third budget; between the second and the third,
``log 0.05`` is half-way from ``log 0.1`` to ``log 0.025`` (0.05 / 0.1 = 1/2, 0.025 / 0.1 = 1/4 = (1/2)^2),
so the seconds are half-way in log from 4 to 16: ``sqrt(4 * 16) = 8``. Target 0.1: the second budget,
4 s. Target 0.5: reached at the first budget already, its 1 s (no extrapolation). Target 0.01: never.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from compendium.experiments import estimator_games as eg

ERRORS = [0.4, 0.1, 0.025]
SECONDS = [1.0, 4.0, 16.0]
#: target -> (seconds, index of the budget that reaches it), by hand (the docstring)
BY_HAND = {0.05: (8.0, 2), 0.1: (4.0, 1), 0.5: (1.0, 0), 0.01: (math.nan, None)}


def agrees(fn) -> bool:
    """Whether ``fn`` gives the hand-computed seconds and budgets of every target."""
    for target, (seconds, index) in BY_HAND.items():
        got, i = fn(ERRORS, SECONDS, target)
        if i != index or not (math.isnan(seconds) and math.isnan(got) or math.isclose(got, seconds, rel_tol=1e-12)):
            return False
    return True


def test_seconds_at_error_by_hand():
    assert agrees(eg.seconds_at_error)
    s, i = eg.seconds_at_error(ERRORS, SECONDS, 0.05)
    print(f"seconds at error 0.05: {s} (by hand 8), between budgets {i - 1} and {i}")


def _linear(errors, seconds, target):
    """A planted fault: interpolated linearly in error and seconds, not log-log (gives 12 s, not 8)."""
    e, s = np.asarray(errors), np.asarray(seconds)
    reached = np.flatnonzero(e <= target)
    if len(reached) == 0:
        return math.nan, None
    i = int(reached[0])
    if i == 0:
        return float(s[0]), 0
    t = (target - e[i - 1]) / (e[i] - e[i - 1])
    return float(s[i - 1] + t * (s[i] - s[i - 1])), i


def _first_above(errors, seconds, target):
    """A planted fault: the budget before the one that reaches the target (off by one)."""
    s, i = eg.seconds_at_error(errors, seconds, target)
    return (float(seconds[i - 1]), i) if i else (s, i)


@pytest.mark.parametrize("planted", [_linear, _first_above])
def test_a_planted_fault_fails_the_check(planted):
    assert not agrees(planted)


def test_the_linear_fault_by_hand():
    # linear: t = (0.05 - 0.1) / (0.025 - 0.1) = 2/3 of the way from 4 s to 16 s: 12 s, not 8
    assert _linear(ERRORS, SECONDS, 0.05) == (pytest.approx(12.0), 2)


def test_seconds_at_error_refuses_what_log_log_cannot_read():
    with pytest.raises(ValueError):
        eg.seconds_at_error([0.1, 0.0], [1.0, 2.0], 0.05)   # an error of 0: no logarithm
    with pytest.raises(ValueError):
        eg.seconds_at_error([0.1, 0.05], [1.0], 0.05)        # one seconds per budget
