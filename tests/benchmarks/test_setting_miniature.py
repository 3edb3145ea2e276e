"""The miniature of the field's setting (``hopkit campaign reproduce-miniature``, issue 72) writes files hopkit's
own readers take as FlashRAG's and Search-R1's, and asks each table only for cells it has."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from hopkit.campaign.setting_miniature import METHODS, TABLES, flashrag_line, reproduce_arguments, stored_name, \
    wiki18_line
from hopkit.data.corpus_source import CorpusSource
from hopkit.data.registry import load_dataset
from hopkit.methods.published import published_table
from hopkit.records import ContextParagraph, Example
from hopkit.reproduction import dataset_map, table_cells

pytestmark = pytest.mark.unit


def test_questions_read_back_as_a_flashrag_file_with_every_answer(tmp_path: Path) -> None:
    asked = [Example("q1", "Who wrote \"Émile\"?", ("Rousseau", "Jean-Jacques Rousseau"), (ContextParagraph("t", "x"),)),
             Example("q2", "Which year?", ("1762",), ())]
    path = tmp_path / "dev.jsonl"
    path.write_text("".join(flashrag_line(example) + "\n" for example in asked), encoding="utf-8")
    read = load_dataset("flashrag", path)
    assert [(e.id, e.question, e.answers) for e in read] == [(e.id, e.question, e.answers) for e in asked]


def test_passages_read_back_as_wiki18_with_title_text_and_id(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write(wiki18_line(0, 'The "Quoted" Title', "First line.") + "\n")
        out.write(wiki18_line(7, "Zürich", "Text with\ttab.") + "\n")
    source = CorpusSource.open(path)
    assert source.format == "flashrag"
    assert [(p.source_id, p.title, p.text) for p in source.passages()] == [
        ("0", 'The "Quoted" Title', "First line."), ("7", "Zürich", "Text with\ttab.")]


@pytest.mark.parametrize("table", sorted(TABLES))
def test_each_table_is_asked_only_for_cells_it_has(table: str) -> None:
    arguments = reproduce_arguments(table, "smollm2", 30)
    mapping = dataset_map(arguments[arguments.index("--dataset-map") + 1:arguments.index("--retrieval")])
    cells = table_cells(published_table(table), METHODS, TABLES[table], mapping)
    assert {(cell.run, cell.dataset) for cell in cells} == {(m, d) for m in METHODS for d in TABLES[table]}
    assert {cell.stored for cell in cells} == {stored_name(dataset) for dataset in TABLES[table]}
