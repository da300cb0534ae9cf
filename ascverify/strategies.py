"""Public Hypothesis strategies: ``cases(api, product=..., dtype=..., args=..., bias=..., specified=..., data=...)``,
``invalid_cases(api, rule)``, ``breaking(case, rule)`` (raises `Undecided` when the solver cannot tell), and tensor
contents: ``values(dtype, size)`` (ordinary values mixed with ±0, ±inf, NaN, subnormals, the largest values and sums
that need rounding) and the recipes behind them, ``value_plans(dtype)``. Arguments no valid case could have raise
Hypothesis's ``InvalidArgument`` when the strategy is made."""

from .engines.properties.strategies import breaking, cases, invalid_cases, raw_cases
from .engines.properties.values import ValuePlan, realize, value_plans, values
from .engines.solver import Undecided

__all__ = ["Undecided", "ValuePlan", "breaking", "cases", "invalid_cases", "raw_cases", "realize", "value_plans",
           "values"]
