"""Where earlier releases kept the runner; it is :mod:`hopkit.pipelines.runner` now, in the run wing."""

from hopkit.pipelines.runner import (EVIDENCE_CHECK_AFTER, MAX_CONSECUTIVE_SERVER_FAILURES,
                                     MAX_CONSECUTIVE_STORE_FAILURES, TAKEN_PER_WORKER, RunOutcome, RunStart,
                                     answer_one, run_method, run_with)

__all__ = ["EVIDENCE_CHECK_AFTER", "MAX_CONSECUTIVE_SERVER_FAILURES", "MAX_CONSECUTIVE_STORE_FAILURES",
           "TAKEN_PER_WORKER", "RunOutcome", "RunStart", "answer_one", "run_method", "run_with"]
