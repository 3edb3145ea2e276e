"""YAML aliases in a config: shared values load, an alias bomb is refused at parse time.

Issue 28 item 4: nine levels of ``&aN [*aN-1, ...]`` (616 bytes) grew past 3.8 GB in 77 s,
because expanding environment variables copies every alias. Configs can come from anyone.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hopkit.config import MAX_EXPANDED_VALUES, load_yaml
from hopkit.errors import ConfigError

pytestmark = pytest.mark.unit


def alias_bomb(levels: int = 9, width: int = 9) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def test_the_alias_bomb_is_refused_in_one_line_quickly(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(alias_bomb(), encoding="utf-8")
    assert len(path.read_bytes()) < 700
    started = time.monotonic()
    with pytest.raises(ConfigError) as refused:
        load_yaml(path)
    assert time.monotonic() - started < 5
    message = str(refused.value)
    assert message.startswith(f"{path}: refused: its aliases (*name) expand to more than") and "\n" not in message


def test_the_cli_refuses_the_bomb_with_exit_2_under_a_memory_cap(tmp_path: Path) -> None:
    """The same file through `hopkit run`, in a process capped at 1 GB of address space."""
    path = tmp_path / "bomb.yaml"
    path.write_text("_target_: hopkit.pipelines.generation.no_retrieval.NoRGenerationPipelineConfig\n"
                    + alias_bomb(), encoding="utf-8")

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    process = subprocess.run([sys.executable, "-m", "hopkit.cli", "--db", f"sqlite:///{tmp_path / 'h.db'}",
                              "run", str(path)], capture_output=True, text=True, timeout=120, preexec_fn=cap,
                             cwd=tmp_path)
    assert process.returncode == 2, process.stderr
    assert process.stderr.startswith(f"hopkit: error: {path}: refused: its aliases") and "Traceback" not in process.stderr


def test_a_recursive_alias_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "loop.yaml"
    path.write_text("a: &a [1, *a]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="refused: an alias refers to the value it is part of"):
        load_yaml(path)


@given(width=st.integers(1, 6), levels=st.integers(1, 4))
def test_shared_values_within_the_limit_load_as_written(tmp_path_factory: pytest.TempPathFactory, width: int,
                                                        levels: int) -> None:
    path = tmp_path_factory.mktemp("aliases") / "shared.yaml"
    path.write_text(alias_bomb(levels, width), encoding="utf-8")
    size = 9 * width ** (levels - 1)
    assert size < MAX_EXPANDED_VALUES
    loaded = load_yaml(path)
    value = loaded[f"a{levels - 1}"]
    for _ in range(levels - 1):
        assert len(value) == width
        value = value[0]
    assert value == ["x"] * 9
