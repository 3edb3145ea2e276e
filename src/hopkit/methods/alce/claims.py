"""ALCE's readers against each other as the MIGRES paper's Table 3 reports them (zero-shot): VANILLA-s,
SUMM, SNIPPET and RERANK against VANILLA, and RERANK against the other three."""

from __future__ import annotations

from hopkit.methods.migres.claims import table_3_claims

CLAIMS = (*(claim for reader in ("alce-vanilla-s", "alce-summ", "alce-snippet", "alce-rerank")
            for claim in table_3_claims(reader, "alce-vanilla")),
          *(claim for other in ("alce-vanilla-s", "alce-summ", "alce-snippet")
            for claim in table_3_claims("alce-rerank", other)))
