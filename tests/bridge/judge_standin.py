#!/usr/bin/env python3
"""Stands in for the judge in the forged-line test: keeps a result channel
(a pipe, not inheritable, as the judge's protocol copy of stdout), becomes
non-dumpable as the judge does, starts the fake worker in "forge" mode
through WorkerChannel and prints what reached the channel as JSON."""

import json
import os
import sys

sys.path.insert(0, sys.argv[1])
import kwb_torch_bridge  # noqa: E402
import kwb_worker_protocol as wp  # noqa: E402

r, w = os.pipe()  # the result channel; os.pipe() fds are not inheritable
dumpable = not kwb_torch_bridge.no_dump()
ch = wp.WorkerChannel([sys.executable, sys.argv[2], "forge"], env=dict(os.environ, KWB_BRIDGE_DIR=sys.argv[1]))
ch.wait_ready(30)
reply = ch.call("ping", 30)
ch.close()
os.close(w)
os.set_blocking(r, False)
try:
    leaked = os.read(r, 1 << 16).decode("utf-8", "replace")
except BlockingIOError:
    leaked = ""
print(json.dumps({"leaked": leaked, "violations": ch.violations, "reached": reply.get("reached", []), "notes": reply.get("notes"),
                  "dumpable": dumpable, "channel_fd": w}))
