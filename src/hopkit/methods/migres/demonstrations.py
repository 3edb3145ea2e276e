"""The MIGRES authors' few-shot demonstrations (Section 4.2: two per module, fixed per task).

The authors' repository (AdelWang/MIGRES, ``data/demons/``) has one JSON file per task,
each a mapping from module to the demonstrations' text::

    {"leaf": "...", "main": "...", "query": "...", "final_main": "...", "forward": "..."}

``forward`` holds the demonstrations of LLM knowledge prompting, ``final_main`` those of
the last iteration's Main Module. The files are read from ``$HOPKIT_DATA_DIR/migres/``
(or a folder given explicitly); they are never copied into hopkit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal, get_args

from hopkit import environment
from hopkit.errors import DataError

Task = Literal["multihop", "odqa", "commonsense"]
TASKS: Final[tuple[str, ...]] = get_args(Task)
#: The authors' file of each task: multi-hop QA, open-domain QA, StrategyQA.
FILES: Final[dict[str, str]] = {"multihop": "multihopQA_demons.json", "odqa": "odqa_demons.json",
                                "commonsense": "CommonsenseQA_demons.json"}
MODULES: Final[tuple[str, ...]] = ("leaf", "main", "query", "final_main", "forward")


@dataclass(frozen=True)
class MIGRESDemonstrations:
    """The demonstrations of each module, as one text each (demonstrations separated by a blank line).

    Attributes:
        leaf: the Leaf Module's.
        main: the Main Module's.
        query: the Query Generator's.
        final_main: the last iteration's Main Module's.
        knowledge: LLM knowledge prompting's (the files' ``forward``).
        source: where they were read from.
    """

    leaf: str
    main: str
    query: str
    final_main: str
    knowledge: str
    source: str = "<given>"


def demonstrations_path(task: Task, folder: str | Path | None = None) -> Path:
    """Where the demonstrations of ``task`` are: ``<folder or $HOPKIT_DATA_DIR/migres>/<file>``.

    Raises:
        DataError: an unknown task, or no folder given and ``$HOPKIT_DATA_DIR`` unset.
    """
    if task not in FILES:
        raise DataError(f"unknown MIGRES demonstration task {task!r}; known: {', '.join(TASKS)}")
    if folder is None:
        root = environment.data_dir()
        if root is None:
            raise DataError(f"MIGRES few-shot prompts need the authors' demonstrations ({FILES[task]}); set "
                            f"${environment.HOPKIT_DATA_DIR} to the folder holding migres/{FILES[task]}")
        folder = root / "migres"
    return Path(folder) / FILES[task]


def load_migres_demonstrations(task: Task, folder: str | Path | None = None) -> MIGRESDemonstrations:
    """Read the authors' demonstrations of ``task``.

    Args:
        task: "multihop" (HotpotQA, 2Wiki, MuSiQue), "odqa" or "commonsense" (StrategyQA).
        folder: the folder holding the files (default ``$HOPKIT_DATA_DIR/migres``).

    Raises:
        DataError: naming the file (and the field) when the file is missing, is not JSON,
            is not a mapping, or a module is missing, not text, or empty.
    """
    path = demonstrations_path(task, folder)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError("no such file: the MIGRES authors' demonstrations are expected here", path=str(path)) \
            from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot read the file ({exc})", path=str(path)) from None
    except json.JSONDecodeError as exc:
        raise DataError(f"not valid JSON ({exc.msg})", path=str(path), line=exc.lineno) from None
    return parse_migres_demonstrations(data, str(path))


def parse_migres_demonstrations(data: object, source: str) -> MIGRESDemonstrations:
    """The demonstrations in an already-decoded file (see :func:`load_migres_demonstrations`)."""
    if not isinstance(data, dict):
        raise DataError(f"expected a mapping of the modules {', '.join(MODULES)}, got {type(data).__name__}",
                        path=source)
    texts: dict[str, str] = {}
    for module in MODULES:
        value = data.get(module)
        if value is None:
            raise DataError(f"missing; the file must give the demonstrations of {', '.join(MODULES)}",
                            path=source, field=module)
        if not isinstance(value, str) or not value.strip():
            raise DataError(f"expected the demonstrations as non-empty text, got {type(value).__name__}",
                            path=source, field=module)
        texts[module] = value.strip()
    return MIGRESDemonstrations(leaf=texts["leaf"], main=texts["main"], query=texts["query"],
                                final_main=texts["final_main"], knowledge=texts["forward"], source=source)
