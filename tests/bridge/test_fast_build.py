"""CPU-only tests of kwb_fast_build: which .cu sources are rewritten, that the
rewrite is deterministic (a cached build keeps its key), and that a build
folder keeps the binding-unit flags it was built with."""

import contextlib
import os
import sys
import tempfile
import unittest
from unittest import mock

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


def api(root):
    return os.path.join(root, "torch", "csrc", "api", "include")


def fake_torch_include(root, ops=("zeros_like", "empty")):
    """A torch include tree with the files light_prelude reads: types.h as
    torch writes it (includes, then the torch:: block), the prelude's fixed
    headers, and per-operator headers for `ops`."""
    def touch(rel, text=""):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    touch("torch/csrc/api/include/torch/types.h", "#pragma once\n\n#include <ATen/ATen.h>\n#include <c10/util/Optional.h>\n"
          "namespace torch {\nusing namespace at;\nconstexpr auto kFloat32 = at::kFloat;\n}\n")
    for h in fb.PRELUDE_HEADERS + fb.FACTORY_HEADERS[1:] + (fb.DISPATCH_HEADER,):
        touch(h)
    touch(fb.FACTORY_HEADERS[0], "#pragma once\nnamespace torch {\ninline at::Tensor zeros_like(const at::Tensor & self) {\n"
          "  return autograd::make_variable(at::zeros_like(self));\n}\n}\n")
    for op in ops:
        touch("ATen/ops/%s.h" % op)
    return root


class LightPrelude(unittest.TestCase):
    SRC = ("#include <torch/extension.h>\n__global__ void k(float* y) {}\n"
           "torch::Tensor f(torch::Tensor x) { auto y = torch::zeros_like(x); auto z = at::empty ({1});\n"
           "  return torch::mystery(y); }\n")

    def test_per_operator_headers_and_types_block(self):
        with tempfile.TemporaryDirectory() as inc:
            p = fb.light_prelude(self.SRC, [fake_torch_include(inc), api(inc)])
            self.assertIn("#include <ATen/ops/zeros_like.h>", p)
            self.assertIn("#include <ATen/ops/empty.h>", p)  # at:: and a space before the paren
            self.assertNotIn("mystery", p)  # no such operator header: the compile fails, the next tier builds
            self.assertNotIn("ATen/ATen.h", p)
            self.assertIn("namespace torch {\nusing namespace at;\nconstexpr auto kFloat32 = at::kFloat;\n}", p)
            # torch::zeros_like is autograd's factory: its header comes along; no AT_DISPATCH, no Dispatch.h.
            for h in fb.PRELUDE_HEADERS + fb.FACTORY_HEADERS:
                self.assertIn("#include <%s>" % h, p)
            self.assertNotIn(fb.DISPATCH_HEADER, p)
            # AT_PER_OPERATOR_HEADERS holds for the prelude's own includes only.
            self.assertLess(p.index("#define AT_PER_OPERATOR_HEADERS"), p.index("#include <ATen/core/Tensor.h>"))
            self.assertLess(p.index("#include <ATen/ops/zeros_like.h>"), p.index("#undef AT_PER_OPERATOR_HEADERS"))
            # A list of sources reads like their concatenation.
            self.assertEqual(p, fb.light_prelude(self.SRC.split("\n", 2)[:2] + [self.SRC.split("\n", 2)[2]], [inc, api(inc)]))

    def test_only_what_the_source_names(self):
        with tempfile.TemporaryDirectory() as inc:
            dirs = [fake_torch_include(inc), api(inc)]
            p = fb.light_prelude("torch::Tensor f(torch::Tensor x) { return at::zeros_like(x); }", dirs)
            for h in fb.FACTORY_HEADERS + (fb.DISPATCH_HEADER,):
                self.assertNotIn(h, p)  # at::zeros_like is ATen's own: no autograd wrapper needed
            p = fb.light_prelude("AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), \"k\", [&] {});", dirs)
            self.assertIn("#include <%s>" % fb.DISPATCH_HEADER, p)

    def test_none_without_torch_headers(self):
        with tempfile.TemporaryDirectory() as inc:
            self.assertIsNone(fb.light_prelude(self.SRC, [inc, api(inc)]))
            fake_torch_include(inc)
            # torch/types.h lives under csrc/api/include, not beside ATen: the first folder alone lacks it.
            self.assertIsNone(fb.light_prelude(self.SRC, inc))
            self.assertIsNotNone(fb.light_prelude(self.SRC, [inc, api(inc)]))
            os.remove(os.path.join(inc, fb.FACTORY_HEADERS[-1]))
            self.assertIsNone(fb.light_prelude(self.SRC, [inc, api(inc)]))

    def test_include_dir_is_content_addressed(self):
        with tempfile.TemporaryDirectory() as inc, tempfile.TemporaryDirectory() as cache:
            fake_torch_include(inc)
            a = fb.light_include_dir(self.SRC, [inc, api(inc)], cache)
            self.assertEqual(a, fb.light_include_dir(self.SRC, [inc, api(inc)], cache))
            self.assertTrue(a.startswith(os.path.join(cache, "light")))
            with open(os.path.join(a, "torch", "types.h")) as f:
                self.assertEqual(f.read(), fb.light_prelude(self.SRC, [inc, api(inc)]))
            other = fb.light_include_dir(self.SRC.replace("zeros_like", "empty"), [inc, api(inc)], cache)
            self.assertNotEqual(a, other)
            # Under a folder the candidate worker's sandbox lets it write (kwb_judge's writable list).
            self.assertIn(os.path.dirname(a), fb.cache_dirs(cache))

    def test_an_unwritable_cache_costs_only_the_light_tier(self):
        # The H100 run of 2026-12-06 had every sample fail with "Permission denied: .../light" when the
        # sandbox did not list the folder; now the folder is listed, and a failure to write it skips the tier.
        with tempfile.TemporaryDirectory() as inc, tempfile.TemporaryDirectory() as cache:
            fake_torch_include(inc)
            os.chmod(cache, 0o500)
            try:
                if os.access(cache, os.W_OK):  # root ignores the mode
                    open(os.path.join(cache, "light"), "w").close()  # a file where the folder should be
                tiers = fb.build_tiers(dict(BuildTiers.ARGS), [inc, api(inc)], cache)
            finally:
                os.chmod(cache, 0o700)
            self.assertEqual([t for t, _ in tiers], ["fast1+types", ""])


class BuildTiers(unittest.TestCase):
    ARGS = {"name": "ext", "cpp_sources": "torch::Tensor f(torch::Tensor x);",
            "cuda_sources": LightPrelude.SRC, "extra_cflags": ["-O3"], "extra_cuda_cflags": ["-O3"]}

    def tiers(self, args, **env):
        with mock.patch.dict(os.environ, env), tempfile.TemporaryDirectory() as inc, \
                tempfile.TemporaryDirectory() as cache:
            fake_torch_include(inc)
            return fb.build_tiers(dict(args), [inc, api(inc)], cache), cache

    def test_lightest_first_and_the_call_as_written_last(self):
        tiers, cache = self.tiers(self.ARGS)
        self.assertEqual([t for t, _ in tiers], ["fast1+types+light1", "fast1+types", ""])
        light, types, plain = (a for _, a in tiers)
        self.assertEqual(plain, self.ARGS)
        self.assertEqual(light["cuda_sources"], types["cuda_sources"])
        self.assertNotIn("torch/extension.h", light["cuda_sources"])
        # Only nvcc sees the prelude's folder; the binding unit's flags stay.
        self.assertEqual(light["extra_cuda_cflags"][:1], ["-O3"])
        self.assertTrue(light["extra_cuda_cflags"][1].startswith("-I" + os.path.join(cache, "light")))
        self.assertEqual(light["extra_cflags"], ["-O3"])
        self.assertEqual(types["extra_cuda_cflags"], ["-O3"])

    def test_a_cu_without_torch_extension_h_still_gets_the_prelude(self):
        # load_inline puts #include <torch/types.h> at the top of every .cu itself.
        args = dict(self.ARGS, cuda_sources="__global__ void k() {}\ntorch::Tensor f(torch::Tensor x);\n")
        tiers, _ = self.tiers(args)
        self.assertEqual([t for t, _ in tiers], ["fast1+light1", ""])

    def test_switches(self):
        tiers, _ = self.tiers(self.ARGS, KWB_FAST_BUILD_LIGHT="0")
        self.assertEqual([t for t, _ in tiers], ["fast1+types", ""])
        tiers, _ = self.tiers(self.ARGS, KWB_FAST_BUILD="0")
        self.assertEqual(tiers, [("", self.ARGS)])
        tiers, _ = self.tiers(dict(self.ARGS, cuda_sources=None))
        self.assertEqual([t for t, _ in tiers], [""])


def stand_in_torch(inc, load_inline, get_device_capability):
    """A torch module with only what ExtensionCache.install touches."""
    import types as pytypes
    cpp_ext = pytypes.SimpleNamespace(load_inline=load_inline, include_paths=lambda: [inc, api(inc)])
    torch = pytypes.ModuleType("torch")
    torch.__version__ = "0.test"
    torch.version = pytypes.SimpleNamespace(cuda="13.0")
    torch.cuda = pytypes.SimpleNamespace(get_device_capability=get_device_capability)
    torch.utils = pytypes.ModuleType("torch.utils")
    torch.utils.cpp_extension = cpp_ext
    return torch, cpp_ext, {"torch": torch, "torch.utils": torch.utils, "torch.utils.cpp_extension": cpp_ext}


class CacheFallsBackThroughTiers(unittest.TestCase):
    """kwb_bridge_common.ExtensionCache with a stand-in torch: a tier that does
    not build gives way to the next, and is not tried again for that sample."""

    def test_light_failure_builds_types_then_remembers(self):
        import kwb_bridge_common as common
        calls = []

        def load_inline(name, cpp_sources, cuda_sources=None, functions=None, extra_cflags=None,
                        extra_cuda_cflags=None, extra_ldflags=None, extra_include_paths=None, build_directory=None,
                        verbose=False, with_cuda=None, is_python_module=True, with_pytorch_error_handling=True,
                        keep_intermediates=True, use_pch=False):
            light = any("/light/" in f for f in extra_cuda_cflags or [])
            calls.append(("light" if light else "types" if "torch/extension.h" not in cuda_sources else "plain",
                          build_directory))
            if light:
                raise RuntimeError("error: identifier \"torch::mystery\" is undefined")
            return "module"

        with tempfile.TemporaryDirectory() as inc, tempfile.TemporaryDirectory() as cache:
            fake_torch_include(inc)
            torch, cpp_ext, modules = stand_in_torch(inc, load_inline, lambda: (9, 0))
            with contextlib.ExitStack() as stack:
                stack.enter_context(mock.patch.dict(sys.modules, modules))
                stack.enter_context(mock.patch.dict(os.environ, {"KWB_CACHE_DIR": cache, "KWB_FAST_BUILD_PCH": "0"}))
                common.ExtensionCache().install(torch)
                for _ in range(2):
                    self.assertEqual(cpp_ext.load_inline("ext", "torch::Tensor f(torch::Tensor x);", LightPrelude.SRC,
                                                         functions=["f"]), "module")
            self.assertEqual([c for c, _ in calls], ["light", "types", "types"])
            self.assertEqual(calls[1][1], calls[2][1])  # the same cached folder
            failed = [f for f in os.listdir(os.path.join(cache, "torch_ext")) if f.endswith(".fast_failed")]
            self.assertEqual(len(failed), 1)


class BuildOnlyWorkerKey(unittest.TestCase):
    def test_a_capability_from_the_driver_keys_the_build_as_torchs_does(self):
        """A build lane's worker (no CUDA context) is given the device's capability;
        the GPU worker asks torch. The same sample must land in the same folder, or
        every pooled build is built again on the GPU side."""
        import kwb_bridge_common as common
        folders = []

        def load_inline(name, cpp_sources, cuda_sources=None, functions=None, extra_cflags=None,
                        extra_cuda_cflags=None, extra_ldflags=None, extra_include_paths=None, build_directory=None,
                        verbose=False, with_cuda=None, is_python_module=True, with_pytorch_error_handling=True,
                        keep_intermediates=True, use_pch=False):
            folders.append(build_directory)
            return "module"

        def no_context():
            raise AssertionError("a build-only worker asked torch for the device (a CUDA context)")

        with tempfile.TemporaryDirectory() as inc, tempfile.TemporaryDirectory() as cache:
            fake_torch_include(inc)
            for given, ask in ((None, lambda: (9, 0)), ((9, 0), no_context), ((8, 0), no_context)):
                torch, cpp_ext, modules = stand_in_torch(inc, load_inline, ask)
                with contextlib.ExitStack() as stack:
                    stack.enter_context(mock.patch.dict(sys.modules, modules))
                    stack.enter_context(mock.patch.dict(os.environ, {"KWB_CACHE_DIR": cache, "KWB_FAST_BUILD_PCH": "0",
                                                                     "TORCH_CUDA_ARCH_LIST": "9.0"}))
                    ext_cache = common.ExtensionCache()
                    ext_cache.capability = given
                    ext_cache.install(torch)
                    cpp_ext.load_inline("ext", "torch::Tensor f(torch::Tensor x);", LightPrelude.SRC, functions=["f"])
        self.assertEqual(folders[0], folders[1])
        self.assertNotEqual(folders[0], folders[2])  # another device, another build


if __name__ == "__main__":
    unittest.main()
