#!/usr/bin/env bash
# Runs Tolk's benchmarks from the bundle that scripts/make-device-bundle.mjs builds, on a machine without Node.js,
# Apertium or network (issue 46: its 16-core figures). Inside the unpacked bundle:
#   ./device-bench.sh [RESULTS_DIR] [extra translate-bench options]
# or from the repository, unpacking first:
#   scripts/device-bench.sh --bundle=.device/tolk-bench.tar.xz [RESULTS_DIR] [extra translate-bench options]
# TOLK_DEVICE_PARTS picks what runs (default "apertium neural"; one part per call keeps each under a 10-minute limit):
#   apertium  Tolk with its defaults, the bare route and the raw engine at 8, 32 and 64 clients, then all three at
#             16 pipelines, the equal-settings comparison (3.5 min on 2 cores)
#   neural    one generated en-es direction at 64 concurrent one-sentence requests with 1 worker and with one per
#             core; ten generated base-memory directions visited in turn against one (3 min on 2 cores)
# Writes translate-*.md, bergamot-*.md (the benches' tables), progress.txt and cpu.txt to RESULTS_DIR (default: $OUT,
# else ./results).
set -euo pipefail

if [[ "${1:-}" == --bundle=* ]]; then
  archive="${1#--bundle=}"; shift
  dest="$(mktemp -d)"
  tar -C "$dest" -xJf "$archive"
  exec "$dest/tolk-bench/device-bench.sh" "$@"
fi

B="$(cd "$(dirname "$0")" && pwd)"
results="${1:-${OUT:-$B/results}}"; shift || true
parts=" ${TOLK_DEVICE_PARTS:-apertium neural} "
mkdir -p "$results"
# The pair's mode names its data by absolute path: point it at where the bundle was unpacked.
sed -i "s|@BUNDLE@|$B|g" "$B"/apertium/modes/*.mode
export PATH="$B/bin:$B/apertium/bin:$PATH"
export LD_LIBRARY_PATH="$B/apertium/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TOLK_APERTIUM_MODES_DIR="$B/apertium/modes"
export TOLK_FLORES_DIR="$B/flores-dev"
export TOLK_BERGAMOT_VOCABS="$B/bergamot-vocabs"
# The tagger shim compiled where the bundle was built (no compiler here), where the engine looks for it.
shim_dir="${TMPDIR:-/tmp}/tolk-$(id -u)"
mkdir -p "$shim_dir" && chmod 700 "$shim_dir"
cp "$B"/tagger-shim/*.so "$shim_dir"/ 2>/dev/null || echo "no compiled tagger shim in the bundle: the tagger relay is used"

{ nproc; free -g; uname -a; node --version; } > "$results/cpu.txt" 2>&1
cd "$B"
run() {
  local out="$1"; shift
  echo "== $(date -u +%T) $out: $*" | tee -a "$results/progress.txt"
  node "$@" > "$results/$out.md" 2>> "$results/progress.txt" || echo "$out failed" | tee -a "$results/progress.txt"
}
bench() {
  local name="$1"; shift
  run "translate-$name" dist/bench/translate.js --client=node --texts=short --modes=concurrent --duration=4000 --warmup=3000 --rounds=3 "$@"
}
if [[ "$parts" == *" apertium "* ]]; then
  # Tolk with its defaults, the bare route and the raw engine at 8, 32 and 64 clients; then the bare route and the
  # engine at the pipelines Tolk's default gives this machine, for the equal-settings comparison.
  bench defaults --only=engine,tolk,bare --concurrency=8,32,64 "$@"
  TOLK_APERTIUM_PIPELINES_PER_PAIR=16 bench pipelines-16 --only=engine,tolk,bare --concurrency=64 --pipelines=16 "$@"
fi
if [[ "$parts" == *" neural "* ]]; then
  cores="$(nproc)"
  # One direction: sentences/s at 64 concurrent with one worker, then with one worker per core (engine and HTTP),
  # with the process's peak RSS against the default memory budget.
  run bergamot-workers-1 dist/bench/bergamot.js --engine-only --concurrency=64 --workers=1 --duration=6000 --rounds=3
  run "bergamot-workers-$cores" dist/bench/bergamot.js --concurrency=64 --workers="$cores" --duration=6000 --rounds=3
  # Ten base-memory directions visited in turn against one, the default budget, one worker per core.
  run bergamot-ten-directions dist/bench/bergamot-memory.js --order=round-robin --directions=1,10 --workers="$cores" --clients=8 --duration=30000
fi
echo "== $(date -u +%T) done" >> "$results/progress.txt"
