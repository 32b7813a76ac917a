"""scripts/leaderboard_h200.sh writes the committed leaderboard file only from
a run whose every record ran on an H200: a batch resumed on another GPU (the
device tool lends H100s too) must not replace it. A stand-in kwb stands for
the GPU run; the records it "wrote" are the test's."""

import gzip
import json
import os
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "leaderboard_h200.sh")


def record(rid, device):
    return json.dumps({"schema": "kwb.record/1", "id": rid, "verification": {"rerun": {"device": {"name": device}}}})


class LeaderboardScriptTest(unittest.TestCase):
    def run_script(self, devices, kwb_exit=0):
        with tempfile.TemporaryDirectory() as tmp:
            kwb = os.path.join(tmp, "build", "app", "kwb", "kwb")
            os.makedirs(os.path.dirname(kwb))
            with open(kwb, "w") as f:
                f.write("#!/bin/sh\nexit %d\n" % kwb_exit)
            os.chmod(kwb, 0o755)
            os.makedirs(os.path.join(tmp, "kb", "v0", "KernelBench"))
            raw = os.path.join(tmp, "raw_data.json")
            with open(raw, "w") as f:
                f.write("[]")
            out = os.path.join(tmp, "out.jsonl")
            with open(out, "w") as f:
                f.write("".join(record("r%d" % i, d) + "\n" for i, d in enumerate(devices)))
            dataset = os.path.join(tmp, "leaderboard_h200.jsonl.gz")
            env = dict(os.environ, KB_LEADERBOARD=raw, KB_PROBLEMS=os.path.join(tmp, "kb"), DATASET=dataset)
            p = subprocess.run(["sh", SCRIPT, os.path.join(tmp, "build"), out], env=env, capture_output=True,
                               text=True, timeout=60)
            written = None
            if os.path.exists(dataset):
                with gzip.open(dataset, "rt") as f:
                    written = f.read().splitlines()
            return p, written

    def test_an_h200_run_is_written(self):
        # The "" record is a sample the build pool could not build: it names no device.
        p, written = self.run_script(["NVIDIA H200", "", "NVIDIA H200"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(written), 3)
        self.assertIn("wrote", p.stdout)

    def test_a_run_partly_on_an_h100_is_not(self):
        p, written = self.run_script(["NVIDIA H200", "NVIDIA H100 80GB HBM3"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIsNone(written)
        self.assertIn("ran on NVIDIA H100 80GB HBM3, not an H200", p.stderr)

    def test_an_interrupted_run_is_not(self):
        p, written = self.run_script(["NVIDIA H200"], kwb_exit=130)
        self.assertEqual(p.returncode, 130)
        self.assertIsNone(written)


if __name__ == "__main__":
    unittest.main()
