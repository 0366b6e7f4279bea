#!/usr/bin/env bash
# Runs one correlation kernel in GPGPU-Sim: exports the manifest's exact host
# actions with `gpusim export`, builds the replay app for its .cu
# (harness/build_app.sh), and replays it in a fresh run directory holding
# GPGPU-Sim's SM2_GTX480 config with two options appended (the scheduler,
# and the power model off). The app must report SAME RESULT (every read and
# every final buffer equal to gpusim's). docs/correlation.md describes the
# setup this expects; this script does not build GPGPU-Sim.
#
# usage: run_gpgpusim.sh MANIFEST SCHED OUT_DIR [--arg K=V]...
# env:   GPGPUSIM_ROOT          the GPGPU-Sim checkout (configs/tested-cfgs/SM2_GTX480)
#        CUDA_INSTALL_PATH      its toolkit directory: bin/cuobjdump = harness/cuobjdump_ptx.sh,
#                               bin/ptxas = harness/ptxas_info_filter.sh
#        REAL_PTXAS             nvcc 13.5's ptxas (for ptxas_info_filter.sh)
#        LD_LIBRARY_PATH        must find GPGPU-Sim's libcudart.so.13 first
#        NVCC                   nvcc 13.5 (default: nvcc on PATH)
#        GPUSIM                 the gpusim binary (default: target/release/gpusim)
#        EXTRA_OPTS             more GPGPU-Sim options for this run, space-separated, `_SP_`
#                               standing for the space inside one (e.g. `-dram_latency_SP_101`);
#                               used for the perturbation runs of docs/correlation.md
# Writes OUT_DIR/trace/ (the export), OUT_DIR/app, OUT_DIR/SCHED/gpgpusim.log.
set -euo pipefail
manifest=$1
sched=$2
out=$3
shift 3
repo=$(cd "$(dirname "$0")/.." && pwd)
GPUSIM=${GPUSIM:-$repo/target/release/gpusim}
: "${GPGPUSIM_ROOT:?}" "${CUDA_INSTALL_PATH:?}"
mkdir -p "$out"
out=$(realpath "$out")

# The PTX the manifest runs, and its CUDA source beside it.
ptx=$(cd "$(dirname "$manifest")" && realpath "$(sed -nE 's/^ptx *= *"([^"]+)".*/\1/p' "$(basename "$manifest")")")
cu=${ptx%.ptx}.cu
[ -f "$cu" ] || { echo "run_gpgpusim.sh: no CUDA source $cu" >&2; exit 2; }

if [ ! -f "$out/trace/trace.txt" ]; then
  "$GPUSIM" export "$manifest" -o "$out/trace" "$@"
fi
if [ ! -x "$out/app" ]; then
  "$repo/correlation/harness/build_app.sh" "$cu" "$ptx" "$out/app"
fi

run="$out/$sched"
rm -rf "$run"
mkdir -p "$run"
cfg="$GPGPUSIM_ROOT/configs/tested-cfgs/SM2_GTX480"
cp "$cfg/gpgpusim.config" "$cfg/config_fermi_islip.icnt" "$run/"
# This build of GPGPU-Sim 4.2 (AccelWattch) no longer knows the config's
# old power-model option and refuses to start on it; the power model is off.
sed -i 's/^-gpuwattch_xml_file/# (unknown to GPGPU-Sim 4.2, removed) -gpuwattch_xml_file/' "$run/gpgpusim.config"
{
  echo ""
  echo "# correlation/run_gpgpusim.sh: the only changes (later options win)"
  echo "-gpgpu_scheduler $sched"
  echo "-power_simulation_enabled 0"
  for o in ${EXTRA_OPTS:-}; do echo "${o//_SP_/ }"; done
} >> "$run/gpgpusim.config"
cd "$run"
# What GPGPU-Sim's setup_environment exports for CUDA >= 6.0 (without
# CUOBJDUMP_SIM_FILE it looks for pre-6.0 fatbin sections and stops).
export PTX_SIM_USE_PTX_FILE=1.ptx PTX_SIM_KERNELFILE=_1.ptx CUOBJDUMP_SIM_FILE=jj
status=0
REPLAY_PTX="$ptx" "$out/app" "$out/trace/trace.txt" > gpgpusim.log 2>&1 || status=$?
if ! grep -qE "^replay: [0-9]+ launches" gpgpusim.log; then
  echo "run_gpgpusim.sh: the replay failed (status $status), see $run/gpgpusim.log" >&2
  tail -5 gpgpusim.log >&2
  exit 1
fi
if ! grep -q "SAME RESULT" gpgpusim.log; then
  # GPGPU-Sim computed other values (it rounds fma.rn.f32's product, for
  # one); parse_gpgpusim.py accepts such a run only when GPGPU-Sim's
  # instruction counts equal gpusim's, i.e. every warp took the same path.
  echo "run_gpgpusim.sh: GPGPU-Sim's buffers differ from gpusim's, see $run/gpgpusim.log" >&2
fi
rm -f _cuobjdump_* _ptx* _app_cuda_version_* *.ptx *.ptxas f_tempfile_ptx 2>/dev/null || true
echo "$run/gpgpusim.log"
