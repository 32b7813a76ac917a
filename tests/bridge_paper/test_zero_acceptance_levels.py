"""scripts/zero_acceptance_levels.py: the checks, the job order, the summary and the worker's recovery."""
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

from paper_test_support import HAVE_TORCH, NO_TORCH, SCRIPTS, SHARED_PROBLEMS, load_script

za = load_script("zero_acceptance_levels")


def row(version, level, problem, zeros2, zeros4, mean2, status="ok"):
    return {"version": version, "level": level, "problem": problem, "status": status, "shape": [4], "max_abs": 1.0,
            "rms": 0.5, "zeros_pass_0.01": zeros2, "zeros_pass_0.0001": zeros4, "mean_pass_0.01": mean2,
            "mean_pass_0.0001": False, "forward_ms": 1.0}


class JobOrder(unittest.TestCase):
    @unittest.skipUnless(os.path.isdir(os.path.join(SHARED_PROBLEMS, "v0")), "no KernelBench problems in ../shared/data")
    def test_level_one_of_both_versions_comes_first(self):
        jobs = za.list_jobs(SHARED_PROBLEMS, ["v0", "current"], [1, 2, 3])
        levels = [j["level"] for j in jobs]
        self.assertEqual(levels, sorted(levels))
        first = [j for j in jobs if j["level"] == 1]
        self.assertEqual(sum(1 for j in first if j["version"] == "v0"), 100)
        self.assertEqual(sum(1 for j in first if j["version"] == "current"), 100)
        v0 = [j["problem"] for j in first if j["version"] == "v0"]
        self.assertEqual(v0[0].split("_")[0], "1")
        self.assertEqual(v0[9].split("_")[0], "10")  # numeric order, not 1, 10, 100, 11
        self.assertTrue(all(os.path.exists(j["path"]) for j in jobs))

    def test_missing_root_gives_no_jobs(self):
        self.assertEqual(za.list_jobs("/nonexistent", ["v0"], [1]), [])


class Summary(unittest.TestCase):
    def test_counts_per_version_and_level(self):
        rows = [row("v0", 1, "1_A", True, False, True), row("v0", 1, "2_B", False, False, False),
                row("v0", 1, "3_C", None, None, None, status="timeout"), row("current", 1, "1_A", True, True, True),
                row("v0", 2, "1_X", False, False, None)]
        groups = {(g["version"], g["level"]): g for g in za.summarize(rows)}
        v0l1 = groups[("v0", 1)]
        self.assertEqual((v0l1["problems"], v0l1["ran"], v0l1["skipped"]), (3, 2, 1))
        self.assertEqual(v0l1["zeros_pass_0.01"], 1)
        self.assertEqual(v0l1["zeros_pass_0.0001"], 0)
        self.assertEqual(groups[("current", 1)]["zeros_pass_0.0001"], 1)
        self.assertEqual(groups[("v0", 2)].get("mean_pass_0.01", 0), 0)  # None (scalar) is not a pass
        md = za.render_markdown(rows, {"device": "test"})
        self.assertIn("- v0 level 1: 1 of 2 accept zeros at 1e-2 (0 at 1e-4)", md)
        self.assertIn("| 3_C | | | | | | | | | timeout:", md)


class SuiteComparison(unittest.TestCase):
    def test_suite_rows_meet_the_level_one_file_of_their_number(self):
        rows = [row("v0", 1, "23_Softmax", True, True, True), row("current", 1, "23_Softmax", False, False, False),
                row("v0", 2, "23_Other", False, False, False)]
        suite = [{"problem": "kb1_23_softmax", "max_abs_ref": "4e-06", "zeros_pass_kernelbench_0.01": "True"},
                 {"problem": "kb1_94_mse_loss (Pareto inputs, as KernelBench)", "max_abs_ref": "0.1",
                  "zeros_pass_kernelbench_0.01": "False"},
                 {"problem": "dlrm_dot_interaction", "max_abs_ref": "45", "zeros_pass_kernelbench_0.01": "False"}]
        (name, smax, spass, per), = za.suite_comparison(rows, suite)
        self.assertEqual((name, spass), ("kb1_23_softmax", True))
        self.assertEqual(sorted(per), ["current", "v0"])
        md = za.render_markdown(rows, {}, suite)
        self.assertIn("| kb1_23_softmax | 4e-06, **yes** | 23_Softmax: 1, **yes** | 23_Softmax: 1, no |", md)


@unittest.skipUnless(HAVE_TORCH, NO_TORCH)
class TrivialAnswers(unittest.TestCase):
    def test_small_output_accepts_zeros_only_at_the_loose_tolerance(self):
        import torch
        r = za.trivial_answers_pass(torch.full((1000,), 0.005))
        self.assertTrue(r["zeros_pass_0.01"])
        self.assertFalse(r["zeros_pass_0.0001"])
        self.assertAlmostEqual(r["max_abs"], 0.005, places=6)

    def test_near_constant_output_accepts_its_mean(self):
        import torch
        ref = 5.0 + 1e-3 * torch.sin(torch.arange(10000, dtype=torch.float32))
        r = za.trivial_answers_pass(ref)
        self.assertFalse(r["zeros_pass_0.01"])
        self.assertTrue(r["mean_pass_0.01"])
        self.assertFalse(r["mean_pass_0.0001"])
        self.assertAlmostEqual(r["rms"], 5.0, places=3)

    def test_nan_never_passes_and_scalar_mean_is_not_counted(self):
        import torch
        r = za.trivial_answers_pass(torch.tensor([0.0, float("nan")]))
        self.assertFalse(r["zeros_pass_0.01"])
        self.assertEqual(r["nonfinite"], 1)
        s = za.trivial_answers_pass(torch.tensor(3.0))
        self.assertIsNone(s["mean_pass_0.01"])

    def test_several_outputs_pass_only_together(self):
        import torch
        a = za.trivial_answers_pass(torch.zeros(3))
        b = za.trivial_answers_pass(torch.ones(3))
        self.assertFalse(za.combine_outputs([a, b])["zeros_pass_0.01"])
        self.assertTrue(za.combine_outputs([a, a])["zeros_pass_0.01"])


PROBLEM = '''
import torch
import torch.nn as nn
import time

class Model(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale
    def forward(self, x):
        {body}

def get_inputs():
    return [torch.rand(64, 32)]

def get_init_inputs():
    return [{scale}]
'''


@unittest.skipUnless(HAVE_TORCH, NO_TORCH)
class WorkerRecovery(unittest.TestCase):
    def test_timeout_and_error_are_rows_and_the_rest_still_runs(self):
        with tempfile.TemporaryDirectory() as tmp:
            d = os.path.join(tmp, "v0", "KernelBench", "level1")
            os.makedirs(d)
            files = {"1_Tiny.py": ("return x * self.scale", "1e-3"), "2_Hang.py": ("time.sleep(60); return x", "1"),
                     "3_Raise.py": ("raise ValueError('broken problem')", "1"), "4_Big.py": ("return x * self.scale", "10"),
                     # Chatter on both streams: a JSON-looking print and more stderr than a pipe holds.
                     "5_Noisy.py": ("import sys; sys.stderr.write('w' * 300000); print('{not json'); "
                                    "return x * self.scale", "1e-4")}
            for fn, (body, scale) in files.items():
                with open(os.path.join(d, fn), "w") as f:
                    f.write(textwrap.dedent(PROBLEM).replace("{body}", body).replace("{scale}", scale))
            out = os.path.join(tmp, "out")
            cmd = [sys.executable, os.path.join(SCRIPTS, "zero_acceptance_levels.py"), "--device", "cpu", "--root", tmp,
                   "--versions", "v0", "--levels", "1", "--out", out, "--timeout", "8"]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(os.path.join(out, za.JSONL_NAME)) as f:
                rows = {r["problem"]: r for r in map(json.loads, f)}
            self.assertTrue(rows["1_Tiny"]["zeros_pass_0.01"])
            self.assertEqual(rows["2_Hang"]["status"], "timeout")
            self.assertEqual(rows["3_Raise"]["status"], "error")
            self.assertIn("broken problem", rows["3_Raise"]["reason"])
            self.assertEqual(rows["4_Big"]["status"], "ok")  # a fresh worker after the timeout
            self.assertFalse(rows["4_Big"]["zeros_pass_0.01"])
            self.assertTrue(rows["5_Noisy"]["zeros_pass_0.0001"])
            with open(os.path.join(out, za.MD_NAME)) as f:
                self.assertIn("v0 level 1: 2 of 3 accept zeros at 1e-2", f.read())
            # A second run resumes: nothing is recomputed.
            p2 = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            self.assertEqual(p2.returncode, 0, p2.stderr)
            self.assertNotIn("[  1/5]", p2.stdout)


if __name__ == "__main__":
    unittest.main()
