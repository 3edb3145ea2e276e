"""docs/traces.md's payload tables are the payload types: a field added to or removed from a type
and not to the document (or the other way round) fails here."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from hopkit.methods.ircot.steps import IRCoTRetrieve
from hopkit.methods.payload_docs import documented, method_tables, payload_table, rewrite
from hopkit.methods.registry import entries
from hopkit.traces.payload import Payload, at

pytestmark = pytest.mark.unit

DOCS = Path(__file__).resolve().parents[2] / "docs" / "traces.md"


def test_every_method_with_payloads_has_its_table_in_the_document_and_it_is_up_to_date() -> None:
    written = documented(DOCS.read_text(encoding="utf-8"))
    tables = method_tables()
    assert sorted(tables) == sorted(name for name, entry in entries().items() if entry.payloads)
    stale = [name for name in tables if written.get(name) != tables[name]]
    assert not stale, (f"docs/traces.md's payload tables of {', '.join(stale)} differ from the types; run "
                       "python -m hopkit.methods.payload_docs docs/traces.md")


def test_every_builtin_method_declares_payloads() -> None:
    assert {"ircot", "migres", "searchain", "nor", "oner"} <= set(method_tables())


@dataclass(frozen=True, kw_only=True)
class _Grown(IRCoTRetrieve):
    origin: str = "bm25"


@dataclass(frozen=True, kw_only=True)
class _Shrunk(Payload):
    kind = "retrieve"
    query: str = at("input")


def test_a_field_gained_or_lost_changes_the_table() -> None:
    table = payload_table((IRCoTRetrieve,))
    assert "| `_Grown` | `retrieve` | `origin` | `extra.origin` | string | yes |" in payload_table((_Grown,))
    assert payload_table((_Shrunk,)).count("\n| `_Shrunk`") == 1
    assert "`output.kept` | list of integer" in table and "| `Drop` | `reason` | string |  |" in table


def test_rewrite_replaces_only_the_blocks_of_known_methods() -> None:
    text = ("a\n<!-- payloads: ircot -->\nold\n<!-- /payloads: ircot -->\n"
            "b\n<!-- payloads: x -->\nkeep\n<!-- /payloads: x -->\n")
    assert rewrite(text, {"ircot": "new\n"}) == text.replace("old\n", "new\n")


def test_a_method_without_a_table_gets_one_at_the_end_of_the_payload_types() -> None:
    """A new method's payloads need no hand edit of docs/traces.md: the command adds its table (issue 74)."""
    from hopkit.methods.payload_docs import SECTION, rewrite

    text = DOCS.read_text(encoding="utf-8")
    closing = "<!-- /payloads: dragin -->\n\n"
    start, end = text.index("### DRAGIN\n"), text.index(closing) + len(closing)
    without = text[:start] + text[end:]
    assert "dragin" not in documented(without)
    written = rewrite(without, method_tables(), {"dragin": "DRAGIN"})
    assert documented(written) == documented(text)
    added = written.index("### DRAGIN\n\n<!-- payloads: dragin -->\n")
    section = written.index(f"\n{SECTION}\n")
    assert section < added < written.index("\n## ", section + 2)
    assert rewrite(written, method_tables()) == written
    with pytest.raises(ValueError, match="no section '## Payload types'"):
        rewrite(without.replace(SECTION, "## Payloads"), method_tables())
