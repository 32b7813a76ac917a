"""The transformer samples (datasets/kernelbench_transformer): KernelBench shape,
device code that compiles for sm_90, and the substitution script's own logic
(module swap, projection arithmetic) on the CPU with PyTorch stand-ins."""
import ast
import os
import subprocess
import tempfile
import unittest

from paper_test_support import HAVE_TORCH, NO_TORCH, NVCC, REPO, load_script
import sample_sources

ev = load_script("evaluate_dlrm_bench")
sub = load_script("measure_substitution_transformer")
BENCH = os.path.join(REPO, "datasets", "kernelbench_transformer")


class ProblemSet(unittest.TestCase):
    def test_problems_and_samples(self):
        work = ev.discover(BENCH)
        self.assertEqual([os.path.basename(p) for p, _ in work], ["1_LayerNormBF16.py", "2_GeluTanhBF16.py"])
        for problem, samples in work:
            self.assertEqual(len(samples), 1, problem)
            with open(problem) as f:
                names = {n.name for n in ast.parse(f.read()).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
            self.assertTrue({"Model", "get_inputs", "get_init_inputs"} <= names, problem)
            with open(samples[0]) as f:
                self.assertIn("ModelNew", {n.name for n in ast.parse(f.read()).body if isinstance(n, ast.ClassDef)})

    def test_every_sample_names_the_operator_it_replaces(self):
        self.assertEqual(sorted(sub.OPS), ["gelu", "layernorm"])
        for op, stem in sub.OPS.items():
            self.assertTrue(os.path.isfile(os.path.join(BENCH, "samples", stem + ".py")), op)


@unittest.skipUnless(NVCC, "nvcc not found (CUDA toolkit at /usr/local/cuda)")
class DeviceCode(unittest.TestCase):
    def test_every_kernel_compiles_for_sm90(self):
        with tempfile.TemporaryDirectory() as tmp:
            for _, samples in ev.discover(BENCH):
                name, text = sample_sources.cuda_sources(samples[0])[0]
                cu = os.path.join(tmp, name + ".cu")
                with open(cu, "w") as f:
                    f.write("#include <cuda_bf16.h>\n" + sample_sources.device_part(text))
                p = subprocess.run([NVCC, "-arch=sm_90", "-std=c++17", "-c", "-o", os.path.join(tmp, "k.o"), cu],
                                   capture_output=True, text=True, timeout=300)
                self.assertEqual(p.returncode, 0, "%s: %s" % (os.path.basename(samples[0]), p.stderr[-800:]))


class Projection(unittest.TestCase):
    def test_projection_per_operator_and_amdahl(self):
        p = sub.projection({"layernorm": (0.10, 1.0, 2.0), "gelu": (0.05, 1.0, 4.0)})
        self.assertAlmostEqual(p["expected_saving"], 0.10 * 0.5 + 0.05 * 0.75)
        self.assertAlmostEqual(p["amdahl_saving"], 1 - (0.85 + 0.05 + 0.0125))
        lost = sub.projection({"layernorm": (0.10, 0.0, 0.8)})
        self.assertEqual(lost["expected_saving"], 0.0)


@unittest.skipUnless(HAVE_TORCH, NO_TORCH)
class SwapOnCpu(unittest.TestCase):
    def test_stand_ins_swap_every_layernorm_and_activation(self):
        import torch
        model = sub.TinyGpt(hidden=16, layers=2, inner=32)
        x = torch.randn(2, 5, 16)
        ref = model(x)
        swapped, counts = sub.swap_in(model, sub.stand_in_factories())
        self.assertEqual(counts, {"layernorm": 5, "gelu": 2})
        out = swapped(x)
        self.assertLess(float((out - ref).abs().max()), 1e-5)
        # Parameters are shared, not copied.
        self.assertIs(swapped.blocks[0].ln_1.ln.weight, model.blocks[0].ln_1.weight)
