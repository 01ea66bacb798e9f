#!/usr/bin/env bash
# Runs one fuzz target the way the numbers in README.md were measured:
#   fuzz/run.sh TARGET [SECONDS] [extra libFuzzer flags...]
# Copies the checked-in seeds (fuzz/seeds/TARGET) into the working corpus
# (fuzz/corpus/TARGET, not checked in), then runs libFuzzer single-process at
# the lowest CPU priority. Crashes land in fuzz/artifacts/TARGET/.
set -euo pipefail
target=${1:?usage: fuzz/run.sh TARGET [SECONDS] [libFuzzer flags...]}
secs=${2:-600}
shift $(( $# >= 2 ? 2 : 1 ))
cd "$(dirname "$0")"
mkdir -p "corpus/$target"
# The seeds are authoritative: refresh them (a stale seed of the same name,
# e.g. an artifact of an older format, would otherwise stay).
cp "seeds/$target"/* "corpus/$target/" 2>/dev/null || true
exec nice -n 19 cargo fuzz run --sanitizer none -O "$target" "corpus/$target" -- \
    -jobs=1 -workers=1 -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 "$@"
