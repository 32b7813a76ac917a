"""CPU-only tests of kwb_fast_build: which .cu sources are rewritten, that the
rewrite is deterministic (a cached build keeps its key), and that a build
folder keeps the binding-unit flags it was built with."""

import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "app", "runner", "bridge"))
import kwb_fast_build as fb  # noqa: E402


class LighterSource(unittest.TestCase):
    def test_extension_header_becomes_types(self):
        src = "#include <torch/extension.h>\n#include <cuda_runtime.h>\n__global__ void k() {}\n"
        out = fb.lighter_cuda_source(src)
        self.assertEqual(out, "#include <torch/types.h>\n#include <cuda_runtime.h>\n__global__ void k() {}\n")

    def test_spacing_forms(self):
        self.assertEqual(fb.lighter_cuda_source("  # include <torch/extension.h>\n"), "  # include <torch/types.h>\n")

    def test_untouched_when_absent_or_mentioned_only(self):
        self.assertIsNone(fb.lighter_cuda_source("#include <ATen/ATen.h>\n"))
        # A mention in a comment or string is not an include: left as written.
        self.assertIsNone(fb.lighter_cuda_source("// needs torch/extension.h\n"))
        self.assertIsNone(fb.lighter_cuda_source(None))

    def test_rewrite_is_deterministic_and_tagged(self):
        a = {"cuda_sources": "#include <torch/extension.h>\n", "cpp_sources": "#include <torch/extension.h>\n"}
        b = dict(a)
        self.assertEqual(fb.rewrite_sources(a), fb.rewrite_sources(b))
        self.assertEqual(a, b)
        self.assertTrue(fb.rewrite_sources({"cuda_sources": ["#include <torch/extension.h>\n"]}).endswith("+types"))
        # The binding unit's own sources keep torch/extension.h (pybind11 needs it).
        self.assertIn("extension.h", a["cpp_sources"])

    def test_nothing_to_rewrite(self):
        self.assertEqual(fb.rewrite_sources({"cuda_sources": None}), "")
        self.assertEqual(fb.rewrite_sources({"cuda_sources": "#include <ATen/ATen.h>\n"}), "")

    def test_switch_off(self):
        os.environ["KWB_FAST_BUILD"] = "0"
        try:
            self.assertEqual(fb.rewrite_sources({"cuda_sources": "#include <torch/extension.h>\n"}), "")
        finally:
            del os.environ["KWB_FAST_BUILD"]


class PrecompiledHeaderFlags(unittest.TestCase):
    def test_built_folder_keeps_its_flags(self):
        with tempfile.TemporaryDirectory() as d:
            open(os.path.join(d, "ext.so"), "w").close()
            with open(os.path.join(d, "kwb_pch"), "w") as f:
                f.write("/cache/pch/x/kwb_torch_extension.h")
            a = {"extra_cflags": ["-O3"]}
            self.assertTrue(fb.use_precompiled_header(a, d, d))
            self.assertEqual(a["extra_cflags"], ["-O3", "-include", "/cache/pch/x/kwb_torch_extension.h",
                                                 "-Winvalid-pch"])

    def test_built_without_stays_without(self):
        with tempfile.TemporaryDirectory() as d:
            open(os.path.join(d, "ext.so"), "w").close()
            a = {"extra_cflags": None}
            self.assertFalse(fb.use_precompiled_header(a, d, d))
            self.assertIsNone(a["extra_cflags"])

    def test_no_torch_means_no_header(self):
        # Without torch the binding flags cannot be had: build without, and say so in the marker.
        with tempfile.TemporaryDirectory() as d:
            a = {"extra_cflags": []}
            saved = sys.modules.get("torch")
            sys.modules["torch"] = None
            try:
                self.assertFalse(fb.use_precompiled_header(a, d, d))
            finally:
                if saved is None:
                    del sys.modules["torch"]
                else:
                    sys.modules["torch"] = saved
            self.assertEqual(open(os.path.join(d, "kwb_pch")).read(), "")


if __name__ == "__main__":
    unittest.main()
