#!/usr/bin/env python3
"""Check that a PNG screenshot is not blank: decode it (standard library
only: zlib and the PNG filters), then require enough non-background pixels
and enough distinct colours. Prints what it measured; exit 1 if blank.

Usage: png_check.py SHOT.png [MIN_INK_FRACTION] [MIN_COLOURS]
"""
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, width, height, ctype, depth = 8, b"", 0, 0, 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    if depth != 8 or ctype not in (2, 6):
        sys.exit(f"{path}: unsupported PNG (bit depth {depth}, colour type {ctype})")
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    path = sys.argv[1]
    min_ink = float(sys.argv[2]) if len(sys.argv) > 2 else 0.02
    min_colours = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    width, height, bpp, rows = decode(path)
    background = rows[0][:3]
    ink, colours = 0, set()
    for row in rows:
        for x in range(0, width * bpp, bpp):
            px = row[x:x + 3]
            colours.add(px)
            if px != background:
                ink += 1
    frac = ink / (width * height)
    print(f"{path}: {width}x{height}, {frac:.1%} non-background pixels, {len(colours)} colours")
    if frac < min_ink or len(colours) < min_colours:
        print(f"{path}: looks blank (need {min_ink:.0%} ink and {min_colours} colours)")
        sys.exit(1)


main()
