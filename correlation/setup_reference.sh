#!/usr/bin/env bash
# Sets up the GPGPU-Sim reference of correlation/gtx480.toml in DIR, as
# docs/correlation.md ("Reproducing the reference") describes: Debian
# packages, the pip CUDA wheels, the toolkit directory GPGPU-Sim builds and
# runs with, GPGPU-Sim 4.2 (accel-sim/gpgpu-sim_distribution 667834cf) with
# its one change and its build, and DIR/env.sh with the variables
# correlation/run_gpgpusim.sh needs. Each step is skipped when its result
# is already there, so the script can be re-run after a failure.
#
# usage: setup_reference.sh DIR [--gpusim]
#   --gpusim   also build gpusim from this repository (cargo build --release;
#              CARGO_TARGET_DIR is honoured)
# env:   GPGPUSIM_GIT  where to clone GPGPU-Sim from
#                      (default https://github.com/accel-sim/gpgpu-sim_distribution.git;
#                      a local clone or mirror works)
#        JOBS          make -j (default 2)
#        PYTHON        the python with pip (default python3)
#        SKIP_APT=1    do not check or install Debian packages
set -euo pipefail

GPGPUSIM_COMMIT=667834cfe5214523edd7769aeab77f91b7137686
CUDART_VERSION=13050
CU11_WHEELS=(nvidia-cuda-runtime-cu11==11.8.89 nvidia-cuda-nvcc-cu11==11.8.89
             nvidia-cuda-profiler-api-cu11==11.8.86)
CU13_WHEELS=(nvidia-cuda-nvcc==13.5.37 nvidia-cuda-runtime==13.5.37
             nvidia-cuda-crt==13.5.37 nvidia-nvvm==13.5.37)
DEBIAN_PACKAGES=(build-essential git python3 python3-pip ca-certificates
                 bison flex xutils-dev zlib1g-dev libglu1-mesa-dev)

say() { echo "setup_reference: $*"; }
die() { echo "setup_reference: error: $*" >&2; exit 1; }

[ $# -ge 1 ] || die "usage: setup_reference.sh DIR [--gpusim]"
mkdir -p "$1"
DIR=$(realpath "$1")
BUILD_GPUSIM=0
for a in "${@:2}"; do
  case "$a" in
    --gpusim) BUILD_GPUSIM=1 ;;
    *) die "unknown option $a" ;;
  esac
done
REPO=$(cd "$(dirname "$(realpath "$0")")/.." && pwd)
GPGPUSIM_GIT=${GPGPUSIM_GIT:-https://github.com/accel-sim/gpgpu-sim_distribution.git}
JOBS=${JOBS:-2}
PYTHON=${PYTHON:-python3}
ROOT=$DIR/gpgpu-sim_distribution
TOOLKIT=$DIR/cuda-toolkit
CU13_BIN=$DIR/cu13/nvidia/cu13/bin
say "reference directory $DIR, repository $REPO"

# 1. Debian packages: compilers, GPGPU-Sim's parser generators (bison,
# flex), makedepend (xutils-dev), zlib and the GL headers its sources include.
if [ "${SKIP_APT:-0}" != 1 ]; then
  missing=()
  for p in "${DEBIAN_PACKAGES[@]}"; do
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)" = installed ] ||
      missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing Debian packages: ${missing[*]}"
    sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
  else
    say "Debian packages present"
  fi
fi

# 2. pip wheels, each set into its own --target directory (installed into
# DIR.tmp and renamed, so an interrupted install is redone).
pip_target() {  # pip_target NAME WHEEL...
  local name=$1; shift
  if [ -d "$DIR/$name" ]; then
    say "$name/ present"
    return
  fi
  say "pip install --target $DIR/$name $*"
  rm -rf "$DIR/$name.tmp"
  "$PYTHON" -m pip install --no-cache-dir --target "$DIR/$name.tmp" "$@"
  mv "$DIR/$name.tmp" "$DIR/$name"
}
pip_target cu11 "${CU11_WHEELS[@]}"
pip_target cu13 "${CU13_WHEELS[@]}"
[ -x "$CU13_BIN/nvcc" ] && [ -x "$CU13_BIN/ptxas" ] ||
  die "no nvcc/ptxas in $CU13_BIN (the cu13 wheels' layout changed?)"
[[ $("$CU13_BIN/nvcc" --version) == *V13.5.37* ]] || die "$CU13_BIN/nvcc is not V13.5.37"
ls "$DIR"/cu13/nvidia/cu13/lib/libcudart.so.13 >/dev/null ||
  die "no libcudart.so.13 in $DIR/cu13/nvidia/cu13/lib"

# 3. The toolkit directory: include/ is the CUDA 11.8 headers of the three
# cu11 wheels merged into one directory (no file is in two of them);
# bin/ holds this repository's two harness scripts as cuobjdump and ptxas.
if [ ! -d "$TOOLKIT/include" ]; then
  say "assembling $TOOLKIT/include from the cu11 wheels"
  rm -rf "$TOOLKIT/include.tmp"
  mkdir -p "$TOOLKIT/include.tmp"
  for w in cuda_runtime cuda_nvcc cuda_profiler_api; do
    cp -R "$DIR/cu11/nvidia/$w/include/." "$TOOLKIT/include.tmp/"
  done
  rm -rf "$TOOLKIT/include.tmp/__init__.py" "$TOOLKIT/include.tmp/__pycache__"
  for h in cuda_runtime_api.h crt/host_config.h cudaProfiler.h; do
    [ -f "$TOOLKIT/include.tmp/$h" ] || die "the cu11 wheels gave no $h"
  done
  mv "$TOOLKIT/include.tmp" "$TOOLKIT/include"
else
  say "cuda-toolkit/include present"
fi
mkdir -p "$TOOLKIT/bin"
ln -sfn "$REPO/correlation/harness/cuobjdump_ptx.sh" "$TOOLKIT/bin/cuobjdump"
ln -sfn "$REPO/correlation/harness/ptxas_info_filter.sh" "$TOOLKIT/bin/ptxas"
say "cuda-toolkit/bin/cuobjdump, ptxas -> $REPO/correlation/harness/"

# 4. GPGPU-Sim at the reference commit.
if [ ! -d "$ROOT" ]; then
  say "cloning $GPGPUSIM_GIT"
  rm -rf "$ROOT.tmp"
  git clone -q "$GPGPUSIM_GIT" "$ROOT.tmp"
  git -C "$ROOT.tmp" checkout -q -b ref "$GPGPUSIM_COMMIT"
  mv "$ROOT.tmp" "$ROOT"
fi
[ "$(git -C "$ROOT" rev-parse HEAD)" = "$GPGPUSIM_COMMIT" ] ||
  die "$ROOT is not at $GPGPUSIM_COMMIT"
say "gpgpu-sim_distribution at ${GPGPUSIM_COMMIT:0:8}"

# 5. The one change: GPGPU-Sim links its libcudart.so with the symbol-version
# script linux-so-version.txt, one node per runtime soname it may stand in
# for. The apps are linked against CUDA 13's libcudart.so.13, whose symbols
# the loader looks for under version "libcudart.so.13"; add that node (and
# libcudart.so.12's) before the libcuda.so.1 node.
vers=$ROOT/linux-so-version.txt
if ! grep -q '^libcudart\.so\.13{' "$vers"; then
  say "adding libcudart.so.12 and libcudart.so.13 to linux-so-version.txt"
  awk '/^libcuda\.so\.1\{/ { print "libcudart.so.12{"; print "};";
                              print "libcudart.so.13{"; print "};" }
       { print }' "$vers" > "$vers.new"
  cat "$vers.new" > "$vers"
  rm "$vers.new"
  grep -q '^libcudart\.so\.13{' "$vers" || die "could not edit $vers (no libcuda.so.1 node?)"
fi
[ "$(git -C "$ROOT" diff --name-only)" = linux-so-version.txt ] ||
  die "$ROOT has changes other than linux-so-version.txt: $(git -C "$ROOT" diff --name-only | tr '\n' ' ')"

# 6. Build. GPGPU-Sim's setup_environment cannot be sourced here: it runs
# $CUDA_INSTALL_PATH/bin/nvcc for the CUDA version and refuses a toolkit
# without one (the cu11 nvcc wheel has no nvcc, and nvcc 13.5 is newer than
# it accepts). Its exports are set by hand instead; the Makefile needs some
# nvcc on PATH (`which nvcc`) and takes the CUDA version from CUDART_VERSION.
CC_VERSION=$(gcc -dumpfullversion)
GPGPUSIM_CONFIG=gcc-$CC_VERSION/cuda-$CUDART_VERSION/release
LIB=$ROOT/lib/$GPGPUSIM_CONFIG
if [ ! -f "$LIB/libcudart.so" ]; then
  say "building GPGPU-Sim (make -j$JOBS CUDART_VERSION=$CUDART_VERSION; a few minutes;"
  say "  the Makefile's '$TOOLKIT/bin/nvcc: not found' messages are expected)"
  (
    export GPGPUSIM_ROOT=$ROOT
    export CUDA_INSTALL_PATH=$TOOLKIT
    export PTXAS_CUDA_INSTALL_PATH=$TOOLKIT
    export GPGPUSIM_SETUP_ENVIRONMENT_WAS_RUN=1
    export GPGPUSIM_POWER_MODEL=$ROOT/src/accelwattch/
    export GPGPUSIM_CONFIG
    export QTINC=/usr/include
    export PATH=$CU13_BIN:$PATH
    cd "$ROOT"
    make -j"$JOBS" CUDART_VERSION=$CUDART_VERSION
  ) > "$DIR/build_gpgpusim.log" 2>&1 ||
    { tail -20 "$DIR/build_gpgpusim.log" >&2; die "GPGPU-Sim's build failed, see $DIR/build_gpgpusim.log"; }
  [ -f "$LIB/libcudart.so" ] || die "the build made no $LIB/libcudart.so (see $DIR/build_gpgpusim.log)"
else
  say "GPGPU-Sim built ($LIB/libcudart.so)"
fi
# The loader looks for the apps' libcudart.so.13 by that name.
ln -sfn libcudart.so "$LIB/libcudart.so.13"
ln -sfn libcudart.so "$LIB/libcudart.so.12"

# 7. gpusim (optional).
GPUSIM_BIN=${CARGO_TARGET_DIR:-$REPO/target}/release/gpusim
if [ "$BUILD_GPUSIM" = 1 ]; then
  command -v cargo >/dev/null || die "--gpusim: no cargo on PATH (install Rust with rustup)"
  say "building gpusim (cargo build --release in $REPO)"
  (cd "$REPO" && cargo build --release)
fi
[ -x "$GPUSIM_BIN" ] || say "note: no $GPUSIM_BIN yet (build gpusim, or run with --gpusim)"

# 8. The environment for correlation/run_gpgpusim.sh.
{
  echo "# Written by correlation/setup_reference.sh: the environment"
  echo "# correlation/run_gpgpusim.sh expects (docs/correlation.md). usage: source THIS_FILE"
  printf 'export GPGPUSIM_ROOT=%q\n' "$ROOT"
  printf 'export CUDA_INSTALL_PATH=%q\n' "$TOOLKIT"
  echo 'export PTXAS_CUDA_INSTALL_PATH=$CUDA_INSTALL_PATH'
  printf 'export REAL_PTXAS=%q\n' "$CU13_BIN/ptxas"
  printf 'export NVCC=%q\n' "$CU13_BIN/nvcc"
  printf 'export GPUSIM=%q\n' "$GPUSIM_BIN"
  echo "# GPGPU-Sim's libcudart.so (and its libcudart.so.13 link) must be found first."
  printf 'export LD_LIBRARY_PATH=%q${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\n' "$LIB"
} > "$DIR/env.sh"
say "wrote $DIR/env.sh"
say "done. Run a kernel from the repository root:"
say "  source $DIR/env.sh; cd $REPO"
say "  correlation/run_gpgpusim.sh kernels/sdk/scalar_product.toml lrr /tmp/gpgpusim/sdk_scalar_product"
