"""A search agent's template: what one published family of search agents reads and writes.

Each family (Search-R1, R1-Searcher, AutoRefine...) was trained on its own instruction, its own
tags for a search and an answer, and its own layout of the documents it is given back; a
checkpoint only works with its own. A template is that, as data: a YAML file of
``templates/`` named by its family, or any YAML file with the same fields (a user's own family).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from hopkit.config import load_yaml
from hopkit.errors import ConfigError

TEMPLATES = Path(__file__).with_name("templates")
_PLACEHOLDER = re.compile(r"\{(question|documents|number|title|text)\}")


@dataclass(frozen=True)
class AgentTemplate:
    """One family's prompt and tags (the fields of a template file).

    Attributes:
        name: the family (the file's name for a shipped one).
        title: its name in tables.
        instruction: the prompt, with ``{question}`` where the question goes.
        chat: the instruction is the user's turn of the model's chat template (where the backend has
            one); otherwise it is sent as it is, and the model continues it.
        question_mark: a question that does not end with "?" gets one (as the authors' data does).
        query: the tags the model writes a search query between.
        answer: the tags it writes its final answer between.
        results: what follows a search in the model's turn, ``{documents}`` where the documents go.
        document: one document, with ``{number}`` (from 1), ``{title}`` and ``{text}``.
        strip_documents: the documents' text is stripped of surrounding whitespace.
        no_documents: what stands for the documents when the search found none.
        strip_generation: the model's generation is stripped before the search's closing tag is
            written back after it.
        query_replace: replacements made in the query before it is searched (``[from, to]`` pairs).
        invalid: what the turn gets after a generation with neither a search nor an answer (None: such
            a generation ends the question without an answer).
        final_turn: after ``max_turns`` generations, one more in which a search is not run.
        top_k: documents per search, the family's published setting.
        max_turns: generations in which the model may search, its published setting.
        max_tokens: tokens per generation, its published setting.
        max_documents_tokens: the documents block (``results`` filled in) is cut to its first this many
            tokens of the model's tokenizer, as the authors cut an observation (None: no cut); a cut
            block loses its end, its closing tag included.
        max_prompt_tokens: before each generation the prompt (the instruction and the turn so far) is
            cut to its last this many tokens, as the authors left-truncate the rolling prompt (None: no
            cut); the context rule holds after it.
        title_quotes: a document's title is shown in double quotes, as the authors' corpus writes it
            (wiki-18's contents begin '"Title"' on their first line, which their code takes as the title).
    """

    name: str
    title: str
    instruction: str
    chat: bool
    question_mark: bool
    query: tuple[str, str]
    answer: tuple[str, str]
    results: str
    document: str
    strip_documents: bool
    no_documents: str
    strip_generation: bool
    invalid: str | None
    final_turn: bool
    top_k: int
    max_turns: int
    max_tokens: int
    query_replace: tuple[tuple[str, str], ...] = ()
    max_documents_tokens: int | None = None
    max_prompt_tokens: int | None = None
    title_quotes: bool = False

    def prompt(self, question: str) -> str:
        """The instruction with ``question`` in it."""
        question = question.strip()
        if self.question_mark and not question.endswith("?"):
            question += "?"
        return fill(self.instruction, question=question)

    def documents_block(self, documents: list[tuple[str, str]], *, quote_titles: bool = True) -> str:
        """What follows a search: the (title, text) documents laid out as the family lays them out
        (``quote_titles`` false leaves out the family's quotes around a title)."""
        quoted = self.title_quotes and quote_titles
        listed = "".join(fill(self.document, number=str(number), title=f'"{title}"' if quoted else title, text=text)
                         for number, (title, text) in enumerate(documents, start=1))
        if self.strip_documents:
            listed = listed.strip()
        return fill(self.results, documents=listed if documents else self.no_documents)

    def cleaned_query(self, query: str) -> str:
        for old, new in self.query_replace:
            query = query.replace(old, new)
        return query.strip()


def fill(pattern: str, **values: str) -> str:
    """``pattern`` with each ``{name}`` of ``values`` replaced, in one pass (braces in a value stay as they are)."""
    return _PLACEHOLDER.sub(lambda match: values.get(match.group(1), match.group(0)), pattern)


def template_names() -> list[str]:
    """The shipped families."""
    return sorted(path.stem for path in TEMPLATES.glob("*.yaml"))


def load_template(name: str) -> AgentTemplate:
    """A shipped family by name (``search-r1``), or a template file by path.

    Raises:
        ConfigError: no such family or file, or a field missing, unknown or of the wrong kind (the
            message names the file and the field).
    """
    path = TEMPLATES / f"{name}.yaml" if re.fullmatch(r"[a-z0-9-]+", name) else Path(name).expanduser()
    if not path.is_file():
        raise ConfigError(f"search agent template {name!r}: not one of the shipped families "
                          f"({', '.join(template_names())}) nor a template file")
    return template_from(load_yaml(path), str(path))


def template_from(raw: Mapping[str, Any], source: str) -> AgentTemplate:
    """A template from a file's mapping (``source`` names the file in errors).

    Raises:
        ConfigError: a field missing, unknown or of the wrong kind.
    """
    fields = {field.name: field for field in dataclasses.fields(AgentTemplate)}
    unknown = sorted(set(raw) - set(fields))
    if unknown:
        raise ConfigError(f"{source}: unknown template field(s) {', '.join(unknown)}; known: {', '.join(fields)}")
    missing = [name for name, field in fields.items() if name not in raw
               and field.default is dataclasses.MISSING]
    if missing:
        raise ConfigError(f"{source}: template field(s) missing: {', '.join(missing)}")
    values: dict[str, Any] = {}
    for name in fields:
        if name in raw:
            values[name] = _checked(name, raw[name], source)
    for name, needs in (("instruction", "{question}"), ("results", "{documents}")):
        if needs not in values[name]:
            raise ConfigError(f"{source}: field {name!r} must hold {needs}")
    if values["query"][0] == values["answer"][0]:
        raise ConfigError(f"{source}: fields 'query' and 'answer' open with the same tag {values['query'][0]!r}")
    return AgentTemplate(**values)


def _checked(name: str, value: Any, source: str) -> Any:
    where = f"{source}: template field {name!r}"
    if name in ("query", "answer"):
        if (not isinstance(value, list) or len(value) != 2 or not all(isinstance(v, str) and v.strip() for v in value)
                or value[0] == value[1]):
            raise ConfigError(f"{where}: expected two different non-empty tags, [open, close], got {value!r}")
        return (value[0], value[1])
    if name == "query_replace":
        if not isinstance(value, list) or not all(
                isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, str) for v in pair) and pair[0]
                for pair in value):
            raise ConfigError(f"{where}: expected a list of [from, to] pairs of text, got {value!r}")
        return tuple((old, new) for old, new in value)
    if name in ("chat", "question_mark", "strip_documents", "strip_generation", "final_turn", "title_quotes"):
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: expected true or false, got {value!r}")
        return value
    if name in ("top_k", "max_turns", "max_tokens"):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ConfigError(f"{where}: expected a whole number of at least 1, got {value!r}")
        return value
    if name in ("max_documents_tokens", "max_prompt_tokens"):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            raise ConfigError(f"{where}: expected null or a whole number of at least 1, got {value!r}")
        return value
    if name == "invalid" and value is None:
        return None
    if not isinstance(value, str) or (name in ("name", "title", "instruction", "results", "document")
                                      and not value.strip()):
        raise ConfigError(f"{where}: expected text, got {value!r}")
    return value
