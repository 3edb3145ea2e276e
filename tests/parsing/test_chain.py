"""parse_chain: SearChain's Chain-of-Query as small models write it."""

import pytest

from hopkit.parsing import Chain, ChainNode, ParseError, parse_chain

pytestmark = pytest.mark.unit

CHAIN = """[Query 1]: Who founded Velmora Ironworks?
[Answer 1]: Ada Quill.
[Unsolved Query]: Where was Ada Quill born?
[Final Content]: Velmora Ironworks was founded by Ada Quill [1]."""

NODES = (ChainNode(1, "Who founded Velmora Ironworks?", "Ada Quill."),
         ChainNode(2, "Where was Ada Quill born?", None, unsolved=True))


def test_the_paper_format() -> None:
    assert parse_chain(CHAIN) == Chain(NODES, "Velmora Ironworks was founded by Ada Quill [1].")


@pytest.mark.parametrize("text", [
    CHAIN.replace("[Query 1]", "[Query]").replace("[Answer 1]", "[Answer]"),
    CHAIN.replace("[Query 1]", "[querry 1]").replace("[Answer 1]", "[Anwser 1]"),
    CHAIN.replace("[Query 1]", "[QUERY 1]").replace("[Unsolved Query]", "[unsolved query]"),
    CHAIN.replace("[Query 1]:", "Query 1:").replace("[Answer 1]:", "Answer 1:"),
    CHAIN.replace("[Query 1]:", "**Query 1:**").replace("[Answer 1]:", "- **Answer 1**:"),
    CHAIN.replace("[Query 1]:", "[Query1]").replace("[Unsolved Query]", "[Unsloved Query]"),
    "Let me think step by step.\n[Question]: Where was the founder born?\n" + CHAIN + "\nThat is all.",
    CHAIN.replace("\n[Answer 1]:", " [Answer 1]:"),
    CHAIN.replace("[Answer 1]: Ada Quill.", "[Answer 1]: Ada Quill.\n[Answer 1]: Ada Quill."),
    CHAIN.replace("[Query 1]: Who founded Velmora Ironworks?",
                  "[Query 1]: Who founded Velmora Ironworks?\n[Query 1]: Who founded Velmora Ironworks?"),
    CHAIN.replace("[Answer 1]: Ada Quill.", "[Answer 1]:\nAda Quill."),
])
def test_what_small_models_write(text: str) -> None:
    chain = parse_chain(text)
    assert chain.nodes == NODES
    assert chain.final_content is not None and chain.final_content.startswith("Velmora Ironworks was founded")


def test_answers_after_all_queries_go_by_number() -> None:
    text = "[Query 1]: A?\n[Query 2]: B?\n[Answer 1]: a\n[Answer 2]: b\n[Final Content]: done"
    assert parse_chain(text).nodes == (ChainNode(1, "A?", "a"), ChainNode(2, "B?", "b"))


def test_a_query_without_answer_keeps_none() -> None:
    chain = parse_chain("[Query 1]: A?\n[Query 2]: B?\n[Answer 2]: b\n[Final Content]: done")
    assert chain.nodes == (ChainNode(1, "A?", None), ChainNode(2, "B?", "b"))


def test_a_chain_cut_by_the_token_limit_flags_its_last_node() -> None:
    chain = parse_chain("[Query 1]: Who founded Velmora Ironworks?\n[Answer 1]: Ada Quill.\n[Query 2]: Where was")
    assert chain == Chain((ChainNode(1, "Who founded Velmora Ironworks?", "Ada Quill."),
                           ChainNode(2, "Where was", None, complete=False)), None)


def test_final_content_keeps_its_lines_and_ends_at_a_new_chain() -> None:
    text = CHAIN + "\nAnswer: Tarsk\n[Query 1]: Who founded Velmora Ironworks?\n[Answer 1]: Bob"
    chain = parse_chain(text)
    assert chain.nodes == NODES
    assert chain.final_content == "Velmora Ironworks was founded by Ada Quill [1].\nAnswer: Tarsk"


def test_only_final_content() -> None:
    assert parse_chain("[Final Content]: Tarsk.") == Chain((), "Tarsk.")


@pytest.mark.parametrize("text", ["", "I do not know.", "Question: Where was Ada born?\nSo the answer is: Tarsk.",
                                  "[1] [2]", "[Query 1]:", "[Query"])
def test_no_chain(text: str) -> None:
    with pytest.raises(ParseError, match=r"expected a chain of \[Query i\]") as caught:
        parse_chain(text)
    assert caught.value.raw == text
