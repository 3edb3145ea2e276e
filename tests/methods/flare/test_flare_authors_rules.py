"""FLARE as the authors' code has it (jzbjyb/FLARE): each rule by default, against the value the campaign's
saved runs had (hopkit/campaign/saved_run_pins.yaml). A scripted model with scripted token probabilities, a
real BM25 index, and the IRCoT prompt files written into a temporary $HOPKIT_DATA_DIR."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Callable

import pytest

from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.protocol import TokenScores
from hopkit.methods.demonstrations import DemonstrationSpec
from hopkit.methods.flare import METHOD, FLARE, FLAREConfig, FLAREOptions
from hopkit.methods.flare.exemplars import FLARE_2WIKI_QIDS
from hopkit.methods.flare.method import masked_query, read_answer
from hopkit.methods.flare.steps import FLARERetrieve
from hopkit.methods.registry import MethodParts
from hopkit.prompts.ircot_files import AUTHORS_DEMONSTRATION_QIDS
from hopkit.records import Paragraph, Query
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.traces import collect_trace
from tests import fictional_corpus

pytestmark = pytest.mark.unit

CORPUS = list(fictional_corpus.paragraphs(3))
QUESTION = Query("q1", "Where was the founder of Velmora Ironworks from?", ("Tarsk",))
TWO_WIKI = "2wikimultihopqa"


@pytest.fixture
def prompt_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The IRCoT 2WikiMultihopQA files with the authors' twenty qids: question "<qid>?" about "Exemplar <qid>",
    its gold paragraph titled "Gold <qid>"."""
    folder = tmp_path / "data" / "ircot" / "prompts" / TWO_WIKI
    folder.mkdir(parents=True)
    qids = AUTHORS_DEMONSTRATION_QIDS[TWO_WIKI]
    qa = [f"Q: Who was Exemplar {q}?\nA: Exemplar {q} was a smith. So the answer is: a smith." for q in qids]
    files = {"no_context_cot_qa_codex.txt": qa,
             "gold_with_2_distractors_context_cot_qa_codex.txt":
                 [f"Wikipedia Title: Gold {q}\nExemplar {q} was a smith.\n\n{d}" for q, d in zip(qids, qa)]}
    for name, demonstrations in files.items():
        text = "\n\n\n".join(f'# METADATA: {{"qid": "{q}"}}\n{d}' for q, d in zip(qids, demonstrations))
        (folder / name).write_text(text, encoding="utf-8")
    monkeypatch.setenv("HOPKIT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HOPKIT_CACHE_DIR", str(tmp_path / "cache"))
    return folder


def scripted(write: Callable[[str], str], probability: Callable[[str], float] = lambda word: 0.95) -> ScriptedLLM:
    def scores(prompt: str, continuation: str) -> list[tuple[str, float]]:
        return [(w, math.log(probability(w.strip()))) for w in re.findall(r"\s*\S+", continuation)]

    return ScriptedLLM(write, token_scores=scores)


def built(llm: ScriptedLLM, corpus: list[Paragraph], **options: object) -> FLARE:
    spec = DemonstrationSpec(TWO_WIKI)
    parts = MethodParts(llm=llm, retriever=BM25Retriever.build(corpus),
                        options=FLAREOptions(k=1, demonstrations=spec, **options))  # type: ignore[arg-type]
    return METHOD.build(parts)  # type: ignore[return-value]


def answered_at_once(prompt: str) -> str:
    return " So the answer is: Tarsk.\n\nQ: next" if "Q: Where was the founder" in prompt.rsplit("\n\n", 1)[-1] else ""


def test_the_authors_eight_2wiki_exemplars_in_their_order(prompt_files: Path) -> None:
    method = built(scripted(answered_at_once), CORPUS, exemplar_paragraphs="gold")
    assert [re.search(r"Exemplar (\w+)\?", d).group(1) for d in method.demonstrations] == list(FLARE_2WIKI_QIDS)
    method = built(scripted(answered_at_once), CORPUS, exemplar_paragraphs="gold", exemplars="ircot")
    ircot = [re.search(r"Exemplar (\w+)\?", d).group(1) for d in method.demonstrations]
    assert ircot == list(AUTHORS_DEMONSTRATION_QIDS[TWO_WIKI][:8]) and ircot != list(FLARE_2WIKI_QIDS)


def test_each_exemplar_is_shown_with_what_the_retriever_finds_for_its_question(prompt_files: Path) -> None:
    first = FLARE_2WIKI_QIDS[0]
    smithy = Paragraph(7, "Smithy", f"Exemplar {first} kept a smithy by the river.")
    llm = scripted(answered_at_once)
    result = built(llm, [*CORPUS, smithy]).generate(QUESTION)
    assert result.text == "Tarsk"
    prompt = llm.prompts[0]
    assert f"Wikipedia Title: Smithy\nExemplar {first} kept a smithy by the river.\n\nQ: Who was Exemplar {first}?" in prompt
    assert "Wikipedia Title: Gold" not in prompt
    assert 7 not in result.chunk_ids  # the exemplars' paragraphs are the prompt's, not the question's retrieval
    llm = scripted(answered_at_once)
    built(llm, [*CORPUS, smithy], exemplar_paragraphs="gold").generate(QUESTION)
    assert f"Wikipedia Title: Gold {first}" in llm.prompts[0] and "Wikipedia Title: Smithy" not in llm.prompts[0]


def test_a_masked_token_leaves_a_space_between_its_neighbours() -> None:
    scores = TokenScores(tokens=(" New", "cast", "le", " United"), prompt_tokens=1, seconds=0.0,
                         logprobs=tuple(math.log(p) for p in (0.9, 0.2, 0.9, 0.9)))
    assert masked_query(scores, 0.4) == ("New le United", ("cast",))
    assert masked_query(scores, 0.4, "remove") == ("Newle United", ("cast",))
    assert FLAREConfig().query_masking == "space"


def test_a_query_with_every_token_masked_retrieves_nothing_and_keeps_the_sentence() -> None:
    def write(prompt: str) -> str:
        done = prompt.rsplit("A:", 1)[1]
        return " So the answer is: Tarsk." if "town." in done else " Ada Quill was from Tarsk town. So the answer"

    def unsure(word: str) -> float:
        return 0.1 if word in ("Ada", "Quill", "was", "from", "Tarsk", "town.") else 0.95

    def run(**options: object) -> tuple[list[FLARERetrieve], ScriptedLLM, object]:
        llm = scripted(write, unsure)
        with collect_trace() as trace:
            result = FLARE(llm, BM25Retriever.build(CORPUS), FLAREConfig(k=1, **options)).generate(QUESTION)
        return [s.payload(FLARERetrieve) for s in trace.steps if s.kind == "retrieve"], llm, result

    retrievals, llm, result = run()
    assert [r.query for r in retrievals] == [QUESTION.text]
    assert result.text == "Tarsk" and len(llm.prompts) == 2  # not written again: the same prompt, the same sentence
    assert result.metadata.sentences == ("Ada Quill was from Tarsk town.", "So the answer is: Tarsk.")
    retrievals, llm, _ = run(query_masking="remove")
    assert [r.query for r in retrievals] == [QUESTION.text, QUESTION.text] and len(llm.prompts) == 3


def test_sentences_on_their_own_lines_go_on_to_the_answer_and_end_at_the_blank_line() -> None:
    chain = ["Velmora Ironworks was founded by Ada Quill.", "Ada Quill was from Tarsk.", "So the answer is: Tarsk."]

    def write(prompt: str) -> str:
        done = prompt.rsplit("\nA:", 1)[1]
        written = sum(1 for s in chain if s in done)
        rest = "\n".join(chain[written:])
        return (" " if written == 0 else "\n") + rest + "\n\nQ: another question?" if rest else ""

    def run(**options: object) -> tuple[object, ScriptedLLM]:
        llm = scripted(write)
        return FLARE(llm, BM25Retriever.build(CORPUS), FLAREConfig(k=1, **options)).generate(QUESTION), llm

    result, llm = run()
    assert result.text == "Tarsk" and result.metadata.sentences == tuple(chain)
    assert len(llm.prompts) == 3  # the answer's generation ended at the blank line: no fourth call
    assert llm.prompts[2].endswith("A: Velmora Ironworks was founded by Ada Quill.\nAda Quill was from Tarsk.")
    result, llm = run(stops="line", answer_reading="ircot")
    assert result.metadata.sentences == (chain[0],)  # the line break after it stopped the next generation at once


def test_the_loop_goes_on_after_the_answer_sentence_until_the_generation_ends() -> None:
    def write(prompt: str) -> str:
        done = prompt.rsplit("A:", 1)[1]
        if "port." in done:
            return ""
        return " Tarsk is a port." if "Tarsk." in done else " So the answer is: Tarsk. Tarsk is a port."

    def run(**options: object) -> tuple[object, ScriptedLLM]:
        llm = scripted(write)
        return FLARE(llm, BM25Retriever.build(CORPUS), FLAREConfig(k=1, **options)).generate(QUESTION), llm

    result, llm = run()
    assert result.metadata.sentences == ("So the answer is: Tarsk.", "Tarsk is a port.") and len(llm.prompts) == 2
    assert result.text == "Tarsk. Tarsk is a port"  # prep.py: the first "answer is", to the end of its line
    result, llm = run(stops="line", answer_reading="ircot")
    assert result.metadata.sentences == ("So the answer is: Tarsk.",) and result.text == "Tarsk"


def test_without_the_phrase_the_answer_is_empty() -> None:
    llm = scripted(lambda prompt: "" if "Tarsk." in prompt.rsplit("A:", 1)[1] else " Ada Quill was from Tarsk.")
    result = FLARE(llm, BM25Retriever.build(CORPUS), FLAREConfig(k=1)).generate(QUESTION)
    assert result.text == ""
    assert read_answer("Ada Quill was from Tarsk.", "ircot") == "Ada Quill was from Tarsk"
    assert read_answer("the answer is: A.\nSo the answer is: B.", "authors") == "A"
    assert read_answer("the answer is: A.\nSo the answer is: B.", "ircot") == "B"
