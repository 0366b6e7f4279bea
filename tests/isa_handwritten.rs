//! Instructions nvcc/clang rarely emit for plain CUDA (or emit only from
//! inline asm), run through the interpreter on seeded random inputs and
//! compared with models written here from the PTX ISA text: `lop3`,
//! `cnot`, `fns`, `testp`, carry chains (`mad.lo.cc`/`madc.hi`,
//! `sub.cc`/`subc`), `mov` pack/unpack, `bfind`, `isspacep`, `tanh.approx`,
//! `mad24.hi.sat`, `prmt.b4e`, mixed-sign `dp4a`, `set` with a float source.

use gpusim::workload::generate::Rng;
use gpusim::workload::host::{ArgValue, FunctionalHost, FunctionalOptions, Host, download, upload};

const OUTS: usize = 20;

const PTX: &str = r#"
.version 7.0
.target sm_75
.address_size 64

.visible .entry ops(.param .u64 in, .param .u64 in64, .param .u64 out)
{
	.reg .pred %p<4>;
	.reg .b32 %r<64>;
	.reg .b64 %rd<32>;
	.reg .f32 %f<4>;
	.shared .align 4 .b32 scratch[32];

	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [in64];
	ld.param.u64 %rd3, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd4, %r1, 12;
	add.s64 %rd5, %rd1, %rd4;
	ld.global.u32 %r2, [%rd5];
	ld.global.u32 %r3, [%rd5+4];
	ld.global.u32 %r4, [%rd5+8];
	mul.wide.u32 %rd6, %r1, 8;
	add.s64 %rd7, %rd2, %rd6;
	ld.global.u64 %rd8, [%rd7];
	mul.wide.u32 %rd9, %r1, 80;
	add.s64 %rd10, %rd3, %rd9;

	lop3.b32 %r10, %r2, %r3, %r4, 0x96;
	lop3.b32 %r11, %r2, %r3, %r4, 0xe8;
	cnot.b32 %r12, %r4;
	and.b32 %r13, %r3, 31;
	rem.u32 %r14, %r4, 9;
	sub.s32 %r15, %r14, 4;
	fns.b32 %r16, %r2, %r13, %r15;
	testp.normal.f32 %p1, %r2;
	selp.u32 %r17, 1, 0, %p1;
	testp.subnormal.f32 %p2, %r2;
	selp.u32 %r18, 1, 0, %p2;
	// (a * b + c) as 64 bits through the carry flag.
	mad.lo.cc.u32 %r19, %r2, %r3, %r4;
	madc.hi.u32 %r20, %r2, %r3, 0;
	// in64 - {b, a} (hi = b, lo = a) with a borrow.
	mov.b64 {%r21, %r22}, %rd8;
	sub.cc.u32 %r23, %r21, %r2;
	subc.u32 %r24, %r22, %r3;
	mov.b64 %rd11, {%r23, %r24};
	bfind.s32 %r25, %r2;
	bfind.shiftamt.u64 %r26, %rd8;
	// isspacep: a shared generic address, and the global output pointer.
	mov.u64 %rd12, scratch;
	cvta.shared.u64 %rd13, %rd12;
	isspacep.shared %p1, %rd13;
	isspacep.global %p2, %rd10;
	isspacep.shared %p3, %rd10;
	selp.u32 %r27, 1, 0, %p1;
	selp.u32 %r28, 2, 0, %p2;
	selp.u32 %r29, 4, 0, %p3;
	or.b32 %r30, %r27, %r28;
	or.b32 %r31, %r30, %r29;
	mad24.hi.sat.s32 %r32, %r2, %r3, %r4;
	prmt.b32.b4e %r33, %r2, %r3, %r4;
	dp4a.u32.s32 %r34, %r2, %r3, %r4;
	set.ne.s32.f32 %r35, %r2, %r3;
	// tanh of a small float built from a's low bits: (a & 0xffff) / 8192 - 4.
	and.b32 %r36, %r2, 65535;
	cvt.rn.f32.u32 %f1, %r36;
	mul.f32 %f2, %f1, 0f39000000;
	sub.f32 %f3, %f2, 0f40800000;
	tanh.approx.f32 %f3, %f3;

	st.global.u32 [%rd10], %r10;
	st.global.u32 [%rd10+4], %r11;
	st.global.u32 [%rd10+8], %r12;
	st.global.u32 [%rd10+12], %r16;
	st.global.u32 [%rd10+16], %r17;
	st.global.u32 [%rd10+20], %r18;
	st.global.u32 [%rd10+24], %r19;
	st.global.u32 [%rd10+28], %r20;
	st.global.u64 [%rd10+32], %rd11;
	st.global.u32 [%rd10+40], %r25;
	st.global.u32 [%rd10+44], %r26;
	st.global.u32 [%rd10+48], %r31;
	st.global.u32 [%rd10+52], %r32;
	st.global.u32 [%rd10+56], %r33;
	st.global.u32 [%rd10+60], %r34;
	st.global.u32 [%rd10+64], %r35;
	st.global.f32 [%rd10+68], %f3;
	st.global.u32 [%rd10+72], %r21;
	st.global.u32 [%rd10+76], %r22;
	ret;
}
"#;

#[test]
fn handwritten_ops_match_isa_models() {
    let p = gpusim::compile(gpusim::SourceFile::new("ops.ptx", PTX.to_string()))
        .unwrap_or_else(|d| panic!("{d}"));
    let n = 64usize;
    let mut r = Rng::new(7);
    let mut words: Vec<u32> = (0..3 * n).map(|_| r.next_u32()).collect();
    // Edge cases in the first threads: zero, subnormal and normal floats,
    // -1, values that overflow mad24.hi.sat.
    words[0..3].copy_from_slice(&[0, 0, 0]);
    words[3..6].copy_from_slice(&[0x0000_0001, 5, 0xffff_ffff]);
    words[6..9].copy_from_slice(&[0x3f80_0000, 0x3f80_0000, 1]);
    words[9..12].copy_from_slice(&[0x007f_ffff, 0x007f_ffff, 0x7fff_ffff]);
    words[12..15].copy_from_slice(&[0xffff_ffff, 0x8000_0000, 8]);
    let wide: Vec<u64> = (0..n)
        .map(|i| if i == 0 { 0 } else { r.next_u64() >> (i % 64) })
        .collect();
    let mut host = FunctionalHost::new(&p, 0, FunctionalOptions::default());
    let inb = upload(&mut host, "in", &words).unwrap();
    let in64 = upload(&mut host, "in64", &wide).unwrap();
    let out = host.alloc("out", (n * OUTS * 4) as u64);
    host.launch(
        None,
        [1, 1, 1],
        [n as u32, 1, 1],
        &[ArgValue::U64(inb), ArgValue::U64(in64), ArgValue::U64(out)],
    )
    .unwrap();
    let got: Vec<u32> = download(&mut host, out, n * OUTS).unwrap();
    for t in 0..n {
        let (a, b, c) = (words[3 * t], words[3 * t + 1], words[3 * t + 2]);
        let d = wide[t];
        let g = &got[t * OUTS..(t + 1) * OUTS];
        assert_eq!(g[0], a ^ b ^ c, "lop3 0x96, thread {t}");
        assert_eq!(
            g[1],
            (a & b) | (a & c) | (b & c),
            "lop3 0xe8 (majority), thread {t}"
        );
        assert_eq!(g[2], u32::from(c == 0), "cnot, thread {t}");
        // fns: the |offset|-th set bit from base, upwards or downwards.
        let base = b & 31;
        let off = (c % 9) as i32 - 4;
        let want_fns = if off == 0 {
            if a >> base & 1 == 1 { base } else { u32::MAX }
        } else {
            let bits: Vec<u32> = if off > 0 {
                (base..32).filter(|&i| a >> i & 1 == 1).collect()
            } else {
                (0..=base).rev().filter(|&i| a >> i & 1 == 1).collect()
            };
            bits.get(off.unsigned_abs() as usize - 1)
                .copied()
                .unwrap_or(u32::MAX)
        };
        assert_eq!(g[3], want_fns, "fns a={a:#x} base={base} off={off}");
        let fa = f32::from_bits(a);
        assert_eq!(g[4], u32::from(fa.is_normal()), "testp.normal {fa:e}");
        assert_eq!(g[5], u32::from(fa.is_subnormal()), "testp.subnormal {fa:e}");
        let madw = u64::from(a) * u64::from(b) + u64::from(c);
        assert_eq!(
            (g[6], g[7]),
            (madw as u32, (madw >> 32) as u32),
            "mad.cc/madc, thread {t}"
        );
        let sub = d.wrapping_sub(u64::from(b) << 32 | u64::from(a));
        assert_eq!(
            u64::from(g[8]) | u64::from(g[9]) << 32,
            sub,
            "sub.cc/subc, thread {t}"
        );
        assert_eq!(
            (g[18], g[19]),
            (d as u32, (d >> 32) as u32),
            "mov unpack, thread {t}"
        );
        let sa = a as i32;
        let mag = if sa < 0 { !sa } else { sa } as u32;
        assert_eq!(
            g[10],
            if mag == 0 {
                u32::MAX
            } else {
                31 - mag.leading_zeros()
            },
            "bfind.s32 {sa}"
        );
        assert_eq!(
            g[11],
            if d == 0 { u32::MAX } else { d.leading_zeros() },
            "bfind.shiftamt.u64 {d:#x}"
        );
        assert_eq!(g[12], 1 | 2, "isspacep shared/global/shared-of-global");
        let p24 = i64::from((a as i32) << 8 >> 8) * i64::from((b as i32) << 8 >> 8);
        let sat = ((p24 >> 16) as i32 as i64 + i64::from(c as i32))
            .clamp(i64::from(i32::MIN), i64::from(i32::MAX));
        assert_eq!(
            g[13], sat as i32 as u32,
            "mad24.hi.sat a={a:#x} b={b:#x} c={c:#x}"
        );
        let src = [a.to_le_bytes(), b.to_le_bytes()].concat();
        let s = (c & 3) as usize;
        let b4e = [src[s], src[(s + 7) % 8], src[(s + 6) % 8], src[(s + 5) % 8]];
        assert_eq!(g[14], u32::from_le_bytes(b4e), "prmt.b4e c={c:#x}");
        let dp = (0..4).fold(c as i32, |acc, k| {
            acc.wrapping_add(
                i32::from((a >> (8 * k)) as u8) * i32::from((b >> (8 * k)) as u8 as i8),
            )
        });
        assert_eq!(g[15], dp as u32, "dp4a.u32.s32 thread {t}");
        let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
        // `ne` is an ordered compare: false when either is NaN.
        let ne = !fa.is_nan() && !fb.is_nan() && fa != fb;
        assert_eq!(
            g[16],
            if ne { u32::MAX } else { 0 },
            "set.ne.s32.f32 {fa} {fb}"
        );
        let x = (a & 0xffff) as f32 / 8192.0 - 4.0;
        let th = f32::from_bits(g[17]);
        assert!(
            (th - x.tanh()).abs() <= 1e-6,
            "tanh({x}) = {th}, want {}",
            x.tanh()
        );
    }
}
