"""The bridge's zero_probe request (kwb zeros): the dispatch through
kwb_torch_bridge.py's serve loop on any machine (without a GPU it answers
no_device with the reason), and — label gpu, skipped without a CUDA device —
`kwb zeros` on three level-1 problems against the committed H200 table."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

from paper_test_support import REPO, SHARED_PROBLEMS

BRIDGE = os.path.join(REPO, "app", "runner", "bridge", "kwb_torch_bridge.py")
KWB = os.environ.get("KWB_CLI", "")
PROTOCOL = "kwb.rerun/1"


def has_cuda():
    try:
        import torch
        return torch.cuda.is_available()
    except Exception:
        return False


class Dispatch(unittest.TestCase):
    def test_serve_answers_zero_probe(self):
        problem = os.path.join(SHARED_PROBLEMS, "v0", "KernelBench", "level1", "19_ReLU.py")
        source = open(problem).read() if os.path.exists(problem) else "class Model: pass\n"
        lines = [{"protocol": PROTOCOL, "type": "hello", "id": "h"},
                 {"protocol": PROTOCOL, "type": "zero_probe", "id": "0", "problem_file": problem,
                  "problem_source": source, "seed": 42},
                 {"protocol": PROTOCOL, "type": "shutdown", "id": ""}]
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="")  # no device, also on a GPU machine
        p = subprocess.run([sys.executable, BRIDGE], input="".join(json.dumps(l) + "\n" for l in lines),
                           capture_output=True, text=True, timeout=120, env=env)
        replies = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
        self.assertEqual([r["type"] for r in replies], ["capabilities", "zero_probe_result"], p.stderr[-2000:])
        r = replies[1]
        self.assertEqual(r["id"], "0")
        self.assertEqual(r["status"], "no_device")
        self.assertTrue(r["message"])
        self.assertEqual(r["outputs"], [])


@unittest.skipUnless(has_cuda(), "no CUDA device (label gpu: runs on the GPU machine)")
@unittest.skipUnless(KWB and os.path.exists(KWB), "KWB_CLI does not name a kwb binary")
class OnTheDevice(unittest.TestCase):
    def test_three_level1_problems_match_the_committed_table(self):
        names = ["19_ReLU", "23_Softmax", "94_MSELoss"]
        files = [os.path.join(SHARED_PROBLEMS, "v0", "KernelBench", "level1", n + ".py") for n in names]
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "z.jsonl")
            p = subprocess.run([KWB, "zeros", "--out", out] + files, capture_output=True, text=True, timeout=600)
            self.assertEqual(p.returncode, 0, p.stderr[-3000:])
            rows = {r["problem"]: r for r in map(json.loads, open(out))}
        committed = {}
        for line in open(os.path.join(REPO, "datasets", "zero_acceptance", "zero_acceptance_levels.jsonl")):
            r = json.loads(line)
            if r["version"] == "v0" and r["level"] == 1 and r["problem"] in names:
                committed[r["problem"]] = r
        for n in names:
            self.assertEqual(rows[n]["status"], "ok", rows[n])
            for k in ("zeros_pass_0.01", "zeros_pass_0.0001", "mean_pass_0.01", "mean_pass_0.0001"):
                self.assertEqual(rows[n][k], committed[n][k], "%s %s" % (n, k))
            self.assertEqual(rows[n]["shape"], committed[n]["shape"])
