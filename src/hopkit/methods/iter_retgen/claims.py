"""ITER-RETGEN against ReAct and Self-Ask as the MIGRES paper's Table 3 reports them (Shao et al.'s runs)."""

from __future__ import annotations

from hopkit.methods.migres.claims import table_3_claims

CLAIMS = table_3_claims("iter-retgen", "react-shao") + table_3_claims("iter-retgen", "self-ask")
