#!/usr/bin/env python3
"""Peer for bench_records_load: json.loads per line and the same summary
fields pulled out, timed on the same file in the same run."""
import json
import sys
import time

path = sys.argv[1]
size = 0
best = None
for _ in range(3):
    t0 = time.perf_counter()
    n = 0
    speedups = []
    with open(path, "rb") as f:
        for line in f:
            size += len(line) if n >= 0 and _ == 0 else 0
            rec = json.loads(line)
            n += 1
            if rec.get("status", {}).get("outcome") == "correct" and rec.get("speedup") is not None:
                speedups.append(rec["speedup"])
    dt = time.perf_counter() - t0
    best = dt if best is None or dt < best else best
print(f"python json.loads per line: {n} records, best {best:.3f} s = {size / best / 1e6:.0f} MB/s")
