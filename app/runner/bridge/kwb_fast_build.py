"""Faster cold builds of KernelBench samples' load_inline extensions, with the
same device code.

Measured on the H200 machine (bench/cold_build/variants.py, 8 leaderboard
samples, bench/README.md): of a 64 s cold build, 60 s is the sample's .cu
through nvcc, whose device and host passes both parse <torch/extension.h>
(the whole C++ frontend and pybind11). The .cu needs tensors only:
<torch/types.h> halves it (median 28.9 s) and leaves the SASS identical on
every sample measured. The pybind binding unit (23 s, compiled beside the
.cu) drops to 9 s with torch/extension.h precompiled, which matters when a
build pool keeps every core busy.

<torch/types.h> itself is mostly ATen/ATen.h, which includes the header of
every one of ATen's operators; the .cu of a sample calls a handful. The
lightest tier (light_prelude) resolves the .cu's <torch/types.h> to a
prelude with the tensor class, the operators the source names (ATen's
per-operator headers), torch's own autograd factories and torch/types.h's
own torch:: block, all read from the installed torch, so each name the .cu
can see means what it means under <torch/types.h>
(bench/cold_build/tiers.py measures time and SASS).

Every tier is reversible (build_tiers): a sample whose .cu does not compile
under a tier is built under the next, and finally exactly as written; a
precompiled header that does not match the unit's flags is ignored by g++
(-Winvalid-pch), costing only the time.

Nothing here imports torch at module load (the CPU tests import it bare).
"""

import fcntl
import hashlib
import os
import re
import shlex
import subprocess
import sys
import tempfile

# Bump when what prepare() does changes: it is part of the build cache's key.
FAST_BUILD_VERSION = "fast1"
LIGHT_VERSION = "light1"

_EXTENSION_H = re.compile(r"^([ \t]*#[ \t]*include[ \t]*)<torch/extension\.h>", re.MULTILINE)
_PCH_HEADER = "kwb_torch_extension.h"


def enabled():
    return os.environ.get("KWB_FAST_BUILD", "1") != "0"


def lighter_cuda_source(source):
    """The .cu with <torch/extension.h> replaced by <torch/types.h>; None when unchanged."""
    if not isinstance(source, str) or "torch/extension.h" not in source:
        return None
    out = _EXTENSION_H.sub(r"\1<torch/types.h>", source)
    return out if out != source else None


def rewrite_sources(arguments):
    """Rewrites a bound load_inline call's .cu sources (in place) to the
    lighter header. Returns a tag for the build's cache key ("" when nothing
    changed). Deterministic: the same call always gets the same key."""
    if not enabled():
        return ""
    cuda = arguments.get("cuda_sources")
    if isinstance(cuda, str):
        lighter = lighter_cuda_source(cuda)
        if lighter is None:
            return ""
        arguments["cuda_sources"] = lighter
    elif isinstance(cuda, (list, tuple)):
        changed = [lighter_cuda_source(s) for s in cuda]
        if all(c is None for c in changed):
            return ""
        arguments["cuda_sources"] = [c if c is not None else s for c, s in zip(changed, cuda)]
    else:
        return ""
    return FAST_BUILD_VERSION + "+types"


_CALL = re.compile(r"\b(?:torch|at)::(\w+)\s*\(")
_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(?:include|pragma[ \t]+once)\b.*$", re.MULTILINE)
PRELUDE_HEADERS = ("ATen/core/Tensor.h", "ATen/TensorOperators.h")
# Included only when the source names what they provide (each costs nvcc's three parses).
DISPATCH_HEADER = "ATen/Dispatch.h"
FACTORY_HEADERS = ("torch/csrc/autograd/generated/variable_factories.h", "torch/csrc/autograd/variable.h")
_FACTORY_DEF = re.compile(r"^inline at::Tensor (\w+)\(", re.MULTILINE)
_TORCH_CALL = re.compile(r"\btorch::(\w+)\s*\(")


PCH_DIR, LIGHT_DIR = "pch", "light"


def cache_dirs(cache_root):
    """The folders under the cache root that builds write here (precompiled
    headers, light preludes): the candidate worker's sandbox must let it
    write them, beside the extension cache itself."""
    return [os.path.join(cache_root, PCH_DIR), os.path.join(cache_root, LIGHT_DIR)]


def _find(include_dirs, rel):
    for d in include_dirs:
        path = os.path.join(d, rel)
        if os.path.exists(path):
            return path
    return None


def light_prelude(cuda_sources, include_dirs):
    """Text of a stand-in <torch/types.h> for one sample's .cu: what
    torch/types.h declares, built from ATen's per-operator headers instead of
    ATen/ATen.h (which includes every operator's header). The torch::
    namespace block is the installed types.h's own, and the torch::
    factories are the installed variable_factories.h's own, so every name the
    .cu can see means what it means under <torch/types.h>; a name it leaves
    out fails the compile, and the caller builds the heavier way.
    `include_dirs`: torch's include folders (torch.utils.cpp_extension.
    include_paths(); types.h is under csrc/api/include, ATen under the
    first). None when torch's headers are not where expected."""
    if isinstance(include_dirs, str):
        include_dirs = [include_dirs]
    include_dirs = list(include_dirs or [])
    types_h = _find(include_dirs, os.path.join("torch", "types.h"))
    factories_h = _find(include_dirs, FACTORY_HEADERS[0])
    if types_h is None or factories_h is None or any(
            _find(include_dirs, h) is None for h in PRELUDE_HEADERS + FACTORY_HEADERS + (DISPATCH_HEADER,)):
        return None
    try:
        with open(types_h) as f:
            namespace_block = _DIRECTIVE.sub("", f.read()).strip()
        with open(factories_h) as f:
            factories = set(_FACTORY_DEF.findall(f.read()))
    except OSError:
        return None
    text = "\n".join(cuda_sources) if isinstance(cuda_sources, (list, tuple)) else str(cuda_sources or "")
    ops = sorted(n for n in set(_CALL.findall(text)) if _find(include_dirs, os.path.join("ATen", "ops", n + ".h")))
    headers = list(PRELUDE_HEADERS)
    if "AT_DISPATCH" in text or "AT_PRIVATE" in text:
        headers.append(DISPATCH_HEADER)
    # torch::zeros and the other factories are autograd's wrappers, not at::'s: the real ones, when named.
    if factories & set(_TORCH_CALL.findall(text)):
        headers += FACTORY_HEADERS
    lines = ["#pragma once",
             "// kwb light prelude (kwb_fast_build.py): torch/types.h from per-operator headers",
             "#ifndef AT_PER_OPERATOR_HEADERS",
             "#define AT_PER_OPERATOR_HEADERS",
             "#define KWB_PRELUDE_PER_OPERATOR",
             "#endif"]
    lines += ["#include <%s>" % h for h in headers]
    lines += ["#include <ATen/ops/%s.h>" % n for n in ops]
    lines += ["#ifdef KWB_PRELUDE_PER_OPERATOR", "#undef AT_PER_OPERATOR_HEADERS",
              "#undef KWB_PRELUDE_PER_OPERATOR", "#endif", namespace_block, ""]
    return "\n".join(lines)


def light_include_dir(cuda_sources, include_dirs, cache_root):
    """A folder whose torch/types.h is this sample's light prelude, to be put
    on nvcc's -I path (searched before torch's own -isystem folders, so both
    load_inline's own #include <torch/types.h> and the sample's find it).
    Named by the prelude's hash, written once; None when there is none."""
    prelude = light_prelude(cuda_sources, include_dirs)
    if prelude is None:
        return None
    folder = os.path.join(cache_root, LIGHT_DIR, hashlib.sha256(prelude.encode()).hexdigest()[:16])
    header = os.path.join(folder, "torch", "types.h")
    if not os.path.exists(header):
        os.makedirs(os.path.dirname(header), exist_ok=True)
        tmp = "%s.%d.tmp" % (header, os.getpid())
        with open(tmp, "w") as f:
            f.write(prelude)
        os.replace(tmp, header)
    return folder


def build_tiers(arguments, include_dirs, cache_root):
    """The ways to build one bound load_inline call, fastest first, as (tag,
    arguments) pairs: the .cu against the sample's light prelude, then against
    <torch/types.h>, then the call exactly as written (tag ""). A tier whose
    build fails gives way to the next; each tag is part of its cache key."""
    tiers = []
    if enabled():
        types_args = dict(arguments)
        tag = rewrite_sources(types_args)
        cuda = types_args.get("cuda_sources")
        light = None
        if cuda and include_dirs and os.environ.get("KWB_FAST_BUILD_LIGHT", "1") != "0":
            try:
                light = light_include_dir(cuda, include_dirs, cache_root)
            except OSError as exc:  # the folder cannot be written (a sandbox that does not allow it)
                print("kwb: no light prelude: %s" % exc, file=sys.stderr)
        if light:
            light_args = dict(types_args)
            light_args["extra_cuda_cflags"] = list(types_args.get("extra_cuda_cflags") or []) + ["-I" + light]
            tiers.append(((tag or FAST_BUILD_VERSION) + "+" + LIGHT_VERSION, light_args))
        if tag:
            tiers.append((tag, types_args))
    tiers.append(("", dict(arguments)))
    return tiers


def use_precompiled_header(arguments, build_folder, cache_root):
    """Adds the precompiled torch/extension.h to the binding unit's flags (in
    place). A folder that already holds a build keeps the flags it was built
    with (a marker file says which), so a cached build is never rebuilt only
    because the header became available later."""
    marker = os.path.join(build_folder, "kwb_pch")
    built = any(f.endswith(".so") for f in os.listdir(build_folder))
    if built:
        header = open(marker).read().strip() if os.path.exists(marker) else ""
    else:
        header = precompiled_header(arguments, cache_root) if enabled() else None
        with open(marker, "w") as f:
            f.write(header or "")
    if header:
        flags = list(arguments.get("extra_cflags") or [])
        arguments["extra_cflags"] = flags + ["-include", header, "-Winvalid-pch"]
    return bool(header)


def _binding_flags(arguments):
    """The g++ command load_inline would use for its binding unit main.cpp, as
    torch writes it into build.ninja (written to a scratch folder, not built)."""
    import torch.utils.cpp_extension as cpp_ext
    with tempfile.TemporaryDirectory(prefix="kwb_pch_probe_") as d:
        main = os.path.join(d, "main.cpp")
        open(main, "w").close()
        cpp_ext._write_ninja_file_to_build_library(
            path=os.path.join(d, "build.ninja"), name="kwb_pch_probe", sources=[main],
            extra_cflags=list(arguments.get("extra_cflags") or []),
            extra_cuda_cflags=list(arguments.get("extra_cuda_cflags") or []),
            extra_ldflags=list(arguments.get("extra_ldflags") or []),
            extra_include_paths=list(arguments.get("extra_include_paths") or []),
            with_cuda=bool(arguments.get("cuda_sources")), is_standalone=False)
        text = open(os.path.join(d, "build.ninja")).read().replace("$\n", " ")
    var = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith((" ", "rule", "build")):
            k, v = line.split("=", 1)
            var[k.strip()] = v.strip()
    cxx = var.get("cxx", "c++")
    cflags = [f for f in shlex.split(var.get("cflags", "")) if not f.startswith("-DTORCH_EXTENSION_NAME=")]
    post = shlex.split(var.get("post_cflags", ""))
    post = [f for f in post if not f.startswith("-DTORCH_EXTENSION_NAME=")]
    return [cxx] + cflags + post


def precompiled_header(arguments, cache_root):
    """A header whose .gch precompiles <torch/extension.h> under the flags of
    this call's binding unit, built once per flag set; None when it cannot be
    had now (another process is building it, or the build failed)."""
    if os.environ.get("KWB_FAST_BUILD_PCH", "1") == "0":
        return None
    try:
        cmd = _binding_flags(arguments)
    except Exception:  # a torch whose internals differ: build without
        return None
    digest = hashlib.sha256("\0".join(cmd).encode()).hexdigest()[:16]
    folder = os.path.join(cache_root, PCH_DIR, digest)
    header = os.path.join(folder, _PCH_HEADER)
    gch = header + ".gch"
    failed = os.path.join(folder, "failed")
    if os.path.exists(gch):
        return header
    if os.path.exists(failed):
        return None
    os.makedirs(folder, exist_ok=True)
    lock = open(os.path.join(folder, "lock"), "w")
    try:
        try:
            # One process builds it; the others build without (they do not wait).
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return None
        if os.path.exists(gch):
            return header
        with open(header, "w") as f:
            f.write("#pragma once\n#include <torch/extension.h>\n")
        tmp = gch + ".%d.tmp" % os.getpid()
        p = subprocess.run(cmd + ["-x", "c++-header", header, "-o", tmp], capture_output=True, text=True)
        if p.returncode != 0:
            with open(failed, "w") as f:
                f.write(p.stderr[-4000:])
            return None
        os.replace(tmp, gch)
        return header
    finally:
        lock.close()
