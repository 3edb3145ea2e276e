"""Every registered method declares how it differs from its authors' code, and the docs show it as declared.

Parametrised by :func:`hopkit.methods.registry.entries`: a method registered without a fidelity table
fails here, and so does a table changed without ``python -m hopkit.report.fidelity_pages --write``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.errors import ConfigError
from hopkit.methods.fidelity import ASPECTS, KINDS, Difference, FidelityTable, Reference, fidelity_of
from hopkit.methods.registry import BUILT_IN, entries
from hopkit.report import fidelity_pages
from hopkit.report.fidelity_pages import (DOCS, END, START, expected_pages, page_of, package_of, registered,
                                          render_fidelity_page, render_section, section_of, with_section)

pytestmark = pytest.mark.unit

NAMES = sorted(entries())


def _row(aspect: str, kind: str = "faithful", reason: str = "") -> Difference:
    return Difference(aspect=aspect, point=f"the {aspect}", authors="authors.py: f", hopkit="hopkit.x",
                      kind=kind, reason=reason)  # type: ignore[arg-type]


def _table(**changes: object) -> FidelityTable:
    fields: dict[str, object] = dict(method="toy", reference=Reference(paper="Toy et al. 2099", note="no code"),
                                     rows=tuple(_row(aspect) for aspect in ASPECTS))
    fields.update(changes)
    return FidelityTable(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", NAMES)
def test_every_registered_method_has_a_fidelity_table(name: str) -> None:
    package = package_of(entries()[name])
    assert fidelity_of(package), f"{name}: {package}.fidelity declares no FIDELITY"


def test_every_built_in_package_is_some_entry_s_package() -> None:
    assert sorted(BUILT_IN) == sorted({package_of(entry) for entry in entries().values()})


@pytest.mark.parametrize("name", NAMES)
def test_every_table_passes_the_schema(name: str) -> None:
    """The tables were checked when built; here each is also checked whole: every aspect, known kinds,
    reasons where due, each point once, a named commit or a note saying why there is none."""
    for table in fidelity_of(package_of(entries()[name])):
        assert {row.aspect for row in table.rows} == set(ASPECTS)
        for row in table.rows:
            assert row.kind in KINDS
            assert row.point.strip() and row.authors.strip() and row.hopkit.strip()
            if row.kind in ("disclosed", "changes-algorithm"):
                assert row.reason.strip(), f"{table.method}: {row.point!r} gives no reason"
        points = [(row.aspect, row.point) for row in table.rows]
        assert len(points) == len(set(points)), f"{table.method}: a point is compared twice"
        reference = table.reference
        assert reference.paper.strip()
        if reference.has_code:
            assert reference.commit and len(reference.commit) >= 7 and "/" in (reference.repository or "")
        else:
            assert reference.note.strip()
        # a table rebuilt from its own rows passes the constructor's checks again
        FidelityTable(table.method, Reference(**vars(reference)), tuple(Difference(**vars(row)) for row in table.rows),
                      table.variants)


def test_docs_fidelity_page_is_what_the_renderer_writes_now() -> None:
    path = DOCS / "fidelity.md"
    assert path.exists(), "docs/fidelity.md is missing: python -m hopkit.report.fidelity_pages --write"
    assert path.read_text(encoding="utf-8") == render_fidelity_page(registered()), (
        "docs/fidelity.md is out of date: python -m hopkit.report.fidelity_pages --write")


@pytest.mark.parametrize("name", NAMES)
def test_each_method_page_section_is_what_the_renderer_writes_now(name: str) -> None:
    method = next(method for method in registered() if method.entry.name == name)
    page = page_of(method.entry)
    assert page.exists(), f"{name}: no page {page}"
    text = page.read_text(encoding="utf-8")
    assert text.count(START) == 1 and text.count(END) == 1, f"{page}: one {START} ... {END} block expected"
    assert section_of(text) == render_section(method), (
        f"{page}: its fidelity section is out of date: python -m hopkit.report.fidelity_pages --write")


def test_a_disclosed_or_algorithm_changing_row_without_a_reason_is_refused() -> None:
    for kind in ("disclosed", "changes-algorithm"):
        with pytest.raises(ConfigError, match="says why in reason"):
            _row("prompt", kind)
    assert _row("prompt", "disclosed", reason="the authors' prompt overflows a small context").reason


def test_a_table_missing_an_aspect_is_refused() -> None:
    with pytest.raises(ConfigError, match="no row compares limits"):
        _table(rows=tuple(_row(aspect) for aspect in ASPECTS if aspect != "limits"))
    assert _table().method == "toy"


def test_unknown_aspects_kinds_and_half_named_references_are_refused() -> None:
    with pytest.raises(ConfigError, match="aspect 'style'"):
        _row("style")
    with pytest.raises(ConfigError, match="kind 'close-enough'"):
        _row("prompt", "close-enough")
    with pytest.raises(ConfigError, match="together"):
        Reference(paper="P", repository="a/b")
    with pytest.raises(ConfigError, match="not a hex hash"):
        Reference(paper="P", repository="a/b", commit="main")
    with pytest.raises(ConfigError, match="say so in note"):
        Reference(paper="P")


def test_cells_are_escaped_and_the_section_replaces_only_what_lies_between_the_markers() -> None:
    rows = tuple(_row(aspect) for aspect in ASPECTS[1:]) + (
        Difference("prompt", "a | b", "<script>x</script>", "ok", "disclosed", reason="c|d"),)
    text = fidelity_pages.render_table(_table(rows=rows))
    line = next(line for line in text.splitlines() if line.startswith("| prompt"))
    assert line.count(" | ") == 5 and "<script>" not in line and "&lt;script&gt;" in line and "a \\| b" in line
    page = f"# Toy\n\nprose\n\n{START}\nold\n{END}\n\nmore prose\n"
    assert with_section(page, "new") == f"# Toy\n\nprose\n\n{START}\nnew\n{END}\n\nmore prose\n"
    assert section_of(with_section("# Toy\n", "new")) == "new"


def test_write_brings_a_copy_of_the_docs_up_to_date(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "methods").mkdir(parents=True)
    flare = docs / "methods" / "flare.md"
    flare.write_text(f"# FLARE\n\nprose\n\n{START}\nstale\n{END}\n", encoding="utf-8")
    assert flare in fidelity_pages.stale_pages(docs)
    fidelity_pages.write_pages(docs)
    assert fidelity_pages.stale_pages(docs) == []
    assert flare.read_text(encoding="utf-8").startswith("# FLARE\n\nprose\n\n")
    assert set(expected_pages(docs)) == {docs / "fidelity.md", *(page_of(m.entry, docs) for m in registered())}
