#!/usr/bin/env python3
"""The Python peer of bench_trace_ingest: json.load the whole Kineto trace,
then classify every GPU activity's name with the same rule table (Python
regexes, each distinct name classified once) and sum durations per family.

    python3 bench/py_trace_baseline.py TRACE.json RULES.json

Prints one JSON line: seconds, peak RSS, total GPU µs, addressable fraction.
"""
import json
import re
import resource
import sys
import time


def main():
    trace_path, rules_path = sys.argv[1], sys.argv[2]
    with open(rules_path) as f:
        table = json.load(f)
    rules = sorted(enumerate(table["rules"]), key=lambda ir: (-ir[1].get("priority", 0), ir[0]))
    compiled = [(re.compile(r["pattern"], re.I if r.get("ignore_case") else 0), r.get("kind", "any"), r) for _, r in rules]
    kinds = {"kernel": "kernel", "Kernel": "kernel", "gpu_memcpy": "memcpy", "Memcpy": "memcpy",
             "gpu_memset": "memset", "Memset": "memset"}

    t0 = time.perf_counter()
    with open(trace_path, "rb") as f:
        doc = json.load(f)
    t_load = time.perf_counter() - t0

    cache = {}
    per_family = {}
    total = 0.0
    addressable = 0.0
    count = 0
    for ev in doc["traceEvents"]:
        if ev.get("ph") != "X":
            continue
        kind = kinds.get(ev.get("cat"))
        if kind is None:
            continue
        name = ev.get("name", "")
        key = (name, kind)
        rule = cache.get(key, False)
        if rule is False:
            rule = None
            for rx, rkind, r in compiled:
                if (rkind == "any" or rkind == kind) and rx.search(name):
                    rule = r
                    break
            cache[key] = rule
        dur = float(ev.get("dur", 0))
        fam = rule["family"] if rule else "unclassified"
        per_family[fam] = per_family.get(fam, 0.0) + dur
        total += dur
        if rule and rule["addressable"]:
            addressable += dur
        count += 1
    seconds = time.perf_counter() - t0
    print(json.dumps({
        "seconds": seconds,
        "load_seconds": t_load,
        "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "activities": count,
        "gpu_us": total,
        "addressable_fraction": addressable / total if total else 0.0,
        "families": len(per_family),
    }))


if __name__ == "__main__":
    main()
