from pathlib import Path

import pytest

from hopkit.errors import LLMError
from hopkit.llm import llama_cpp as backend
from hopkit.llm.llama_cpp import LlamaCppLLM

pytestmark = pytest.mark.unit


def test_missing_model_file_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "nope.gguf"
    with pytest.raises(LLMError, match=f"GGUF model file not found: {missing}"):
        LlamaCppLLM.load(missing)


def test_missing_default_package_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(backend, "DEFAULT_MODEL_PACKAGE", "hopkit-no-such-package")
    with pytest.raises(LLMError, match="pip install hopkit-no-such-package"):
        backend.default_model_path()


def test_invalid_options_are_rejected_before_loading(tmp_path: Path) -> None:
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"")
    with pytest.raises(LLMError, match="n_batch=0"):
        LlamaCppLLM.load(fake, n_batch=0)


def test_a_file_that_is_not_gguf_gives_llm_error(tmp_path: Path) -> None:
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"not a model at all")
    with pytest.raises(LLMError, match=f"llama.cpp could not load {fake}"):
        LlamaCppLLM.load(fake, n_ctx=64)


def test_a_call_saves_the_live_context_before_dropping_a_large_part_of_it() -> None:
    assert backend.abandons(3000, 10)  # other demonstrations
    assert backend.abandons(3800, 2500)  # one demonstration fewer: later prompts may want it back
    assert not backend.abandons(3000, 2900)  # the next step of the same prompt drops its question tail
    assert not backend.abandons(0, 0)  # nothing live, nothing to save
