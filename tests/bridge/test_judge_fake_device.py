"""The judge and its candidate worker end to end, on a stand-in GPU
(tests/bridge/fakegpu: a CPU torch that pretends to have CUDA, shared-memory
"IPC", a Python stand-in for libkwb_bridge.so that records what reaches the
session). What this proves is the orchestration -- two processes, the arena
and the outputs shared by handle, the coverage runs, the timing run with its
ticks and kept outputs, post-timing and adversarial re-validation, the host
batch, the members set through set_member, isolation and checks_run, the
tamper guard -- not the core's checks, which the GPU run covers.

Needs a python3 with torch (any build; CPU is enough): sys.executable or
/usr/bin/python3 (Debian's python3-torch), else the test skips."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BRIDGE = os.environ.get("KWB_BRIDGE_SCRIPT") or os.path.join(ROOT, "app", "runner", "bridge", "kwb_torch_bridge.py")
DATA = os.path.join(ROOT, "tests", "data", "kernelbench_bridge")
sys.path.insert(0, DATA)


def torch_python():
    for exe in (os.environ.get("KWB_TORCH_PYTHON"), sys.executable, "/usr/bin/python3"):
        if exe and os.path.exists(exe) and subprocess.run([exe, "-c", "import torch"], capture_output=True,
                                                          timeout=120).returncode == 0:
            return exe
    return None


PYTHON = torch_python()


def problem(name):
    with open(os.path.join(DATA, "KernelBench", "level1", name + ".py"), encoding="utf-8") as f:
        return f.read()


def torch_only(text):
    """A security fixture's tricks around a PyTorch forward (no load_inline: no nvcc here)."""
    import make_samples
    return text.replace(make_samples.RELU_HEADER, "import torch\nimport torch.nn as nn\n").replace(
        "relu_ext.relu(x)", "torch.relu(x)")


def sample(name):
    with open(os.path.join(DATA, "samples", "security", name + ".py"), encoding="utf-8") as f:
        return torch_only(f.read())


RELU = ("1_ReLU", {"batch_size": 16, "dim": 64})
MATMUL = ("3_Square_matrix_multiplication", {"N": 32})
DIAG = ("4_Matmul_with_diagonal_matrices", {"N": 32, "M": 32})


@unittest.skipIf(PYTHON is None, "no python3 with torch on this machine")
class JudgeOnFakeDeviceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        env = dict(os.environ, KWB_FAKEGPU="1", KWB_FAKEGPU_BRIDGE_DIR=os.path.dirname(BRIDGE),
                   KWB_COMPUTE_SANITIZER=os.path.join(HERE, "fakegpu", "compute-sanitizer"),
                   PYTHONPATH=os.path.join(HERE, "fakegpu"), KWB_CACHE_DIR=cls.tmp.name)
        cls.log = open(os.path.join(cls.tmp.name, "bridge.stderr"), "w")
        cls.proc = subprocess.Popen([PYTHON, BRIDGE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=cls.log, text=True, env=env)
        cls.n = 0
        cls.lines = []
        cls.send({"protocol": "kwb.rerun/1", "type": "hello", "id": "hello"})
        cls.caps = cls.until("hello", "capabilities")

    @classmethod
    def tearDownClass(cls):
        try:
            cls.send({"protocol": "kwb.rerun/1", "type": "shutdown", "id": "bye"})
            cls.proc.wait(timeout=60)
        finally:
            if cls.proc.poll() is None:
                cls.proc.kill()
            cls.log.close()
            cls.tmp.cleanup()

    @classmethod
    def send(cls, obj):
        cls.proc.stdin.write(json.dumps(obj) + "\n")
        cls.proc.stdin.flush()

    @classmethod
    def until(cls, rid, kind):
        while True:
            line = cls.proc.stdout.readline()
            if not line:
                with open(os.path.join(cls.tmp.name, "bridge.stderr")) as f:
                    raise AssertionError("the bridge ended: " + f.read()[-4000:])
            m = json.loads(line)
            cls.lines.append(m)
            if m.get("type") == kind and m.get("id") == rid:
                return m

    def rerun(self, source, prob, options=None):
        type(self).n += 1
        rid = "r%d" % self.n
        name, sizes = prob
        o = {"trials": 6, "warmup": 2, "correctness_trials": 2, "seed": 42, "sizes": sizes, "timeout_s": 120.0,
             "fresh_checks": 3, "adversarial": True}
        o.update(options or {})
        self.send({"protocol": "kwb.rerun/1", "type": "rerun", "id": rid,
                   "problem": {"id": name, "tolerance": {"policy": "kernelbench"}},
                   "candidate": {"id": "c%d" % self.n, "form": "kernelbench_sample", "source": source},
                   "kernelbench": {"problem_file": name + ".py", "problem_source": problem(name)}, "options": o})
        start = len(self.lines)
        r = self.until(rid, "result")
        forged = [m for m in self.lines[start:-1] if m.get("type") == "result"]
        self.assertEqual(forged, [], "result lines the judge did not write reached kwb")
        return r

    def violations(self, r):
        return (r.get("isolation") or {}).get("violations") or []

    def assert_honest(self, r):
        self.assertEqual(r["status"], "ok", r.get("message"))
        self.assertTrue(r["outputs"] and all(o["passed"] for o in r["outputs"]), r["outputs"])
        self.assertEqual(r["fresh_inputs"]["failed"], 0, r["fresh_inputs"])
        self.assertTrue(all(p["passed"] for p in r["post_timing"]), r["post_timing"])

    # -- honest samples

    def test_capabilities(self):
        self.assertTrue(self.caps["device_present"], self.caps)

    def test_honest_matmul(self):
        with open(os.path.join(DATA, "samples", "security", "matmul_honest.py"), encoding="utf-8") as f:
            r = self.rerun(f.read(), MATMUL)
        self.assert_honest(r)
        self.assertEqual(self.violations(r), [])
        iso = r["isolation"]
        self.assertEqual((iso["reference_process"], iso["sandbox"]), ("separate", "none"))
        self.assertIn("fake device: no sandbox", iso["why_not"])
        for check in ("coverage", "correctness", "determinism", "input_hashes", "fresh_inputs", "post_timing",
                      "host_timer", "adversarial", "isolation", "persisting_l2_reset"):
            self.assertIn(check, r["checks_run"])
        self.assertEqual(r["host_timing"]["measured_by"], "judge")
        self.assertGreater(r["host_timing"]["trials"], 0)
        self.assertGreater(r["fresh_inputs"]["checked"], 0)  # with 6 trials and 3 wanted, almost surely
        self.assertTrue(r["coverage"] and all(c["written_fraction"] == 1.0 for c in r["coverage"]), r["coverage"])
        self.assertTrue({"near_max", "near_zero", "mixed_scale", "all_equal", "signed"} <= {a["set"] for a in
                                                                                             r["adversarial"]})
        self.assertIn("median_ms", r["candidate_timing"])
        self.assertIn("median_ms", r["reference_timing"])
        self.assertFalse(any(i["mutated"] for i in r["inputs"]), r["inputs"])

    def test_a_timing_budget_reaches_both_timers(self):
        with open(os.path.join(DATA, "samples", "security", "matmul_honest.py"), encoding="utf-8") as f:
            src = f.read()
        full = self.rerun(src, MATMUL, {"trials": 30, "adversarial": False})
        self.assertEqual((full["candidate_timing"]["trials"], full["reference_timing"]["trials"]), (30, 30))
        cut = self.rerun(src, MATMUL, {"trials": 30, "adversarial": False, "timing_budget_s": 0.001})
        self.assert_honest(cut)
        # The worker's session times the candidate, the judge's the reference: both got the budget.
        self.assertEqual((cut["candidate_timing"]["trials"], cut["reference_timing"]["trials"]), (10, 10))

    def test_honest_diagonal_scaling(self):
        with open(os.path.join(DATA, "samples", "security", "diag_scale_honest.py"), encoding="utf-8") as f:
            self.assert_honest(self.rerun(f.read(), DIAG))

    # -- the compute-sanitizer pass (the stand-in writes the tool's report format)

    def test_the_sanitizer_pass_runs_a_worker_under_each_tool(self):
        # Under the tool the sample asks the stand-in for 7 memcheck errors (an out-of-bounds read
        # the values do not show); outside it, it is an honest ReLU.
        src = sample("relu_honest_kernel").replace("class ModelNew", '''import os

def _under_tool():
    marker = os.environ.get("KWB_FAKE_SANITIZER_ERRORS_FILE")
    if marker and os.environ.get("KWB_FAKE_SANITIZER_TOOL") == "memcheck":
        with open(marker, "w") as f:
            f.write("7")


class ModelNew''', 1).replace("    def forward(self, x", "    def forward(self, x", 1)
        src = src.replace("return torch.relu(x)", "_under_tool()\n        return torch.relu(x)", 1)
        r = self.rerun(src, RELU, {"sanitize": ["memcheck", "initcheck"], "adversarial": False})
        self.assert_honest(r)
        self.assertEqual([(x["tool"], x["errors"]) for x in r["sanitizer"]], [("memcheck", 7), ("initcheck", 0)])

    def test_a_worker_that_dies_under_the_tool_is_not_clean(self):
        src = sample("relu_honest_kernel").replace("return torch.relu(x)", "import os\n        if os.environ.get("
                                                   "'KWB_FAKE_SANITIZER_TOOL'):\n            os._exit(3)\n"
                                                   "        return torch.relu(x)", 1)
        r = self.rerun(src, RELU, {"sanitize": ["memcheck"], "adversarial": False})
        self.assert_honest(r)  # outside the tool it computes
        run = r["sanitizer"][0]
        self.assertEqual(run["errors"], -1, run)  # never "0 errors"
        self.assertIn("returned no result (", run["first_report"])

    # -- exploit classes

    def test_content_memoization_gains_nothing(self):
        with open(os.path.join(DATA, "samples", "security", "memo_content.py"), encoding="utf-8") as f:
            self.assert_honest(self.rerun(f.read(), MATMUL))

    def test_buffer_memoization_fails_the_fresh_inputs(self):
        with open(os.path.join(DATA, "samples", "security", "memo_buffer.py"), encoding="utf-8") as f:
            r = self.rerun(f.read(), MATMUL, {"fresh_checks": 8, "trials": 24})
        self.assertTrue(all(o["passed"] for o in r["outputs"]), r["outputs"])
        self.assertGreater(r["fresh_inputs"]["failed"], 0, r["fresh_inputs"])
        self.assertFalse(all(p["passed"] for p in r["post_timing"]), r["post_timing"])

    def test_state_drift_fails_post_timing(self):
        r = self.rerun(sample("state_drift"), RELU)
        self.assertTrue(all(o["passed"] for o in r["outputs"]), r["outputs"])
        self.assertFalse(all(p["passed"] for p in r["post_timing"]), r["post_timing"])

    def test_batch_and_skip_in_per_call_mode(self):
        with open(os.path.join(DATA, "samples", "security", "batch_skip.py"), encoding="utf-8") as f:
            r = self.rerun(f.read(), MATMUL, {"per_call": True, "fresh_checks": 8, "trials": 24})
        self.assertIn("per_call", r["checks_run"])
        self.assertIn("candidate", r["per_call_timing"])
        self.assertIn("reference", r["per_call_timing"])
        # Outputs kept in the per-call part are checked as per_call, the batched ones as fresh_inputs.
        self.assertGreater(r["per_call_timing"]["failed"] + r["fresh_inputs"]["failed"], 0, r)
        self.assertGreater(r["per_call_timing"]["checked"], 0, r["per_call_timing"])

    def test_a_decoy_declares_kernels(self):
        # The decoy's CUDA source stays in the text (it is what the judge reads); only load_inline goes.
        import make_samples
        text = sample("decoy").replace("import torch.nn as nn\n", "import torch.nn as nn\n\nrelu_source = r\"\"\"%s\"\"\"\n"
                                       % make_samples.RELU_CUDA, 1)
        r = self.rerun(text, RELU)
        # The worker's timer was told the sample's own kernels (its launched list is the core's to fill).
        self.assertIn("relu_kernel", r["own_kernels"]["declared"])
        self.assertIn("own_kernels", r["checks_run"])

    # -- harness tampering: each fails to cheat and is named

    def test_forged_result_lines_do_not_reach_kwb(self):
        r = self.rerun(sample("forge_fd"), RELU)
        self.assert_honest(r)
        self.assertTrue(any("forged result line" in v for v in self.violations(r)), self.violations(r))

    def test_expected_output_theft_finds_nothing(self):
        r = self.rerun(sample("gc_theft"), RELU)
        self.assertFalse(all(o["passed"] for o in r["outputs"]), r["outputs"])
        self.assertTrue(any("gc.get_objects" in v for v in self.violations(r)), self.violations(r))

    def test_timer_patching_is_named(self):
        r = self.rerun(sample("timer_patch"), RELU)
        self.assert_honest(r)
        v = " ".join(self.violations(r))
        self.assertIn("torch.cuda.Event.elapsed_time", v)
        self.assertIn("time.perf_counter", v)
        self.assertGreater(r["compile_ms"], 0)  # the worker's own clock, not the patched one

    def test_check_patching_is_named_and_does_not_pass(self):
        r = self.rerun(sample("check_patch"), RELU)
        self.assertFalse(all(o["passed"] for o in r["outputs"]), r["outputs"])
        self.assertTrue(any("check patched: torch.allclose" in v for v in self.violations(r)), self.violations(r))

    def test_module_replacement_is_named(self):
        r = self.rerun(sample("torch_swap"), RELU)
        self.assert_honest(r)
        self.assertTrue(any("module replaced" in v for v in self.violations(r)), self.violations(r))

    def test_proc_self_mem_is_denied(self):
        r = self.rerun(sample("proc_mem"), RELU)
        self.assert_honest(r)
        self.assertTrue(any("process memory write" in v for v in self.violations(r)), self.violations(r))

    def test_ptrace_of_the_parent_is_denied(self):
        r = self.rerun(sample("ptrace_parent"), RELU)
        self.assert_honest(r)
        v = " ".join(self.violations(r))
        self.assertIn("ptrace", v)
        self.assertIn("syscall", v)

    def test_a_sample_that_does_not_import(self):
        r = self.rerun("import torch\nraise RuntimeError('nope')\n", RELU)
        self.assertEqual(r["status"], "compile_error")
        self.assertIn("nope", r["message"])
        self.assertEqual(r["isolation"]["reference_process"], "separate")
        self.assertIn("fake device: no sandbox", r["isolation"]["why_not"])

    def test_the_build_pool_step_runs_in_a_sandboxed_worker(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "s.py")
            with open(path, "w") as f:
                f.write("import os\nimport torch\nBUILT_IN = os.getpid()\nclass ModelNew(torch.nn.Module):\n    pass\n")
            env = dict(os.environ, KWB_FAKEGPU="1", KWB_FAKEGPU_BRIDGE_DIR=os.path.dirname(BRIDGE),
                       PYTHONPATH=os.path.join(HERE, "fakegpu"), KWB_CACHE_DIR=tmp)
            out = subprocess.run([PYTHON, BRIDGE, "--build", path, os.path.join(tmp, "missing.py")], env=env,
                                 capture_output=True, text=True, timeout=300)
        self.assertEqual(out.returncode, 1, out.stderr)  # the missing file fails, the other builds
        self.assertIn("built %s" % path, out.stderr)
        self.assertIn("(compiled), sandbox none: fake device: no sandbox", out.stderr)
        self.assertIn("failed %s" % os.path.join(tmp, "missing.py"), out.stderr)

    def test_a_build_lane_builds_one_sample_per_line(self):
        # kwb verify's build pool keeps these running (core/workbench/build_lanes.h).
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for i in range(2):
                paths.append(os.path.join(tmp, "s%d.py" % i))
                with open(paths[-1], "w") as f:
                    f.write("import torch\nN = %d\nclass ModelNew(torch.nn.Module):\n    pass\n" % i)
            # The third sample's module code needs the GPU at import: not in the lane's
            # worker, so it is imported again in one with a CUDA context.
            paths.append(os.path.join(tmp, "s_gpu.py"))
            with open(paths[-1], "w") as f:
                f.write("import os\nimport torch\nif os.environ.get('KWB_WORKER_BUILD_ONLY'):\n"
                        "    raise RuntimeError('no CUDA context in this worker')\n"
                        "GPU = torch.empty(4, device='cuda')\nclass ModelNew(torch.nn.Module):\n    pass\n")
            log = os.path.join(tmp, "contexts.log")
            env = dict(os.environ, KWB_FAKEGPU="1", KWB_FAKEGPU_BRIDGE_DIR=os.path.dirname(BRIDGE),
                       PYTHONPATH=os.path.join(HERE, "fakegpu"), KWB_CACHE_DIR=tmp, KWB_FAKEGPU_CONTEXT_LOG=log)
            env.pop("TORCH_CUDA_ARCH_LIST", None)
            order = [paths[0], os.path.join(tmp, "missing.py"), paths[1], paths[2]]
            out = subprocess.run([PYTHON, BRIDGE, "--build-serve"], input="\n".join(order) + "\n", env=env,
                                 capture_output=True, text=True, timeout=300)
            contexts = []
            if os.path.exists(log):
                with open(log) as f:
                    contexts = f.read().splitlines()
        self.assertEqual(out.returncode, 0, out.stderr)
        replies = [json.loads(l) for l in out.stdout.splitlines()]
        self.assertEqual([r["path"] for r in replies], order)
        self.assertEqual([r["ok"] for r in replies], [True, False, True, True], replies)
        self.assertIn("missing.py", replies[1]["error"])
        self.assertFalse(replies[0]["cache_hit"])
        # Only the GPU sample's second worker had a context (the worker's own, and the
        # sample's tensor); the lane's judge and its build-only workers none.
        users = {line.split()[0] for line in contexts}
        self.assertEqual(len(users), 1, contexts)
        self.assertTrue(all(line.split()[1] == "kwb_candidate_worker.py" for line in contexts), contexts)

    def test_a_worker_that_dies_is_the_candidates_fault(self):
        r = self.rerun("import os, signal\nimport torch\nimport torch.nn as nn\n\nclass ModelNew(nn.Module):\n"
                       "    def forward(self, x):\n        os.kill(os.getpid(), signal.SIGKILL)\n", RELU)
        self.assertEqual(r["status"], "fault")
        self.assertIn("SIGKILL", r["message"])
        self.assertNotIn("fatal", r)
        # The judge goes on with the next request in a fresh worker.
        with open(os.path.join(DATA, "samples", "security", "matmul_honest.py"), encoding="utf-8") as f:
            self.assert_honest(self.rerun(f.read(), MATMUL))


if __name__ == "__main__":
    unittest.main()
