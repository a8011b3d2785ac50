"""Ctrl-C during a long call: SIGINT sent to this process from a timer thread must raise
KeyboardInterrupt within a second, the library's run stopped (not left running)."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import nqueens

# When the signal comes; the calls below take many seconds without it (in the debug build
# tools/test_python.sh makes: a count of small work items, boards whose input pass is short).
AFTER = 0.3
# How soon after the signal the exception must come.
WITHIN = 1.0


def interrupted(call):
    """Runs `call` with SIGINT sent after AFTER seconds; the seconds from signal to raise."""
    sent = []

    def fire():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(AFTER, fire)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
            # Finished before the signal: the workload is too short to test anything.
            timer.cancel()
            pytest.fail("the call returned before the signal: make its workload longer")
    finally:
        timer.cancel()
    assert sent, "no signal was sent"
    return time.perf_counter() - sent[0]


def test_ctrl_c_stops_complete():
    took = interrupted(lambda: nqueens.complete(np.zeros(2_000_000, np.uint32), seed=1))
    assert took < WITHIN, took


def test_ctrl_c_stops_complete_many():
    boards = [np.zeros(1_000_000, np.uint32)] * 16
    took = interrupted(lambda: nqueens.complete_many(boards, seed=1))
    assert took < WITHIN, took


def test_ctrl_c_stops_count():
    took = interrupted(lambda: nqueens.count(17, threads=1))
    assert took < WITHIN, took


def test_ctrl_c_stops_a_count_of_another_engine():
    # Super queens: the row search, not the half-board engine.
    took = interrupted(lambda: nqueens.count(19, kind="super", threads=1))
    assert took < WITHIN, took


def test_the_library_works_on_after_an_interrupt():
    interrupted(lambda: nqueens.count(17, threads=1))
    assert nqueens.count(8) == 92
    assert nqueens.complete([4, 0, 0, 0, 0, 2, 0, 0], seed=1).status == "SOLVED"
