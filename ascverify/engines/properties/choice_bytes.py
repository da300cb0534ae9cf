"""Random numbers read from bytes Hypothesis draws: the construction of `cases` in a few choices.

Hypothesis's engine costs about 20-40 us per choice, and the construction of a valid case makes 10-40 of them; the
seeded construction (`ascverify.engines.properties.seeded.SeededDraw`, as ``gen --mode random`` runs it) costs none.
`ChoiceBytes` is a random source for `SeededDraw` whose numbers come from chunks of bytes drawn with
``st.binary`` (one choice per chunk: one or two per case), so that Hypothesis still records, replays, shrinks and
stores every case:

- each number takes a fixed number of bytes given only its bounds (`ChoiceBytes.pick`: one byte for up to 16
  values, else a byte more than the span needs and one for the ends, whatever it returns), so a change of one
  field's bytes leaves the bytes of the fields after it where they were, as separate choices would;
- zero bytes give the least value, the first choice, the identity permutation and False, and smaller bytes never
  a larger value (the bytes go through the inverse of the number's distribution): Hypothesis shrinks the bytes one
  by one towards zero (its bytes shrinker), so a failing case shrinks field by field to the least value that
  still fails, as it did with one choice per field;
- past the drawn bytes another chunk is drawn.

What is lost against one choice per field: Hypothesis's mutations of single choices and its pool of constants
(the construction's own boundary bias, ``bias=True``, and the ends `pick` takes 1 time in 20 each stay).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Callable, MutableSequence, Sequence

from hypothesis import strategies as st

__all__ = ["MORE", "SMALL", "WIDE", "ChoiceBytes", "binary"]

#: Ranges of up to this many values take one byte a number (every value 16 or more of the 256 byte values;
#: exactly even for 2, 4, 8 and 16 values); wider ones a byte for the ends (`ChoiceBytes.pick`) and a byte more
#: than their span needs. Fewer bytes are fewer for Hypothesis to shrink one by one.
SMALL = 16

#: Above this many values, `ChoiceBytes.pick` draws small values more often (a third log-uniform), as
#: `seeded.pick` does.
WIDE = 4096

#: Bytes of each chunk after the first (the first is sized per strategy: `ChoiceBytes`'s ``first``).
MORE = 16


@lru_cache(maxsize=256)
def binary(n: int) -> st.SearchStrategy[bytes]:
    """``st.binary`` of exactly ``n`` bytes (built once per size)."""
    return st.binary(min_size=n, max_size=n)


class ChoiceBytes:
    """The methods of `random.Random` that `SeededDraw` calls (random, randint, uniform, choice, shuffle), answered
    from chunks of bytes ``chunk(n)`` gives: ``first`` bytes, then `MORE` at a time (``consumed``: how many were
    read)."""

    __slots__ = ("_chunk", "_first", "_buf", "_pos", "consumed")

    def __init__(self, chunk: Callable[[int], bytes], first: int = MORE) -> None:
        self._chunk = chunk
        self._first = first
        self._buf = b""
        self._pos = 0
        self.consumed = 0

    def _take(self, k: int) -> int:
        """The next ``k`` bytes as a big-endian unsigned integer (a new chunk drawn when these run out)."""
        p = self._pos
        if p + k > len(self._buf):
            size = self._first if self.consumed == 0 and p == 0 else MORE
            self._buf = self._buf[p:] + self._chunk(max(size, k))
            p = 0
        self._pos = p + k
        self.consumed += k
        return int.from_bytes(self._buf[p:p + k], "big")

    def pick(self, lo: int, hi: int) -> int:
        """`SeededDraw`'s integer in [lo, hi], distributed as `seeded.pick` draws it from a `random.Random` (each end
        1 time in 20; between them uniform, or over more than `WIDE` values 1/3 log-uniform and 2/3 uniform), in a
        number of bytes fixed by the bounds (so that the fields after it keep their bytes), and nondecreasing in
        them: the bytes, read as one number, go through the distribution's inverse. A failing case therefore
        shrinks byte by byte down to the least value that fails, with no jump (an end taken from a byte of its
        own, as first written, was a value the shrinker could not leave). Up to `SMALL` values: one byte."""
        if hi <= lo:
            return lo
        span = hi - lo
        if span < SMALL:  # one byte, even: each value 1 time in 16 at least, the ends more often than 1 in 20
            return lo + ((self._take(1) * (span + 1)) >> 8)
        k = (span.bit_length() + 15) // 8  # the bytes of the span and one more, and a byte for the ends
        u = self._take(1 + k)
        unit = 1 << (8 * k)
        low, high = 13 * unit, 243 * unit  # 13/256 of the numbers give lo, 13/256 give hi
        if u < low:
            return lo
        if u >= high:
            return hi
        if span <= WIDE:
            return lo + ((u - low) * (span + 1)) // (high - low)
        return lo + _log_uniform_mix((u - low) / (high - low), span)

    def random(self) -> float:
        """In [0, 1), in steps of 1/256 (one byte)."""
        return self._take(1) / 256.0

    def randint(self, a: int, b: int) -> int:
        """In [a, b]: one byte for up to `SMALL` values, else the bytes that hold b - a and one byte more (even to
        within 1/256), scaled to the range."""
        n = b - a + 1
        if n <= 1:
            return a
        if n <= SMALL:
            return a + ((self._take(1) * n) >> 8)
        k = ((n - 1).bit_length() + 15) // 8
        return a + ((self._take(k) * n) >> (8 * k))

    def uniform(self, a: float, b: float) -> float:
        """In [a, b), in steps of (b - a)/65536 (two bytes)."""
        return a + (b - a) * self._take(2) / 65536.0

    def choice(self, seq: Sequence[Any]) -> Any:
        return seq[self.randint(0, len(seq) - 1)]

    def shuffle(self, x: MutableSequence[Any]) -> None:
        """Fisher-Yates, each swap a number of its own; zero bytes swap nothing."""
        for i in range(len(x) - 1, 0, -1):
            j = i - self.randint(0, i)
            x[i], x[j] = x[j], x[i]


def _log_uniform_mix(w: float, span: int) -> int:
    """The x in [0, span] at which the distribution 1/3 log-uniform (x = int(2**t) - 1, t uniform in [0, bits))
    and 2/3 uniform reaches ``w`` in [0, 1): its CDF in y = log2(x + 1) is y/(3 bits) + 2**(y + 1)/(3 (span + 1)),
    increasing; a fixed number of bisection steps makes the result nondecreasing in ``w``."""
    bits, n = span.bit_length(), span + 1
    a, b = 0.0, math.log2(n)
    for _ in range(40):
        y = (a + b) / 2
        if y / (3 * bits) + 2.0 ** (y + 1) / (3 * n) < w:
            a = y
        else:
            b = y
    return min(span, max(0, int(2.0 ** b) - 1))
