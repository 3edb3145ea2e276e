"""docs/configs.md's generated option tables are what the options dataclasses say (hopkit.report.option_tables)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

import pytest
from annotated_types import Ge

from hopkit.report.option_tables import COMMAND, PAGE, attribute_docs, generated, option_table, sections_in

pytestmark = pytest.mark.unit


@dataclass(frozen=True)
class Inner:
    size: int = 1


@dataclass(frozen=True)
class ToyOptions:
    """A method's options.

    Attributes:
        k: paragraphs per retrieval (the authors' ``topk``), over two
            lines.
        mode: ``fast``: one call; ``slow``: two (:data:`~hopkit.x.SLOW`).
        name: its name.
        exemplars: whose exemplars, or null.
        inner: nested options.
        judge: a judge, by name or as a mapping.
    """

    k: Annotated[int, Ge(1)] = 3
    mode: Literal["fast", "slow"] = "fast"
    name: str = field(default="toy", metadata={"choices": lambda: ["toy", "other"]})
    exemplars: str | None = None
    inner: Inner | None = None
    judge: str | dict[str, object] = field(default_factory=lambda: {"kind": "llm", "examples": True})


def test_a_table_has_a_row_per_field_with_its_type_docstring_and_default() -> None:
    assert option_table(ToyOptions).splitlines() == [
        "| option | type and range | default |",
        "|---|---|---|",
        "| `k` | an integer >= 1: paragraphs per retrieval (the authors' `topk`), over two lines. | 3 |",
        "| `mode` | `fast` or `slow`: `fast`: one call; `slow`: two (`SLOW`). | `fast` |",
        "| `name` | `toy` or `other`: its name. | `toy` |",
        "| `exemplars` | a string or null: whose exemplars, or null. | null |",
        "| `inner` | a mapping of `Inner`'s options (`size`) or null: nested options. | null |",
        "| `judge` | a string or a mapping: a judge, by name or as a mapping. | `{kind: llm, examples: true}` |",
    ]


def test_a_field_its_docstring_does_not_describe_is_refused() -> None:
    @dataclass(frozen=True)
    class Undocumented:
        """Options.

        Attributes:
            k: documented.
        """

        k: int = 1
        forgotten: int = 2

    with pytest.raises(ValueError, match="'forgotten'"):
        option_table(Undocumented)


def test_the_generated_sections_of_docs_configs_md_are_current() -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert sections_in(page), "docs/configs.md has no generated option table"
    assert generated(page) == page, f"docs/configs.md's option tables are out of date: run {COMMAND}"


def test_a_subclass_takes_its_bases_descriptions_of_the_fields_it_inherits() -> None:
    @dataclass(frozen=True)
    class Base:
        """Options.

        Attributes:
            size: its size.
        """

        size: int = 1

    @dataclass(frozen=True)
    class Extended(Base):
        """More options.

        Attributes:
            shots: how many.
        """

        shots: int = 2

    @dataclass(frozen=True)
    class Described(Extended):
        pass

    assert option_table(Described).splitlines()[2:] == ["| `size` | an integer: its size. | 1 |",
                                                       "| `shots` | an integer: how many. | 2 |"]


def test_an_entry_may_name_several_fields_and_a_pointer_to_another_class_is_no_description() -> None:
    @dataclass(frozen=True)
    class Base:
        """Options.

        Attributes:
            size, count: how big.
        """

        size: int = 1
        count: int = 2

    @dataclass(frozen=True)
    class Pointing(Base):
        """More options.

        Attributes:
            size, count: see :class:`Base`.
        """

    assert attribute_docs(Pointing) == {"size": "how big.", "count": "how big."}


def test_a_built_in_method_without_a_table_gets_one_written_and_check_names_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new method's options need no hand edit of docs/configs.md: --write adds its table (issue 74)."""
    from hopkit.report import option_tables

    page = PAGE.read_text(encoding="utf-8")
    start, end = page.index("<!-- options:dragin:start -->"), page.index("<!-- options:dragin:end -->")
    without = page[:start] + page[end + len("<!-- options:dragin:end -->"):]
    assert "dragin" not in sections_in(without) and option_tables.missing_sections(without) == ["dragin"]
    written = generated(without)
    assert sections_in(written)[-1] == "dragin" and option_tables.missing_sections(written) == []
    added = written[written.index("`DRAGINGenerationPipelineConfig` (DRAGIN; see `docs/methods/dragin.md`; "
                                  "`run(top_k=...)` sets `k`) adds:"):written.index(option_tables.NEW_TABLES_BEFORE)]
    assert option_tables.section("dragin") in added
    copy = tmp_path / "configs.md"
    copy.write_text(without, encoding="utf-8")
    monkeypatch.setattr(option_tables, "PAGE", copy)
    assert option_tables.main(["--check"]) == 1
    assert option_tables.main(["--write"]) == 0 and option_tables.main(["--check"]) == 0
    with pytest.raises(ValueError, match="no heading '## Retrieval and LLM options'"):
        generated(without.replace(option_tables.NEW_TABLES_BEFORE, "## Other options"))


def test_python_s_none_reads_as_null_but_a_quoted_text_is_shown_as_written() -> None:
    @dataclass(frozen=True)
    class Quoting:
        """Options.

        Attributes:
            title: None leaves it out; else it is shown as "(Title: None)", the authors' text.
        """

        title: str | None = None

    assert ('| `title` | a string or null: null leaves it out; else it is shown as "(Title: None)", the authors\' '
            'text. | null |') in option_table(Quoting)
