#!/usr/bin/env bash
# Installs the Debian 12 packages the build, `make run`, `make test` and .ci/run need, only those
# that are missing. Not root: prints the exact apt-get line to run and fails. `--list` prints the
# packages, one a line (tests/python/test_setup_deps.py checks that every program and Python module
# the build and the tests call comes from one of them).
# Prerequisites it cannot install itself: make (which runs it) and git (which fetched the tree).
set -euo pipefail

PACKAGES=(
  build-essential g++ binutils cmake ccache pkg-config
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libspdlog-dev libboost-dev libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev openssl
  python3-minimal pybind11-dev python3-dev python3-numpy python3-pytest python3-protobuf python3-torch
  python3-grpcio python3-tqdm python3-yaml python3-scipy docker-compose yamllint python3-kubernetes codespell
  clang-format clang-tidy-19 clang-19 libclang-rt-19-dev
  python3-pip python3-venv python3-setuptools python3-wheel
  # cpack's DEB generator: dpkg-shlibdeps (dpkg-dev) and file (for CPACK_DEBIAN_PACKAGE_SHLIBDEPS).
  dpkg-dev file
  # systemd-analyze checks the unit offline.
  systemd
)

if [[ ${1:-} == --list ]]; then
  printf '%s\n' "${PACKAGES[@]}"
  exit 0
fi

missing=()
for p in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
  echo "Missing Debian packages. Run as root:" >&2
  echo "  apt-get update && $cmd" >&2
  exit 1
fi
echo "Installing missing packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
