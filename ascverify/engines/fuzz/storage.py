"""Hypothesis's process-wide state while a campaign runs: its files in a temporary folder, and no literals mined from
source files among its draws.

Hypothesis writes a cache of the literals it mines from source files (``.hypothesis/constants/``, about 100
files) under its home folder, by default ``.hypothesis`` in the current folder; a campaign writes only where the
user said (its examples go to ``--database``, its reproducers to ``--findings``). Worker processes started inside
see the folder through ``HYPOTHESIS_STORAGE_DIRECTORY``.

Hypothesis (6.13x and later) also mixes those literals into its draws (one draw in 20 may take a constant): the
literals of every module it takes for the user's own, that is not under site-packages, among those imported so far.
For a campaign that is ascverify's own modules when it is installed editable (``pip install -e``, as development and
CI install it) and none when installed from a wheel, and more of them as lazily loaded modules come in (``--html``
loads the pictures): the same ``--seed`` could draw different campaigns, and each process (each worker) spent 0.8 s
mining some 80 modules. `without_mined_constants` keeps them out (Hypothesis's own constants, 0, ±1, the powers of
two, ±inf, NaN..., stay; the strategies aim at the rules' boundaries themselves).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from hypothesis.configuration import set_hypothesis_home_dir

try:  # Hypothesis 6.13x and later: literals mined from source files (older versions mine none)
    from hypothesis.internal.conjecture import providers as _providers
    from hypothesis.internal.constants_ast import Constants as _Constants
except ImportError:  # pragma: no cover - an older Hypothesis
    _providers = _Constants = None

#: The variable Hypothesis reads its home folder from (in every process: the workers inherit it).
STORAGE_ENV = "HYPOTHESIS_STORAGE_DIRECTORY"


@contextmanager
def private_hypothesis_storage() -> Iterator[Path]:
    """Hypothesis's home folder a fresh temporary one while the block runs (this process and the workers it
    starts), removed afterwards; the previous setting is restored."""
    folder = Path(tempfile.mkdtemp(prefix="ascverify-hypothesis-"))
    previous = os.environ.get(STORAGE_ENV)
    os.environ[STORAGE_ENV] = str(folder)
    set_hypothesis_home_dir(folder)
    try:
        yield folder
    finally:
        set_hypothesis_home_dir(None)  # back to the variable or the default, read on next use
        if previous is None:
            os.environ.pop(STORAGE_ENV, None)
        else:
            os.environ[STORAGE_ENV] = previous
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def without_mined_constants() -> Iterator[None]:
    """While the block runs, Hypothesis draws none of the literals it mines from source files (see the module's
    docstring); the previous behaviour is restored afterwards. A Hypothesis without the mining is left alone."""
    current = getattr(_providers, "_get_local_constants", None)
    cache = getattr(getattr(_providers, "CONSTANTS_CACHE", None), "cache", None)
    if current is None or cache is None or _Constants is None:
        yield
        return
    empty = _Constants()
    cache.clear()  # the permitted constants computed with the mined ones
    _providers._get_local_constants = lambda: empty
    try:
        yield
    finally:
        _providers._get_local_constants = current
        cache.clear()


@contextmanager
def campaign_hypothesis() -> Iterator[Path]:
    """A campaign's (or selftest's) Hypothesis: `private_hypothesis_storage` and `without_mined_constants`."""
    with private_hypothesis_storage() as folder, without_mined_constants():
        yield folder
