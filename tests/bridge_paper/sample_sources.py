"""The CUDA text of a KernelBench sample, read with ast (the sample is not run)."""
import ast


def load_inline_calls(tree):
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and
            getattr(n.func, "id", getattr(n.func, "attr", None)) == "load_inline"]


def string_constants(tree):
    """Module-level NAME = "..." (or a parenthesised concatenation of literals)."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                continue
            if isinstance(value, str):
                out[node.targets[0].id] = value
    return out


def cuda_sources(path):
    """[(extension name, cuda source text)] of every load_inline call in the sample."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    consts = string_constants(tree)
    result = []
    for call in load_inline_calls(tree):
        kw = {k.arg: k.value for k in call.keywords}
        name = ast.literal_eval(kw["name"]) if "name" in kw else None
        src = kw.get("cuda_sources")
        text = consts.get(src.id) if isinstance(src, ast.Name) else (ast.literal_eval(src) if src is not None else None)
        result.append((name, text))
    return result


def device_part(cuda_text):
    """The kernels without the torch host wrapper: the text before the first host
    function returning torch::Tensor, minus the torch and c10 includes, which need
    a CUDA build of PyTorch. nvcc compiles this alone."""
    lines = []
    for line in cuda_text.splitlines():
        if line.startswith("torch::Tensor "):
            break
        if line.startswith("#include <torch/") or line.startswith("#include <c10/"):
            continue
        lines.append(line)
    return "#include <cstdint>\n#include <cuda_runtime.h>\n" + "\n".join(lines) + "\n"
