#!/usr/bin/env python3
"""Writes tex_fetch's texel files and its expected outputs (tex_fetch_expected_*.bin).

The model is the texture-fetch rule written from the CUDA/PTX texture
reference semantics, independently of gpusim: integer coordinate = texel
index, float coordinate x samples texel floor(x) (unnormalized coordinates,
point filtering), indices clamped to the texture, uchar4 texels read as
normalized floats (x / 255), missing channels of a 1-channel int texture = 0.
Coordinates are computed exactly with fractions (0.6f and -0.3f as the f32
values the PTX holds; no product lands near an integer, so fma vs mul+add
does not matter).
"""
import math
import struct
from fractions import Fraction

N = 80
W, H = 8, 5
LUT_LEN = 40

img = bytes((i * 37 + 11) % 256 for i in range(W * H * 4))
lut = [1000 - 37 * k * k for k in range(LUT_LEN)]


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def clamp(v, n):
    return max(0, min(n - 1, v))


out_i, out_f = [], []
c06, cm03 = Fraction(f32(0.6)), Fraction(f32(-0.3))
for i in range(N):
    out_i.append(lut[clamp(3 * i - 5, LUT_LEN)])
    x = Fraction(3, 4) * (i % 13) - 1
    y = c06 * (i // 13) + cm03
    tx, ty = clamp(math.floor(x), W), clamp(math.floor(y), H)
    base = (ty * W + tx) * 4
    out_f.extend(f32(img[base + c] / 255) for c in range(4))

with open("tex_fetch_img.bin", "wb") as f:
    f.write(img)
with open("tex_fetch_lut.bin", "wb") as f:
    f.write(struct.pack(f"<{LUT_LEN}i", *lut))
with open("tex_fetch_expected_i.bin", "wb") as f:
    f.write(struct.pack(f"<{N}i", *out_i))
with open("tex_fetch_expected_f.bin", "wb") as f:
    f.write(struct.pack(f"<{4 * N}f", *out_f))
