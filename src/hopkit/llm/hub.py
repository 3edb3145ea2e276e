"""GGUF models named on the Hugging Face Hub, downloaded once into hopkit's cache.

A model on the Hub is named by one string, wherever a GGUF path or an LLM config name
is taken (``model_path:`` in an LLM config, ``--llm`` on the command line)::

    hf://OWNER/NAME/FILE.gguf             the file on the repository's main branch
    hf://OWNER/NAME@REVISION/FILE.gguf    at a branch, tag or commit (pin one for
                                          reproducible runs; %-encode a "/" in it)

This is the ``hf://`` form of ``huggingface_hub``'s own file system (``HfFileSystem``).
The file is fetched with ``huggingface_hub.hf_hub_download`` (its progress bar, its
resumable download, its cache layout) into :func:`hopkit.environment.hub_cache_dir`.
Once the file is there it is used as it is: no request is made, not even to check for
a newer version of a branch (delete the cache folder, or pin a revision, to change it).
The Hub is https://huggingface.co or ``$HF_ENDPOINT`` (a mirror); ``huggingface_hub`` reads
its other variables itself: ``HF_TOKEN`` (a gated or private repository), ``HF_HUB_OFFLINE``.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote, unquote

from hopkit import environment
from hopkit.errors import ConfigError, DownloadError

logger = logging.getLogger(__name__)

HUB_SCHEME = "hf://"
EXAMPLE_URI = "hf://Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf"
#: What an ``hf://`` name given as an LLM (``--llm hf://...``) builds: a llama.cpp model.
LLAMA_CPP_LOAD = "hopkit.llm.llama_cpp.LlamaCppLLM.load"


@dataclass(frozen=True)
class HubFile:
    """One file of a model (or dataset) repository on the Hub.

    Attributes:
        repo: the repository id, ``OWNER/NAME``.
        file: the file's path inside the repository.
        revision: a branch, tag or commit; None for the main branch.
        repo_type: ``"model"``, or ``"dataset"`` for a dataset repository (a corpus, a benchmark's
            questions); a dataset file is never looked for in ``$HOPKIT_MODEL_DIR``.
    """

    repo: str
    file: str
    revision: str | None = None
    repo_type: str = "model"

    @property
    def uri(self) -> str:
        """The ``hf://`` name of the file (``hf://datasets/...`` for a dataset repository, as ``HfFileSystem``)."""
        at = f"@{quote(self.revision, safe='')}" if self.revision is not None else ""
        kind = "" if self.repo_type == "model" else f"{self.repo_type}s/"
        return f"{HUB_SCHEME}{kind}{self.repo}{at}/{self.file}"


def is_hub_uri(value: object) -> bool:
    """Whether ``value`` is a string naming a file on the Hub (it starts with ``hf://``)."""
    return isinstance(value, str) and value.startswith(HUB_SCHEME)


def parse_hub_uri(uri: str) -> HubFile:
    """The repository, file and revision an ``hf://OWNER/NAME[@REVISION]/FILE`` string names.

    Args:
        uri: the string.

    Returns:
        The file it names.

    Raises:
        ConfigError: ``uri`` does not have that shape (the message shows the shape and an example).
    """
    shape = (f"expected hf://OWNER/NAME/FILE or hf://OWNER/NAME@REVISION/FILE, for example {EXAMPLE_URI}")
    if not is_hub_uri(uri):
        raise ConfigError(f"{uri!r} is not a Hugging Face Hub file: {shape}")
    owner, _, rest = uri[len(HUB_SCHEME):].partition("/")
    name, _, file = rest.partition("/")
    name, at, revision = name.partition("@")
    parts = [owner, name, *file.split("/")]
    if any(not part.strip() for part in parts) or "@" in owner or (at and not revision):
        raise ConfigError(f"{uri!r} is not a Hugging Face Hub file: {shape}")
    revision = unquote(revision) if at else ""
    problem = _invalid_part(owner, name, revision, file)
    if problem:
        raise ConfigError(f"{uri!r} is not a Hugging Face Hub file: {problem}; {shape}")
    return HubFile(repo=f"{owner}/{name}", file=file, revision=revision or None)


# The Hub's own rule for an owner or a repository name: letters, digits, "-", "_" and ".",
# not starting or ending with "-" or ".", no "--" or "..", at most 96 characters.
_HUB_NAME = re.compile(r"\w(?:[\w.-]{0,94}\w)?", re.ASCII)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _invalid_part(owner: str, name: str, revision: str, file: str) -> str:
    """Why these parts of an ``hf://`` name cannot name a file on the Hub ("" when they can).

    Checked before any call, so that no path leaves the cache folder and no library is asked
    about a name it would refuse with a traceback.
    """
    for label, value in (("owner", owner), ("name", name)):
        if not _HUB_NAME.fullmatch(value) or "--" in value or ".." in value:
            return (f"the {label} {value!r} is not a Hub name (letters, digits, '-', '_' and '.', "
                    "not starting or ending with '-' or '.', no '--' or '..')")
    if revision and (revision.strip() != revision or _CONTROL.search(revision)
                     or any(part in ("", ".", "..") for part in revision.split("/"))):
        return f"the revision {revision!r} is not a branch, tag or commit name"
    if _CONTROL.search(file) or "\\" in file or any(part in (".", "..") for part in file.split("/")):
        return f"the file {file!r} is not a path inside the repository (no '.', '..', '\\' or control characters)"
    return ""


def hub_llm_spec(uri: str) -> dict[str, Any]:
    """The LLM config an ``hf://`` name stands for: the llama.cpp backend loading that GGUF file.

    Args:
        uri: an ``hf://`` name (``--llm hf://...``).

    Returns:
        ``{"_target_": LLAMA_CPP_LOAD, "model_path": uri}``: a config like those in
        ``configs/llm/``, with the backend's defaults for the other options.

    Raises:
        ConfigError: ``uri`` is not a well-formed ``hf://`` name.
    """
    parse_hub_uri(uri)
    return {"_target_": LLAMA_CPP_LOAD, "model_path": uri}


def download_hub_file(hub_file: HubFile, *, cache_dir: Path | None = None,
                      endpoint: str | None = None) -> Path:
    """The local path of ``hub_file``, downloaded first unless it is in the cache.

    A file of the same name in ``$HOPKIT_MODEL_DIR`` (:func:`local_model_file`), or one in the
    cache, is returned without any request. Otherwise ``huggingface_hub`` asks the Hub for the
    file's metadata and downloads it, with a progress bar on stderr.

    Args:
        hub_file: the file.
        cache_dir: the cache folder (default :func:`hopkit.environment.hub_cache_dir`).
        endpoint: the Hub's URL (default :func:`hopkit.environment.hf_endpoint`, else
            https://huggingface.co).

    Returns:
        The file's path in the cache.

    Raises:
        ConfigError: the repository id or file name is not one the Hub accepts.
        DownloadError: the repository, revision or file does not exist (or is gated or
            private), the Hub cannot be reached, the download broke off, or the file cannot
            be written; the message names the ``hf://`` file and says how to fix it.
    """
    local = local_model_file(hub_file) if hub_file.repo_type == "model" else None
    if local is not None:
        logger.info("using %s for %s ($%s)", local, hub_file.uri, environment.HOPKIT_MODEL_DIR)
        return local
    from httpx2 import HTTPError  # huggingface_hub's HTTP client: what a download cut off raises
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import HFValidationError, LocalEntryNotFoundError

    folder = cache_dir if cache_dir is not None else environment.hub_cache_dir()
    endpoint = (endpoint or environment.hf_endpoint() or "").rstrip("/") or None
    options: dict[str, Any] = dict(repo_id=hub_file.repo, filename=hub_file.file, revision=hub_file.revision,
                                   repo_type=hub_file.repo_type, cache_dir=folder, endpoint=endpoint)
    try:
        return Path(hf_hub_download(**options, local_files_only=True))
    except LocalEntryNotFoundError:
        pass  # not cached yet: download it below
    except HFValidationError as exc:
        raise ConfigError(f"{hub_file.uri}: not a valid Hub repository or file name ({exc}); "
                          f"expected hf://OWNER/NAME/FILE, for example {EXAMPLE_URI}") from None
    logger.info("downloading %s into %s", hub_file.uri, folder)
    try:
        return Path(hf_hub_download(**options))
    except (OSError, ValueError, HTTPError) as exc:  # huggingface_hub's errors, and its client's
        raise download_error(hub_file, exc, folder, endpoint) from exc


def local_model_file(hub_file: HubFile) -> Path | None:
    """The file of ``hub_file``'s name in :func:`hopkit.environment.model_dir`, when that folder has it.

    For a model you already have (copied from another machine, or installed by a package):
    hopkit uses it instead of downloading the same file again. The name is the file's own,
    without the repository's folders (``qwen2.5-coder-1.5b-instruct-q4_k_m.gguf``).
    """
    candidate = environment.model_dir() / PurePosixPath(hub_file.file).name
    return candidate if candidate.is_file() else None


def _model_dir_hint(hub_file: HubFile) -> str:
    """How to use a copy of the file one already has, and where hopkit looked for one."""
    name = PurePosixPath(hub_file.file).name
    return (f"; or, if you have the file, put {name} in {environment.model_dir()} (or in a folder you name "
            f"with ${environment.HOPKIT_MODEL_DIR}) and hopkit reads it from there")


def download_error(hub_file: HubFile, exc: Exception, folder: Path, endpoint: str | None) -> DownloadError:
    """The error to raise for ``exc``, raised by ``hf_hub_download`` for ``hub_file``.

    Args:
        hub_file: the file asked for.
        exc: what ``hf_hub_download`` raised.
        folder: the cache folder.
        endpoint: the Hub's URL asked (None: ``huggingface_hub``'s default).

    Returns:
        A :class:`DownloadError` naming the file, what went wrong and how to fix it.
    """
    from httpx2 import HTTPError
    from huggingface_hub import constants, is_offline_mode
    from huggingface_hub.errors import (EntryNotFoundError, GatedRepoError, HfHubHTTPError,
                                        LocalEntryNotFoundError, RepositoryNotFoundError, RevisionNotFoundError)

    hub = (endpoint or constants.ENDPOINT).rstrip("/")
    page = f"{hub}/{'' if hub_file.repo_type == 'model' else hub_file.repo_type + 's/'}{hub_file.repo}"
    revision = hub_file.revision or "main"
    login = "log in with `hf auth login` (or set HF_TOKEN)"
    local_as = " as model_path" if hub_file.repo_type == "model" else " instead"
    if isinstance(exc, RevisionNotFoundError):
        reason = (f"the repository {hub_file.repo} has no revision {revision!r}; name a branch, tag or commit "
                  f"it has ({page}/commits/main), or leave out @REVISION for the main branch")
    elif isinstance(exc, GatedRepoError):
        reason = f"{hub_file.repo} is a gated repository: accept its terms on {page}, then {login}"
    elif isinstance(exc, RepositoryNotFoundError):
        reason = (f"{hub} has no {hub_file.repo_type} repository {hub_file.repo!r}, or it is private: check the "
                  f"spelling OWNER/NAME (letter case too) on {hub}, or {login} if it is private")
    elif isinstance(exc, LocalEntryNotFoundError):  # before EntryNotFoundError, its base
        offline = " (HF_HUB_OFFLINE is set)" if is_offline_mode() else ""
        reason = (f"could not reach the Hub at {hub}{offline} ({_cause(exc)}) and the file is not in the cache "
                  f"{folder}; check the network connection (and HF_ENDPOINT if you use a mirror) and run again, "
                  f"or download the file yourself and give its local path{local_as}")
    elif isinstance(exc, EntryNotFoundError):
        reason = (f"the repository {hub_file.repo} has no file {hub_file.file!r} at revision {revision!r}; "
                  f"copy the exact file name (letter case too) from {page}/tree/{quote(revision, safe='')}")
    elif isinstance(exc, HTTPError):  # the file's download itself failed, after huggingface_hub's retries
        reason = (f"the download from {hub} broke off ({_first_line(exc)}) and huggingface_hub's own retries "
                  "failed too; nothing was kept: check the network connection and run the same command again")
    elif isinstance(exc, HfHubHTTPError):
        status = exc.response.status_code if exc.response is not None else "an error"
        reason = f"the Hub at {hub} answered HTTP {status} ({_first_line(exc)}); run again later"
    elif isinstance(exc, OSError):
        reason = (f"could not write it into the cache {folder} ({_first_line(exc)}); free some disk space, "
                  f"or set HOPKIT_CACHE_DIR to a writable folder with room for the {hub_file.repo_type}'s file")
    else:
        reason = f"huggingface_hub refused the request ({_first_line(exc)})"
    unreachable = isinstance(exc, LocalEntryNotFoundError) or (isinstance(exc, HTTPError)
                                                                and not isinstance(exc, HfHubHTTPError))
    hint = _model_dir_hint(hub_file) if unreachable and hub_file.repo_type == "model" else ""
    return DownloadError(f"cannot download {hub_file.uri}: {reason}{hint}")


def _cause(exc: BaseException) -> str:
    """The first line of what made ``exc`` happen (its cause, else itself)."""
    return _first_line(exc.__cause__ or exc)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
