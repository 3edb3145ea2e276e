"""FLARE's exemplars as the authors build them (jzbjyb/FLARE ``src/datasets.py``, ``src/openai_api.py``).

Their 2WikiMultihopQA configuration prompts with eight exemplars of ``WikiMultiHopQA.cot_examplars``, in
their order; all eight are IRCoT demonstrations of the IRCoT authors' 2WikiMultihopQA files, with the same
chains of thought and answers, so hopkit reads them from those files by question id. With
``use_ctx_for_examplars: ret`` each exemplar is shown with the retriever's top-k for its own question
(``retrieval_augment_examplars``), not with gold paragraphs: :func:`with_retrieved_paragraphs` puts them
before it.
"""

from __future__ import annotations

from typing import Sequence

from hopkit.methods.demonstrations import OWN_CONTEXT_SETS, DemonstrationSpec, load_demonstrations
from hopkit.prompts.layout import render_paragraphs
from hopkit.records import Paragraph
from hopkit.retrieval.protocol import Retriever

#: ``WikiMultiHopQA.cot_examplars``' ids, in the authors' order (Hypocrite, Kurram Garhi, Coolie No. 1,
#: Boraqchin, Martin Hodge, Laughter In Hell, The Gal Who Took the West, Krishna Shah).
FLARE_2WIKI_QIDS = ("5811079c0bdc11eba7f7acde48001122", "35bf3490096d11ebbdafac1f6bf848b6",
                    "97954d9408b011ebbd84ac1f6bf848b6", "cdbb82ec0baf11ebab90acde48001122",
                    "c6805b2908a911ebbd80ac1f6bf848b6", "e5150a5a0bda11eba7f7acde48001122",
                    "a5995da508ab11ebbd82ac1f6bf848b6", "1ceeab380baf11ebab90acde48001122")
TWO_WIKI = "2wikimultihopqa"


def retrieves_for_exemplars(spec: DemonstrationSpec | None, exemplar_paragraphs: str) -> bool:
    """Whether the exemplars are shown with retrieved paragraphs: an IRCoT set with ``retrieved`` (the
    StrategyQA sets keep their own statements, as the authors' StrategyQA exemplars carry them)."""
    return spec is not None and exemplar_paragraphs == "retrieved" and spec.dataset not in OWN_CONTEXT_SETS


def load_flare_exemplars(spec: DemonstrationSpec | None, exemplars: str, exemplar_paragraphs: str,
                         shots: int) -> list[str]:
    """The first ``shots`` demonstrations FLARE prompts with: with gold paragraphs as the files have them,
    or (retrieved) the question and chain alone, for :func:`with_retrieved_paragraphs` to complete.

    ``exemplars`` "flare" takes, on 2WikiMultihopQA, the authors' eight in their order; "ircot" (and every
    other dataset) the IRCoT authors' selection.
    """
    if spec is None:
        return []
    with_context = not retrieves_for_exemplars(spec, exemplar_paragraphs)
    if spec.dataset == TWO_WIKI and exemplars == "flare":
        from hopkit.prompts.ircot_files import IRCoTPromptFiles

        context = f"gold_with_{spec.distractors}_distractors" if with_context else "no_context"
        chosen = IRCoTPromptFiles.from_env().load(TWO_WIKI, context, "cot", spec.family).select(FLARE_2WIKI_QIDS)
        return list(chosen.demonstrations)[:shots]
    return load_demonstrations(spec, "cot", with_context=with_context)[:shots]


def exemplar_question(demonstration: str) -> str:
    """The question of a ``Q: ...\\nA: ...`` demonstration (its last line before the answer, ``Q: `` removed)."""
    asked = demonstration.split("\nA:", 1)[0].strip().rsplit("\n", 1)[-1]
    return asked.removeprefix("Q:").strip()


def with_retrieved_paragraphs(demonstrations: Sequence[str], retriever: Retriever, k: int) -> list[str]:
    """Each demonstration after the retriever's top-``k`` paragraphs for its question."""
    shown = []
    for demonstration in demonstrations:
        paragraphs: list[Paragraph] = [hit.paragraph for hit in retriever.retrieve(exemplar_question(demonstration), k)]
        shown.append(f"{render_paragraphs(paragraphs)}\n\n{demonstration}" if paragraphs else demonstration)
    return shown
