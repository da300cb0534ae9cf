"""``python -m ascverify``: the command line (see `ascverify.cli`)."""

from .cli import main

main(prog_name="ascverify")
