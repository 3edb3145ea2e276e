"""IRCoT's loop: retrieve with the question, then reason / retrieve until an answer."""

from __future__ import annotations

import json

import pytest

from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.ircot.method import IRCoT, IRCoTConfig
from hopkit.methods.protocol import Method
from hopkit.records import Paragraph, Query

pytestmark = pytest.mark.unit

THREE_STEPS = ["The Lost Gravity was manufactured by Mack Rides. It opened in 2016.",
               "Mack Rides is a German company.",
               "So the answer is: Germany.",
               "Germany"]


@pytest.fixture
def build(kit):
    """build(script, config, corpus=..., demonstrations=..., reader_demonstrations=...) -> method, llm, retriever"""
    def make(script, config: IRCoTConfig = IRCoTConfig(k_per_step=2, reader="direct"), corpus=None,
             demonstrations=None, reader_demonstrations=None, **kwargs):
        llm = ScriptedLLM(script, **kwargs)
        retriever = kit.RecordingRetriever(list(kit.CORPUS if corpus is None else corpus))
        demos = (kit.DEMO_1, kit.DEMO_2) if demonstrations is None else demonstrations
        reader_demos = (kit.READER_DEMO,) if reader_demonstrations is None else reader_demonstrations
        return IRCoT(llm, retriever, config, demos, reader_demos), llm, retriever
    return make


def test_is_a_method_named_ircot(build) -> None:
    method, _, _ = build(THREE_STEPS)
    assert isinstance(method, Method)
    assert method.name == "ircot"


def test_question_first_then_each_first_sentence_is_the_next_query(kit, build) -> None:
    method, llm, retriever = build(THREE_STEPS)
    result = method.generate(kit.QUESTION)
    assert [c.query for c in retriever.calls] == [
        "In country was Lost Gravity manufactured?",          # (a) the question, wh-words removed
        "The Lost Gravity was manufactured by Mack Rides.",  # (d) first sentence of step 1
        "Mack Rides a German company.",                       # (d) step 2, "is" removed
    ]
    assert result.metadata["queries"] == [c.query for c in retriever.calls]
    assert result.metadata["cot_sentences"] == ["The Lost Gravity was manufactured by Mack Rides.",
                                                "Mack Rides is a German company.", "So the answer is: Germany."]
    assert result.metadata["stop_reason"] == "answer"
    assert result.metadata["steps"] == 3
    assert result.text == "Germany"
    assert len(llm.prompts) == 4  # three reasoning calls and one reader call


def test_only_the_first_sentence_is_kept_and_fed_back(kit, build) -> None:
    method, llm, _ = build(THREE_STEPS)
    method.generate(kit.QUESTION)
    assert "It opened in 2016" not in llm.prompts[1]
    assert llm.prompts[1].endswith("A: The Lost Gravity was manufactured by Mack Rides.")
    assert llm.prompts[2].endswith("A: The Lost Gravity was manufactured by Mack Rides. Mack Rides is a German company.")


def test_first_sentence_uses_a_real_splitter(kit, build) -> None:
    script = ["Nosferatu was directed by F.W. Murnau in 1,000.5 days. Then more.", "So the answer is: X.", "X"]
    method, _, retriever = build(script)
    result = method.generate(kit.QUESTION)
    assert result.metadata["cot_sentences"][0] == "Nosferatu was directed by F.W. Murnau in 1,000.5 days."
    assert retriever.calls[1].query == "Nosferatu was directed by F.W. Murnau in 1,000.5 days."


def test_reasoning_is_greedy_and_stops_at_newline(kit) -> None:
    seen = []

    class Spy(ScriptedLLM):
        def complete(self, prompt, *, stop=(), max_tokens=256, temperature=0.0):
            seen.append((tuple(stop), max_tokens, temperature))
            return super().complete(prompt, stop=stop, max_tokens=max_tokens, temperature=temperature)

    llm = Spy(["Mack Rides is German.\nSo the answer is: no.", "So the answer is: Germany.", "Germany"])
    method = IRCoT(llm, kit.RecordingRetriever(kit.CORPUS), IRCoTConfig(reader="direct", generation_max_tokens=123),
                   [kit.DEMO_1], [kit.READER_DEMO])
    result = method.generate(kit.QUESTION)
    assert seen[0] == (("\n",), 123, 0.0)
    assert result.metadata["cot_sentences"][0] == "Mack Rides is German."


def test_stop_sequence_is_case_insensitive(kit, build) -> None:
    method, llm, retriever = build(["SO THE ANSWER IS: Germany.", "Germany"])
    result = method.generate(kit.QUESTION)
    assert result.metadata["stop_reason"] == "answer"
    assert result.metadata["steps"] == 1
    assert len(retriever.calls) == 1  # no retrieval after the answer sentence


def test_custom_stop_sequence(kit, build) -> None:
    config = IRCoTConfig(k_per_step=2, reader="direct", stop_sequence="FINAL:")
    method, _, _ = build(["So the answer is: Germany.", "final: Germany.", "Germany"], config)
    result = method.generate(kit.QUESTION)
    assert result.metadata["steps"] == 2
    assert result.metadata["stop_reason"] == "answer"


def test_empty_generation_stops_and_the_reader_still_answers(kit, build) -> None:
    method, llm, _ = build(["Mack Rides is German.", "   ", "Germany"])
    result = method.generate(kit.QUESTION)
    assert result.metadata["stop_reason"] == "empty"
    assert result.metadata["steps"] == 2
    assert result.metadata["cot_sentences"] == ["Mack Rides is German."]
    assert result.text == "Germany"
    assert len(llm.prompts) == 3


def test_max_steps_and_no_retrieval_after_the_last_sentence(kit, build) -> None:
    def script(prompt: str) -> str:
        return "Germany is a country." if "Q: How many" not in prompt.split("\n\n\n")[-1] else "x"

    config = IRCoTConfig(k_per_step=1, max_steps=3, reader="direct")
    method, llm, retriever = build(script, config)
    result = method.generate(kit.QUESTION)
    assert result.metadata["steps"] == 3
    assert result.metadata["stop_reason"] == "max_steps"
    assert len(retriever.calls) == 3  # (a) + (d) after steps 1 and 2, none after step 3
    assert len(llm.prompts) == 4      # 3 reasoning calls + the reader


def test_default_max_steps_is_eight(kit, build) -> None:
    method, llm, _ = build(lambda prompt: "Germany is a country.", IRCoTConfig(reader="none"))
    result = method.generate(kit.QUESTION)
    assert result.metadata["steps"] == 8
    assert len(llm.prompts) == 8


def test_k_per_step_reaches_the_retriever(kit, build) -> None:
    method, _, retriever = build(THREE_STEPS, IRCoTConfig(k_per_step=3, reader="direct"))
    method.generate(kit.QUESTION)
    assert {c.k for c in retriever.calls} == {3}


def test_by_default_each_step_fetches_the_top_k_and_the_collection_drops_what_it_holds(kit, build) -> None:
    # the authors' code: no exclusion, so a step can add fewer than K (the paper's footnote 7)
    config = IRCoTConfig(k_per_step=2, reader="direct")
    method, _, retriever = build(["Lost Gravity was manufactured by Mack Rides.", "So the answer is: Germany.",
                                  "Germany"], config)
    result = method.generate(kit.QUESTION)
    assert all(call.exclude == frozenset() for call in retriever.calls)
    second = [hit.id for hit in retriever.inner.retrieve(retriever.calls[1].query, 2)]
    assert set(result.chunk_ids[:2]) & set(second)             # the second step re-fetched a held paragraph
    assert len(result.chunk_ids) < 2 * 2                       # so it added fewer than K
    assert len(result.chunk_ids) == len(set(result.chunk_ids))


def test_collected_ids_are_excluded_from_later_retrievals_when_asked(kit, build) -> None:
    method, _, retriever = build(THREE_STEPS, IRCoTConfig(k_per_step=2, reader="direct", exclude_collected=True))
    result = method.generate(kit.QUESTION)
    assert retriever.calls[0].exclude == frozenset()
    assert retriever.calls[1].exclude == frozenset(result.chunk_ids[:2])
    assert retriever.calls[2].exclude == frozenset(result.chunk_ids[:4])


def test_chunk_ids_in_collection_order_and_in_metadata(kit, build) -> None:
    method, _, _ = build(THREE_STEPS, IRCoTConfig(k_per_step=2, reader="direct", exclude_collected=True))
    result = method.generate(kit.QUESTION)
    assert result.chunk_ids == (1, 4, 5, 2, 6)
    assert result.metadata["chunk_ids"] == [1, 4, 5, 2, 6]
    assert result.metadata.chunk_ids == (1, 4, 5, 2, 6)
    assert result.metadata["retrieved_titles"][:2] == [kit.LOST_GRAVITY.title, kit.GERMANY.title]
    assert json.loads(json.dumps(dict(result.metadata))) == result.metadata.to_json()


def test_reasoning_sentence_falls_back_to_the_last_factual_one(kit, build) -> None:
    script = ["Lost Gravity was made by Mack Rides.", "Thus, Mack Rides made it.", "1990 - 1899 = 91.",
              "So the answer is: Germany.", "Germany"]
    method, _, retriever = build(script, IRCoTConfig(k_per_step=1, reader="direct"))
    method.generate(kit.QUESTION)
    assert [c.query for c in retriever.calls[1:]] == ["Lost Gravity was made by Mack Rides."] * 3


def test_query_left_empty_skips_the_retrieval(kit, build) -> None:
    method, _, retriever = build(["What is which?", "So the answer is: Germany.", "Germany"])
    result = method.generate(kit.QUESTION)
    assert len(retriever.calls) == 1
    assert result.metadata["queries"] == ["In country was Lost Gravity manufactured?"]


def test_budget_keeps_the_earliest_paragraphs(kit, build) -> None:
    config = IRCoTConfig(k_per_step=2, paragraph_budget=3, reader="direct")
    method, _, retriever = build(THREE_STEPS, config)
    result = method.generate(kit.QUESTION)
    assert result.chunk_ids == (1, 4, 5)       # the first retrieval's two are kept
    assert len(retriever.calls) == 2            # once full, nothing could be added: no more retrieval


def test_long_and_near_duplicate_paragraphs_are_skipped(kit, build) -> None:
    long = Paragraph(7, "Lost Gravity long", "Lost Gravity manufactured " + "word " * 50)
    near = Paragraph(8, "Lost Gravity (roller coaster).", kit.LOST_GRAVITY.text + " ")
    config = IRCoTConfig(k_per_step=4, reader="direct", max_paragraph_words=20)
    method, _, _ = build(["So the answer is: Germany.", "Germany"], config, corpus=[*kit.CORPUS, long, near])
    result = method.generate(kit.QUESTION)
    assert 1 in result.chunk_ids
    assert 7 not in result.chunk_ids and 8 not in result.chunk_ids


def test_direct_reader_reads_every_collected_paragraph_with_its_demonstrations(kit, build) -> None:
    method, llm, _ = build(THREE_STEPS)
    result = method.generate(kit.QUESTION)
    reader_prompt = llm.prompts[-1]
    assert reader_prompt.startswith(kit.READER_DEMO + "\n\n\n")
    assert kit.DEMO_1 not in reader_prompt
    for title in result.metadata["retrieved_titles"]:
        assert f"Wikipedia Title: {title}\n" in reader_prompt
    assert reader_prompt.endswith("Q: In what country was Lost Gravity manufactured?\nA:")
    assert result.metadata["reader_generation"] == "Germany"


def test_cot_reader_extracts_the_answer(kit, build) -> None:
    script = [*THREE_STEPS[:3], "Lost Gravity was made by Mack Rides. So the answer is: Germany."]
    method, _, _ = build(script, IRCoTConfig(k_per_step=2, reader="cot"))
    assert method.generate(kit.QUESTION).text == "Germany"


def test_without_reader_the_answer_comes_from_the_cot(kit, build) -> None:
    method, llm, _ = build(THREE_STEPS[:3], IRCoTConfig(k_per_step=2, reader="none"))
    result = method.generate(kit.QUESTION)
    assert result.text == "Germany"
    assert result.metadata["reader_generation"] is None
    assert len(llm.prompts) == 3


def test_without_reader_and_without_answer_sentence_the_whole_cot_is_the_answer(kit, build) -> None:
    config = IRCoTConfig(k_per_step=1, max_steps=2, reader="none")
    method, _, _ = build(["Mack Rides is German.", "It is big."], config)
    assert method.generate(kit.QUESTION).text == "Mack Rides is German. It is big"


def test_reader_question_prefix_flan_style(kit, build) -> None:
    config = IRCoTConfig(k_per_step=2, reader="direct", reader_question_prefix="Answer the following question.\n")
    method, llm, _ = build(["So the answer is: Germany.", "Germany"], config)
    method.generate(kit.QUESTION)
    assert llm.prompts[-1].endswith("Q: Answer the following question.\nIn what country was Lost Gravity "
                                    "manufactured?\nA:")


def test_main_passage_is_shown_without_a_title_matcher_and_never_retrieved(kit, build) -> None:
    main = Paragraph(9, "Walibi", "Lost Gravity opened at Walibi in 2016.")
    query = Query(id="q2", text=kit.QUESTION.text, main_passage=main)
    method, llm, retriever = build(THREE_STEPS, corpus=[*kit.CORPUS, main])
    result = method.generate(query)
    assert 9 not in result.chunk_ids
    assert all(9 in c.exclude for c in retriever.calls)
    assert all(c.titles is None for c in retriever.calls)
    for prompt in llm.prompts:
        assert prompt.split("\n\n\n")[-1].startswith("Wikipedia Title: Walibi\nLost Gravity opened")
    assert kit.MACK_RIDES.id in result.chunk_ids


def test_a_leading_line_break_is_skipped_but_an_empty_generation_stops() -> None:
    from hopkit.llm.protocol import Completion
    from hopkit.methods.ircot.method import IRCoT, IRCoTConfig
    from hopkit.records import Paragraph, Query
    from hopkit.retrieval.memory import InMemoryRetriever

    class Model:
        """Reasoning prompts: a line break first (cut by the stop), then a sentence on the next line."""

        model_id = "newline"
        context_length = 4096

        def __init__(self, writes_nothing: bool) -> None:
            self.writes_nothing = writes_nothing

        def complete(self, prompt, *, stop=(), max_tokens=256, temperature=0.0):
            if "Answer concisely" in prompt:
                return Completion("Tarsk", 1, 1, 0.0)
            if self.writes_nothing:
                return Completion("", 1, 0, 0.0)
            if prompt.endswith("when ready.\n"):
                return Completion("", 1, 1, 0.0)
            return Completion("Ada Quill was born in Tarsk.", 1, 7, 0.0)

        def count_tokens(self, text):
            return len(text.split())

    corpus = [Paragraph(0, "Ada Quill", "Ada Quill was born in Tarsk.")]
    query = Query(id="q", text="Where was Ada Quill born?")
    skipped = IRCoT(Model(False), InMemoryRetriever(corpus), IRCoTConfig(max_steps=1)).generate(query)
    assert skipped.metadata["cot_sentences"] == ["Ada Quill was born in Tarsk."]
    empty = IRCoT(Model(True), InMemoryRetriever(corpus), IRCoTConfig(max_steps=3)).generate(query)
    assert empty.metadata["stop_reason"] == "empty" and empty.metadata["cot_sentences"] == []
