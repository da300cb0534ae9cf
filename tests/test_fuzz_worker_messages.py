"""A campaign's parent reads its workers' messages whole: a Ctrl-C or SIGTERM that arrives during a read waits until
the message is read and handled (then it stops the campaign). Cut half-way through a read, the queue's pipe was left
mid-message, and the next read failed with EOFError (an internal error, exit 3, instead of an interrupted campaign,
exit 130)."""

from __future__ import annotations

import os
import queue
import signal

import pytest

from ascverify.engines.fuzz import signals
from ascverify.engines.fuzz.campaign import _receive


class SignalledQueue:
    """A results queue whose read is interrupted by ``signum`` half-way (the signal comes before the message)."""

    def __init__(self, message: tuple, signum: int) -> None:
        self.message, self.signum = message, signum

    def get(self, timeout: float) -> tuple:
        os.kill(os.getpid(), self.signum)
        return self.message


class EmptyQueue:
    def get(self, timeout: float) -> tuple:
        raise queue.Empty


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_during_a_read_waits_for_the_whole_message(signum):
    handled: list[tuple] = []
    with signals.interruptible():
        with pytest.raises(signals.Interrupted) as stopped:
            _receive(SignalledQueue(("finding", "f1"), signum), handled.append)
    assert handled == [("finding", "f1")]  # read and handled first
    assert stopped.value.signum == signum  # then the campaign stops


def test_no_message_within_the_wait_is_false_and_a_message_is_handled():
    handled: list[tuple] = []
    with signals.interruptible():
        assert _receive(EmptyQueue(), handled.append) is False
        q: queue.Queue = queue.Queue()
        q.put(("advance", 0, 3))
        assert _receive(q, handled.append) is True
    assert handled == [("advance", 0, 3)]


def test_while_stopping_a_signal_is_only_recorded():
    # after the first signal the parent drains the workers' last messages shielded: a second signal does not cut
    # that short
    handled: list[tuple] = []
    with signals.interruptible():
        with signals.shielded():
            assert _receive(SignalledQueue(("exit", 1), signal.SIGTERM), handled.append) is True
    assert handled == [("exit", 1)]
