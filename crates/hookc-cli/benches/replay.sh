#!/usr/bin/env bash
# Replay throughput and peak memory of `hookc eval --events` and `hookc diff`
# on a generated log of seed-shaped events (README, "Performance", "Replay
# throughput and memory"). Usage, from the repository root:
#
#   bash crates/hookc-cli/benches/replay.sh [SIZE_MB] [RUNS]
#
# SIZE_MB (default 1024) is the log's size; RUNS (default 3) how often each
# measurement runs (the fastest run is reported: on a shared machine the
# others measure the neighbours). The log is written to a temporary
# directory and deleted at the end. Needs GNU time (/usr/bin/time) for the
# peak resident memory.
set -euo pipefail
SIZE_MB=${1:-1024}
RUNS=${2:-3}
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release -q -p hookc-cli --bin hookc --example replay_log
HOOKC=$TARGET/release/hookc
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
"$TARGET/release/examples/replay_log" "$DIR/events.jsonl" "$SIZE_MB" 2>/dev/null
LOG=$DIR/events.jsonl
EVENTS=$(wc -l <"$LOG")
BYTES=$(stat -c %s "$LOG")
"$HOOKC" compile crates/hookc/benches/data/seed/policy.yaml -o "$DIR/old.hkb" 2>/dev/null
"$HOOKC" compile examples/policy.xml -o "$DIR/new.hkb" 2>/dev/null
CORES=$(nproc)
echo "log: $EVENTS events, $((BYTES >> 20)) MiB; $CORES cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')); load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %5s %9s %12s %9s %9s %11s\n' what jobs seconds events/s MB/s "peak MB" "CPU us/ev"

# Runs "$@" RUNS times; prints the fastest run's wall time and CPU time
# (user + system), and the largest peak RSS. CPU time per event is the
# steadier number on a shared machine: waiting for a core is not in it.
best() {
  local secs=1e9 cpu=0 rss=0 s r u y
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f '%e %M %U %S' -o "$DIR/time" "$@" >/dev/null 2>/dev/null || [ $? -le 2 ]
    # GNU time writes "Command exited with non-zero status N" first for
    # `diff`'s exit 1; the numbers are the last line.
    read -r s r u y < <(tail -n 1 "$DIR/time")
    if awk -v a="$s" -v b="$secs" 'BEGIN { exit !(a < b) }'; then
      secs=$s
      cpu=$(awk -v u="$u" -v y="$y" 'BEGIN { print u + y }')
    fi
    rss=$(( r > rss ? r : rss ))
  done
  echo "$secs $rss $cpu"
}

row() { # what jobs seconds rss-KiB cpu-seconds
  awk -v w="$1" -v j="$2" -v s="$3" -v r="$4" -v c="$5" -v e="$EVENTS" -v b="$BYTES" \
    'BEGIN { printf "%-34s %5s %9.2f %12.0f %9.1f %9.1f %11.2f\n", w, j, s, e/s, b/s/1048576, r/1024, c*1e6/e }'
}

for jobs in 1 "$CORES"; do
  read -r s r c < <(best "$HOOKC" eval "$DIR/old.hkb" --events "$LOG" --jobs "$jobs")
  row "eval --events (lines to /dev/null)" "$jobs" "$s" "$r" "$c"
  read -r s1 r c < <(best "$HOOKC" eval "$DIR/old.hkb" --events "$LOG" --jobs "$jobs" --summary)
  row "eval --events --summary (old)" "$jobs" "$s1" "$r" "$c"
  read -r s2 r c < <(best "$HOOKC" eval "$DIR/new.hkb" --events "$LOG" --jobs "$jobs" --summary)
  row "eval --events --summary (new)" "$jobs" "$s2" "$r" "$c"
  read -r s r c < <(best "$HOOKC" diff "$DIR/old.hkb" "$DIR/new.hkb" --events "$LOG" --jobs "$jobs")
  row "diff old new" "$jobs" "$s" "$r" "$c"
  awk -v d="$s" -v a="$s1" -v b="$s2" -v j="$jobs" \
    'BEGIN { printf "diff throughput / replaying twice (jobs %s): %.2fx\n", j, (a + b) / d }'
done
