"""The two kinds of error: bad input from a user, and a malformed model (a bug of ours); messages on one line."""

from __future__ import annotations

import difflib
import re
from typing import Iterable


class AscverifyError(Exception):
    """Base of ascverify's own errors."""


class InputError(AscverifyError):
    """A case file or argument that cannot be read; one line naming where and what (exit status 2)."""

    def __init__(self, message: str, *, where: str = "", field: str = "") -> None:
        self.message = clipped(message)
        self.where = where
        self.field = field
        super().__init__(self.line())

    def line(self) -> str:
        parts = [p for p in (self.where, self.field) if p]
        prefix = ": ".join(parts)
        return f"{prefix}: {self.message}" if prefix else self.message

    def at(self, where: str) -> "InputError":
        """The same error located in ``where`` (a file and case index)."""
        return InputError(self.message, where=where if not self.where else f"{where}: {self.where}", field=self.field)


class UnknownName(InputError, KeyError):
    """A name the look-up does not know (an API, a product): an `InputError` with the names that come close, and a
    `KeyError` for a caller that looks names up as keys."""

    def __str__(self) -> str:
        return self.line()  # not KeyError's repr of its argument


class ModelDefinitionError(AscverifyError):
    """An API model that is malformed; raised when the model is built, naming the model."""


#: A message longer than this is cut (a name a hostile file made megabytes long is not printed whole) ...
MAX_MESSAGE = 2000
#: ... and a name longer than this gets no suggestion (matching it would cost time and memory in its length).
MAX_SUGGESTED = 200


def clipped(message: str) -> str:
    """``message``, cut to `MAX_MESSAGE` characters and saying how long it was."""
    if len(message) <= MAX_MESSAGE:
        return message
    return f"{message[:MAX_MESSAGE]}... (cut: {len(message)} characters)"


def did_you_mean(name: object, choices: Iterable[str]) -> str:
    """' (did you mean 'x'?)' for the closest choice, or ''."""
    close = closest(name, choices)
    return f" (did you mean {close!r}?)" if close is not None else ""


def closest(name: object, choices: Iterable[str]) -> str | None:
    """The choice ``name`` most likely meant (the same but for case, a near spelling, or a longer name it starts or
    is part of), or None."""
    if not isinstance(name, str) or len(name) > MAX_SUGGESTED:
        return None
    choices = list(choices)
    lowered = {c.lower(): c for c in choices}
    if name.lower() in lowered:
        return lowered[name.lower()]
    close = difflib.get_close_matches(name, choices, n=1, cutoff=0.6)
    if not close:
        close = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
        close = [lowered[c] for c in close]
    if not close and len(name) >= 3:  # a prefix or a part of a longer name: 'Bilinear' -> 'BilinearInterpolation'
        close = [c for c in choices if c.lower().startswith(name.lower())] or \
                [c for c in choices if name.lower() in c.lower()]
    return close[0] if close else None


#: Characters that break a line (for `str.splitlines` or a terminal): control characters and separators.
_BREAKS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def shown_path(path: str) -> str:
    """A file name as text any output can hold: bytes the file system gave that are not UTF-8 (Python keeps them
    as lone surrogates) shown as ``\\xNN``."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return path


def one_line(text: str) -> str:
    """``text`` on a single line (a message never spans lines, whatever a user's file holds)."""
    if _BREAKS.search(text) is None:
        return text
    return _BREAKS.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)
