#!/usr/bin/env python3
"""Times whole processes as a host runs a hook: each command started with
one payload on standard input, its output read to the end, one after the
other (A B C A B C ...), after a warm-up round. Prints the median and the
90th percentile of each command's wall time, and each command's median
ratio to the first, taken pair by pair so that a drift of the machine's
speed cancels out.

    python3 timing.py --runs N --payload FILE -- 'CMD A' 'CMD B' ...
"""

import argparse
import shlex
import statistics
import subprocess
import time


def once(argv, payload: bytes) -> float:
    start = time.perf_counter_ns()
    subprocess.run(argv, input=payload, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter_ns() - start) / 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--payload", required=True)
    ap.add_argument("commands", nargs="+")
    a = ap.parse_args()
    payload = open(a.payload, "rb").read()
    cmds = [shlex.split(c) for c in a.commands]
    for argv in cmds:
        once(argv, payload)
    times = [[] for _ in cmds]
    for _ in range(a.runs):
        for i, argv in enumerate(cmds):
            times[i].append(once(argv, payload))
    base = times[0]
    print(f"{a.runs} runs each, payload {a.payload}")
    for c, t in zip(a.commands, times):
        ratio = statistics.median(x / b for x, b in zip(t, base))
        p90 = statistics.quantiles(t, n=10)[-1]
        print(f"  {statistics.median(t):8.2f} ms median  {p90:8.2f} ms p90  "
              f"{ratio:6.2f}x the first  {c}")


if __name__ == "__main__":
    main()
