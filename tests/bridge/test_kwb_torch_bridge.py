"""CPU-only tests of the PyTorch bridge's pure parts: protocol lines (numbers,
the golden wire lines when tests/data/golden/protocol exists), the load_inline
source-hash cache, and request handling when the bridge cannot run anything.
They need neither torch nor a GPU (torch is hidden from the module when
installed) and run with `python3 -m unittest discover -s tests/bridge`."""

import glob
import importlib.util
import io
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.environ.get("KWB_BRIDGE_SCRIPT") or os.path.join(ROOT, "app", "runner", "bridge", "kwb_torch_bridge.py")
GOLDEN = os.environ.get("KWB_GOLDEN_PROTOCOL_DIR") or os.path.join(ROOT, "tests", "data", "golden", "protocol")


def load_bridge():
    spec = importlib.util.spec_from_file_location("kwb_torch_bridge_under_test", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # As on a machine without PyTorch, whatever this one has.
    module.torch = None
    module.TORCH_ERROR = "ModuleNotFoundError: hidden by the test"
    return module


kb = load_bridge()
sys.path.insert(0, os.path.dirname(SCRIPT))
import kwb_bridge_common as common  # noqa: E402  (beside the bridge)


def serve_lines(lines):
    """Runs the bridge's request loop over `lines`; returns (exit status, reply objects)."""
    out = io.StringIO()
    bridge = kb.Bridge(out)
    stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO("".join(l + "\n" for l in lines).encode("utf-8")), encoding="utf-8")
    try:
        rc = kb.serve(bridge)
    finally:
        sys.stdin = stdin
    replies = [json.loads(l) for l in out.getvalue().splitlines() if l.strip()]
    return rc, replies


def header(kind, rid="r1"):
    return {"protocol": kb.PROTOCOL, "type": kind, "id": rid}


class NumbersTest(unittest.TestCase):
    def test_non_finite_numbers_travel_as_strings(self):
        self.assertEqual(kb.num(float("nan")), "nan")
        self.assertEqual(kb.num(float("inf")), "inf")
        self.assertEqual(kb.num(float("-inf")), "-inf")
        self.assertEqual(kb.num(2), 2.0)

    def test_finite_reaches_nested_members(self):
        obj = {"a": [1.0, float("inf"), {"b": float("nan")}], "c": "text", "d": (float("-inf"),)}
        self.assertEqual(kb.finite(obj), {"a": [1.0, "inf", {"b": "nan"}], "c": "text", "d": ["-inf"]})
        # What send() writes is strict JSON.
        json.loads(json.dumps(kb.finite(obj), allow_nan=False))


class ExtensionCacheTest(unittest.TestCase):
    ARGS = {"name": "relu-ext", "cpp_sources": "int f();", "cuda_sources": "__global__ void k() {}",
            "functions": ["f"], "extra_cflags": None, "extra_cuda_cflags": ["-O3"], "extra_ldflags": None,
            "extra_include_paths": None, "with_cuda": None, "is_python_module": True}

    def test_digest_depends_on_sources_flags_and_toolchain_only(self):
        d = kb.extension_digest(self.ARGS, "2.11|13.0|(9, 0)|9.0")
        self.assertEqual(len(d), 24)
        self.assertEqual(d, kb.extension_digest(dict(self.ARGS), "2.11|13.0|(9, 0)|9.0"))
        self.assertNotEqual(d, kb.extension_digest(dict(self.ARGS, cuda_sources="__global__ void k2() {}"),
                                                   "2.11|13.0|(9, 0)|9.0"))
        self.assertNotEqual(d, kb.extension_digest(dict(self.ARGS, extra_cuda_cflags=["-O2"]), "2.11|13.0|(9, 0)|9.0"))
        self.assertNotEqual(d, kb.extension_digest(self.ARGS, "2.11|13.0|(10, 0)|10.0"))
        # Arguments that do not shape the binary do not change it.
        self.assertEqual(d, kb.extension_digest(dict(self.ARGS, verbose=True), "2.11|13.0|(9, 0)|9.0"))

    def test_names_are_safe_and_carry_the_digest(self):
        self.assertEqual(kb.extension_name("relu-ext v2", "0123456789abcdef01234567"), "relu_ext_v2_kwb0123456789ab")
        self.assertEqual(kb.extension_name(None, "ffffffffffffffffffffffff"), "ext_kwbffffffffffff")

    def test_a_stale_torch_lock_does_not_stall_the_next_build(self):
        # A build killed part-way leaves torch's FileBaton 'lock'; the next build removes it.
        with tempfile.TemporaryDirectory() as build:
            open(os.path.join(build, "lock"), "w").close()
            seen = []
            self.assertEqual(common.build_guarded(build, lambda: seen.append(os.path.exists(os.path.join(build, "lock")))
                                              or 42), 42)
            self.assertEqual(seen, [False])

    def test_a_live_build_of_the_same_folder_is_waited_for(self):
        import subprocess
        import time
        with tempfile.TemporaryDirectory() as build:
            # Another builder: holds the folder's flock with torch's 'lock' in place for 1 s.
            holder = subprocess.Popen([sys.executable, "-c", (
                "import fcntl, os, sys, time\n"
                "f = open(os.path.join(sys.argv[1], 'kwb_build.lock'), 'w'); fcntl.flock(f, fcntl.LOCK_EX)\n"
                "open(os.path.join(sys.argv[1], 'lock'), 'w').close(); print('held', flush=True); time.sleep(1.0)\n"
                "os.remove(os.path.join(sys.argv[1], 'lock'))\n"), build], stdout=subprocess.PIPE, text=True)
            self.assertEqual(holder.stdout.readline().strip(), "held")
            t0 = time.monotonic()
            seen = []
            common.build_guarded(build, lambda: seen.append(os.path.exists(os.path.join(build, "lock"))))
            waited = time.monotonic() - t0
            holder.wait(timeout=30)
            self.assertGreater(waited, 0.5)  # it waited for the live build instead of removing its lock
            self.assertEqual(seen, [False])

    def test_build_folder_hits_once_a_build_is_there(self):
        with tempfile.TemporaryDirectory() as root:
            old = os.environ.get("KWB_CACHE_DIR")
            os.environ["KWB_CACHE_DIR"] = root
            try:
                cache = kb.ExtensionCache()
                folder, hit = cache.build_folder("abc")
                self.assertEqual(folder, os.path.join(root, "torch_ext", "abc"))
                self.assertFalse(hit)
                open(os.path.join(folder, "relu_kwbabc.so"), "w").close()
                _, hit = cache.build_folder("abc")
                self.assertTrue(hit)
                self.assertEqual((cache.calls, cache.hits), (2, 1))
            finally:
                if old is None:
                    del os.environ["KWB_CACHE_DIR"]
                else:
                    os.environ["KWB_CACHE_DIR"] = old

    def test_cache_root_precedence(self):
        saved = {k: os.environ.get(k) for k in ("KWB_CACHE_DIR", "XDG_CACHE_HOME")}
        try:
            os.environ.pop("KWB_CACHE_DIR", None)
            os.environ["XDG_CACHE_HOME"] = "/tmp/xdg"
            self.assertEqual(kb.cache_root(), "/tmp/xdg/kwb")
            os.environ["KWB_CACHE_DIR"] = "/tmp/own"
            self.assertEqual(kb.cache_root(), "/tmp/own")
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def test_modules_are_named_by_their_source_hash(self):
        a = kb.load_module("kwb_test", "VALUE = 1\n", "<a>")
        b = kb.load_module("kwb_test", "VALUE = 2\n", "<b>")
        self.assertEqual((a.VALUE, b.VALUE), (1, 2))
        self.assertNotEqual(a.__name__, b.__name__)
        self.assertEqual(a.__name__, kb.load_module("kwb_test", "VALUE = 1\n", "<a again>").__name__)


class RequestHandlingTest(unittest.TestCase):
    def test_a_bridge_serves_re_runs_unless_told_it_builds(self):
        # Only `--build` and `--build-serve` open the bridge without a CUDA context;
        # one built without saying so serves kwb's re-runs.
        import inspect
        self.assertIs(inspect.signature(kb.Bridge).parameters["builds_only"].default, False)

    def test_hello_without_torch_says_why(self):
        rc, replies = serve_lines([json.dumps(header("hello"))])
        self.assertEqual(rc, kb.EXIT_UNUSABLE)
        self.assertEqual(len(replies), 1)
        c = replies[0]
        self.assertEqual((c["protocol"], c["type"], c["id"]), (kb.PROTOCOL, "capabilities", "r1"))
        self.assertFalse(c["device_present"])
        self.assertIn("PyTorch is not installed", c["reason"])
        self.assertEqual(c["references"], [])

    def test_rerun_without_torch_is_a_no_device_result(self):
        req = header("rerun", "job-7")
        req.update({"problem": {"id": "p"}, "candidate": {"id": "c", "form": "kernelbench_sample"},
                    "options": {"warmup": 2}})
        rc, replies = serve_lines([json.dumps(req)])
        self.assertEqual(rc, kb.EXIT_UNUSABLE)
        r = replies[-1]
        self.assertEqual((r["type"], r["id"], r["status"]), ("result", "job-7", "no_device"))
        self.assertEqual((r["problem_id"], r["candidate_id"]), ("p", "c"))
        self.assertIn("PyTorch is not installed", r["message"])
        self.assertGreaterEqual(r["wall_ms"], 0)
        self.assertNotIn("fatal", r)

    def test_bad_lines_get_errors_and_the_loop_goes_on(self):
        lines = ["not json", "[1, 2]", json.dumps({"protocol": "kwb.rerun/0", "type": "hello", "id": "old"}),
                 json.dumps(header("frobnicate", "u")), "", json.dumps(header("hello", "after"))]
        _, replies = serve_lines(lines)
        kinds = [(r["type"], r["id"]) for r in replies]
        self.assertEqual(kinds, [("error", ""), ("error", ""), ("error", "old"), ("error", "u"),
                                 ("capabilities", "after")])
        self.assertIn("not JSON", replies[0]["message"])
        self.assertIn("must be an object", replies[1]["message"])
        self.assertIn('"kwb.rerun/0"', replies[2]["message"])
        self.assertIn('"%s"' % kb.PROTOCOL, replies[2]["message"])
        self.assertIn("hello, rerun, zero_probe and shutdown", replies[3]["message"])

    def test_malformed_options_still_get_a_result(self):
        req = header("rerun", "bad-options")
        req.update({"problem": {"id": "p"}, "candidate": {"id": "c"}, "options": {"warmup": "many"}})
        _, replies = serve_lines([json.dumps(req)])
        self.assertEqual((replies[-1]["type"], replies[-1]["id"]), ("result", "bad-options"))

    def test_shutdown_ends_the_loop(self):
        _, replies = serve_lines([json.dumps(header("shutdown")), json.dumps(header("hello"))])
        self.assertEqual(replies, [])

    def test_timed_ms_counts_warmup_like_the_executor(self):
        r = {"candidate_timing": {"mean_ms": 0.5, "trials": 10}, "reference_timing": {"mean_ms": 1.0, "trials": 10}}
        self.assertAlmostEqual(kb.timed_ms(r, 2), 0.5 * 12 + 1.0 * 12)
        self.assertEqual(kb.timed_ms({"candidate_timing": None}, 5), 0.0)


class NoCheckLogicTest(unittest.TestCase):
    """The verdict's checks are the core's: the script must not grow its own again."""

    def test_no_python_check_logic(self):
        with open(SCRIPT, encoding="utf-8") as f:
            text = f.read()
        for marker in ("torch.profiler", "elapsed_time", "torch.allclose", "torch.isclose", "export_chrome_trace",
                       "LIBRARY_KERNEL", "def timing_stats", "quantile", "statistics.", "kwb_bridge_compare",
                       "kwb_bridge_zeros_pass", "kwb_bridge_scan_collect"):
            self.assertFalse(marker in text, "kwb_torch_bridge.py contains '%s'" % marker)

    def test_no_check_logic_in_any_bridge_module(self):
        """Every module beside the script (judge, worker, channel): no timer, no
        comparison, no statistics of its own. The worker's tamper guard may name
        the timers and checks it watches (to compare identities), never call them."""
        import ast
        banned_calls = {"elapsed_time", "allclose", "isclose", "quantile", "median", "export_chrome_trace",
                        "kwb_bridge_compare", "kwb_bridge_zeros_pass", "kwb_bridge_scan_collect"}
        banned_imports = {"statistics", "torch.profiler", "numpy"}
        folder = os.path.dirname(SCRIPT)
        modules = sorted(glob.glob(os.path.join(folder, "*.py")))
        self.assertGreater(len(modules), 5, modules)
        for path in modules:
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read(), path)
            for node in ast.walk(tree):
                where = "%s:%d" % (os.path.basename(path), getattr(node, "lineno", 0))
                if isinstance(node, ast.Call):
                    f = node.func
                    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
                    self.assertNotIn(name, banned_calls, where)
                elif isinstance(node, ast.Import):
                    for a in node.names:
                        self.assertNotIn(a.name, banned_imports, where)
                elif isinstance(node, ast.ImportFrom):
                    self.assertNotIn(node.module, banned_imports, where)
                elif isinstance(node, ast.FunctionDef):
                    self.assertNotIn(node.name, ("timing_stats", "allclose", "quantile"), where)

    def test_result_check_members_are_the_protocols(self):
        self.assertEqual(set(kb.CHECK_MEMBERS), {"precision", "tolerance", "coverage", "outputs", "inputs",
                                                 "candidate_timing", "reference_timing", "speedup",
                                                 "candidate_cupti", "reference_cupti", "checks_run",
                                                 "fresh_inputs", "post_timing", "host_timing", "per_call_timing",
                                                 "own_kernels", "sanitizer", "adversarial", "isolation"})


class GoldenWireLinesTest(unittest.TestCase):
    """The protocol's golden lines (one per message type, shared with the C++ tests)."""

    def golden_messages(self):
        if not os.path.isdir(GOLDEN):
            self.skipTest("no golden wire lines at %s yet" % GOLDEN)
        messages = []
        for path in sorted(glob.glob(os.path.join(GOLDEN, "*"))):
            if path.endswith((".md", ".txt")):
                continue
            with open(path, encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    if line.strip():
                        messages.append(("%s:%d" % (os.path.basename(path), n), json.loads(line)))
        if not messages:
            self.skipTest("the golden folder %s holds no lines" % GOLDEN)
        return messages

    def test_every_line_speaks_the_bridges_protocol(self):
        for where, m in self.golden_messages():
            self.assertEqual(m.get("protocol"), kb.PROTOCOL, where)
            self.assertIn(m.get("type"), ("hello", "rerun", "shutdown", "capabilities", "progress", "result",
                                          "error"), where)

    def test_replies_survive_the_bridges_encoding(self):
        for where, m in self.golden_messages():
            if m["type"] in ("capabilities", "progress", "result", "error"):
                out = io.StringIO()
                bridge = kb.Bridge(out)
                bridge.send(m)
                self.assertEqual(json.loads(out.getvalue()), m, where)

    def test_requests_are_served(self):
        for where, m in self.golden_messages():
            if m["type"] not in ("hello", "rerun"):
                continue
            _, replies = serve_lines([json.dumps(m)])
            expected = "capabilities" if m["type"] == "hello" else "result"
            self.assertEqual(replies[-1]["type"], expected, where)
            self.assertEqual(replies[-1]["id"], m.get("id", ""), where)


if __name__ == "__main__":
    unittest.main()
