#!/usr/bin/env python3
"""How long the benchmark's writers waited for a core after being woken, and what ran on that core meanwhile.

Record the scheduler's events of a profile run, system-wide, on the monotonic clock:

    perf record -k CLOCK_MONOTONIC -a -e sched:sched_switch,sched:sched_wakeup -o sched.data -- \\
        FileStoreBenchmarks profile during file 1000 300
    perf script -i sched.data -F comm,tid,cpu,time,event,trace > sched.txt
    python3 Benchmarks/Scripts/wakeup_delays.py sched.txt

For every wake-up of a Swift concurrency thread (the writer runs on one; `perf` shows them as `oot.default-qos`),
the delay until it was switched in. Delays over 200 us are attributed to the thread that held the target core when
the wake-up came (`command#tid`; `swapper/N#0` is an idle core that took that long to wake, which on a virtual
machine is the hypervisor's doing).
"""
import collections
import re
import sys

EVENT = re.compile(r"\s*(.+?)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s+(.*)")
WAKEUP = re.compile(r"comm=(\S+) pid=(\d+) .*target_cpu=(\d+)")
SWITCH = re.compile(r"prev_comm=(.+?) prev_pid=(\d+) .*next_comm=(.+?) next_pid=(\d+)")
WATCHED = "oot.default-qos"
SLOW_US = 200


def main(path):
    pending = {}  # tid -> (woken at, what held the target core)
    running = {}  # cpu -> "command#tid"
    delays = []
    culprits = collections.Counter()
    with open(path) as events:
        for line in events:
            match = EVENT.match(line)
            if not match:
                continue
            _, _, cpu, time, event, rest = match.groups()
            time, cpu = float(time), int(cpu)
            if event == "sched:sched_wakeup":
                woken = WAKEUP.search(rest)
                if woken and woken.group(1) == WATCHED:
                    target = int(woken.group(3))
                    pending[int(woken.group(2))] = (time, running.get(target, "?"))
            elif event == "sched:sched_switch":
                switch = SWITCH.search(rest)
                if not switch:
                    continue
                running[cpu] = switch.group(3) + "#" + switch.group(4)
                tid = int(switch.group(4))
                if tid in pending:
                    woken_at, holder = pending.pop(tid)
                    delay = (time - woken_at) * 1e6
                    delays.append(delay)
                    if delay > SLOW_US:
                        culprits[holder] += 1
    if not delays:
        sys.exit("no wake-ups of %s threads in %s" % (WATCHED, path))
    delays.sort()
    count = len(delays)
    print(
        "wake-ups %d  p50 %.0f us  p99 %.0f us  max %.0f us  over %d us: %d  over 1 ms: %d"
        % (count, delays[count // 2], delays[int(count * 0.99)], delays[-1], SLOW_US,
           sum(1 for d in delays if d > SLOW_US), sum(1 for d in delays if d > 1000)))
    for holder, times in culprits.most_common(8):
        print("  %4d  %s" % (times, holder))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: wakeup_delays.py <perf script output>")
    main(sys.argv[1])
