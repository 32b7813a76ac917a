"""Paths and skips shared by the paper-script tests."""
import importlib.util
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
SCRIPTS = os.path.join(REPO, "scripts")
SHARED_PROBLEMS = os.environ.get("KWB_SHARED_DATA_DIR", os.path.join(REPO, "..", "shared", "data"))
SHARED_PROBLEMS = os.path.join(SHARED_PROBLEMS, "kernelbench", "problems")
HAVE_TORCH = importlib.util.find_spec("torch") is not None
NO_TORCH = "PyTorch is not installed for %s (apt-get install python3-torch)" % sys.executable
NVCC = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)


def load_script(name):
    """Imports scripts/<name>.py as a module (the scripts import torch lazily where they can)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(SCRIPTS, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
