"""Fuzz campaigns for CI: the core against the models' invariants, or a user's implementation against the core.

The public surface::

    from ascverify.engines.fuzz import CampaignConfig, run_campaign, replay

    result = run_campaign(CampaignConfig(apis=("BilinearInterpolation",), products=("atlas-a2",),
                                         target={"kind": "python", "spec": "my_kernels:bilinear"},
                                         examples=500, findings="findings", junit="fuzz.xml"))
    result.exit_status, result.findings

Modules: `plan` (units, shards, seeds), `runner` (one Hypothesis run per item), `checks` (what is
checked on a case), `compare` (outputs, tolerances), `targets` (Python callables and commands),
`reproducers` (finding folders and replay), `coverage` (rule boundary coverage), `database` (shared
example databases), `reports` (JSON, JUnit), `progress` (the display), `mutants` (``ascverify selftest``).
"""

from .campaign import CampaignConfig, CampaignResult, plan, run_campaign
from .compare import DEFAULT_TOLERANCES, Tolerance
from .reproducers import ReplayResult, replay
from .targets import CommandTarget, PythonTarget, TargetError

__all__ = [
    "CampaignConfig", "CampaignResult", "CommandTarget", "DEFAULT_TOLERANCES", "PythonTarget",
    "ReplayResult", "TargetError", "Tolerance", "plan", "replay", "run_campaign",
]
