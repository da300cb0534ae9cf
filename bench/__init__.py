"""Benchmarks of ascverify: every figure is a ratio against a baseline measured in the same run.

Run them with ``python -m bench.run`` (``--quick`` for CI); see ``bench/RESULTS.md``.
"""
