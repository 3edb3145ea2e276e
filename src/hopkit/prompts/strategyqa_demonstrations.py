"""Few-shot demonstrations for StrategyQA, made from three of its annotated questions.

Neither the IRCoT authors nor any other source at hand publishes StrategyQA demonstrations
with paragraphs. StrategyQA annotates every question with the paragraphs its evidence cites
and with ``facts``, the short statements that decide the answer, so a demonstration in the
IRCoT authors' layout is made of them::

    Wikipedia Title: <cited paragraph>
    ...

    Q: <question>
    A: <facts, as a chain of thought> So the answer is: <yes|no>.

A direct demonstration answers ``A: yes``; a no-context one drops the paragraphs. The three
questions (:data:`STRATEGYQA_DEMONSTRATION_QIDS`) are from the 229-question split the MIGRES and
SearChain papers evaluate on (the 83rd, 90th and 93rd of the 100-question sample), past the
questions a benchmark reads first; a run over them would be reading its own demonstrations.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from hopkit import environment
from hopkit.data.formats._common import Where, as_object, check_str, get_list, get_str, read_json_list
from hopkit.data.formats.strategyqa import find_paragraphs_file, load_strategyqa_paragraphs, question_example
from hopkit.errors import DataError
from hopkit.prompts.layout import test_block
from hopkit.records import Example, Paragraph

# Two "no" and one "yes", each deciding on figures or names its cited paragraphs hold.
STRATEGYQA_DEMONSTRATION_QIDS: tuple[str, ...] = (
    "ed04a34363f248900c18",  # Can the Persian Gulf fit in New Jersey? (no)
    "563a36aa0389c6f96cc7",  # Was Morris County named after a chief justice? (yes)
    "c91eafafed5a8f80bb5a",  # Is Miami a city on the American West Coast? (no)
)


def load_strategyqa_demonstrations(reader: str = "cot", *, with_context: bool = True, path: str | Path | None = None,
                                   qids: Sequence[str] = STRATEGYQA_DEMONSTRATION_QIDS) -> list[str]:
    """The demonstrations of ``qids``, in that order.

    Args:
        reader: ``cot`` (the facts, then "So the answer is: ...") or ``direct`` (the answer).
        with_context: put each question's cited paragraphs before it.
        path: a StrategyQA questions file in the official format, its paragraphs file beside it
            (default: the sample in ``$HOPKIT_DATA_DIR``, else the official file, downloaded once).
        qids: which questions.

    Raises:
        DataError: the file lacks one of ``qids``, or a question has no facts.
    """
    path = Path(path) if path is not None else _default_path()
    chosen = _chosen_questions(path, set(qids))
    demonstrations = []
    for qid in qids:
        if qid not in chosen:
            raise DataError(f"StrategyQA demonstration question {qid!r} is not in this file; pass the official "
                            "train file or the sample holding it", path=str(path))
        example, facts = chosen[qid]
        demonstrations.append(render_demonstration(example, facts, reader, with_context=with_context))
    return demonstrations


def render_demonstration(example: Example, facts: Sequence[str], reader: str, *, with_context: bool) -> str:
    """One demonstration in the IRCoT authors' layout (see the module's docstring)."""
    answer = example.answers[0]
    if reader == "cot":
        chain = " ".join(_sentence(fact) for fact in facts)
        answer = f"{chain} So the answer is: {answer}."
    paragraphs = [Paragraph(id=index, title=p.title, text=p.text) for index, p in enumerate(example.context)]
    return test_block(paragraphs if with_context else [], example.question, answer)


def _chosen_questions(path: Path, qids: set[str]) -> dict[str, tuple[Example, list[str]]]:
    """The questions of ``qids`` in the file, each with its facts (the file is read once)."""
    paragraphs = load_strategyqa_paragraphs(find_paragraphs_file(path))
    chosen: dict[str, tuple[Example, list[str]]] = {}
    for index, row in enumerate(read_json_list(path)):
        where = Where(str(path), record=f"#{index}")
        obj = as_object(row, where)
        if get_str(obj, "qid", where) in qids:
            example = question_example(obj, where, paragraphs)
            where = where.with_id(example.id)
            facts = [check_str(fact, where, f"facts[{n}]") for n, fact in enumerate(get_list(obj, "facts", where))]
            if not facts:
                raise where.error("a demonstration question needs at least one fact", "facts")
            chosen[example.id] = (example, facts)
    return chosen


def _sentence(fact: str) -> str:
    return fact if fact.endswith((".", "!", "?")) else f"{fact}."


def _default_path() -> Path:
    from hopkit.data.download import download_dataset
    from hopkit.data.registry import sample_path

    if environment.data_dir() is not None:
        return sample_path("strategyqa")
    return download_dataset("strategyqa").path
