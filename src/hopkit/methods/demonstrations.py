"""Which of the IRCoT authors' demonstration sets a reader or IRCoT puts in its prompts.

NoR, OneR and IRCoT take the same option, ``demonstrations``: None for zero-shot
prompts, else a :class:`DemonstrationSpec` (or a mapping of its fields in YAML).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from annotated_types import Interval

from hopkit.errors import ConfigError
from hopkit.options import check_fields, shown


@dataclass(frozen=True)
class DemonstrationSpec:
    """Which of the IRCoT authors' demonstration sets to put in the prompts.

    Attributes:
        dataset: whose demonstrations (hotpotqa, 2wikimultihopqa, musique, iirc).
        distractors: M, the distractor paragraphs beside the gold ones (1-3); 0 for
            the no-context prompts (NoR).
        family: "codex" (plain) or "flan_t5" (question prefixed with an instruction).
    """

    dataset: str
    distractors: Annotated[int, Interval(ge=0, le=3)] = 2
    family: Literal["codex", "flan_t5"] = "codex"

    def __post_init__(self) -> None:
        from hopkit.prompts.ircot_files import DATASETS

        check_fields(self, "demonstrations option")
        if self.dataset not in DATASETS:
            raise ConfigError(f"demonstrations option 'dataset': expected one of {', '.join(DATASETS)}, "
                              f"got {shown(self.dataset)}")


def load_demonstrations(spec: DemonstrationSpec | None, reader_mode: str, *, with_context: bool) -> list[str]:
    """The authors' demonstrations for a reader (empty list = zero-shot prompts).

    ``with_context`` picks the prompts with paragraphs (``gold_with_M_distractors``)
    rather than the question-only ones (``no_context``).
    """
    if spec is None:
        return []
    from hopkit.prompts.ircot_files import load_demonstrations as load_files

    context = f"gold_with_{spec.distractors}_distractors" if with_context else "no_context"
    return load_files(spec.dataset, context=context, reader=reader_mode, family=spec.family)
