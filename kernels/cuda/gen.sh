#!/usr/bin/env bash
# Regenerate every kernels/cuda/*.ptx from its .cu with clang, then check that
# each generated file stays inside gpusim's PTX subset (/work/shared/PTX.md).
# The .ptx files are clang output verbatim; never edit them by hand.
set -euo pipefail
cd "$(dirname "$0")"

CLANG=${CLANG:-clang}
"$CLANG" --version | head -1

# Opcodes (first dotted component of each instruction) allowed by PTX.md.
ALLOWED="add sub mul mad div rem abs neg min max and or xor not shl shr popc clz
brev bfe bfi fma sqrt rsqrt rcp ex2 lg2 sin cos mov cvt cvta ld st setp selp slct
bra ret exit bar barrier membar fence nanosleep atom red shfl vote activemask
mul24 mad24 sad prmt bfind shf dp4a dp2a copysign testp cnot fns lop3 addc subc
madc tanh isspacep set ldu"

status=0
for cu in *.cu; do
  case "$cu" in call_*) continue ;; esac  # nvcc kernels: gen_nvcc.sh
  ptx="${cu%.cu}.ptx"
  "$CLANG" -S -O2 -nocudalib -nocudainc -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 "$cu" -o "$ptx"

  # Opcode check: instruction lines are indented; strip an optional @p guard.
  bad=$(grep -E '^[[:space:]]+[@a-z]' "$ptx" \
        | sed -E 's/^[[:space:]]+//; s/^@!?%[a-z0-9]+[[:space:]]+//' \
        | grep -vE '^\.' \
        | awk '{print $1}' | sed -E 's/[.;].*//' | sort -u \
        | while read -r op; do
            case " $(echo $ALLOWED) " in *" $op "*) ;; *) echo "$op";; esac
          done)
  # Forms outside the subset that the opcode check alone would not catch.
  forbidden=$(grep -nE '\.func|__local_depot|\.local|tex\.|suld|sust|\.f16|cvt\.pack' "$ptx" || true)
  if [[ -n "$bad" || -n "$forbidden" ]]; then
    echo "$ptx: OUTSIDE SUBSET: opcodes [$(echo $bad)] ${forbidden}" >&2
    status=1
  else
    echo "$ptx: ok ($(grep -cE '^[[:space:]]+[@a-z]' "$ptx") instruction lines)"
  fi
done
exit $status
