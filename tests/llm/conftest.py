"""The real SmolLM2 model the integration tests of this package load, once per test module."""

from __future__ import annotations

from typing import Iterator

import pytest

from hopkit.llm.llama_cpp import LlamaCppLLM


@pytest.fixture(scope="module")
def smollm2() -> Iterator[LlamaCppLLM]:
    model = LlamaCppLLM.load(n_ctx=512, n_threads=1)
    yield model
    model.close()
