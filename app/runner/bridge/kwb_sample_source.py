"""What the judge reads from a sample's text without running it: the names of
the CUDA kernels it declares (its own kernels, which CUPTI then looks for in
the timed window). Pure Python: no torch, testable anywhere."""

import re

# `__global__` then qualifiers, attributes and a return type, then the name and "(".
# Templates put `template <...>` before __global__, which does not matter here.
_GLOBAL = re.compile(
    r"__global__\s+"
    r"(?:(?:__launch_bounds__\s*\([^()]*(?:\([^()]*\)[^()]*)*\)|__noinline__|__forceinline__|static|inline|"
    r"extern\s+\"C\"|__attribute__\s*\(\([^()]*\)\))\s*)*"
    r"void\s+"
    r"(?:__launch_bounds__\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*)?"
    r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_LINE_COMMENT = re.compile(r"//[^\n]*")
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
MAX_KERNELS = 256


def declared_kernels(source):
    """The distinct `__global__` function names in `source` (a sample's whole
    text: its CUDA sources are string literals in it), in order of appearance.
    Comments are ignored, so a kernel only mentioned in a comment is not one."""
    if not isinstance(source, str):
        return []
    text = _BLOCK_COMMENT.sub(" ", source)
    text = _LINE_COMMENT.sub("", text)
    names = []
    for m in _GLOBAL.finditer(text):
        name = m.group(1)
        if name not in names:
            names.append(name)
        if len(names) >= MAX_KERNELS:
            break
    return names
