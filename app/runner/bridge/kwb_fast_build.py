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

Both are reversible: a sample whose .cu does not compile against
<torch/types.h> is rebuilt as written (the caller retries with the
arguments untouched), and a precompiled header that does not match the
unit's flags is ignored by g++ (-Winvalid-pch), costing only the time.

Nothing here imports torch at module load (the CPU tests import it bare).
"""

import fcntl
import hashlib
import os
import re
import shlex
import subprocess
import tempfile

# Bump when what prepare() does changes: it is part of the build cache's key.
FAST_BUILD_VERSION = "fast1"

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
    folder = os.path.join(cache_root, "pch", digest)
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
