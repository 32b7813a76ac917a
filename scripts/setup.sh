#!/usr/bin/env bash
# Installs what Kernel Workbench needs on Debian 12, idempotently: packages
# already present are not touched, and apt-get runs only when one is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  qt6-base-dev qt6-base-dev-tools qt6-charts-dev qt6-svg-dev libgl1-mesa-dev
  # Qt6Charts' CMake package needs Qt6OpenGL's, which qt6-base-dev only recommends
  libqt6opengl6-dev
  nlohmann-json3-dev libsimdjson-dev libsqlite3-dev zlib1g-dev libre2-dev
  # libFuzzer harnesses (tests/fuzz, scripts/fuzz.sh)
  clang
  xvfb xauth fonts-dejavu-core gzip python3
  # the Slurm CI test stands up a real cluster on loopback (tests/slurm/)
  slurmctld slurmd slurm-client munge
  # CPU PyTorch: the bridge's judge/worker tests drive a real torch on a stand-in GPU (tests/bridge/)
  python3-torch
  # torch's C++ headers: the light build tier compiles leaderboard samples with nvcc against them (tests/bridge/)
  libtorch-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install packages" >&2; exit 1; }
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all Debian packages present"
fi

# The CUDA toolkit is optional: without it the GPU parts (kwb_gpu, kwb-runner) are not built.
if [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: CUDA toolkit: $(/usr/local/cuda/bin/nvcc --version | tail -n 2 | head -n 1)"
else
  echo "setup: no CUDA toolkit at /usr/local/cuda: building without GPU support"
fi
