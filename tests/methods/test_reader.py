import pytest

from hopkit.errors import LLMError
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.prompting import DemonstrationFitter
from hopkit.methods.reader import Reader, ReaderConfig
from hopkit.parsing import clean_direct_answer, extract_answer
from hopkit.prompts.layout import render_paragraphs, test_block
from hopkit.records import Paragraph

pytestmark = pytest.mark.unit

PARAGRAPHS = [Paragraph(1, "Velmora Ironworks", "Velmora Ironworks was founded by Ada Quill."),
              Paragraph(2, "Ada Quill", "Ada Quill was born in Tarsk.")]


@pytest.mark.parametrize("generation, answer", [
    ("Velmora Ironworks was founded by Ada Quill. Ada Quill was born in Tarsk. So the answer is: Tarsk.", "Tarsk"),
    ("So the Answer is: F.W. Murnau.", "F.W. Murnau"),
    ("The answer is Hot Hot Heat", "Hot Hot Heat"),
    ("So the answer is: The Operation M.D..", "The Operation M.D."),
    ("I do not know", "I do not know"),
    ("A is first. B is second. So the answer is: 1,000.5.", "1,000.5"),
])
def test_extract_answer_follows_the_authors_pattern(generation: str, answer: str) -> None:
    assert extract_answer(generation) == answer


def test_direct_answer_keeps_the_first_nonempty_line() -> None:
    assert clean_direct_answer("\n Tarsk.\nQ: next question") == "Tarsk"


def test_layout_is_the_authors() -> None:
    block = test_block(PARAGRAPHS, "Where was the founder of Velmora Ironworks born?", "Ada Quill founded it.")
    assert block == (
        "Wikipedia Title: Velmora Ironworks\nVelmora Ironworks was founded by Ada Quill.\n\n"
        "Wikipedia Title: Ada Quill\nAda Quill was born in Tarsk.\n\n"
        "Q: Where was the founder of Velmora Ironworks born?\nA: Ada Quill founded it."
    )


def test_paragraph_text_is_cut_to_350_words() -> None:
    long = Paragraph(3, "Long", " ".join(f"w{i}" for i in range(500)))
    assert len(render_paragraphs([long]).split("\n", 1)[1].split()) == 350


def test_fitter_drops_demonstrations_from_the_end_until_the_prompt_fits() -> None:
    llm = ScriptedLLM([], context_length=30)
    demos = ["one " * 10, "two " * 10, "three " * 10]
    prompt = DemonstrationFitter(llm, demos).prompt("Q: q\nA:", reserve=5)
    assert "one" in prompt and "two" in prompt and "three" not in prompt
    assert prompt.endswith("Q: q\nA:")


def test_fitter_raises_when_the_test_instance_alone_is_too_long() -> None:
    llm = ScriptedLLM([], context_length=10)
    with pytest.raises(LLMError, match="context of 10 tokens"):
        DemonstrationFitter(llm, []).prompt("word " * 20, reserve=5)


def test_cot_reader_extracts_the_answer_and_zero_shot_prompt_has_an_instruction() -> None:
    llm = ScriptedLLM(["Ada Quill was born in Tarsk. So the answer is: Tarsk.\n\nQ: other"])
    output = Reader(llm, ReaderConfig(mode="cot")).read("Where was Ada Quill born?", PARAGRAPHS)
    assert output.answer == "Tarsk"
    assert llm.prompts[0].startswith("Answer the question by reasoning step by step")
    assert llm.prompts[0].endswith("Q: Where was Ada Quill born?\nA:")


def test_few_shot_reader_puts_demonstrations_first_without_instruction() -> None:
    llm = ScriptedLLM(["Tarsk"])
    Reader(llm, ReaderConfig(mode="direct"), ["Q: demo question\nA: demo answer"]).read("Where?", PARAGRAPHS)
    assert llm.prompts[0].startswith("Q: demo question\nA: demo answer\n\n\nWikipedia Title: Velmora Ironworks")


def test_reader_reports_the_paragraphs_it_read() -> None:
    output = Reader(ScriptedLLM(["Tarsk"]), ReaderConfig()).read("Where?", PARAGRAPHS)
    assert output.paragraph_ids == (1, 2) and output.confidence is None


def test_chat_reader_sends_system_demonstration_and_question_turns() -> None:
    llm = ScriptedLLM(["Tarsk.\n\nmore"], chat=True)
    demo = "Wikipedia Title: X\nX is in Y.\n\nQ: Where is X?\nA: Y"
    output = Reader(llm, ReaderConfig(format="chat"), [demo]).read("Where was Ada Quill born?", PARAGRAPHS)
    assert output.answer == "Tarsk"
    assert llm.prompts[0] == (
        "<|system|>\n" + "Answer the question with a short answer (a name, a place, a date, a number, or yes/no), "
        "using the Wikipedia paragraphs if they help.\n"
        "<|user|>\nWikipedia Title: X\nX is in Y.\n\nQ: Where is X?\n<|assistant|>\nY\n"
        "<|user|>\nWikipedia Title: Velmora Ironworks\nVelmora Ironworks was founded by Ada Quill.\n\n"
        "Wikipedia Title: Ada Quill\nAda Quill was born in Tarsk.\n\nQ: Where was Ada Quill born?\n<|assistant|>\n")


def test_chat_reader_keeps_only_the_demonstrations_that_fit() -> None:
    llm = ScriptedLLM(["Tarsk"], chat=True, context_length=300)
    demos = [f"Q: demo {i} " + "word " * 60 + "\nA: answer" for i in range(5)]
    Reader(llm, ReaderConfig(format="chat", max_tokens=20), demos).read("Where?", PARAGRAPHS)
    kept = llm.prompts[0].count("<|assistant|>\nanswer")
    assert 1 <= kept < 5


def test_chat_reader_needs_a_chat_model() -> None:
    with pytest.raises(LLMError, match=r"'chat'.*the chat-format reader"):
        Reader(ScriptedLLM([]), ReaderConfig(format="chat"))


def test_zero_shot_template_replaces_the_instruction_layout() -> None:
    llm = ScriptedLLM(["Tarsk"])
    Reader(llm, ReaderConfig(template="Question: {query}\nDocs:\n{paragraphs}\nAnswer:")).read("Where?", PARAGRAPHS)
    assert llm.prompts[0].startswith("Question: Where?\nDocs:\n") and llm.prompts[0].endswith("\nAnswer:")


def test_a_template_without_the_question_is_refused() -> None:
    from hopkit.errors import ConfigError

    with pytest.raises(ConfigError, match=r"template.*\{query\}"):
        ReaderConfig(template="no placeholders")


def test_read_after_cues_a_direct_answer_and_keeps_its_first_sentence() -> None:
    llm = ScriptedLLM(["Tarsk. Ada Quill was born there."], streaming=True)
    output = Reader(llm, ReaderConfig()).read_after(lambda instance: f"DEMOS\n\n\n{instance}", "Where?", PARAGRAPHS)
    assert output.answer == "Tarsk"
    assert llm.prompts[0].startswith("DEMOS\n\n\nWikipedia Title: Velmora Ironworks")
    assert llm.prompts[0].endswith("Q: Where?\nA: So the answer is:")
