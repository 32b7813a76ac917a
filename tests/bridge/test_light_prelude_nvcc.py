"""The light build tier against real headers and a real compiler: two
KernelBench leaderboard samples' .cu files, written as load_inline writes
them, compile with nvcc under their light prelude (host and device), and the
device code is byte for byte the <torch/types.h> build's.

Needs nvcc and a torch include tree (Debian's libtorch-dev, which
scripts/setup.sh installs; or the importable torch's own) and the
leaderboard in ../shared; skips without them. The GPU machine's PyTorch is
measured by bench/cold_build/tiers.py (bench/README.md)."""

import concurrent.futures as cf
import importlib.abc
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import types
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "app", "runner", "bridge"))
sys.path.insert(0, os.path.join(ROOT, "bench", "cold_build"))
import kwb_fast_build as fb  # noqa: E402
from probe import distinct_samples, spread  # noqa: E402

LEADERBOARD = os.path.join(ROOT, "..", "shared", "data", "kernelbench", "leaderboard", "raw_data.json")
NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
# What torch.utils.cpp_extension passes nvcc besides the include folders.
FLAGS = ["-std=c++17", "-D_GLIBCXX_USE_CXX11_ABI=1", "-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__",
         "-D__CUDA_NO_BFLOAT16_CONVERSIONS__", "-D__CUDA_NO_HALF2_OPERATORS__", "--expt-relaxed-constexpr",
         "-O3", "-arch=sm_90", "-Xcompiler", "-fPIC"]


def torch_include_dirs():
    """Debian's libtorch-dev layout, else the importable torch's."""
    if os.path.exists("/usr/include/torch/csrc/api/include/torch/types.h"):
        return ["/usr/include", "/usr/include/torch/csrc/api/include"]
    try:
        import torch.utils.cpp_extension as c
        return c.include_paths()
    except Exception:
        return None


class Captured(Exception):
    pass


class _Anything:
    """Whatever a sample touches of torch before its load_inline call."""

    def __getattr__(self, name):
        return _Anything()

    def __call__(self, *a, **k):
        return _Anything()


class _StandInTorch(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves torch and every torch.* module as a stand-in package."""

    def __init__(self, load_inline):
        self.load_inline = load_inline

    def find_spec(self, name, path, target=None):
        if name == "torch" or name.startswith("torch."):
            return importlib.util.spec_from_loader(name, self, is_package=True)
        return None

    def create_module(self, spec):
        m = types.ModuleType(spec.name)
        m.__path__ = []
        m.__getattr__ = lambda attr: _Anything()
        m.Module = object  # torch.nn.Module, subclassed by ModelNew
        m.load_inline = self.load_inline
        return m

    def exec_module(self, module):
        pass


def cuda_sources(code):
    """The cuda_sources of a sample's first load_inline call: the sample runs
    against a stand-in torch whose load_inline stops it there."""
    def load_inline(*a, **k):
        raise Captured(k.get("cuda_sources", a[2] if len(a) > 2 else None))
    finder = _StandInTorch(load_inline)
    with mock.patch.dict(sys.modules), mock.patch.object(sys, "meta_path", [finder] + sys.meta_path):
        for k in [k for k in sys.modules if k == "torch" or k.startswith("torch.")]:
            del sys.modules[k]  # the real torch, if imported, comes back when the patch ends
        try:
            exec(compile(code, "sample.py", "exec"), {"__name__": "sample"})
        except Captured as c:
            return c.args[0]
    return None


def nvcc(args, cwd):
    p = subprocess.run([NVCC] + args, cwd=cwd, capture_output=True, text=True)
    return p.returncode, p.stderr


@unittest.skipUnless(os.path.exists(NVCC), "no nvcc")
@unittest.skipUnless(os.path.exists(LEADERBOARD), "no leaderboard in ../shared")
class LightPreludeCompiles(unittest.TestCase):
    def setUp(self):
        self.include = torch_include_dirs()
        if not self.include or fb.light_prelude("", self.include) is None:
            self.skipTest("no torch include tree with per-operator headers")

    def build(self, src, work):
        with open(os.path.join(work, "cuda.cu"), "w") as f:
            # load_inline's own first lines, then the sample's source with <torch/extension.h> made <torch/types.h>.
            f.write("#include <torch/types.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\n"
                    + (fb.lighter_cuda_source(src) or src))
        light = fb.light_include_dir(src, self.include, os.path.join(work, "cache"))
        # /usr/include is searched already; naming it with -isystem would upset libstdc++'s #include_next.
        common = FLAGS + [a for d in self.include if d != "/usr/include" for a in ("-isystem", d)]
        out = {}
        for name, extra, mode in (("types", [], "-cubin"), ("light", ["-I" + light], "-cubin"),
                                  ("light_host", ["-I" + light], "-c")):
            target = "%s.%s" % (name, "cubin" if mode == "-cubin" else "o")
            rc, err = nvcc(extra + common + [mode, "cuda.cu", "-o", target], work)
            out[name] = (rc, err, target)
        return out

    def test_two_leaderboard_samples(self):
        samples = spread(distinct_samples(LEADERBOARD), 2)
        with tempfile.TemporaryDirectory() as work:
            dirs = [os.path.join(work, str(i)) for i in range(len(samples))]
            for d in dirs:
                os.makedirs(d)
            sources = [cuda_sources(s["code"]) for s in samples]
            for sample, src in zip(samples, sources):
                self.assertIsInstance(src, str, "%s: its load_inline call was not reached" % sample["file"])
            with cf.ThreadPoolExecutor(max_workers=2) as ex:
                results = list(ex.map(self.build, sources, dirs))
            for sample, d, res in zip(samples, dirs, results):
                for name, (rc, err, _t) in res.items():
                    first = next((l for l in err.splitlines() if re.search(r"\berror\b", l)), err[-300:])
                    self.assertEqual(rc, 0, "%s: %s build failed: %s" % (sample["file"], name, first))
                with open(os.path.join(d, res["types"][2]), "rb") as a, open(os.path.join(d, res["light"][2]), "rb") as b:
                    self.assertEqual(a.read(), b.read(), "%s: the light tier changed the device code" % sample["file"])


if __name__ == "__main__":
    unittest.main()
