"""``python -m ascverify``: the command line (see `ascverify.cli`)."""

import gc

gc.disable()  # the command line's modules are imported with the cyclic GC paused (see ascverify/__init__.py)
from .cli import main  # noqa: E402

gc.freeze()  # what the imports made lives until the process exits: later collections need not scan it again
gc.enable()

main(prog_name="ascverify")
