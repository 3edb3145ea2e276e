#!/usr/bin/env bash
# Builds llama-cpp-python into .venv for this machine's CPU, without llama.cpp's AMX kernels.
#
# llama.cpp compiles with -march=native, which turns its AMX matrix kernels on wherever the
# CPU advertises AMX. On a Firecracker VM with a Sapphire Rapids CPU those kernels die on
# their first `ldtilecfg` (general-protection fault: every generation segfaults), although
# AMX itself works there. Explicit -mno-amx-* flags outrank what -march=native implies, so
# the build keeps every other native instruction set. HOPKIT_LLAMA_CFLAGS replaces the
# flags (e.g. with "" on a machine where llama.cpp's AMX kernels work).
#
# The flags of the installed build are written to .venv/llama-cpp-build; a build made with
# other flags (or by pip without them) is rebuilt, bypassing pip's wheel cache, which does
# not tell builds with different compiler flags apart.
set -euo pipefail
cd "$(dirname "$0")/.."
requirement="llama-cpp-python>=0.3.2"
stamp=.venv/llama-cpp-build

no_amx_flags() {
  local flags="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
  if echo | "${CC:-cc}" $flags -E - >/dev/null 2>&1; then
    echo "$flags"
  fi
}

cflags="${HOPKIT_LLAMA_CFLAGS-$(no_amx_flags)}"
wanted="CFLAGS=$cflags"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] && .venv/bin/python -c "import llama_cpp" 2>/dev/null; then
  exit 0
fi
echo "install-llama-cpp.sh: building $requirement (extra compiler flags: ${cflags:-none}); a few minutes" >&2
CFLAGS="$cflags" CXXFLAGS="$cflags" \
  .venv/bin/python -m pip install -q --no-cache-dir --force-reinstall --no-deps "$requirement"
.venv/bin/python -m pip install -q "$requirement"  # its dependencies, on a first install
echo "$wanted" > "$stamp"
