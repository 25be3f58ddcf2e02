#!/usr/bin/env python3
"""CPU time and system calls per request of each thread of a running server, over one wrk load.

Rates on a shared machine are noise; CPU time per request is much less so. This reads every thread's on-CPU time
(/proc/PID/task/TID/schedstat), user and system ticks (stat) and write/read system-call counts (io) before and after
running wrk with the given arguments, and prints each thread's share per request. Threads with the same name are added
up; threads that carry only the binary's name (on Linux: main, the writer, the checkpointer, the listener hub) are
listed one by one, the busiest under a write load being the writer.

    threads.py PID -- -t2 -c32 -d5s -s create.lua http://127.0.0.1:PORT/v1/projects/demo/databases/(default)/documents/bench
"""
import collections
import os
import re
import subprocess
import sys


def snapshot(pid):
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            base = f"/proc/{pid}/task/{tid}"
            comm = open(f"{base}/comm").read().strip()
            stat = open(f"{base}/stat").read()
            fields = stat[stat.rindex(")") + 2:].split()
            io = dict(line.split(": ") for line in open(f"{base}/io").read().splitlines())
            threads[tid] = (
                comm, int(open(f"{base}/schedstat").read().split()[0]), int(fields[11]), int(fields[12]),
                int(io["syscw"]), int(io["syscr"]))
        except (FileNotFoundError, ProcessLookupError):
            pass
    return threads


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit(__doc__)
    pid = int(sys.argv[1])
    binary = open(f"/proc/{pid}/comm").read().strip()
    before = snapshot(pid)
    run = subprocess.run(["wrk"] + sys.argv[3:], capture_output=True, text=True)
    after = snapshot(pid)
    print(run.stdout)
    match = re.search(r"(\d+) requests in", run.stdout)
    if not match or run.returncode != 0:
        sys.exit("wrk failed: " + run.stderr)
    requests = int(match.group(1))
    ticks = os.sysconf("SC_CLK_TCK")
    totals = collections.defaultdict(lambda: [0, 0, 0, 0, 0, 0])
    for tid, (comm, ns, user, system, writes, reads) in after.items():
        start = before.get(tid, (comm, 0, 0, 0, 0, 0))
        name = f"{comm}[{tid}]" if comm == binary else comm
        row = totals[name]
        for index, value in enumerate((ns, user, system, writes, reads)):
            row[index] += value - start[index + 1]
        row[5] += 1
    everything = 0
    for name, (ns, user, system, writes, reads, count) in sorted(totals.items(), key=lambda item: -item[1][0]):
        if ns == 0:
            continue
        everything += ns
        print(
            f"{name:24s} threads={count:2d} cpu/request={ns / requests / 1000:7.2f} us"
            f" (user {user / ticks / requests * 1e6:6.2f}, system {system / ticks / requests * 1e6:6.2f})"
            f" write calls/request={writes / requests:6.2f} read calls/request={reads / requests:6.2f}")
    print(f"{'all threads':24s} cpu/request={everything / requests / 1000:7.2f} us over {requests} requests")


if __name__ == "__main__":
    main()
