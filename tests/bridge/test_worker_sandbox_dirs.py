"""The candidate worker's real sandbox (libkwb_bridge.so's Landlock +
seccomp, entered in a child process) against what the fast build writes:
inside the judge's writable list the light prelude and the precompiled
header's folder can be written and the light tier stays; outside it they
cannot. On an H100 every leaderboard sample once failed its build with
"Permission denied: .../light", the prelude folder missing from that list.

Needs libkwb_bridge.so (KWB_TEST_BRIDGE_LIB, or the build tree's; a CUDA build
makes it) and a kernel with Landlock; skips without."""

import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BRIDGE = os.path.join(ROOT, "app", "runner", "bridge")
sys.path.insert(0, HERE)
sys.path.insert(0, BRIDGE)
from test_fast_build import api, fake_torch_include  # noqa: E402


def bridge_lib():
    path = os.environ.get("KWB_TEST_BRIDGE_LIB")
    if path and os.path.exists(path):
        return path
    found = sorted(glob.glob(os.path.join(ROOT, "build*", "app", "runner", "libkwb_bridge.so")))
    return found[0] if found else None


# Runs in the child: enter the sandbox with the judge's list (less one folder, if asked), then
# do what a build does first. Prints one JSON line.
CHILD = r'''
import json, os, sys
sys.path.insert(0, sys.argv[1])
import kwb_bridge_common as common, kwb_bridge_lib, kwb_fast_build as fb
lib_path, root, inc, drop = sys.argv[2], sys.argv[3], sys.argv[4:6], sys.argv[6]
writable = [d for d in common.worker_writable_dirs(os.path.join(root, "scratch"), root) if not d.endswith("/" + drop)]
for d in writable:
    os.makedirs(d, exist_ok=True)
state, why = kwb_bridge_lib.BridgeLib(lib_path).sandbox_enter(writable)
out = {"state": state, "why": why}
try:
    open(os.path.join(root, "elsewhere"), "w").close()
    out["elsewhere"] = "written"
except OSError as e:
    out["elsewhere"] = type(e).__name__
try:
    out["light"] = fb.light_include_dir("torch::Tensor f(torch::Tensor x) { return torch::zeros_like(x); }", inc, root)
except OSError as e:
    out["light"] = type(e).__name__
try:
    os.makedirs(os.path.join(fb.cache_dirs(root)[0], "digest"))
    out["pch"] = "written"
except OSError as e:
    out["pch"] = type(e).__name__
args = {"cuda_sources": "#include <torch/extension.h>\ntorch::Tensor f(torch::Tensor x) { return torch::zeros_like(x); }\n"}
out["tiers"] = [t for t, _ in fb.build_tiers(args, inc, root)]
print(json.dumps(out))
'''


@unittest.skipUnless(bridge_lib(), "no libkwb_bridge.so (a CUDA build makes it)")
class WorkerSandboxDirs(unittest.TestCase):
    def run_child(self, drop):
        with tempfile.TemporaryDirectory() as root, tempfile.TemporaryDirectory() as inc:
            fake_torch_include(inc)
            p = subprocess.run([sys.executable, "-c", CHILD, BRIDGE, bridge_lib(), root, inc, api(inc), drop],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr[-2000:])
            out = json.loads(p.stdout.strip().splitlines()[-1])
            if out["state"] != "entered" or not out["why"].startswith("landlock"):
                self.skipTest("no Landlock sandbox here: %s %s" % (out["state"], out["why"]))
            self.assertEqual(out["elsewhere"], "PermissionError")  # the sandbox holds
            return out, root

    def test_the_judges_list_lets_a_build_write_what_the_fast_build_writes(self):
        out, root = self.run_child(drop="-")
        self.assertTrue(out["light"].startswith(os.path.join(root, "light")), out)
        self.assertEqual(out["pch"], "written")
        self.assertEqual(out["tiers"], ["fast1+types+light1", "fast1+types", ""])

    def test_without_the_light_folder_the_tier_is_skipped_not_the_build(self):
        out, _root = self.run_child(drop="light")
        self.assertEqual(out["light"], "PermissionError")  # what the H100 run hit
        self.assertEqual(out["tiers"], ["fast1+types", ""])


if __name__ == "__main__":
    unittest.main()
