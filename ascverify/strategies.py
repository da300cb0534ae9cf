"""Public Hypothesis strategies: ``cases(api, product=..., bias=..., specified=..., data=...)``,
``invalid_cases(api, rule)``, and tensor contents: ``values(dtype, size)`` (ordinary values mixed with ±0, ±inf,
NaN, subnormals, the largest values and sums that need rounding) and the recipes behind them, ``value_plans(dtype)``."""

from .engines.properties.strategies import breaking, cases, invalid_cases, raw_cases
from .engines.properties.values import ValuePlan, realize, value_plans, values

__all__ = ["ValuePlan", "breaking", "cases", "invalid_cases", "raw_cases", "realize", "value_plans", "values"]
