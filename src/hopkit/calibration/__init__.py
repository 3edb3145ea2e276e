"""Thresholds a judge needs, measured on your own questions: MIGRES's δ and SearChain's θ.

A method's threshold lives in its judge's scale: the papers' values (MIGRES's δ = 3.0, a
BGE-reranker logit; SearChain's θ = 1.5, a DPR reader's) mean nothing for another judge.
``hopkit calibrate migres|searchain`` measures them by each paper's rule.
"""

from hopkit.calibration.migres import COVERAGE, DeltaCalibration, calibrate_delta
from hopkit.calibration.scores import ScoreFile, score_file_name
from hopkit.calibration.searchain import (PAPER_THETA, Pair, ThetaCalibration, ThetaPoint, best_point, calibrate_theta,
                                          decomposition_pairs, question_pairs, sweep)

__all__ = ["COVERAGE", "PAPER_THETA", "DeltaCalibration", "Pair", "ScoreFile", "ThetaCalibration", "ThetaPoint",
           "best_point", "calibrate_delta", "calibrate_theta", "decomposition_pairs", "question_pairs",
           "score_file_name", "sweep"]
