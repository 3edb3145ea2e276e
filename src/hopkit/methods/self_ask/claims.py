"""Self-Ask against ReAct as the MIGRES paper's Table 3 reports them (Shao et al.'s few-shot runs)."""

from __future__ import annotations

from hopkit.methods.migres.claims import table_3_claims

CLAIMS = table_3_claims("self-ask", "react-shao")
