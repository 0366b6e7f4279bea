#!/usr/bin/env bash
# Builds the replay app for one kernel source: an executable that
# #includes KERNEL.cu, then replay.cu, then a table of the PTX's entries
# ({name as the PTX spells it, host function pointer}), compiled with the
# same nvcc and flags as the committed PTX (kernels/*/gen.sh: nvcc 13.5,
# -O3 -arch=sm_75) and linked against the shared CUDA runtime, so a
# simulator that replaces libcudart (GPGPU-Sim) runs it.
#
# usage: build_app.sh KERNEL.cu KERNEL.ptx OUT_EXE
# env:   NVCC (default: nvcc on PATH)
set -euo pipefail
cu=$(realpath "$1")
ptx=$(realpath "$2")
out=$3
here=$(dirname "$(realpath "$0")")
NVCC=${NVCC:-nvcc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

{
  echo "#include \"$cu\""
  echo "#include \"$here/replay.cu\""
  echo "static const ReplayKernel replay_kernels[] = {"
  grep -oE '\.entry[[:space:]]+[A-Za-z_$][A-Za-z0-9_$]*' "$ptx" | awk '{print $2}' |
    while read -r name; do
      case "$name" in
        _Z*)
          # C++ entry: cast the overloaded name to its demangled signature.
          sig=$(echo "$name" | c++filt)
          fname=${sig%%(*}
          params=${sig#"$fname"}
          echo "  {\"$name\", (const void *)(void (*)$params)$fname},"
          ;;
        *) echo "  {\"$name\", (const void *)$name}," ;;
      esac
    done
  echo "  {nullptr, nullptr}};"
  # Module-scope .const/.global variables (unmangled names), for write_symbol.
  echo "static const ReplaySymbol replay_symbols[] = {"
  # (A PTX without such variables gives an empty table: `|| true` keeps
  # pipefail from ending the script when a grep finds nothing.)
  { grep -E '^[[:space:]]*\.(const|global)[[:space:]]' "$ptx" || true; } | { grep -v '\.extern' || true; } |
    sed -E 's/[[:space:]]*(=.*)?;.*$//; s/\[[0-9]*\]$//' | awk '{print $NF}' |
    { grep -E '^[A-Za-z][A-Za-z0-9_]*$' || true; } | { grep -v '^_Z' || true; } | sort -u |
    while read -r v; do echo "  {\"$v\", (const void *)&$v},"; done
  echo "  {nullptr, nullptr}};"
  echo "int main(int argc, char **argv) { return replay_main(argc, argv, replay_kernels, replay_symbols); }"
} > "$work/app.cu"

# The toolkit's shared runtime (pip's CUDA ships only libcudart.so.N): link
# through a libcudart.so symlink to it.
nvcc_dir=$(dirname "$(realpath "$(command -v "$NVCC")")")
rt=$(ls "$nvcc_dir"/../lib/libcudart.so* "$nvcc_dir"/../lib64/libcudart.so* 2>/dev/null | head -1 || true)
[ -n "$rt" ] || { echo "build_app.sh: no libcudart.so* beside $NVCC" >&2; exit 2; }
ln -s "$(realpath "$rt")" "$work/libcudart.so"
"$NVCC" -O3 -arch=sm_75 -cudart shared -L"$work" "$work/app.cu" -o "$out"
