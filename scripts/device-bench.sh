#!/usr/bin/env bash
# Runs Tolk's translate benchmark from the bundle that scripts/make-device-bundle.mjs builds, on a machine without
# Node.js, Apertium or network (issue 46: the cells of its 16-core table). Inside the unpacked bundle:
#   ./device-bench.sh [RESULTS_DIR] [extra bench options]
# or from the repository, unpacking first:
#   scripts/device-bench.sh --bundle=.device/tolk-bench.tar.xz [RESULTS_DIR] [extra bench options]
# Writes translate-*.md (the bench's tables) and cpu.txt to RESULTS_DIR (default: $OUT, else ./results).
set -euo pipefail

if [[ "${1:-}" == --bundle=* ]]; then
  archive="${1#--bundle=}"; shift
  dest="$(mktemp -d)"
  tar -C "$dest" -xJf "$archive"
  exec "$dest/tolk-bench/device-bench.sh" "$@"
fi

B="$(cd "$(dirname "$0")" && pwd)"
results="${1:-${OUT:-$B/results}}"; shift || true
mkdir -p "$results"
# The pair's mode names its data by absolute path: point it at where the bundle was unpacked.
sed -i "s|@BUNDLE@|$B|g" "$B"/apertium/modes/*.mode
export PATH="$B/bin:$B/apertium/bin:$PATH"
export LD_LIBRARY_PATH="$B/apertium/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TOLK_APERTIUM_MODES_DIR="$B/apertium/modes"
export TOLK_FLORES_DIR="$B/flores-dev"
# The tagger shim compiled where the bundle was built (no compiler here), where the engine looks for it.
shim_dir="${TMPDIR:-/tmp}/tolk-$(id -u)"
mkdir -p "$shim_dir" && chmod 700 "$shim_dir"
cp "$B"/tagger-shim/*.so "$shim_dir"/ 2>/dev/null || echo "no compiled tagger shim in the bundle: the tagger relay is used"

{ nproc; free -g; uname -a; node --version; } > "$results/cpu.txt" 2>&1
cd "$B"
bench() {
  local name="$1"; shift
  echo "== $name: $*" | tee -a "$results/progress.txt"
  node dist/bench/translate.js --client=node --texts=short --modes=concurrent --duration=4000 --warmup=3000 --rounds=3 "$@" \
    > "$results/translate-$name.md" 2>> "$results/progress.txt" || echo "$name failed" >> "$results/progress.txt"
}
# Tolk with its defaults, the bare route and the raw engine at 8, 32 and 64 clients; then the bare route and the
# engine at the pipelines Tolk's default gives this machine, for the equal-settings comparison.
bench defaults --only=engine,tolk,bare --concurrency=8,32,64 "$@"
TOLK_APERTIUM_PIPELINES_PER_PAIR=16 bench pipelines-16 --only=engine,tolk,bare --concurrency=64 --pipelines=16 "$@"
