"""CPU-only checks of the KernelBench security fixtures: the manifest is what
make_security_samples.py writes (regenerated in a scratch copy and compared),
every sample and problem it names exists and compiles, the flags it expects
are the contract's names, every exploit class of issue 12 has a fixture, and
KernelBench's own adversarial kernels (read in place from
../shared/peers/kernelbench) are all in it, with the kernels the judge will
look for (declared __global__ names) parsed from their sources."""

import ast
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "tests", "data", "kernelbench_bridge")
PEERS = os.path.join(ROOT, "..", "shared", "peers", "kernelbench", "src", "kernelbench", "unit_tests", "test_kernels")
sys.path.insert(0, os.path.join(ROOT, "app", "runner", "bridge"))

import kwb_sample_source as src  # noqa: E402

# The flags of the contract (issue 12) and the ones the core had before it.
FLAGS = {"memoized_output", "state_drift", "batch_skip", "no_own_kernel", "timer_mismatch", "untimed_work", "sanitizer_error",
         "adversarial_failure", "tampering", "incorrect", "low_coverage", "input_mutation", "side_stream_work",
         "precision_downgrade", "zero_acceptance", "fault", "nondeterministic"}
CLASSES = {"content_memoization", "state_drift", "batch_and_skip", "decoy_kernel", "timer_patch", "check_patch",
           "expected_output_theft", "forged_result_line", "module_replacement", "proc_self_mem", "ptrace_parent",
           "memory_error", "adversarial_inputs", "persisting_l2", "late_launch_thread", "honest"}


def manifest():
    with open(os.path.join(DATA, "security_manifest.json"), encoding="utf-8") as f:
        return json.load(f)


class SecurityManifestTest(unittest.TestCase):
    def test_generated_files_are_current(self):
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "kernelbench_bridge")
            shutil.copytree(DATA, copy)
            subprocess.run([sys.executable, "make_security_samples.py"], cwd=copy, check=True)
            self.assertTrue(filecmp.cmp(os.path.join(DATA, "security_manifest.json"),
                                        os.path.join(copy, "security_manifest.json"), shallow=False),
                            "security_manifest.json differs from what make_security_samples.py writes")
            for name in os.listdir(os.path.join(copy, "samples", "security")):
                if name.endswith(".py"):
                    self.assertTrue(filecmp.cmp(os.path.join(DATA, "samples", "security", name),
                                                os.path.join(copy, "samples", "security", name), shallow=False), name)

    def test_entries_name_existing_files_and_contract_flags(self):
        names = {1: "1_ReLU", 2: "2_Softmax", 3: "3_Square_matrix_multiplication", 4: "4_Matmul_with_diagonal_matrices"}
        for e in manifest():
            where = e.get("sample") or e.get("peer_sample")
            problem = os.path.join(DATA, "KernelBench", "level%d" % e["level"], names[e["problem_id"]] + ".py")
            self.assertTrue(os.path.isfile(problem), problem)
            if "sample" in e:
                path = os.path.join(DATA, e["sample"])
                with open(path, encoding="utf-8") as f:
                    ast.parse(f.read(), path)
            self.assertTrue(set(e.get("expect_flags", [])) <= FLAGS, where)
            self.assertTrue(e.get("honest") or e.get("expect_flags"), "%s: neither honest nor expecting a flag" % where)
            self.assertTrue(e.get("description") and e.get("inprocess"), where)

    def test_every_class_has_a_fixture(self):
        got = {e["class"] for e in manifest()}
        self.assertTrue(CLASSES <= got, CLASSES - got)
        raised = set().union(*(set(e.get("expect_flags", [])) for e in manifest()))
        for flag in ("memoized_output", "state_drift", "batch_skip", "no_own_kernel", "untimed_work", "tampering"):
            self.assertIn(flag, raised)

    def test_the_decoy_declares_kernels_and_the_honest_matmul_none(self):
        def declared(name):
            with open(os.path.join(DATA, "samples", "security", name), encoding="utf-8") as f:
                return src.declared_kernels(f.read())
        self.assertIn("relu_kernel", declared("decoy.py"))
        self.assertEqual(declared("matmul_honest.py"), [])


class KernelBenchAdversarialKernelsTest(unittest.TestCase):
    """KernelBench's own adversarial kernels, read where the peer checkout keeps them."""

    def setUp(self):
        if not os.path.isdir(PEERS):
            self.skipTest("no KernelBench checkout at %s" % PEERS)

    def test_all_of_them_are_fixtures(self):
        kernels = sorted(f for f in os.listdir(PEERS) if f.endswith(".py"))
        listed = sorted(os.path.basename(e["peer_sample"]) for e in manifest() if "peer_sample" in e)
        self.assertEqual(kernels, listed)
        for e in manifest():
            if "peer_sample" in e:
                self.assertTrue(os.path.isfile(os.path.normpath(os.path.join(ROOT, e["peer_sample"]))), e["peer_sample"])

    def test_their_sources_parse_and_their_kernels_are_found(self):
        for name in sorted(os.listdir(PEERS)):
            if not name.endswith(".py"):
                continue
            with open(os.path.join(PEERS, name), encoding="utf-8") as f:
                text = f.read()
            tree = ast.parse(text, name)
            self.assertTrue(any(isinstance(n, ast.ClassDef) and n.name == "ModelNew" for n in tree.body), name)
            kernels = src.declared_kernels(text)
            self.assertEqual(bool(kernels), "__global__" in text, (name, kernels))


if __name__ == "__main__":
    unittest.main()
