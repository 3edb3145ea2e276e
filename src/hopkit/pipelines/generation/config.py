"""The YAML-facing config shared by every generation pipeline.

``hopkit run CONFIG.yaml`` instantiates the config class named by ``_target_`` with
the file's options, then calls ``build(session_factory)`` to get the facade. Every
field is checked when the config is constructed (types and ranges from the
annotations, see :mod:`hopkit.options`; the nested ``reader``, ``demonstrations``
and IRCoT ``options`` through the configs they become), so a wrong value is
reported with the file's name before anything is loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal, Mapping

from annotated_types import Interval

from hopkit.config import load_named
from hopkit.errors import ConfigError
from hopkit.options import NonEmptyStr, PositiveInt, check_fields, shown
from hopkit.pipelines.retrieval.base import RetrievalPipeline

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


def demonstration_spec(value: Mapping[str, Any] | DemonstrationSpec | None,
                       option: str = "demonstrations") -> DemonstrationSpec | None:
    """The authors' demonstration set to use, or None for zero-shot prompts."""
    if value is None or isinstance(value, DemonstrationSpec):
        return value
    if not isinstance(value, Mapping):
        raise ConfigError(f"option {option!r}: expected a mapping of dataset, distractors and family "
                          f"(or null), got {shown(value)}")
    try:
        return DemonstrationSpec(**value)
    except TypeError as exc:
        raise ConfigError(f"option {option!r}: {exc}") from None
    except ConfigError as exc:
        raise ConfigError(f"option {option!r}: {exc}") from None


@dataclass(frozen=True)
class GenerationPipelineConfig:
    """Options every generation pipeline config has.

    Attributes:
        name: the run's name.
        llm: name of a config in ``configs/llm/``, or a GGUF file on the Hugging Face Hub
            (``hf://OWNER/NAME[@REVISION]/FILE.gguf``, see :func:`hopkit.config.load_llm`).
        retrieval_pipeline_name: name of a config in ``configs/retrieval/`` (None: no retrieval).
        dataset: the stored dataset to run on (None: the only one in the store).
        batch_size: questions in flight at once (with backends that serve concurrent calls).
    """

    name: NonEmptyStr
    llm: NonEmptyStr = "smollm2"
    retrieval_pipeline_name: str | None = "bm25"
    dataset: str | None = None
    batch_size: PositiveInt = 10

    def __post_init__(self) -> None:
        check_fields(self, "field")  # every subclass's fields too

    def retrieval_pipeline(self, session_factory: Any) -> RetrievalPipeline | None:
        if self.retrieval_pipeline_name is None:
            return None
        pipeline = load_named("retrieval", self.retrieval_pipeline_name, session_factory=session_factory)
        if not isinstance(pipeline, RetrievalPipeline):
            raise ConfigError(f"retrieval config {self.retrieval_pipeline_name!r} does not build a retrieval pipeline")
        return pipeline



@dataclass(frozen=True)
class ReaderPipelineFields(GenerationPipelineConfig):
    """The own field of the YAML configs of the methods that answer with the reader alone
    (NoR, OneR): optional ``demonstrations``. Their options (``reader``, OneR's ``k``) come
    from the method's config."""

    demonstrations: Mapping[str, Any] | DemonstrationSpec | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        demonstration_spec(self.demonstrations)


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
