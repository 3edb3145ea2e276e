"""2WikiMultihopQA in its official JSON format.

The layout is HotpotQA's (``_id``, ``question``, ``answer``, ``supporting_facts``,
``context``) plus ``type``, ``evidences`` (triples), ``entity_ids``,
``evidences_id`` and ``answer_id``. The official release also ships
``id_aliases.json``, a JSONL file of ``{"Q_id", "aliases", "demonyms"}`` that
the official evaluation script uses to accept other names of the answer entity;
when it is found (next to the questions file, or given), the aliases of a
question's ``answer_id`` become extra gold answers.
"""

from __future__ import annotations

from pathlib import Path

from hopkit.data.formats._common import Where, as_object, get_list, get_str, iter_jsonl, read_json_list
from hopkit.data.formats.hotpotqa import parse_hotpot_record
from hopkit.errors import DataError
from hopkit.records import Example

ALIASES_FILE_NAME = "id_aliases.json"


def load_2wikimultihopqa(path: str | Path, *, aliases_path: str | Path | None = None) -> list[Example]:
    """Load an official 2WikiMultihopQA JSON file (e.g. ``dev.json``).

    Args:
        path: the questions file.
        aliases_path: the official ``id_aliases.json``; by default the file of
            that name next to ``path`` is used if it exists.

    Returns:
        One Example per question, in file order; answers are the main answer then
        the aliases of its Wikidata entity (if an aliases file is available).

    Raises:
        DataError: malformed JSON, a record with a missing or wrongly typed field,
            or a malformed aliases file.
    """
    path = Path(path)
    if aliases_path is None:
        candidate = path.parent / ALIASES_FILE_NAME
        aliases = load_id_aliases(candidate) if candidate.is_file() else {}
    else:
        aliases = load_id_aliases(Path(aliases_path))
    rows = read_json_list(path)
    examples = []
    for index, row in enumerate(rows):
        where = Where(str(path), record=f"#{index}")
        answer_id = as_object(row, where).get("answer_id")
        extra = aliases.get(answer_id, ()) if isinstance(answer_id, str) else ()
        examples.append(parse_hotpot_record(row, where, aliases=extra))
    return examples


def load_id_aliases(path: Path) -> dict[str, tuple[str, ...]]:
    """Read ``id_aliases.json``: Wikidata id -> its aliases and demonyms.

    Raises:
        DataError: a line is not valid JSON or lacks ``Q_id``.
    """
    if not path.is_file():
        raise DataError("aliases file not found; pass aliases_path=None to look next to the questions file",
                        path=str(path))
    table: dict[str, tuple[str, ...]] = {}
    for where, row in iter_jsonl(path):
        obj = as_object(row, where)
        qid = get_str(obj, "Q_id", where)
        names = [n for n in get_list(obj, "aliases", where, default=[]) + get_list(obj, "demonyms", where, default=[])
                 if isinstance(n, str) and n.strip()]
        table[qid] = tuple(dict.fromkeys(n.strip() for n in names))
    return table
