"""Which demonstration set a reader or IRCoT puts in its prompts: the IRCoT authors' for the
four multi-hop datasets, three annotated StrategyQA questions
(:mod:`hopkit.prompts.strategyqa_demonstrations`) or FLARE's six StrategyQA exemplars
(:mod:`hopkit.prompts.flare_strategyqa`).

NoR, OneR and IRCoT take the same option, ``demonstrations``: None for zero-shot
prompts, else a :class:`DemonstrationSpec` (or a mapping of its fields in YAML).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from annotated_types import Interval

from hopkit.errors import ConfigError
from hopkit.options import check_fields, shown

STRATEGYQA = "strategyqa"
FLARE_STRATEGYQA = "flare-strategyqa"
#: The sets that are not the IRCoT authors': each question's own paragraphs alone, plain text.
OWN_CONTEXT_SETS = (STRATEGYQA, FLARE_STRATEGYQA)


@dataclass(frozen=True)
class DemonstrationSpec:
    """Which demonstration set to put in the prompts.

    Attributes:
        dataset: whose demonstrations: the IRCoT authors' (hotpotqa, 2wikimultihopqa, musique,
            iirc), strategyqa (three annotated questions, their cited paragraphs and facts) or
            flare-strategyqa (FLARE's six exemplars and their supporting statements).
        distractors: M, the distractor paragraphs beside the gold ones (1-3; strategyqa and
            flare-strategyqa: 0, each question's own paragraphs alone); 0 for the no-context
            prompts (NoR).
        family: "codex" (plain) or "flan_t5" (question prefixed with an instruction; the
            IRCoT authors' sets only).
    """

    dataset: str
    distractors: Annotated[int, Interval(ge=0, le=3)] = 2
    family: Literal["codex", "flan_t5"] = "codex"

    def __post_init__(self) -> None:
        from hopkit.prompts.ircot_files import DATASETS

        check_fields(self, "demonstrations option")
        if self.dataset in OWN_CONTEXT_SETS:
            if self.distractors != 0 or self.family != "codex":
                raise ConfigError(f"demonstrations option: the {self.dataset} demonstrations hold each question's "
                                  "own paragraphs alone, as plain text; set distractors: 0 and family: codex, got "
                                  f"distractors: {shown(self.distractors)}, family: {shown(self.family)}")
        elif self.dataset not in DATASETS:
            raise ConfigError("demonstrations option 'dataset': expected one of "
                              f"{', '.join((*DATASETS, *OWN_CONTEXT_SETS))}, got {shown(self.dataset)}")


def load_demonstrations(spec: DemonstrationSpec | None, reader_mode: str, *, with_context: bool) -> list[str]:
    """The authors' demonstrations for a reader (empty list = zero-shot prompts).

    ``with_context`` picks the prompts with paragraphs (``gold_with_M_distractors``)
    rather than the question-only ones (``no_context``).
    """
    if spec is None:
        return []
    if spec.dataset == STRATEGYQA:
        from hopkit.prompts.strategyqa_demonstrations import load_strategyqa_demonstrations

        return load_strategyqa_demonstrations(reader_mode, with_context=with_context)
    if spec.dataset == FLARE_STRATEGYQA:
        from hopkit.prompts.flare_strategyqa import load_flare_strategyqa_demonstrations

        return load_flare_strategyqa_demonstrations(reader_mode, with_context=with_context)
    from hopkit.prompts.ircot_files import load_demonstrations as load_files

    context = f"gold_with_{spec.distractors}_distractors" if with_context else "no_context"
    return load_files(spec.dataset, context=context, reader=reader_mode, family=spec.family)
