"""Judges by name, so a method's YAML config can pick one.

A judge option is a backend's name or a mapping of ``kind`` and the backend's own
options::

    reranker: llm                                  # the LLM as judge, on the method's LLM
    reranker: {kind: cross-encoder, model: cross-encoder/ms-marco-MiniLM-L-6-v2, batch_size: 16}
    nli: {kind: nli, model: cross-encoder/nli-deberta-v3-small}
    reader: {kind: extractive, model: deepset/roberta-base-squad2}
    duplicate_check: {kind: lexical, measure: jaccard}
    duplicate_check: {kind: embedding, embedder: "wordllama:l2_supercat:256"}

:func:`judge_spec` checks a value (kind, option names, types and ranges, read from
the backend's own signature as :mod:`hopkit.config` does for ``_target_``) without
loading anything, so a config can call it when it is constructed; :func:`build_judge`
and its typed forms build the judge, handing the LLM judges the method's LLM.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Mapping, cast

from hopkit.errors import ConfigError
from hopkit.judges.cross_encoder import CrossEncoderRelevance
from hopkit.judges.embedding import EmbeddingRelevance, EmbeddingSimilarity
from hopkit.judges.extractive import ExtractiveReader
from hopkit.judges.lexical import LexicalSimilarity
from hopkit.judges.llm_reader import LLMAnswerJudge
from hopkit.judges.llm_yes_no import LLMEntailmentJudge, LLMRelevanceJudge, LLMSimilarityJudge
from hopkit.judges.nli import NLIEntailment
from hopkit.judges.protocol import AnswerJudge, EntailmentJudge, RelevanceJudge, SimilarityJudge
from hopkit.llm.protocol import LLM
from hopkit.options import check_value, parameter_types, shown

Role = Literal["relevance", "entailment", "answer", "similarity"]

#: For each role, the backends by kind: a class or a ``load`` classmethod taking the options.
BACKENDS: dict[str, dict[str, Callable[..., Any]]] = {
    "relevance": {"llm": LLMRelevanceJudge, "cross-encoder": CrossEncoderRelevance.load,
                  "embedding": EmbeddingRelevance},
    "entailment": {"llm": LLMEntailmentJudge, "nli": NLIEntailment.load},
    "answer": {"llm": LLMAnswerJudge, "extractive": ExtractiveReader.load},
    "similarity": {"llm": LLMSimilarityJudge, "lexical": LexicalSimilarity, "embedding": EmbeddingSimilarity},
}
_INJECTED = "llm"  # the method's LLM, handed over by build_judge, never written in a config


@dataclass(frozen=True)
class JudgeSpec:
    """A checked judge option: the role, the backend's kind and its options."""

    role: Role
    kind: str
    options: Mapping[str, Any] = field(default_factory=dict)


def _parameters(backend: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    return {name: parameter for name, parameter in inspect.signature(backend).parameters.items()
            if parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)}


def judge_spec(role: Role, value: str | Mapping[str, Any] | JudgeSpec, option: str | None = None) -> JudgeSpec:
    """Check a judge option of ``role`` without building the judge.

    Args:
        role: ``"relevance"``, ``"entailment"``, ``"answer"`` or ``"similarity"``.
        value: a kind (``"llm"``), a mapping of ``kind`` and options, or a checked spec.
        option: the option's name in the config, for messages (default: the role).

    Returns:
        The spec.

    Raises:
        ConfigError: an unknown role or kind, an unknown, missing or wrongly typed option,
            or a spec checked for another role.
    """
    name = option or role
    if isinstance(value, JudgeSpec):
        if value.role != role:
            raise ConfigError(f"option {name!r}: expected a {role} judge, got a spec for a {value.role} judge")
        return value
    if role not in BACKENDS:
        raise ConfigError(f"option {name!r}: unknown judge role {role!r}; known: {', '.join(BACKENDS)}")
    kinds = BACKENDS[role]
    if isinstance(value, str):
        value = {"kind": value}
    if not isinstance(value, Mapping):
        raise ConfigError(f"option {name!r}: expected one of {', '.join(kinds)} or a mapping with 'kind' and the "
                          f"backend's options, got {shown(value)}")
    kind = value.get("kind")
    if kind not in kinds:
        raise ConfigError(f"option {name!r}: field 'kind' must be one of {', '.join(kinds)}, got {shown(kind)}")
    options = {str(key): item for key, item in value.items() if key != "kind"}
    backend = kinds[kind]
    parameters = _parameters(backend)
    known = sorted(set(parameters) - {_INJECTED})
    for key in options:
        if key == _INJECTED:
            raise ConfigError(f"option {name!r}: field {key!r} is set by hopkit (the method's LLM), "
                              "not by the config")
        if key not in known:
            raise ConfigError(f"option {name!r}: unknown field {key!r} for kind {kind!r}; known: "
                              f"{', '.join(known) or '(none)'}")
    for key in known:
        if key not in options and parameters[key].default is inspect.Parameter.empty:
            raise ConfigError(f"option {name!r}: kind {kind!r} needs the field {key!r}")
    hints = parameter_types(backend)
    for key, item in options.items():
        if key in hints:
            check_value(item, hints[key], f"option {name!r} field {key!r}")
    return JudgeSpec(role=role, kind=str(kind), options=options)


def build_judge(role: Role, value: str | Mapping[str, Any] | JudgeSpec, *, llm: LLM | None = None,
                option: str | None = None) -> Any:
    """Build the judge a config option names (loading a dedicated model if it names one).

    Args:
        role: the judge's role (see :func:`judge_spec`).
        value: the option's value.
        llm: the method's LLM, for the ``llm`` kind.
        option: the option's name, for messages.

    Raises:
        ConfigError: a bad spec, the ``llm`` kind without an LLM, or a model that cannot be loaded.
        LLMError: the LLM cannot score continuations.
    """
    spec = judge_spec(role, value, option)
    name = option or role
    backend = BACKENDS[spec.role][spec.kind]
    takes_llm = _INJECTED in _parameters(backend)
    if takes_llm and llm is None:
        raise ConfigError(f"option {name!r}: the {spec.kind!r} judge needs the method's LLM, and none was given")
    try:
        return backend(llm, **spec.options) if takes_llm else backend(**spec.options)
    except ConfigError as exc:  # the backend's own checks (a prompt's placeholders, a model's labels)
        raise ConfigError(f"option {name!r}: {exc}") from exc.__cause__


def relevance_judge(value: str | Mapping[str, Any] | JudgeSpec, *, llm: LLM | None = None,
                    option: str | None = None) -> RelevanceJudge:
    """:func:`build_judge` for the ``"relevance"`` role."""
    return cast(RelevanceJudge, build_judge("relevance", value, llm=llm, option=option))


def entailment_judge(value: str | Mapping[str, Any] | JudgeSpec, *, llm: LLM | None = None,
                     option: str | None = None) -> EntailmentJudge:
    """:func:`build_judge` for the ``"entailment"`` role."""
    return cast(EntailmentJudge, build_judge("entailment", value, llm=llm, option=option))


def answer_judge(value: str | Mapping[str, Any] | JudgeSpec, *, llm: LLM | None = None,
                 option: str | None = None) -> AnswerJudge:
    """:func:`build_judge` for the ``"answer"`` role."""
    return cast(AnswerJudge, build_judge("answer", value, llm=llm, option=option))


def similarity_judge(value: str | Mapping[str, Any] | JudgeSpec, *, llm: LLM | None = None,
                     option: str | None = None) -> SimilarityJudge:
    """:func:`build_judge` for the ``"similarity"`` role."""
    return cast(SimilarityJudge, build_judge("similarity", value, llm=llm, option=option))
