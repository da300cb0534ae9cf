"""The ``ascverify`` command line.

Exit status of every command: 0 clean, 1 problems found (a rule broken, a fault), 2 the input could
not be read (a one-line message naming the file and the field), 3 an internal error (a bug of
ours: one line, or the traceback with ``ascverify --debug``). Results go to standard output,
input errors and summaries to standard error.

A command is one function decorated with ``@main.command()``; raise `InputError` for bad input and
let anything else propagate: the group turns both into the exit statuses above.

Each command lives in its own module and registers itself on `main` when imported below.
"""

from .common import main
from . import check_cmd, reference, run_cmd, synth_cmd  # noqa: F401,E402  (registers the commands)
from . import explain_cmd, gen_cmd, lint_cmd  # noqa: F401,E402  (explain, fix; gen; lint, diff-products)
from . import fuzz_cmd  # noqa: F401,E402  (fuzz, replay, selftest)
from . import codec_cmd  # noqa: F401,E402  (decode, encode)
from . import show_cmd  # noqa: F401,E402  (show: memory maps)

__all__ = ["main"]
