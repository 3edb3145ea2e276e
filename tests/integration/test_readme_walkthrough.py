"""The README's command-line walkthrough, as a new user runs it: hopkit installed from its wheel into a
fresh virtual environment, in an empty folder, every command exactly as the README prints it.

The wheel is built from this checkout and installed without its dependencies, which the fresh
environment borrows from the test's own (a path line in a .pth file: the dependencies are
PyPI's, only hopkit itself must come from the wheel; the test checks that it does). The model
is the embedded SmolLM2, the data the bundled sample, the store a new SQLite file.
"""

from __future__ import annotations

import os
import re
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]


def readme_walkthrough() -> str:
    """The first bash block of the README's "Command line" section."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Command line\n", 1)[1]
    return re.findall(r"```bash\n(.*?)```", section, flags=re.DOTALL)[0]


def run(command: list[str], **options: object) -> subprocess.CompletedProcess[str]:
    process = subprocess.run(command, capture_output=True, text=True, timeout=1500, **options)  # type: ignore[call-overload]
    assert process.returncode == 0, f"{command} exited {process.returncode}:\n{process.stdout}\n{process.stderr}"
    return process


def test_the_walkthrough_uses_the_bundled_sample_and_the_embedded_model() -> None:
    commands = [line for line in readme_walkthrough().splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert all(line.startswith("hopkit ") for line in commands)
    assert "ingest sample" in commands[0] and all("--llm smollm2" in line for line in commands if " run " in line)


def test_the_readme_walkthrough_runs_from_an_empty_folder_with_the_installed_wheel(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(ROOT)])
    [wheel] = dist.glob("hopkit-*.whl")
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index", str(wheel)])
    fresh_site = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).stdout.strip())
    borrowed = [sysconfig.get_path("purelib"), *site.getsitepackages()]
    (fresh_site / "borrowed_dependencies.pth").write_text("\n".join(dict.fromkeys(borrowed)) + "\n", encoding="utf-8")

    folder = tmp_path / "empty"
    folder.mkdir()
    env = {key: value for key, value in os.environ.items() if not key.startswith("HOPKIT_")}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", HOME=str(tmp_path / "home"),
               HF_HUB_OFFLINE="1", PYTHONNOUSERSITE="1")
    where = run([str(venv / "bin" / "python"), "-c", "import hopkit; print(hopkit.__file__)"], env=env, cwd=folder)
    assert where.stdout.strip().startswith(str(fresh_site)), where.stdout  # hopkit from the wheel, not the checkout

    script = "set -euo pipefail\n" + readme_walkthrough()
    process = run(["bash", "-c", script], env=env, cwd=folder)
    assert "ingested sample: 6 questions" in process.stdout
    assert (folder / "reports" / "index.html").is_file() and (folder / "runs.jsonl.gz").is_file()
    assert "deleted run oner-k2" in process.stdout
    assert sorted(p.name for p in folder.iterdir()) == [".hopkit", "reports", "runs.jsonl.gz", "team.db"]
