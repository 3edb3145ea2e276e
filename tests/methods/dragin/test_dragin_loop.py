"""DRAGIN's loop with a retriever: a sure generation is kept whole; a sentence RIND finds uncertain is
retrieved for with QFS's query, and the text continues from before it over the paragraphs; the loop
ends on the answer, the budget, no progress or its generation bound; a model without attention is
refused by name."""

from __future__ import annotations

import pytest

from hopkit.errors import ConfigError, LLMError
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.dragin import METHOD, DRAGIN, DRAGINConfig
from hopkit.methods.dragin.steps import PAYLOADS, DRAGINExtract, DRAGINGenerate, DRAGINRetrieve
from hopkit.methods.registry import MethodParts
from hopkit.records import Query
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.traces import collect_trace
from hopkit.traces.payload import payload_of
from tests import fictional_corpus
from tests.chained import assert_chained

pytestmark = pytest.mark.unit

CORPUS = list(fictional_corpus.paragraphs(3))
QUESTION = Query("q1", "Where was the founder of Velmora Ironworks born?", ("Tarsk",))


def unsure_of(*words: str):
    """Entropy 4 for the given words, 0.1 for the rest."""
    return lambda word: 4.0 if word.strip(".") in words else 0.1


def run(replies: list[str], entropies, **options):  # type: ignore[no-untyped-def]
    llm = ScriptedLLM(replies, entropies=entropies)
    with collect_trace() as trace:
        result = DRAGIN(llm, BM25Retriever.build(CORPUS), DRAGINConfig(**options)).generate(QUESTION)
    assert_chained(trace.steps)  # each step follows the one before (parent=PREVIOUS)
    return result, [payload_of(step, PAYLOADS) for step in trace.steps], llm


def test_a_sure_generation_is_kept_whole_and_answers() -> None:
    result, steps, llm = run(["Ada Quill founded Velmora Ironworks. Ada Quill was born in Tarsk. So the answer is Tarsk."],
                             0.1)
    assert result.text == "Tarsk"
    assert result.metadata.retrievals == 0 and result.metadata.stopped == "answered"
    assert [type(s) for s in steps] == [DRAGINGenerate, DRAGINExtract]
    assert llm.prompts[0].endswith("Question: Where was the founder of Velmora Ironworks born?\nAnswer:")
    assert llm.prompts[0].startswith("Question: Jeremy Theobald and Christopher Nolan share what profession?\n"
                                     "Answer: Jeremy Theobald is an actor and producer.")
    assert llm.prompts[0].count("So the answer is") == 8  # the authors' 8 HotpotQA exemplars


def test_an_uncertain_sentence_is_retrieved_for_and_the_text_continues_from_before_it() -> None:
    replies = ["Velmora Ironworks was founded by Ada Quill. Ada Quill was born in Zorn. So the answer is Zorn.",
               "Ada Quill was born in Tarsk. Tarsk is a port.",
               "So the answer is Tarsk."]
    result, steps, llm = run(replies, unsure_of("Zorn"))
    assert [type(s) for s in steps] == [DRAGINGenerate, DRAGINRetrieve, DRAGINGenerate, DRAGINGenerate, DRAGINExtract]
    checked = steps[0]
    assert checked.trigger is not None and checked.trigger.sentence == "Ada Quill was born in Zorn."
    assert checked.kept == "Velmora Ironworks was founded by Ada Quill."
    query = steps[1].query
    assert "Zorn" not in query and "Velmora" in query and "founder" in query   # QFS, triggering word left out
    continued = llm.prompts[1]
    assert "Context:\n[1] " in continued and "\nAnswer in the same format as before.\n" in continued
    assert continued.endswith("Answer: Velmora Ironworks was founded by Ada Quill.")
    assert steps[2].after_retrieval and steps[2].kept == "Ada Quill was born in Tarsk."
    assert llm.prompts[2].endswith("Answer: Velmora Ironworks was founded by Ada Quill. Ada Quill was born in Tarsk.")
    assert result.text == "Tarsk" and result.metadata.retrievals == 1
    assert result.metadata.text == ("Velmora Ironworks was founded by Ada Quill. Ada Quill was born in Tarsk. "
                                    "So the answer is Tarsk.")
    assert set(result.chunk_ids) <= {p.id for p in CORPUS} and result.chunk_ids


def test_a_model_that_is_never_sure_ends_within_its_bounds() -> None:
    forever = lambda prompt: "Zorn Zorn Zorn."  # noqa: E731
    llm = ScriptedLLM(forever, entropies=4.0)
    result = DRAGIN(llm, BM25Retriever.build(CORPUS), DRAGINConfig(max_generations=5, max_length=1000)).generate(QUESTION)
    assert len(llm.prompts) <= 5 + 1 + 1                  # the generations, a continuation, the answer stage
    assert llm.prompts[-1].endswith(" So the answer is ")
    assert result.metadata.stopped in ("no_progress", "generation_limit")


def test_the_text_past_its_budget_ends_the_loop() -> None:
    llm = ScriptedLLM(lambda prompt: "Ada Quill founded Velmora Ironworks in 1871 with two partners.", entropies=0.1)
    result = DRAGIN(llm, BM25Retriever.build(CORPUS), DRAGINConfig(max_length=12)).generate(QUESTION)
    assert result.metadata.stopped == "length" and len(llm.prompts) == 2 + 1   # and the answer stage's call


def test_a_model_without_attention_is_refused_by_name() -> None:
    with pytest.raises(LLMError, match="attention.*DRAGIN"):
        DRAGIN(ScriptedLLM(["x"]), BM25Retriever.build(CORPUS))


def test_the_runs_dataset_chooses_the_authors_exemplars() -> None:
    llm = ScriptedLLM(["So the answer is Tarsk."], entropies=0.1)
    built = METHOD.build(MethodParts(llm, BM25Retriever.build(CORPUS), METHOD.as_run(DRAGINConfig(shots=6)),
                                     dataset="2wikimultihopqa"))
    built.generate(QUESTION)
    assert llm.prompts[0].startswith("Question: When did the director of film Hypocrite (Film) die?")
    assert llm.prompts[0].count("So the answer is") == 6


def test_exemplars_that_do_not_exist_or_are_too_few_are_refused_by_option() -> None:
    llm = ScriptedLLM(["x"], entropies=0.1)
    with pytest.raises(ConfigError, match="exemplars.*'nq'"):
        METHOD.build(MethodParts(llm, BM25Retriever.build(CORPUS), DRAGINConfig(exemplars="nq")))
    with pytest.raises(ConfigError, match="shots: 9 asked for"):
        METHOD.build(MethodParts(llm, BM25Retriever.build(CORPUS), DRAGINConfig(shots=9), dataset="2wikimultihopqa"))


def test_the_answer_is_everything_after_the_phrase_as_the_authors_read_it() -> None:
    from hopkit.methods.dragin.answer import real_prediction

    assert real_prediction("So the answer is Tarsk.", "span") == "Tarsk"
    assert real_prediction("So the answer is Tarsk. Tarsk is a port.", "span") == "Tarsk. Tarsk is a port"
    assert real_prediction("So the answer is Tarsk.</s>", "span") == "Tarsk"
    assert real_prediction("So the answer is: Tarsk.", "span") == "Tarsk"                  # one character skipped
    assert real_prediction("Ada Quill was born in Tarsk.", "span") == ""                   # HotpotQA's reading
    assert real_prediction("Ada Quill was born in Tarsk.", "span_or_text") == "Ada Quill was born in Tarsk."  # 2Wiki's
    assert real_prediction("So The answer is Tarsk.", "span") == ""                        # case-sensitive, as theirs


def test_a_text_is_cut_at_a_run_on_mark_that_is_not_its_start() -> None:
    from hopkit.methods.dragin.answer import cut_run_on

    assert cut_run_on("So the answer is Tarsk.Question: Where is Zorn?") == "So the answer is Tarsk."
    assert cut_run_on("It is Tarsk. Note: ports vary. Question: x") == "It is Tarsk. "
    assert cut_run_on("Question: x") == "Question: x"


def test_a_text_that_never_says_the_answer_gets_one_generated_after_so_the_answer_is() -> None:
    replies = ["Ada Quill founded Velmora Ironworks. She was born in Tarsk.", "", "Tarsk.\nQuestion: Where is Zorn?"]
    result, steps, llm = run(replies, 0.1)
    assert result.metadata.stopped == "no_progress" and len(llm.prompts) == 3
    # the loop leaves "...Tarsk. " (the authors' spacing); main.py strips it before eval.py appends the phrase
    assert llm.prompts[-1].endswith("Answer: Ada Quill founded Velmora Ironworks. She was born in Tarsk. So the "
                                    "answer is ")
    assert "Context:" not in llm.prompts[-1]                                      # exemplars and case only
    extract = steps[-1]
    assert isinstance(extract, DRAGINExtract) and extract.regenerated
    assert extract.read == "Ada Quill founded Velmora Ironworks. She was born in Tarsk. So the answer is Tarsk."
    assert result.text == "Tarsk"
    without, _, quiet = run(replies[:2], 0.1, regenerate_answer=False)
    assert without.text == "" and len(quiet.prompts) == 2


def test_on_strategyqa_the_authors_exemplars_ask_step_by_step_and_the_answer_reads_yes_or_no() -> None:
    llm = ScriptedLLM(["Tarsk is a port. Ports have ships. So the answer is Yes, it does."], entropies=0.1)
    built = METHOD.build(MethodParts(llm, BM25Retriever.build(CORPUS), METHOD.as_run(DRAGINConfig(shots=6)),
                                     dataset="strategyqa"))
    result = built.generate(Query("s1", "Does Tarsk have ships?", ("yes",)))
    assert result.text == "yes"
    assert llm.prompts[0].startswith("Question: Do hamsters provide food for any animals?\nAnswer: Hamsters are prey "
                                     "animals. Prey are food for predators. Thus, hamsters provide food for some "
                                     "animals. So the answer is yes.\n")
    assert llm.prompts[0].endswith("Following the examples above, answer the question by reasoning step-by-step.\n\n"
                                   "Question: Does Tarsk have ships?\nAnswer:")
    assert llm.prompts[0].count("So the answer is") == 6


def test_a_yes_no_answer_is_yes_only_when_it_begins_so_and_nothing_without_the_answer_phrase() -> None:
    from hopkit.methods.dragin.answer import real_prediction

    assert real_prediction("So the answer is yes.", "yes_no") == "yes"
    assert real_prediction("So the answer is Yes", "yes_no") == "yes"
    assert real_prediction("So the answer is: Yes", "yes_no") == "no"           # the authors skip one character
    assert real_prediction("So the answer is no.", "yes_no") == "no"
    assert real_prediction("So the answer is probably yes.", "yes_no") == "no"  # the authors' reading
    assert real_prediction("Tarsk has ships, yes.", "yes_no") == ""


def test_the_plain_case_lays_the_question_out_as_the_exemplars_do_without_the_instruction() -> None:
    result, _, llm = run(["So the answer is Tarsk."], 0.1, case="plain")
    assert result.text == "Tarsk"
    assert llm.prompts[0].endswith("So the answer is Germany.\nQuestion: Where was the founder of Velmora Ironworks "
                                   "born?\nAnswer:")
    assert "step-by-step" not in llm.prompts[0]
    with pytest.raises(ConfigError, match="case"):
        DRAGINConfig(case="chat")  # type: ignore[arg-type]


def test_with_turn_stop_a_generation_ends_at_a_chat_turn_on_the_answers_line() -> None:
    reply = "Ada Quill was born in Tarsk. So the answer is Tarsk.Human: Is Tarsk a port? Tarsk is a port."
    plain, _, _ = run([reply], 0.1)
    assert plain.metadata.text.endswith("Human: Is Tarsk a port? Tarsk is a port.")
    guarded, steps, _ = run([reply], 0.1, turn_stop=True)
    assert guarded.metadata.text == "Ada Quill was born in Tarsk. So the answer is Tarsk."  # stripped, as main.py
    assert steps[0].generation == "Ada Quill was born in Tarsk. So the answer is Tarsk."
    assert guarded.text == "Tarsk"
    assert plain.text == "Tarsk.Human: Is Tarsk a port? Tarsk is a port"   # the authors keep what follows


def test_with_repeats_skipped_the_continuation_adds_its_first_sentence_the_output_lacks() -> None:
    replies = ["Velmora Ironworks was founded by Ada Quill. Ada Quill was born in Zorn.",
               "Velmora Ironworks was founded by Ada Quill. Ada Quill was born in Tarsk. So the answer is Tarsk.",
               "So the answer is Tarsk."]
    _, steps_kept, _ = run(list(replies), unsure_of("Zorn"))
    assert steps_kept[2].kept == "Velmora Ironworks was founded by Ada Quill."
    skipped, steps, _ = run(list(replies), unsure_of("Zorn"), repeats="skip")
    assert steps[2].after_retrieval and steps[2].kept == "Ada Quill was born in Tarsk."
    assert skipped.metadata.text == ("Velmora Ironworks was founded by Ada Quill. Ada Quill was born in Tarsk. "
                                     "So the answer is Tarsk.")
    assert skipped.text == "Tarsk"


def test_a_continuation_that_only_repeats_the_output_ends_the_loop_as_no_progress() -> None:
    replies = ["Velmora Ironworks was founded by Ada Quill.", "Ada Quill was born in Zorn.",
               "velmora ironworks was  founded by Ada Quill.", "Tarsk."]
    result, steps, llm = run(replies, unsure_of("Zorn"), repeats="skip")
    assert steps[3].after_retrieval and steps[3].kept == ""
    assert result.metadata.stopped == "no_progress" and len(llm.prompts) == 3 + 1    # and the answer stage
    assert result.text == "Tarsk"
    assert result.metadata.text == "Velmora Ironworks was founded by Ada Quill."


def test_the_query_searched_is_its_last_max_query_tokens_tokens() -> None:
    replies = ["Velmora Ironworks was founded by Ada Quill. Ada Quill was born in Zorn.",
               "Ada Quill was born in Tarsk.", "So the answer is Tarsk."]
    _, whole, _ = run(list(replies), unsure_of("Zorn"))
    _, cut, _ = run(list(replies), unsure_of("Zorn"), max_query_tokens=2)
    assert len(whole[1].query.split()) > 2
    assert cut[1].query == " ".join(whole[1].query.split()[-2:])


class _WithBOS(ScriptedLLM):
    """A tokenizer that puts a beginning-of-sequence token before a text, as Llama's does."""

    def token_texts(self, text: str, *, special_tokens: bool = False) -> tuple[str, ...]:
        return (("<s>",) if special_tokens else ()) + super().token_texts(text)


def test_the_length_stop_counts_the_tokens_as_the_tokenizer_encodes_them_with_its_bos() -> None:
    reply = "Ada Quill founded Velmora Ironworks in 1871."
    budget = len(ScriptedLLM([], entropies=0.1).token_texts(reply))
    plain_llm = ScriptedLLM([reply, "So the answer is Tarsk."], entropies=0.1)
    DRAGIN(plain_llm, BM25Retriever.build(CORPUS), DRAGINConfig(max_length=budget)).generate(QUESTION)
    bos_llm = _WithBOS([reply, "Tarsk."], entropies=0.1)
    result = DRAGIN(bos_llm, BM25Retriever.build(CORPUS), DRAGINConfig(max_length=budget)).generate(QUESTION)
    assert not plain_llm.prompts[1].endswith("So the answer is ")       # within the budget: a second generation
    assert result.metadata.stopped == "length" and bos_llm.prompts[1].endswith("So the answer is ")
