"""capture_scale_sweep.py and measure_substitution.py, run small on the CPU."""
import gzip
import json
import os
import subprocess
import sys
import tempfile
import unittest

from paper_test_support import HAVE_TORCH, NO_TORCH, SCRIPTS


@unittest.skipUnless(HAVE_TORCH, NO_TORCH)
class ScaleSweep(unittest.TestCase):
    def test_capture_writes_trace_and_manifest_and_resumes(self):
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [sys.executable, os.path.join(SCRIPTS, "capture_scale_sweep.py"), "--device", "cpu", "--tiny",
                   "--only", "dlrm_infer", "--out", tmp]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            with open(os.path.join(tmp, "manifest.json")) as f:
                man = json.load(f)
            (w,) = man["workloads"]
            self.assertEqual((w["name"], w["status"], w["phase"], w["domain"]), ("dlrm_infer", "ok", "infer", "recommender"))
            self.assertGreater(w["params"], 0)
            with gzip.open(os.path.join(tmp, w["file"])) as f:
                trace = json.load(f)
            # PyTorch 1.13's CPU-only export is a bare event list; with CUDA it is {"traceEvents": [...]}.
            events = trace if isinstance(trace, list) else trace["traceEvents"]
            self.assertTrue(any(str(e.get("name", "")).startswith("ProfilerStep#") for e in events))
            p2 = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            self.assertIn("already captured", p2.stdout)

    def test_list_names_every_family(self):
        p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "capture_scale_sweep.py"), "--list"],
                           capture_output=True, text=True, timeout=120)
        names = [l.split()[0] for l in p.stdout.splitlines() if l.strip()]
        for n in ("gpt2_1.5b_train", "bert_large_infer", "llama_3b_infer", "dlrm_train", "resnet50_infer", "vit_b16_infer"):
            self.assertIn(n, names)


@unittest.skipUnless(HAVE_TORCH, NO_TORCH)
class Substitution(unittest.TestCase):
    def test_swapped_operators_give_the_original_forward_and_gradients(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "sub.json")
            p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "measure_substitution.py"), "--device", "cpu",
                                "--tiny", "--no-samples", "--steps", "2", "--warmup", "1", "--out", out],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            with open(out) as f:
                doc = json.load(f)
            self.assertTrue(doc["check"]["forward_allclose_1e-4"])
            self.assertTrue(doc["check"]["grad_allclose"])
            self.assertEqual([r["phase"] for r in doc["results"]], ["infer", "train"])
            self.assertEqual(sorted(doc["swapped"]), ["embedding", "interaction"])

    def test_only_winning_samples_are_swapped(self):
        sys.path.insert(0, SCRIPTS)
        import measure_substitution as ms
        ops, why = ms.choose_ops(["embedding", "interaction"], {"5_TableBatchedEmbedding": 1.8,
                                                                "11_EmbeddingBagBackward": 1.2, "6_DotInteraction": 0.9})
        self.assertEqual(ops, ["embedding"])
        self.assertIn("kept", why["interaction"])
        ops, _ = ms.choose_ops(["embedding"], {"5_TableBatchedEmbedding": 1.8, "11_EmbeddingBagBackward": None})
        self.assertEqual(ops, [])


if __name__ == "__main__":
    unittest.main()
