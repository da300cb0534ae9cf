"""Where Hypothesis keeps its own files while a campaign runs: a temporary folder, removed afterwards.

Hypothesis writes a cache of the literals it mines from source files (``.hypothesis/constants/``, about 100
files) under its home folder, by default ``.hypothesis`` in the current folder; a campaign writes only where the
user said (its examples go to ``--database``, its reproducers to ``--findings``). Worker processes started inside
see the folder through ``HYPOTHESIS_STORAGE_DIRECTORY``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from hypothesis.configuration import set_hypothesis_home_dir

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
