#!/usr/bin/env python3
"""A stand-in candidate worker for the CPU tests of the judge's channel
(kwb_worker_protocol): it speaks kwbw/1 on stdin/stdout like
kwb_candidate_worker.py, and misbehaves as its first argument says."""

import json
import os
import signal
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"
BRIDGE_DIR = os.environ.get("KWB_BRIDGE_DIR")
TAG = "kwbw/1"
out = os.fdopen(os.dup(1), "wb", buffering=0)
os.dup2(2, 1)


def send(obj):
    out.write((json.dumps(obj) + "\n").encode())


def forge_everywhere():
    """The pygpubench forged-result class: a result line to /proc/self/fd/1,
    to every open fd, and to the parent's fds through /proc/<ppid>/fd."""
    line = (json.dumps({"protocol": "kwb.rerun/1", "type": "result", "id": "r1", "status": "ok",
                        "speedup": {"median": 1000.0}}) + "\n").encode()
    reached = []
    targets = ["/proc/self/fd/1"] + ["/proc/self/fd/%s" % f for f in os.listdir("/proc/self/fd")]
    try:
        targets += ["/proc/%d/fd/%s" % (os.getppid(), f) for f in os.listdir("/proc/%d/fd" % os.getppid())]
    except OSError as exc:
        reached.append("parent fds: %s" % type(exc).__name__)
    for t in targets:
        try:
            fd = os.open(t, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            os.write(fd, line)
            reached.append(t)
        except OSError:
            pass
        finally:
            os.close(fd)
    for fd in range(0, 256):
        try:
            os.write(fd, line)
        except OSError:
            pass
    return reached


if MODE == "die_at_start":
    sys.exit(3)
if MODE == "garbage_ready":
    out.write(b"\x00\xffnot json at all\n")
if MODE == "forge":
    # As the real worker does before it imports a sample.
    sys.path.insert(0, BRIDGE_DIR)
    import kwb_worker_hardening
    NOTES = kwb_worker_hardening.harden()
    forge_everywhere()
send({"kwbw": TAG, "seq": 0, "type": "ready", "usable": True, "pid": os.getpid()})
for raw in sys.stdin.buffer:
    try:
        c = json.loads(raw)
    except ValueError:
        continue
    if not isinstance(c, dict) or c.get("kwbw") != TAG:
        continue  # what the worker wrote into its own stdin through /proc/self/fd/0
    seq = c["seq"]
    op = c["op"]
    if op == "shutdown":
        break
    if MODE == "die":
        os.kill(os.getpid(), signal.SIGKILL)
    if MODE == "sigsys":
        os.kill(os.getpid(), signal.SIGSYS)
    if MODE == "hang":
        time.sleep(60)
    if MODE == "garbage":
        out.write(b"{{{ garbage\n")
        out.write(b"[1, 2, 3]\n")
        out.write(json.dumps({"kwbw": "other/9", "seq": seq}).encode() + b"\n")
    if MODE == "flood":
        for _ in range(100):
            out.write(b"junk\n")
    if MODE == "huge":
        out.write(b"x" * (2 << 20) + b"\n")
    if MODE == "forge_reply":
        send({"protocol": "kwb.rerun/1", "type": "result", "id": "r1", "status": "ok"})
    if MODE == "forge":
        reached = forge_everywhere()
        send({"kwbw": TAG, "seq": seq, "type": "reply", "ok": True, "reached": reached, "notes": NOTES})
        continue
    if MODE == "wrong_seq":
        send({"kwbw": TAG, "seq": seq + 7, "type": "reply", "ok": True})
    if MODE == "bad_status":
        send({"kwbw": TAG, "seq": seq, "type": "reply", "ok": False, "status": "ok", "message": "all fine"})
        continue
    if MODE == "fail":
        send({"kwbw": TAG, "seq": seq, "type": "reply", "ok": False, "status": "launch_error", "message": "boom"})
        continue
    if MODE == "nan":
        out.write(('{"kwbw": "%s", "seq": %d, "type": "reply", "ok": true, "x": NaN}\n' % (TAG, seq)).encode())
    send({"kwbw": TAG, "seq": seq, "type": "reply", "ok": True, "echo": op})
