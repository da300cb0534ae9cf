"""A strategy's arguments are read with the case readers (`ascverify.cases`): what those refuse, an `InputError`
that names the field, is refused the way Hypothesis refuses a strategy's arguments, with `InvalidArgument`, when the
strategy is made."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from hypothesis.errors import InvalidArgument

from ...spec.errors import InputError


@contextmanager
def refused_as_invalid(prefix: str = "") -> Iterator[None]:
    """An `InputError` raised inside becomes `InvalidArgument` (its message after ``prefix``)."""
    try:
        yield
    except InputError as exc:
        raise InvalidArgument(f"{prefix}{exc}") from None
