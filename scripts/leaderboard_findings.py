#!/usr/bin/env python3
"""What a `kwb verify` of the KernelBench leaderboard found, as markdown:
re-run outcomes, flags, claimed against re-measured speedups per model, the
largest claims with their verdicts, and every record of one problem in detail.

    scripts/leaderboard_findings.py VERIFIED.jsonl [--kwb build/app/kwb/kwb] [--problem 1:12] [--top 15]

VERIFIED.jsonl (or .jsonl.gz): kwb verify's output (native records; the claim is the
record's own speedup and outcome, the re-run is verification.rerun). Every
verdict printed here is core's: flags, outputs and coverage read from the
records, and each claim's verdict from `kwb summary --format json` (the
"claims" member, core/analysis/claims); this script only counts and
tabulates them."""

import argparse
import collections
import gzip
import json
import os
import statistics
import subprocess
import sys



def load(path):
    rows = []
    with (gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else open(path, encoding="utf-8")) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rows.append(json.loads(line))
            except ValueError as exc:
                sys.exit("%s:%d: not JSON: %s" % (path, n, exc))
    return rows


def facts(r):
    v = r.get("verification") or {}
    rr = v.get("rerun") or {}
    flags = v.get("flags") or []
    codes = [f.get("code") for f in flags]
    outs = rr.get("outputs") or []
    cov = [c.get("written_fraction") for c in (v.get("coverage") and [v["coverage"]] or [])]
    cov += [(c.get("coverage") or {}).get("written_fraction") for c in rr.get("coverage") or []]
    cov = [c for c in cov if isinstance(c, (int, float))]
    own = rr.get("own_kernels") or {}
    status = rr.get("status") or "not_run"
    correct = status == "ok" and bool(outs) and all(o.get("passed") for o in outs)
    claim = r.get("speedup")
    claimed_correct = (r.get("status") or {}).get("correct")
    return {
        "id": r.get("id", ""), "model": r.get("model", "?"), "level": (r.get("problem") or {}).get("level"),
        "problem": (r.get("problem") or {}).get("id"), "name": rr.get("problem_id", ""),
        "claim": claim if isinstance(claim, (int, float)) else None, "claimed_correct": claimed_correct,
        "status": status, "correct": correct, "speedup": rr.get("speedup"), "codes": codes,
        "errors": [f.get("code") for f in flags if f.get("severity") == "error"], "coverage": min(cov) if cov else None,
        "own_share": own.get("share"), "flags": flags, "message": rr.get("message", ""),
        "trials": (rr.get("candidate_timing") or {}).get("trials"),
        "max_abs": max((o.get("max_abs_error") for o in outs if isinstance(o.get("max_abs_error"), (int, float))),
                       default=None),
        "tolerance": (rr.get("tolerance") or {}).get("atol"),
        "events_ms": (rr.get("candidate_timing") or {}).get("median_ms"),
        "host_ms": (rr.get("host_timing") or {}).get("candidate_ms"),
        "cupti": rr.get("candidate_cupti") or {},
    }


def host_clock_flag(f):
    """The flag core raised from the host clock above the events: timer_mismatch (a trace of
    hidden work) or host_bound_timing (the call's own host time), whose reason starts so."""
    for fl in f["flags"]:
        if fl.get("code") == "timer_mismatch" or (fl.get("code") == "host_bound_timing"
                                                  and (fl.get("reason") or "").startswith("the host wall clock")):
            return fl.get("code")
    return None


def timer_section(rows):
    """The records whose host clock disagreed with their events, with what the
    CUPTI window saw per call and core's reading of it: many launches or host
    syncs per call on one stream are the call's own host time (host_bound_timing),
    a copy or kernel elsewhere or kernel time beyond the brackets hidden work
    (timer_mismatch)."""
    tm = [f for f in rows if host_clock_flag(f)]
    if not tm:
        return
    print("\n## Host clock against events\n")
    print("Per call: the events' median, the judge's host clock, and what CUPTI saw in the timed window "
          "(GPU time, kernels and device-host copies per trial), with the flag core raised. A copy inside "
          "the call synchronises the host; many launches per call make it launch-bound; either way the "
          "extra host time is the call's real cost, which the events leave out.\n")
    print("| model | problem | events ms | host ms | GPU ms per trial (CUPTI) | kernels per trial | copies per trial | "
          "flag | also |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for f in sorted(tm, key=lambda f: (f["level"] or 0, f["problem"] or 0, f["model"])):
        cu, n = f["cupti"], f["trials"] or 0
        per = lambda key: (cu.get(key) or 0) / n if n and cu.get("available") else None
        gpu = ((cu.get("kernel_ms") or 0) + (cu.get("mem_op_ms") or 0)) / n if n and cu.get("available") else None
        also = [c for c in f["codes"] if c in ("library_dominated", "incorrect")]
        print("| %s | L%s/%s %s | %s | %s | %s | %s | %s | %s | %s |" % (
            f["model"], f["level"], f["problem"], f["name"].split("_", 3)[-1][:24], fmt(f["events_ms"], "%.4g"),
            fmt(f["host_ms"], "%.4g"), fmt(gpu, "%.4g"), fmt(per("kernel_count"), "%.0f"),
            fmt(per("memcpy_count"), "%.1f"), host_clock_flag(f), ", ".join(also) or "-"))


def core_claims(kwb, path):
    """Core's claim verdicts: `kwb summary --format json --claims yes`'s "claims" member."""
    try:
        out = subprocess.run([kwb, "summary", "--format", "json", "--claims", "yes", path], check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        sys.exit("%s: kwb summary failed: %s" % (kwb, exc))
    return json.loads(out)["claims"]


def verdict(f):
    return "correct" if f["correct"] else "incorrect" if f["status"] == "ok" else f["status"]


def fmt(x, spec="%.2f"):
    return "-" if x is None else spec % x


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("verified")
    ap.add_argument("--problem", default="1:12", help="LEVEL:ID of the problem to list record by record")
    ap.add_argument("--top", type=int, default=15, help="how many of the largest claims to list")
    ap.add_argument("--kwb", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "app",
                                                  "kwb", "kwb"), help="the kwb binary (core's claim verdicts)")
    a = ap.parse_args()
    rows = [facts(r) for r in load(a.verified)]
    n = len(rows)
    print("# The KernelBench leaderboard re-verified (%d records)\n" % n)

    st = collections.Counter(f["status"] for f in rows)
    ok = [f for f in rows if f["status"] == "ok"]
    correct = [f for f in ok if f["correct"]]
    clean = [f for f in correct if not f["errors"]]
    print("## Re-run outcomes\n")
    print("| re-run status | records |\n| --- | --- |")
    for k, c in st.most_common():
        print("| %s | %d |" % (k, c))
    claimed_ok = sum(1 for f in rows if f["claimed_correct"])
    print("\nClaimed correct: %d of %d. Re-run correct on fresh inputs (every output within tolerance on every "
          "trial): %d; of those with no error flag: %d.\n" % (claimed_ok, n, len(correct), len(clean)))
    both = collections.Counter((bool(f["claimed_correct"]), f["correct"]) for f in rows if f["status"] == "ok")
    print("| claimed correct | re-run correct | records |\n| --- | --- | --- |")
    for (cc, rc), c in sorted(both.items(), reverse=True):
        print("| %s | %s | %d |" % ("yes" if cc else "no", "yes" if rc else "no", c))

    wrong = [f for f in ok if not f["correct"]]
    if wrong:
        tol = collections.Counter(f["tolerance"] for f in wrong)
        loose = [f for f in wrong if f["max_abs"] is not None and f["max_abs"] <= 1e-2]
        print("\nOf the %d re-run incorrect (at atol = rtol = %s), %d have every error within 1e-2 in absolute "
              "terms and so pass the 1e-2 tolerance KernelBench used when the leaderboard was made; the other %d "
              "are off by more than 1e-2 somewhere (they pass at 1e-2 only where the reference is large enough "
              "for rtol to cover them).\n" % (len(wrong), "/".join("%g" % t for t in tol if t is not None),
                                              len(loose), len(wrong) - len(loose)))

    print("\n## Flags (records carrying each)\n")
    fc = collections.Counter(c for f in rows for c in set(f["codes"]))
    print("| flag | records | severity |\n| --- | --- | --- |")
    for k, c in fc.most_common():
        sev = next((x.get("severity", "") for f in rows for x in f["flags"] if x.get("code") == k), "")
        print("| %s | %d | %s |" % (k, c, sev))
    partial = [f for f in rows if f["coverage"] is not None and f["coverage"] < 1.0]
    print("\nPartially written outputs (coverage < 100%%): %d records%s." % (
        len(partial), "" if not partial else ": " + ", ".join(
            "%s L%s/%s %s %.1f%%" % (f["model"], f["level"], f["problem"], f["id"][-8:], 100 * f["coverage"])
            for f in partial[:12])))

    timer_section(rows)

    claims = core_claims(a.kwb, a.verified)
    print("\n## Claimed against re-measured speedup, per model\n")
    print("Core's claim verdicts (`kwb summary --claims`, the window's claims view): a claim is a record's own "
          "speedup above %g (KernelBench's, on its hardware); it survives when the re-run is correct, carries no "
          "flag above a note and is still faster than the baseline, and holds when it re-measures at least %.0f%% "
          "of the claim.\n" % (claims["min_claim"], 100 * claims["hold_ratio"]))
    print("| model | records | claims | survive | holds | smaller | lost | suspect | failed | median re-measured / claimed |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for t in claims["tallies"]:
        print("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %s |" % (
            t["model"], t["records"], t["claims"], t["survived"], t["holds"], t["shrank"], t["lost"], t["suspect"],
            t["failed"], fmt(t.get("median_ratio"))))
    cl = [f["claim"] for f in rows if f["claim"]]
    rm = [f["speedup"] for f in correct if f["speedup"]]
    print("\nMedian claimed speedup %s; median re-measured speedup of the re-run correct %s; re-run correct, "
          "no error flag and faster than eager PyTorch: %d." % (
              fmt(statistics.median(cl) if cl else None), fmt(statistics.median(rm) if rm else None),
              sum(1 for f in clean if f["speedup"] and f["speedup"] > 1)))
    by_id = {p["id"]: p["verdict"] for p in claims["points"]}

    print("\n## The %d largest claims\n" % a.top)
    print("| model | problem | claimed | re-measured | re-run | claim | flags |\n| --- | --- | --- | --- | --- | --- | --- |")
    for f in sorted((f for f in rows if f["claim"]), key=lambda f: -f["claim"])[:a.top]:
        print("| %s | L%s/%s %s | %.2fx | %s | %s | %s | %s |" % (
            f["model"], f["level"], f["problem"], f["name"].split("_", 3)[-1][:28], f["claim"],
            fmt(f["speedup"], "%.2fx"), verdict(f), by_id.get(f["id"], "-"), ", ".join(f["codes"]) or "-"))

    lv, pid = (int(x) for x in a.problem.split(":"))
    sel = [f for f in rows if f["level"] == lv and f["problem"] == pid]
    print("\n## Level %d problem %d, record by record\n" % (lv, pid))
    print("| model | record | claimed | re-measured | re-run | trials | flags and reasons |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for f in sorted(sel, key=lambda f: -(f["claim"] or 0)):
        reasons = "; ".join("%s: %s" % (x.get("code"), x.get("reason", "")[:160]) for x in f["flags"]) or "-"
        print("| %s | %s | %s | %s | %s | %s | %s |" % (
            f["model"], f["id"][-8:], fmt(f["claim"], "%.2fx"), fmt(f["speedup"], "%.2fx"),
            verdict(f), fmt(f["trials"], "%d"), reasons.replace("|", "/")))


if __name__ == "__main__":
    main()
