"""Public Hypothesis strategies: ``cases(api, product=...)`` and ``invalid_cases(api, rule)``."""

from .engines.properties.strategies import breaking, cases, invalid_cases, raw_cases

__all__ = ["breaking", "cases", "invalid_cases", "raw_cases"]
