"""The IRCoT authors' few-shot prompt files: where to find them and how to read them.

Files live under ``prompts/<dataset>/`` in the authors' repository
(StonyBrookNLP/ircot, pinned at commit ``3c1820f``) and are named
``{no_context | gold_with_{M}_distractors_context}_{cot | direct}_qa_{codex | flan_t5}.txt``;
IIRC also has ``no_context_open_llm_retrieval_{codex | flan_t5}.txt`` (title
generation, Appendix B). Each file holds demonstrations separated by a blank-line
triple, each opening with a ``# METADATA: {"qid": ...}`` line.

Lookup order: ``<local_dir>/<dataset>/<file>`` (``$HOPKIT_DATA_DIR/ircot/prompts``),
then the download cache (``$HOPKIT_CACHE_DIR/prompts`` or ``~/.cache/hopkit/prompts``),
then a download from the pinned commit into that cache.
"""

from __future__ import annotations

import json
import logging
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import httpx

from hopkit import environment
from hopkit.errors import DataError, DownloadError, UnknownNameError

logger = logging.getLogger(__name__)

IRCOT_REPOSITORY = "StonyBrookNLP/ircot"
IRCOT_COMMIT = "3c1820f"
RAW_BASE_URL = f"https://raw.githubusercontent.com/{IRCOT_REPOSITORY}/{IRCOT_COMMIT}"
DATASETS = ("hotpotqa", "2wikimultihopqa", "musique", "iirc")
CONTEXTS = ("no_context", "gold_with_1_distractors", "gold_with_2_distractors", "gold_with_3_distractors")
READERS = ("cot", "direct")
FAMILIES = ("codex", "flan_t5")
METADATA_PREFIX = "# METADATA:"
_SEPARATOR_RUN = re.compile(r"\n[ \t]*\n[ \t]*\n\s*")


@dataclass(frozen=True)
class PromptFile:
    """The demonstrations of one prompt file, in file order.

    Attributes:
        source: the path or URL the text was read from.
        demonstrations: each demonstration without its METADATA line.
        qids: the ``qid`` of each demonstration's METADATA (``""`` when absent).
    """

    source: str
    demonstrations: tuple[str, ...]
    qids: tuple[str, ...]

    def select(self, qids: Sequence[str]) -> "PromptFile":
        """The demonstrations of ``qids``, in the order of ``qids`` (as the authors'
        ``filter_by_key_values`` + ``order_by_key``).

        Raises:
            DataError: if a qid is not in the file.
        """
        by_qid = dict(zip(self.qids, self.demonstrations))
        missing = [qid for qid in qids if qid not in by_qid]
        if missing:
            raise DataError(f"no demonstration with qid {', '.join(missing)}", path=self.source)
        return PromptFile(self.source, tuple(by_qid[q] for q in qids), tuple(qids))

    def authors_selection(self, dataset: str) -> "PromptFile":
        """The 20 demonstrations the authors' configs use for ``dataset``, in their order."""
        _check("dataset", dataset, DATASETS)
        return self.select(AUTHORS_DEMONSTRATION_QIDS[dataset])


def parse_prompt_file(text: str, source: str = "<text>") -> PromptFile:
    """Split a prompt file into demonstrations and strip their METADATA lines.

    Args:
        text: the file's text.
        source: where it came from, for error messages.

    Raises:
        DataError: if a METADATA line is not valid JSON (names the file and line).
    """
    text = text.replace("\r\n", "\n")
    demonstrations: list[str] = []
    qids: list[str] = []
    for start, chunk in _chunks(text):
        lines = chunk.strip().split("\n")
        qid = ""
        if lines[0].startswith(METADATA_PREFIX):
            raw = lines[0][len(METADATA_PREFIX):].strip()
            try:
                metadata = json.loads(raw)
            except json.JSONDecodeError as error:
                line = text.count("\n", 0, start + len(chunk) - len(chunk.lstrip())) + 1
                raise DataError(f"METADATA is not valid JSON ({error.msg})", path=source, line=line) from error
            qid = str(metadata.get("qid", "")) if isinstance(metadata, dict) else ""
            lines = lines[1:]
        body = "\n".join(lines).strip()
        if body:
            demonstrations.append(body)
            qids.append(qid)
    return PromptFile(source=source, demonstrations=tuple(demonstrations), qids=tuple(qids))


def _chunks(text: str) -> list[tuple[int, str]]:
    """The non-blank pieces between blank-line triples, with their start offsets."""
    pieces: list[tuple[int, str]] = []
    start = 0
    for separator in _SEPARATOR_RUN.finditer(text):
        pieces.append((start, text[start:separator.start()]))
        start = separator.end()
    pieces.append((start, text[start:]))
    return [(offset, piece) for offset, piece in pieces if piece.strip()]


def qa_prompt_file_name(context: str, reader: str, family: str) -> str:
    """The file name of a QA / reasoning prompt.

    Args:
        context: ``no_context`` or ``gold_with_{M}_distractors`` (M in 1..3).
        reader: ``cot`` or ``direct``.
        family: ``codex`` (GPT3 layout) or ``flan_t5`` (with the Flan question prefix).

    Raises:
        UnknownNameError: for a value outside those lists.
    """
    _check("prompt context", context, CONTEXTS)
    _check("reader", reader, READERS)
    _check("prompt family", family, FAMILIES)
    stem = context if context == "no_context" else f"{context}_context"
    return f"{stem}_{reader}_qa_{family}.txt"


def title_prompt_file_name(family: str) -> str:
    """The file name of IIRC's title-generation prompt (Appendix B)."""
    _check("prompt family", family, FAMILIES)
    return f"no_context_open_llm_retrieval_{family}.txt"


def _check(kind: str, value: str, known: tuple[str, ...]) -> None:
    if value not in known:
        raise UnknownNameError(kind, value, known)


class IRCoTPromptFiles:
    """Finds, downloads and reads the authors' prompt files.

    Args:
        local_dir: a folder laid out as ``<dataset>/<file>`` (may be missing).
        cache_dir: where downloads are kept, as ``<commit>/<dataset>/<file>``.
        base_url: the raw-file root of the pinned commit (a test points it at a
            local server).
        timeout: seconds to wait for a download.
    """

    def __init__(self, local_dir: Path | None, cache_dir: Path, base_url: str = RAW_BASE_URL,
                 timeout: float = 30.0) -> None:
        self.local_dir = local_dir
        self.cache_dir = cache_dir
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    @classmethod
    def from_env(cls) -> "IRCoTPromptFiles":
        """Local folder ``$HOPKIT_DATA_DIR/ircot/prompts``; cache under ``$HOPKIT_CACHE_DIR``
        (default ``~/.cache/hopkit``) in ``prompts/``."""
        data_dir = environment.data_dir()
        local = data_dir / "ircot" / "prompts" if data_dir is not None else None
        return cls(local_dir=local, cache_dir=environment.cache_dir() / "prompts")

    def load(self, dataset: str, context: str = "gold_with_2_distractors", reader: str = "cot",
             family: str = "codex") -> PromptFile:
        """The demonstrations for ``dataset`` with that context, reader and model family.

        Raises:
            UnknownNameError: for an unknown dataset, context, reader or family.
            DownloadError: if the file is neither local nor cached and cannot be fetched.
            DataError: if the file is malformed.
        """
        _check("dataset", dataset, DATASETS)
        return self.read(dataset, qa_prompt_file_name(context, reader, family))

    def load_titles(self, family: str = "codex") -> PromptFile:
        """IIRC's title-generation demonstrations (Appendix B)."""
        return self.read("iirc", title_prompt_file_name(family))

    def read(self, dataset: str, file_name: str) -> PromptFile:
        """Read ``prompts/<dataset>/<file_name>`` from the first place that has it."""
        path = self.path(dataset, file_name)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise DataError(f"cannot read the prompt file ({error})", path=str(path)) from error
        return parse_prompt_file(text, source=str(path))

    def path(self, dataset: str, file_name: str) -> Path:
        """The local or cached file, downloaded first if neither exists."""
        if self.local_dir is not None:
            local = self.local_dir / dataset / file_name
            if local.is_file():
                return local
        cached = self.cache_dir / IRCOT_COMMIT / dataset / file_name
        if not cached.is_file():
            self._download(f"{self.base_url}/prompts/{dataset}/{file_name}", cached)
        return cached

    def _download(self, url: str, target: Path) -> None:
        logger.info("downloading %s to %s", url, target)
        try:
            response = httpx.get(url, timeout=self.timeout, follow_redirects=True)
        except httpx.HTTPError as error:
            raise DownloadError(
                f"could not download the IRCoT prompt file {url}: {error}; check the network, or "
                f"set HOPKIT_DATA_DIR to a folder holding ircot/prompts/<dataset>/<file>") from error
        if response.status_code != 200:
            raise DownloadError(
                f"could not download the IRCoT prompt file {url}: HTTP {response.status_code}; "
                f"set HOPKIT_DATA_DIR to a folder holding ircot/prompts/<dataset>/<file>")
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("wb", dir=target.parent, delete=False, suffix=".part") as handle:
            handle.write(response.content)
            partial = Path(handle.name)
        partial.replace(target)



def load_demonstrations(dataset: str, context: str = "gold_with_2_distractors", reader: str = "cot",
                        family: str = "codex", *, files: IRCoTPromptFiles | None = None) -> list[str]:
    """The authors' demonstrations for ``dataset``: their 20, in their order.

    Args:
        dataset: hotpotqa, 2wikimultihopqa, musique or iirc.
        context: ``no_context`` or ``gold_with_{M}_distractors``.
        reader: ``cot`` or ``direct``.
        family: ``codex`` or ``flan_t5``.
        files: where to look (default: :meth:`IRCoTPromptFiles.from_env`).

    Raises:
        UnknownNameError, DownloadError, DataError: as :meth:`IRCoTPromptFiles.load`.
    """
    files = files if files is not None else IRCoTPromptFiles.from_env()
    return list(files.load(dataset, context, reader, family).authors_selection(dataset).demonstrations)


def load_title_demonstrations(family: str = "codex", *, files: IRCoTPromptFiles | None = None) -> list[str]:
    """IIRC's title-generation demonstrations (Appendix B), the authors' 20 in their order."""
    files = files if files is not None else IRCoTPromptFiles.from_env()
    return list(files.load_titles(family).authors_selection("iirc").demonstrations)


# The 20 annotated questions per dataset whose demonstrations the authors' configs
# use, in the order they are packed into the prompt (their ``valid_qids``). HotpotQA's
# files hold 29 demonstrations; the other 9 are not used in the paper's experiments.
AUTHORS_DEMONSTRATION_QIDS: dict[str, tuple[str, ...]] = {
    "hotpotqa": (
        "5ab92dba554299131ca422a2", "5a7bbc50554299042af8f7d0", "5add363c5542990dbb2f7dc8",
        "5a835abe5542996488c2e426", "5ae0185b55429942ec259c1b", "5a790e7855429970f5fffe3d",
        "5a754ab35542993748c89819", "5a89c14f5542993b751ca98a", "5abb14bd5542992ccd8e7f07",
        "5a89d58755429946c8d6e9d9", "5a88f9d55542995153361218", "5a90620755429933b8a20508",
        "5a77acab5542992a6e59df76", "5abfb3435542990832d3a1c1", "5a8f44ab5542992414482a25",
        "5adfad0c554299603e41835a", "5a7fc53555429969796c1b55", "5a8ed9f355429917b4a5bddd",
        "5ac2ada5554299657fa2900d", "5a758ea55542992db9473680",
    ),
    "2wikimultihopqa": (
        "5811079c0bdc11eba7f7acde48001122", "97954d9408b011ebbd84ac1f6bf848b6",
        "35bf3490096d11ebbdafac1f6bf848b6", "c6805b2908a911ebbd80ac1f6bf848b6",
        "5897ec7a086c11ebbd61ac1f6bf848b6", "e5150a5a0bda11eba7f7acde48001122",
        "a5995da508ab11ebbd82ac1f6bf848b6", "cdbb82ec0baf11ebab90acde48001122",
        "f44939100bda11eba7f7acde48001122", "4724c54e08e011ebbda1ac1f6bf848b6",
        "f86b4a28091711ebbdaeac1f6bf848b6", "13cda43c09b311ebbdb0ac1f6bf848b6",
        "228546780bdd11eba7f7acde48001122", "c6f63bfb089e11ebbd78ac1f6bf848b6",
        "1ceeab380baf11ebab90acde48001122", "8727d1280bdc11eba7f7acde48001122",
        "f1ccdfee094011ebbdaeac1f6bf848b6", "79a863dc0bdc11eba7f7acde48001122",
        "028eaef60bdb11eba7f7acde48001122", "af8c6722088b11ebbd6fac1f6bf848b6",
    ),
    "musique": (
        "2hop__323282_79175", "2hop__292995_8796", "2hop__439265_539716",
        "4hop3__703974_789671_24078_24137", "2hop__154225_727337", "2hop__861128_15822",
        "3hop1__858730_386977_851569", "2hop__642271_608104", "2hop__387702_20661",
        "2hop__131516_53573", "2hop__496817_701819", "2hop__804754_52230",
        "3hop1__61746_67065_43617", "3hop1__753524_742157_573834", "2hop__427213_79175",
        "3hop1__443556_763924_573834", "2hop__782642_52667", "2hop__102217_58400",
        "2hop__195347_20661", "4hop3__463724_100414_35260_54090",
    ),
    "iirc": (
        "q_10236", "q_3268", "q_8776", "q_9499", "q_389", "q_8350", "q_3283", "q_3208", "q_1672",
        "q_9433", "q_8173", "q_8981", "q_10227", "q_2466", "q_8736", "q_9591", "q_10344", "q_10270",
        "q_9518", "q_3290",
    ),
}
