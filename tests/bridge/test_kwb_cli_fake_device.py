"""kwb's command line over the judge on the stand-in GPU (fakegpu/): a
leaderboard-style record (level and number only) verified against a
KernelBench problem file comes back named after that file, and a sample's
re-run with --sanitize carries the compute-sanitizer pass's reports (a
stand-in tool in fakegpu/). Needs the kwb binary (KWB_CLI, set by CTest in
CUDA builds) and a python3 with torch; skips without either."""

import json
import os
import subprocess
import tempfile
import unittest

from test_judge_fake_device import BRIDGE, DATA, HERE, PYTHON

KWB = os.environ.get("KWB_CLI", "")

RELU_SAMPLE = ("import torch\nimport torch.nn as nn\n\n\nclass ModelNew(nn.Module):\n    def __init__(self):\n"
               "        super().__init__()\n\n    def forward(self, x):\n        return torch.relu(x)\n")


@unittest.skipIf(PYTHON is None or not KWB or not os.access(KWB, os.X_OK), "no kwb binary or no python3 with torch")
class KwbOnFakeDeviceTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.env = dict(os.environ, KWB_FAKEGPU="1", KWB_FAKEGPU_BRIDGE_DIR=os.path.dirname(BRIDGE),
                        PYTHONPATH=os.path.join(HERE, "fakegpu"), KWB_PYTHON=PYTHON, KWB_TORCH_BRIDGE=BRIDGE,
                        KWB_CACHE_DIR=os.path.join(self.tmp.name, "cache"),
                        KWB_COMPUTE_SANITIZER=os.path.join(HERE, "fakegpu", "compute-sanitizer"))
        self.records = os.path.join(self.tmp.name, "records.jsonl")
        with open(self.records, "w", encoding="utf-8") as f:
            f.write(json.dumps({"schema": "kwb.record/1", "id": "lb-relu", "model": "m", "run": "leaderboard",
                                "problem": {"suite": "KernelBench", "level": 1, "id": 1},
                                "status": {"outcome": "correct"},
                                "source": {"code": RELU_SAMPLE, "language": "python+cuda"}}) + "\n")
        self.small = ["--trials", "6", "--warmup", "2", "--correctness-trials", "2", "--size", "batch_size=16",
                      "--size", "dim=64"]

    def tearDown(self):
        self.tmp.cleanup()

    def kwb(self, *args):
        p = subprocess.run([KWB] + list(args), env=self.env, capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr[-3000:])
        return p.stdout

    def test_verify_names_the_record_after_its_problem_file(self):
        out = os.path.join(self.tmp.name, "verified.jsonl")
        self.kwb("verify", self.records, "--kernelbench", DATA, "--out", out, *self.small)
        with open(out, encoding="utf-8") as f:
            rec = json.loads(f.readline())
        self.assertEqual(rec["problem"].get("name"), "1_ReLU")
        self.assertEqual(rec["verification"]["rerun"]["status"], "ok")

    def test_verify_on_two_gpus_with_the_build_pool(self):
        """`kwb verify --gpus` with the build pool: each GPU waits for its record's
        sample (no batch-wide build first); a sample that does not build is a
        compile_error placed on no GPU, the others run and say where."""
        smi = os.path.join(self.tmp.name, "nvidia-smi")
        with open(smi, "w") as f:
            f.write("#!/bin/sh\n[ \"$1\" = -L ] || exit 9\n"
                    "echo 'GPU 0: NVIDIA Fake H200 (UUID: GPU-fake-00000)'\necho 'GPU 1: NVIDIA Fake H200 (UUID: GPU-fake-10000)'\n")
        os.chmod(smi, 0o755)
        self.env["KWB_NVIDIA_SMI"] = smi
        self.env.pop("CUDA_VISIBLE_DEVICES", None)
        broken = RELU_SAMPLE.replace("import torch\n", "import torch\nraise RuntimeError('no such extension (test)')\n", 1)
        with open(self.records, "a", encoding="utf-8") as f:
            for rid, code in (("lb-relu-2", RELU_SAMPLE + "\n# the same kernel, another record\n"), ("lb-broken", broken)):
                f.write(json.dumps({"schema": "kwb.record/1", "id": rid, "model": "m", "run": "leaderboard",
                                    "problem": {"suite": "KernelBench", "level": 1, "id": 1},
                                    "source": {"code": code, "language": "python+cuda"}}) + "\n")
        out = os.path.join(self.tmp.name, "verified.jsonl")
        p = subprocess.run([KWB, "verify", self.records, "--kernelbench", DATA, "--out", out, "--gpus", "all",
                            "--build-jobs", "2"] + self.small, env=self.env, capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr[-3000:])
        self.assertIn("built 3 distinct samples", p.stderr)
        with open(out, encoding="utf-8") as f:
            recs = {r["id"]: r for r in map(json.loads, f)}
        self.assertEqual(sorted(recs), ["lb-broken", "lb-relu", "lb-relu-2"])
        broken_rec = recs["lb-broken"]["verification"]
        self.assertEqual(broken_rec["rerun"]["status"], "compile_error")
        self.assertIn("no such extension (test)", broken_rec["rerun"]["message"])
        self.assertNotIn("placement", broken_rec)
        for rid in ("lb-relu", "lb-relu-2"):
            v = recs[rid]["verification"]
            self.assertEqual(v["rerun"]["status"], "ok", v["rerun"].get("message"))
            self.assertIn(v["placement"]["uuid"], ("GPU-fake-00000", "GPU-fake-10000"))

    def test_rerun_of_a_sample_with_the_sanitizer(self):
        doc = json.loads(self.kwb("rerun", "--record", self.records + "#lb-relu", "--kernelbench", DATA,
                                  "--format", "json", "--quiet", "--sanitize", "memcheck,initcheck", *self.small))
        outcome = doc["outcomes"][0]
        result = outcome.get("result", outcome)
        self.assertEqual([(s["tool"], s["errors"]) for s in result["sanitizer"]], [("memcheck", 0), ("initcheck", 0)])
        self.assertIn("sanitizer", result["checks_run"])


if __name__ == "__main__":
    unittest.main()
