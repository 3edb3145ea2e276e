"""IRCoT's prompts: the authors' few-shot layout, prefix reuse, demonstration fitting,
zero-shot templates, and option checks."""

from __future__ import annotations

import pytest

from hopkit.errors import ConfigError
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.ircot.method import IRCoT, IRCoTConfig
from hopkit.prompts.ircot_templates import DEFAULT_QA_TEMPLATE, DEFAULT_REASONING_TEMPLATE
from hopkit.prompts.layout import render_paragraph

pytestmark = pytest.mark.unit

SEP = "\n\n\n"
STEPS = ["Lost Gravity was manufactured by Mack Rides.", "Mack Rides is a German company.",
         "Walibi Holland is a park.", "So the answer is: Germany.", "Germany"]


def question_tail_start(prompt: str) -> int:
    return prompt.rindex("\n\nQ: ")


def test_few_shot_layout_is_the_authors(kit) -> None:
    llm = ScriptedLLM(STEPS)
    IRCoT(llm, kit.RecordingRetriever(kit.CORPUS), IRCoTConfig(k_per_step=2, reader="direct"),
          [kit.DEMO_1, kit.DEMO_2], [kit.READER_DEMO]).generate(kit.QUESTION)
    assert llm.prompts[0] == (
        kit.DEMO_1 + SEP + kit.DEMO_2 + SEP
        + f"Wikipedia Title: {kit.LOST_GRAVITY.title}\n{kit.LOST_GRAVITY.text}\n\n"
        + f"Wikipedia Title: {kit.GERMANY.title}\n{kit.GERMANY.text}\n\n"
        + "Q: In what country was Lost Gravity manufactured?\nA:")


def test_each_step_prompt_extends_the_previous_one_before_its_question(kit) -> None:
    llm = ScriptedLLM(STEPS)
    IRCoT(llm, kit.RecordingRetriever(kit.CORPUS), IRCoTConfig(k_per_step=1, reader="direct"),
          [kit.DEMO_1, kit.DEMO_2], [kit.READER_DEMO]).generate(kit.QUESTION)
    reasoning = llm.prompts[:4]
    for previous, current in zip(reasoning, reasoning[1:]):
        shared = previous[: question_tail_start(previous)]
        assert current.startswith(shared)
        assert len(current) > len(shared)
    # and paragraphs were indeed added between steps, in collection order
    assert reasoning[-1].count("Wikipedia Title: ") > reasoning[0].count("Wikipedia Title: ")


def test_demonstrations_are_fitted_once_against_the_largest_reachable_prompt(kit) -> None:
    demos = [kit.DEMO_1, kit.DEMO_2, kit.DEMO_3]
    # ScriptedLLM counts whitespace words. Room: three demos fit the first step's prompt,
    # but a full budget (15 paragraphs) plus two generation budgets leaves room for one.
    config = IRCoTConfig(k_per_step=1, reader="direct", generation_max_tokens=20)
    words = [len(d.split()) for d in demos]
    question_tail = len("Q: In what country was Lost Gravity manufactured?\nA:".split())
    block = len(render_paragraph(kit.LOST_GRAVITY).split())   # the first retrieval's only paragraph
    largest = 15 * block + question_tail                      # budget filled with copies of it
    context = largest + 2 * 20 + words[0] + 2                 # room for exactly one demonstration
    assert block + question_tail + sum(words) + 20 <= context  # all three fit the first step alone
    llm = ScriptedLLM(STEPS, context_length=context)
    result = IRCoT(llm, kit.RecordingRetriever(kit.CORPUS), config, demos, [kit.READER_DEMO]).generate(kit.QUESTION)
    counts = result.metadata["demonstrations"]
    assert len(counts) == 4
    assert counts == [1, 1, 1, 1]
    for prompt in llm.prompts[:4]:
        assert prompt.startswith(kit.DEMO_1 + SEP)
        assert kit.DEMO_3 not in prompt


def test_max_demonstrations_caps_reasoning_and_reader_demonstrations_alike(kit) -> None:
    llm = ScriptedLLM(STEPS)
    second_reader_demo = kit.READER_DEMO.replace("Q:", "Q: (second)")
    result = IRCoT(llm, kit.RecordingRetriever(kit.CORPUS), IRCoTConfig(k_per_step=1, max_demonstrations=1),
                   [kit.DEMO_1, kit.DEMO_2, kit.DEMO_3], [kit.READER_DEMO, second_reader_demo]).generate(kit.QUESTION)
    *reasoning, reader = llm.prompts
    assert result.metadata["demonstrations"] == [1] * len(reasoning)
    assert all(p.startswith(kit.DEMO_1 + SEP) and kit.DEMO_2 not in p for p in reasoning)
    assert reader.startswith(kit.READER_DEMO) and "(second)" not in reader


def test_max_demonstrations_is_in_the_run_identity_only_when_set() -> None:
    from hopkit.options import run_options

    assert "max_demonstrations" not in run_options(IRCoTConfig())
    assert run_options(IRCoTConfig(max_demonstrations=2))["max_demonstrations"] == 2


def test_no_demonstration_when_even_the_estimate_does_not_fit(kit) -> None:
    big = type(kit.GERMANY)(10, "Big", "Lost Gravity country " + " ".join(["filler"] * 400))
    llm = ScriptedLLM(["Mack Rides made it.", "So the answer is: Germany.", "Germany"], context_length=700)
    config = IRCoTConfig(k_per_step=2, reader="direct", generation_max_tokens=10)
    result = IRCoT(llm, kit.RecordingRetriever([kit.LOST_GRAVITY, big]), config, [kit.DEMO_1],
                   [kit.READER_DEMO]).generate(kit.QUESTION)
    assert result.metadata["demonstrations"] == [0, 0]
    assert not llm.prompts[0].startswith(kit.DEMO_1)


def test_demonstrations_are_dropped_further_only_on_overflow(kit) -> None:
    # The estimate (budget 2, both as short as the first paragraph) leaves room for one
    # demonstration; step 2's prompt holds a long paragraph and overflows with it.
    long = type(kit.GERMANY)(11, "Mack Rides history", "Mack Rides " + " ".join(["filler"] * 60))
    llm = ScriptedLLM(["Mack Rides made it.", "So the answer is: Germany.", "Germany"], context_length=125)
    config = IRCoTConfig(k_per_step=1, paragraph_budget=2, reader="direct", generation_max_tokens=10,
                         reader_max_tokens=10, exclude_collected=True)
    result = IRCoT(llm, kit.RecordingRetriever([kit.LOST_GRAVITY, long]), config, [kit.DEMO_1],
                   [kit.READER_DEMO]).generate(kit.QUESTION)
    assert result.chunk_ids == (1, 11)
    assert result.metadata["demonstrations"] == [1, 0]
    assert llm.prompts[0].startswith(kit.DEMO_1 + SEP)
    assert not llm.prompts[1].startswith(kit.DEMO_1)


def test_flan_question_prefix_keeps_its_newline(kit) -> None:
    prefix = "Answer the following question by reasoning step-by-step.\n"
    llm = ScriptedLLM(["So the answer is: Germany.", "Germany"])
    IRCoT(llm, kit.RecordingRetriever(kit.CORPUS), IRCoTConfig(reader="direct", question_prefix=prefix),
          [kit.DEMO_1], [kit.READER_DEMO]).generate(kit.QUESTION)
    assert llm.prompts[0].endswith(f"Q: {prefix}In what country was Lost Gravity manufactured?\nA:")


def test_zero_shot_default_templates(kit) -> None:
    llm = ScriptedLLM(STEPS)
    result = IRCoT(llm, kit.RecordingRetriever(kit.CORPUS),
                   IRCoTConfig(k_per_step=1, reader="direct", exclude_collected=True)).generate(kit.QUESTION)
    assert llm.prompts[0].startswith("Question: In what country was Lost Gravity manufactured?\nContext:\n"
                                     f"[1] Wikipedia Title: {kit.LOST_GRAVITY.title}\n")
    assert llm.prompts[0].endswith('Previous reasoning:\n\nThink step-by-step. Write "The answer is: X" when ready.\n')
    assert "Previous reasoning:\nLost Gravity was manufactured by Mack Rides.\n" in llm.prompts[1]
    assert "[2] Wikipedia Title: " in llm.prompts[1]
    assert llm.prompts[-1].endswith("Answer concisely:\n")
    assert llm.prompts[-1].startswith("Question: In what country was Lost Gravity manufactured?\nDocuments:\n[1] ")
    assert result.text == "Germany"
    assert DEFAULT_REASONING_TEMPLATE.startswith("Question: {query}")
    assert DEFAULT_QA_TEMPLATE.endswith("Answer concisely:\n")


def test_custom_templates_are_used(kit) -> None:
    config = IRCoTConfig(k_per_step=1, reader="cot",
                         reasoning_prompt_template="R {query} | {cot_history} | {paragraphs}\n",
                         qa_prompt_template="QA {query} || {paragraphs}\n")
    llm = ScriptedLLM(["Mack Rides is German.", "So the answer is: Germany.", "It is. So the answer is: Germany."])
    result = IRCoT(llm, kit.RecordingRetriever(kit.CORPUS), config).generate(kit.QUESTION)
    assert llm.prompts[1].startswith("R In what country was Lost Gravity manufactured? | Mack Rides is German. | [1] ")
    assert llm.prompts[2].startswith("QA In what country was Lost Gravity manufactured? || [1] ")
    assert result.text == "Germany"


def test_qa_template_overrides_the_few_shot_reader(kit) -> None:
    config = IRCoTConfig(reader="direct", qa_prompt_template="Only {query}\n")
    llm = ScriptedLLM(["So the answer is: Germany.", "Germany"])
    IRCoT(llm, kit.RecordingRetriever(kit.CORPUS), config, [kit.DEMO_1], [kit.READER_DEMO]).generate(kit.QUESTION)
    assert llm.prompts[-1] == "Only In what country was Lost Gravity manufactured?\n"


@pytest.mark.parametrize("option", ["reasoning_prompt_template", "qa_prompt_template"])
def test_template_with_unknown_variable_is_rejected(option: str) -> None:
    with pytest.raises(ConfigError, match=f"{option}.*{{context}}"):
        IRCoTConfig(**{option: "{query} {context}"})


@pytest.mark.parametrize("option", ["reasoning_prompt_template", "qa_prompt_template"])
def test_template_without_query_is_rejected(option: str) -> None:
    with pytest.raises(ConfigError, match=f"{option}.*{{query}}"):
        IRCoTConfig(**{option: "{paragraphs}"})


def test_cot_history_is_not_a_qa_template_variable() -> None:
    with pytest.raises(ConfigError, match="qa_prompt_template"):
        IRCoTConfig(qa_prompt_template="{query} {cot_history}")


def test_template_and_demonstrations_together_are_rejected(kit) -> None:
    with pytest.raises(ConfigError, match="not both"):
        IRCoT(ScriptedLLM([]), kit.RecordingRetriever(kit.CORPUS),
              IRCoTConfig(reasoning_prompt_template="{query}"), [kit.DEMO_1])


@pytest.mark.parametrize("options, name", [
    ({"k_per_step": 0}, "k_per_step"), ({"max_steps": 0}, "max_steps"),
    ({"paragraph_budget": 0}, "paragraph_budget"), ({"reader": "maybe"}, "reader"),
    ({"stop_sequence": " "}, "stop_sequence"), ({"question_prefix": "Answer:"}, "question_prefix"),
    ({"reader_question_prefix": "Answer."}, "reader_question_prefix"),
])
def test_bad_options_are_named(options: dict, name: str) -> None:
    with pytest.raises(ConfigError, match=name):
        IRCoTConfig(**options)


def test_defaults_follow_the_paper_and_the_documentation_page() -> None:
    config = IRCoTConfig()
    assert (config.k_per_step, config.max_steps, config.paragraph_budget) == (4, 8, 15)
    assert config.stop_sequence == "answer is:"
    assert config.max_paragraph_words == 600
    assert config.generation_max_tokens == 300


def test_cot_reader_with_the_reasoning_demonstrations_reads_from_the_cached_prefix(kit) -> None:
    demos = [kit.DEMO_1, kit.DEMO_2]
    # a context where the question's prefix (fitted for a full budget) keeps one demonstration
    # while a reader fitting on its own would keep both
    llm = ScriptedLLM(STEPS, context_length=980)
    result = IRCoT(llm, kit.RecordingRetriever(kit.CORPUS), IRCoTConfig(k_per_step=1, reader="cot"),
                   demos, demos).generate(kit.QUESTION)
    *reasoning, reader = llm.prompts
    last = reasoning[-1]
    assert result.metadata["demonstrations"][-1] == 1
    # the reader's prompt is the last step's prompt without the CoT so far
    assert reader == last[: question_tail_start(last)] + "\n\nQ: In what country was Lost Gravity manufactured?\nA:"
    assert result.metadata["reader_generation"] is not None


def test_direct_reader_in_the_reasoning_context_is_cued_after_the_cached_prefix(kit) -> None:
    llm = ScriptedLLM([*STEPS[:-1], " Germany. Mack Rides builds roller coasters in Waldkirch."])
    config = IRCoTConfig(k_per_step=1, reader="direct", reader_context="reasoning")
    result = IRCoT(llm, kit.RecordingRetriever(kit.CORPUS), config, [kit.DEMO_1],
                   [kit.READER_DEMO]).generate(kit.QUESTION)
    *reasoning, reader = llm.prompts
    last = reasoning[-1]
    assert kit.READER_DEMO.strip() not in reader  # the reasoning demonstrations, not the reader's own
    assert reader == (last[: question_tail_start(last)]
                      + "\n\nQ: In what country was Lost Gravity manufactured?\nA: So the answer is:")
    assert result.text == "Germany"


@pytest.mark.parametrize("options", [{"reader": "none"}, {"qa_prompt_template": "{query}"}])
def test_reading_in_the_reasoning_context_needs_a_few_shot_reader(options: dict) -> None:
    with pytest.raises(ConfigError, match="reader_context"):
        IRCoTConfig(reader_context="reasoning", **options)


def test_reading_in_the_reasoning_context_needs_reasoning_demonstrations(kit) -> None:
    with pytest.raises(ConfigError, match="reader_context='reasoning' needs reasoning demonstrations"):
        IRCoT(ScriptedLLM([]), kit.RecordingRetriever(kit.CORPUS), IRCoTConfig(reader_context="reasoning"))


def test_the_estimate_uses_the_mean_paragraph_so_one_long_hit_does_not_evict_every_demonstration(kit) -> None:
    long = type(kit.GERMANY)(12, "Lost Gravity history", "Lost Gravity country " + " ".join(["filler"] * 200))
    config = IRCoTConfig(k_per_step=2, paragraph_budget=4, reader="direct", generation_max_tokens=10,
                         reader_max_tokens=10)
    short_block = len(render_paragraph(kit.LOST_GRAVITY).split())
    long_block = len(render_paragraph(long).split())
    mean_budget = 4 * ((short_block + long_block) // 2)
    context = mean_budget + 2 * 10 + len(kit.DEMO_1.split()) + 20   # the mean leaves room for one demo
    assert 4 * long_block > context                                 # copies of the longest would not
    llm = ScriptedLLM(["So the answer is: Germany.", "Germany"], context_length=context)
    result = IRCoT(llm, kit.RecordingRetriever([kit.LOST_GRAVITY, long]), config, [kit.DEMO_1],
                   [kit.READER_DEMO]).generate(kit.QUESTION)
    assert result.metadata["demonstrations"] == [1]


class _BytePairLikeLLM(ScriptedLLM):
    """Counts a token per 4 characters of each word, as BPE tokenizers roughly do: a short
    common word is one token, a long rare one several."""

    def count_tokens(self, text: str) -> int:
        return sum(-(-len(word) // 4) for word in text.split())


def test_the_estimate_is_in_tokens_so_uniform_paragraphs_never_force_a_drop(kit) -> None:
    # Four paragraphs of equal size, one per step: the largest prompt is known from the
    # first. An estimate in words (padded with a one-token word) would fall short of the
    # truth, keep too many demonstrations and overflow at a later step; counted in
    # tokens it keeps the right number from the start.
    corpus = [type(kit.GERMANY)(20 + i, f"Lost Gravity {name}",
                                "Lost Gravity " + " ".join(f"{name}{j:02d}" for j in range(30)))
              for i, name in enumerate(["alpha", "bravo", "charl", "delta"])]
    config = IRCoTConfig(k_per_step=1, paragraph_budget=4, reader="direct", generation_max_tokens=20,
                         reader_max_tokens=10, exclude_collected=True)
    demos = [kit.DEMO_1, kit.DEMO_2, kit.DEMO_3]
    llm = _BytePairLikeLLM(["Lost Gravity is a ride.", "Lost Gravity is steel.", "Lost Gravity is fast.",
                            "So the answer is: Germany.", "Germany"])
    block = llm.count_tokens(render_paragraph(corpus[0]) + "\n\n")
    question_tail = llm.count_tokens("Q: In what country was Lost Gravity manufactured?\nA:")
    demo_size = llm.count_tokens(kit.DEMO_1 + "\n\n\n")
    llm.context_length = 4 * block + question_tail + 2 * 20 + demo_size + 12  # one demo at full budget
    assert block + question_tail + 3 * demo_size + 20 < llm.context_length   # but three fit step 1
    result = IRCoT(llm, kit.RecordingRetriever(corpus), config, demos, [kit.READER_DEMO]).generate(kit.QUESTION)
    assert len(result.chunk_ids) == 4
    assert result.metadata["demonstrations"] == [1, 1, 1, 1]
