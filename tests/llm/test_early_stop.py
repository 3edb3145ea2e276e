from typing import Sequence

import pytest

from hopkit.llm.early_stop import complete_until
from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.llm.protocol import Completion
from hopkit.usage import track_usage

pytestmark = pytest.mark.unit


class StreamingLLM:
    """Produces its text word by word and stops where ``done`` first holds."""

    model_id = "streaming"
    context_length = 100

    def __init__(self, text: str) -> None:
        self.words = text.split(" ")
        self.calls: list[str] = []

    def complete(self, prompt: str, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 temperature: float = 0.0) -> Completion:
        self.calls.append("complete")
        return Completion(text=" ".join(self.words), prompt_tokens=3, completion_tokens=len(self.words), seconds=0.0)

    def complete_until(self, prompt: str, done, *, stop: Sequence[str] = (), max_tokens: int = 256,
                       temperature: float = 0.0) -> Completion:
        self.calls.append("complete_until")
        text = ""
        for count, word in enumerate(self.words, start=1):
            text = " ".join(self.words[:count])
            if done(text):
                break
        return Completion(text=text, prompt_tokens=3, completion_tokens=len(text.split(" ")), seconds=0.0)

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def test_a_backend_without_streaming_generates_in_full() -> None:
    llm = ScriptedLLM(["First one. Second one."])
    completion = complete_until(llm, "prompt", lambda text: "." in text, stop=["\n"])
    assert completion.text == "First one. Second one."


def test_a_streaming_backend_stops_where_done_holds() -> None:
    llm = StreamingLLM("First one. Second one and more")
    completion = complete_until(llm, "prompt", lambda text: text.endswith("Second"))
    assert completion.text == "First one. Second"
    assert llm.calls == ["complete_until"]


def test_the_meter_passes_early_stop_through_and_counts_the_call() -> None:
    inner = StreamingLLM("First one. Second one and more")
    metered = MeteredLLM(inner)
    with track_usage() as usage:
        completion = complete_until(metered, "prompt", lambda text: text.endswith("one."))
    assert completion.text == "First one."
    assert inner.calls == ["complete_until"]
    assert (usage.llm_calls, usage.prompt_tokens, usage.completion_tokens) == (1, 3, 2)
