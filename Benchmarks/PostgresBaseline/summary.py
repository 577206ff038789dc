#!/usr/bin/env python3
"""Summarises bench.sh results as Markdown: summary.py RESULTS.tsv [MORE.tsv ...].

Per post count, route and server: the median over the rounds and the min-max; the reference server's requests per
second over the bare server's, taken within each round; and, given runs at two post counts, each server's p99 at
the larger count over its p99 at the smaller one.
"""
import csv
import os
import statistics
import sys

rows = []
rss = {}
for path in sys.argv[1:]:
    with open(path) as file:
        rows += list(csv.DictReader(file, delimiter="\t"))
    if os.path.exists(path + ".rss"):
        posts = rows[-1]["posts"] if rows else "?"
        for line in open(path + ".rss"):
            server, current, peak = line.split()
            rss[(posts, server)] = (int(current), int(peak))


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
    print(f"\n| Route | Server | p99 at {int(large):,} ÷ p99 at {int(small):,} (goal ≤ 1.2) |")
    print("|---|---|---:|")
    for route in ("feed", "search", "author", "create"):
        for server in ("pg", "bare"):
            a, b = pick(small, route, server, "p99"), pick(large, route, server, "p99")
            if a and b:
                print(f"| {route} | {NAMES[server]} | {statistics.median(b) / statistics.median(a):.2f}× |")
    for server in ("pg", "bare"):
        if (small, server) in rss and (large, server) in rss:
            print(f"\nRSS {NAMES[server]}: {rss[(large, server)][0] / rss[(small, server)][0]:.2f}× "
                  f"at {int(large):,} posts vs {int(small):,} (goal ≤ 1.2)")
