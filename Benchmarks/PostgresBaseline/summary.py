#!/usr/bin/env python3
"""Summarises bench.sh results as Markdown: summary.py RESULTS.tsv [MORE.tsv ...].

Per post count, route and server: the median over the rounds and the min-max; the reference server's requests per
second over the bare server's, taken within each round; and, given two post counts, each server's p99 at the larger
count over its p99 at the smaller one: within each round when one run interleaved both counts (bench.sh
10000,1000000), else the ratio of the two runs' medians.
"""
import csv
import os
import statistics
import sys

rows = []
rss = {}
for number, path in enumerate(sys.argv[1:]):
    with open(path) as file:
        read = list(csv.DictReader(file, delimiter="\t"))
    for row in read:
        row["run"] = number
    rows += read
    if os.path.exists(path + ".rss"):
        for line in open(path + ".rss"):
            fields = line.split()
            if len(fields) == 4:  # server, posts, current, peak
                rss[(fields[1], fields[0])] = (int(fields[2]), int(fields[3]))
            else:  # a run of one post count: server, current, peak
                posts = read[-1]["posts"] if read else "?"
                rss[(posts, fields[0])] = (int(fields[1]), int(fields[2]))


def spread(values, fmt="{:,.0f}"):
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}–{fmt.format(max(values))})"


def pick(posts, route, server, field):
    return [float(r[field]) for r in rows if (r["posts"], r["route"], r["server"]) == (posts, route, server)]


NAMES = {"pg": "reference, PostgreSQL", "bare": "bare Hummingbird + postgres-nio", "file": "reference, file store"}
post_counts = sorted({r["posts"] for r in rows}, key=int)
for posts in post_counts:
    rounds = len({r["round"] for r in rows if r["posts"] == posts})
    print(f"\n{int(posts):,} posts, {rounds} rounds; median (min–max over the rounds)\n")
    print("| Route | Server | req/s | p50 ms | p99 ms | server CPU µs/req | PostgreSQL CPU µs/req | errors |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for route in ("feed", "search", "author", "create"):
        for server in ("pg", "bare", "file"):
            rps = pick(posts, route, server, "rps")
            if not rps:
                continue
            errors = int(sum(pick(posts, route, server, "errors")))
            print(f"| {route} | {NAMES[server]} | {spread(rps)} | {spread(pick(posts, route, server, 'p50'), '{:.1f}')} | "
                  f"{spread(pick(posts, route, server, 'p99'), '{:.1f}')} | {spread(pick(posts, route, server, 'server_cpu_us'))} | "
                  f"{spread(pick(posts, route, server, 'pg_cpu_us'))} | {errors} |")
    print("\n| Route | reference ÷ bare req/s, per round (goal ≥ 0.5) |")
    print("|---|---:|")
    for route in ("feed", "search", "author", "create"):
        ratios = []
        for rnd in sorted({r["round"] for r in rows if r["posts"] == posts}):
            values = {r["server"]: float(r["rps"]) for r in rows
                      if (r["posts"], r["route"], r["round"]) == (posts, route, rnd)}
            if "pg" in values and "bare" in values:
                ratios.append(values["pg"] / values["bare"])
        if ratios:
            print(f"| {route} | {spread(ratios, '{:.2f}')}× |")
    for server in ("pg", "bare", "file"):
        if (posts, server) in rss:
            current, peak = rss[(posts, server)]
            print(f"\nRSS at the end, {NAMES[server]}: {current / 1024:,.0f} MiB (peak {peak / 1024:,.0f} MiB)")

if len(post_counts) >= 2:
    small, large = post_counts[0], post_counts[-1]
    together = {r["run"] for r in rows if r["posts"] == small} & {r["run"] for r in rows if r["posts"] == large}
    how = "per round, median (min–max)" if together else "median over median, two runs"
    print(f"\n| Route | Server | p99 at {int(large):,} ÷ p99 at {int(small):,}, {how} (goal ≤ 1.2) |")
    print("|---|---|---:|")
    for route in ("feed", "search", "author", "create"):
        for server in ("pg", "bare"):
            if together:
                ratios = []
                for run in sorted(together):
                    for rnd in sorted({r["round"] for r in rows if r["run"] == run}):
                        p99 = {r["posts"]: float(r["p99"]) for r in rows
                               if (r["run"], r["round"], r["route"], r["server"]) == (run, rnd, route, server)}
                        if small in p99 and large in p99:
                            ratios.append(p99[large] / p99[small])
                if ratios:
                    print(f"| {route} | {NAMES[server]} | {spread(ratios, '{:.2f}')}× |")
                continue
            a, b = pick(small, route, server, "p99"), pick(large, route, server, "p99")
            if a and b:
                print(f"| {route} | {NAMES[server]} | {statistics.median(b) / statistics.median(a):.2f}× |")
    for server in ("pg", "bare"):
        if (small, server) in rss and (large, server) in rss:
            print(f"\nRSS {NAMES[server]}: {rss[(large, server)][0] / rss[(small, server)][0]:.2f}× "
                  f"at {int(large):,} posts vs {int(small):,} (goal ≤ 1.2)")
