"""DLRM-Bench: the problem/sample set, the device code of every sample, records, summary and projection."""
import ast
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

from paper_test_support import HAVE_TORCH, NO_TORCH, NVCC, REPO, SCRIPTS, load_script
import sample_sources

ev = load_script("evaluate_dlrm_bench")
BENCH = os.path.join(REPO, "datasets", "kernelbench_dlrm")


class ProblemSet(unittest.TestCase):
    def test_twelve_problems_each_with_a_sample(self):
        work = ev.discover(BENCH)
        self.assertEqual(len(work), 12)
        self.assertEqual([ev.problem_number(p) for p, _ in work], list(range(1, 13)))
        for problem, samples in work:
            self.assertEqual(len(samples), 1, problem)

    def test_problem_files_have_kernelbench_shape(self):
        for problem, _ in ev.discover(BENCH):
            with open(problem) as f:
                tree = ast.parse(f.read(), problem)
            names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
            self.assertTrue({"Model", "get_inputs", "get_init_inputs"} <= names, problem)
            model = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Model")
            self.assertIn("forward", {n.name for n in model.body if isinstance(n, ast.FunctionDef)}, problem)

    def test_samples_define_model_new_and_unique_extensions(self):
        seen = set()
        for _, samples in ev.discover(BENCH):
            for s in samples:
                with open(s) as f:
                    tree = ast.parse(f.read(), s)
                self.assertIn("ModelNew", {n.name for n in tree.body if isinstance(n, ast.ClassDef)}, s)
                srcs = sample_sources.cuda_sources(s)
                self.assertEqual(len(srcs), 1, s)
                name, text = srcs[0]
                self.assertTrue(text and "__global__" in text or "cub::" in text, s)
                self.assertNotIn(name, seen)  # one cache folder per extension
                seen.add(name)


@unittest.skipUnless(NVCC, "nvcc not found (CUDA toolkit at /usr/local/cuda)")
class DeviceCode(unittest.TestCase):
    def test_every_kernel_compiles_for_sm90(self):
        with tempfile.TemporaryDirectory() as tmp:
            for _, samples in ev.discover(BENCH):
                for s in samples:
                    name, text = sample_sources.cuda_sources(s)[0]
                    cu = os.path.join(tmp, name + ".cu")
                    with open(cu, "w") as f:
                        f.write(sample_sources.device_part(text))
                    p = subprocess.run([NVCC, "-arch=sm_90", "-std=c++17", "-c", "-o", os.path.join(tmp, "k.o"), cu],
                                       capture_output=True, text=True, timeout=300)
                    self.assertEqual(p.returncode, 0, "%s: %s" % (os.path.basename(s), p.stderr[-800:]))


def result(ref_ms, cand_ms, outcome="correct"):
    return {"outcome": outcome, "gpu": "Test GPU", "trials": 3, "reference_ms": [ref_ms] * 3, "candidate_ms": [cand_ms] * 3}


class RecordsAndProjection(unittest.TestCase):
    def test_paper_figures_reproduce_its_projection(self):
        # The paper: 41.7% win rate at a 1.552x median, f = 0.582 -> 8.63% end to end.
        p = ev.projection(0.582, 0.417, 1.552)
        self.assertAlmostEqual(p["expected_saving"], 0.0863, places=4)
        self.assertAlmostEqual(p["amdahl_speedup"], 1.0 / (0.418 + 0.582 / 1.552), places=9)
        self.assertIsNone(ev.projection(0.5, 0.0, None)["expected_saving"])

    def test_record_is_native_and_speedup_only_when_correct(self):
        work = ev.discover(BENCH)
        problem, samples = work[0]
        rec = ev.make_record(problem, samples[0], "run", result(2.0, 1.0), (1e-4, 1e-4))
        self.assertEqual(rec["schema"], "kwb.record/1")
        self.assertEqual(rec["problem"], {"suite": "DLRM-Bench", "level": 1, "id": 1, "name": "1_EmbeddingBagSum"})
        self.assertEqual(rec["baselines"][0]["name"], "torch_eager")
        self.assertIn("class ModelNew", rec["source"]["code"])  # a KernelBench sample kwb rerun accepts
        self.assertTrue(os.path.exists(os.path.join(REPO, rec["problem_file"])))
        self.assertAlmostEqual(rec["speedup"], 2.0)
        self.assertEqual(rec["candidate"]["provenance"]["tolerance"], {"atol": 1e-4, "rtol": 1e-4})
        bad = ev.make_record(problem, samples[0], "run", result(2.0, 1.0, "incorrect"), (1e-4, 1e-4))
        self.assertNotIn("speedup", bad)
        self.assertFalse(bad["status"]["correct"])
        err = ev.make_record(problem, samples[0], "run", {"outcome": "compile_error", "error": "nvcc: boom"}, (1e-4, 1e-4))
        self.assertFalse(err["status"]["compiled"])
        self.assertEqual(err["status"]["error"], "nvcc: boom")

    def test_summary_counts_wins_over_all_samples(self):
        problem, samples = ev.discover(BENCH)[0]
        recs = [ev.make_record(problem, samples[0], "r", result(r, c, o), (1e-4, 1e-4))
                for r, c, o in ((2.0, 1.0, "correct"), (1.0, 2.0, "correct"), (3.0, 1.0, "correct"),
                                (1.0, 1.0, "incorrect"))]
        s = ev.summarize(recs)
        self.assertEqual((s["samples"], s["correct"], s["wins"]), (4, 3, 2))
        self.assertAlmostEqual(s["win_rate"], 0.5)
        self.assertAlmostEqual(s["median_speedup_wins"], 2.5)
        self.assertAlmostEqual(s["median_speedup_correct"], 2.0)


PROBLEM = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n))
    def forward(self, x):
        return x * self.w

def get_inputs():
    return [torch.rand(8, 16)]

def get_init_inputs():
    return [16]
"""

SAMPLE = """
import os
import torch
import torch.nn as nn

class ModelNew(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n))
    def forward(self, x):
        {body}
"""


@unittest.skipUnless(HAVE_TORCH, NO_TORCH)
class WorkerOnCpu(unittest.TestCase):
    def test_correct_wrong_crashing_and_unbuildable_samples(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "problems"))
            os.makedirs(os.path.join(tmp, "samples"))
            with open(os.path.join(tmp, "problems", "1_Scale.py"), "w") as f:
                f.write(PROBLEM)
            bodies = {"1_Scale": "return x * self.w", "1_Scale__wrong": "return x * self.w + 1e-3",
                      "1_Scale__crash": "os._exit(3)", "1_Scale__syntax": "return (x"}
            for stem, body in bodies.items():
                with open(os.path.join(tmp, "samples", stem + ".py"), "w") as f:
                    f.write(textwrap.dedent(SAMPLE).replace("{body}", body))
            out = os.path.join(tmp, "records.jsonl")
            p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "evaluate_dlrm_bench.py"), "--bench", tmp,
                                "--device", "cpu", "--no-build", "--out", out, "--kwb", "/nonexistent", "--timeout", "60"],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            with open(out) as f:
                recs = {r["id"].split("/")[-1]: r for r in map(json.loads, f)}
            self.assertEqual(recs["sample0"]["status"]["outcome"], "correct")
            # 1e-3 is out of the 1e-4 tolerance but inside 1e-2.
            self.assertEqual(recs["wrong"]["status"]["outcome"], "incorrect")
            self.assertTrue(recs["wrong"]["verification"]["correct_at_1e-2"])
            self.assertEqual(recs["crash"]["status"]["outcome"], "runtime_error")
            self.assertEqual(recs["syntax"]["status"]["outcome"], "compile_error")
            self.assertIn("measured f: run  kwb project", p.stdout)


if __name__ == "__main__":
    unittest.main()
