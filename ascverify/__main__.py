"""``python -m ascverify``: the command line (see `ascverify.launch`)."""

from .launch import main

main()
