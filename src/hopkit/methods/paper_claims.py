"""What a method's paper reports against its baselines, declared once beside the method.

A :class:`PaperClaim` says that ``subject`` scored above (or below) ``baseline`` on ``metric`` in
the paper, on the datasets it names; ``hopkit claims`` checks each one on stored runs with a paired
test and words the verdict by one rule (:mod:`hopkit.claim_checks`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Mapping

from hopkit.errors import ConfigError
from hopkit.evaluation.scoring import METRIC_NAMES

Direction = Literal["above", "below"]


@dataclass(frozen=True)
class PaperClaim:
    """One comparison a paper reports.

    Attributes:
        subject: the run name the claim is about (a method, or one mode of it: ``alce-rerank``).
        baseline: the run name it is compared with (``oner``, ``alce-vanilla``, ``searchain-no-verification``).
        direction: ``above`` or ``below``: where the paper puts ``subject`` against ``baseline``.
        metric: the paper's metric, as hopkit scores it (one of
            :data:`hopkit.evaluation.scoring.METRIC_NAMES`).
        source: where the paper says so ("MIGRES, Table 3").
        datasets: the datasets the paper reports it on.
        paper: the run name of the method whose paper makes the claim, where that is neither the subject nor the
            method declaring it: the Search-R1 paper's RAG above IRCoT (``oner`` against ``ircot``) is one of
            ``search-r1``'s claims, so ``hopkit claims search-r1`` checks it and its page lists it (empty: the
            declaring method's own paper, or the subject's).
    """

    subject: str
    baseline: str
    direction: Direction
    metric: str
    source: str
    datasets: tuple[str, ...]
    paper: str = ""

    def __post_init__(self) -> None:
        if self.direction not in ("above", "below"):
            raise ConfigError(f"claim {self.subject} against {self.baseline}: direction must be 'above' or 'below', "
                              f"got {self.direction!r}")
        if self.metric not in METRIC_NAMES:
            raise ConfigError(f"claim {self.subject} against {self.baseline}: metric {self.metric!r} is not one of "
                              f"{', '.join(METRIC_NAMES)}")
        if not self.datasets:
            raise ConfigError(f"claim {self.subject} against {self.baseline}: name the datasets the paper reports")


def claims_from_table(subject: str, baseline: str, metric: str, source: str,
                      scores: Mapping[str, tuple[float, float]], paper: str = "") -> tuple[PaperClaim, ...]:
    """The claims a paper's table makes, from its numbers: ``{dataset: (subject's, baseline's)}``.

    A dataset where the two are equal makes no claim; the others make one ``above`` and one ``below``
    claim at most, each naming its datasets (``paper``: as :attr:`PaperClaim.paper`).
    """
    directions = {dataset: ("above" if ours > theirs else "below")
                  for dataset, (ours, theirs) in scores.items() if ours != theirs}
    return tuple(PaperClaim(subject, baseline, direction, metric, source,
                            tuple(d for d, where in directions.items() if where == direction), paper)
                 for direction in ("above", "below") if direction in directions.values())
