//! nvcc output run unmodified: the kernels of `kernels/cuda/nvcc/` (nvcc
//! 13.5, sm_75, kept verbatim) on seeded random inputs with edge values,
//! checked against the CUDA intrinsics' documented meaning written out here
//! in plain Rust (independent of gpusim's own `intops`).

use gpusim::func::GlobalMemory;
use gpusim::func::launch::{self, LaunchConfig};
use gpusim::func::layout::KernelInfo;
use gpusim::workload::generate::Rng;
use gpusim::workload::host::{
    ArgValue, FunctionalHost, FunctionalOptions, Host, download, pack_params, upload,
};

fn program() -> gpusim::Program {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/kernels/cuda/nvcc/int_intrinsics.ptx"
    );
    let text = std::fs::read_to_string(path).expect("read the nvcc corpus");
    gpusim::compile(gpusim::SourceFile::new(path, text)).unwrap_or_else(|d| panic!("{d}"))
}

/// Edge values first, then seeded random ones.
fn inputs32(r: &mut Rng, n: usize) -> Vec<u32> {
    let mut v = vec![
        0,
        1,
        0xffff_ffff,
        0x8000_0000,
        0x7fff_ffff,
        0x80,
        0xff,
        0x8080_8080,
        0x0001_0000,
        31,
        32,
        33,
    ];
    while v.len() < n {
        let x = r.next_u64();
        v.push(if x & 1 == 0 {
            x as u32
        } else {
            (x >> 32) as u32 >> (x % 32)
        });
    }
    v.truncate(n);
    v
}

/// `__byte_perm(x, y, s)`: result byte k is byte `s[4k+2:4k]` of {y, x}.
fn byte_perm(x: u32, y: u32, s: u32) -> u32 {
    let src = [x.to_le_bytes(), y.to_le_bytes()].concat();
    let mut out = [0u8; 4];
    for (k, o) in out.iter_mut().enumerate() {
        *o = src[((s >> (4 * k)) & 7) as usize];
    }
    u32::from_le_bytes(out)
}

#[test]
fn int_intrinsics_match_cuda_semantics() {
    let p = program();
    let n = 128usize;
    let mut r = Rng::new(42);
    let a = inputs32(&mut r, n);
    let mut b = inputs32(&mut r, n);
    b.rotate_left(5);
    let c: Vec<u64> = (0..n)
        .map(|i| {
            if i < 4 {
                [0, 1, u64::MAX, 1 << 63][i]
            } else {
                r.next_u64() >> (r.next_u64() % 64)
            }
        })
        .collect();
    let d: Vec<u64> = (0..n)
        .map(|i| {
            if i < 3 {
                [u64::MAX, 0, 1][i]
            } else {
                r.next_u64()
            }
        })
        .collect();
    let mut host = FunctionalHost::new(&p, 0, FunctionalOptions::default());
    let ab = upload(&mut host, "a", &a).unwrap();
    let bb = upload(&mut host, "b", &b).unwrap();
    let cb = upload(&mut host, "c", &c).unwrap();
    let db = upload(&mut host, "d", &d).unwrap();
    let out = host.alloc("out", (n * 24 * 4) as u64);
    let out64 = host.alloc("out64", (n * 4 * 8) as u64);
    host.launch(
        Some("int_intrinsics"),
        [2, 1, 1],
        [64, 1, 1],
        &[
            ArgValue::U64(ab),
            ArgValue::U64(bb),
            ArgValue::U64(cb),
            ArgValue::U64(db),
            ArgValue::U64(out),
            ArgValue::U64(out64),
            ArgValue::S32(n as i32),
        ],
    )
    .unwrap();
    let got: Vec<u32> = download(&mut host, out, n * 24).unwrap();
    let got64: Vec<u64> = download(&mut host, out64, n * 4).unwrap();
    for i in 0..n {
        let (x, y, z, w) = (a[i] as i32, b[i], c[i] as i64, d[i]);
        let xu = x as u32;
        let dp4 = (0..4).fold(5i32, |acc, k| {
            acc.wrapping_add(
                i32::from((xu >> (8 * k)) as u8 as i8) * i32::from((y >> (8 * k)) as u8 as i8),
            )
        });
        let dp2lo = (0..2).fold(3u32, |acc, k| {
            acc.wrapping_add(((xu >> (16 * k)) & 0xffff) * ((y >> (8 * k)) & 0xff))
        });
        let dp2hi = (0..2).fold(-3i32, |acc, k| {
            acc.wrapping_add(
                i32::from((xu >> (16 * k)) as u16 as i16)
                    * i32::from((y >> (8 * (k + 2))) as u8 as i8),
            )
        });
        let (s1, s2) = (x as i16, y as i16);
        let want: [u32; 24] = [
            ((i64::from(x) * i64::from(y as i32)) >> 32) as u32,
            ((u64::from(xu) * u64::from(y)) >> 32) as u32,
            byte_perm(xu, y, y & 0x7777),
            y.reverse_bits(),
            y.count_ones(),
            w.count_ones(),
            xu.leading_zeros(),
            (z as u64).leading_zeros(),
            if x == 0 { 0 } else { xu.trailing_zeros() + 1 },
            if z == 0 {
                0
            } else {
                (z as u64).trailing_zeros() + 1
            },
            (i64::from(x) - i64::from(y as i32)).unsigned_abs() as u32 + 7,
            (i64::from(xu) - i64::from(y)).unsigned_abs() as u32 + 9,
            (((u64::from(y) << 32 | u64::from(xu)) << (y & 31)) >> 32) as u32,
            ((u64::from(y) << 32 | u64::from(xu)) >> (y & 31)) as u32,
            ((u128::from(u64::from(y) << 32 | u64::from(xu)) << y.min(32)) >> 32) as u32,
            ((u64::from(y) << 32 | u64::from(xu)) >> y.min(32)) as u32,
            dp4 as u32,
            dp2lo,
            dp2hi as u32,
            ((i64::from(x) + i64::from(y as i32)) >> 1) as u32,
            ((i64::from(x) + i64::from(y as i32) + 1) >> 1) as u32,
            (i32::from(s1.min(s2)).wrapping_mul(65536)).wrapping_add(i32::from(s1.max(s2))) as u32,
            ((u64::from(xu) + u64::from(y)) >> 1) as u32,
            byte_perm(xu, y, 0x5140),
        ];
        assert_eq!(
            &got[i * 24..i * 24 + 24],
            &want[..],
            "thread {i}: x={x:#x} y={y:#x}"
        );
        let zu = z as u64;
        let wide_a = u128::from(w) << 64 | u128::from(zu);
        let wide_b = u128::from(zu) << 64 | u128::from(w);
        let want64 = [
            ((u128::from(w) * u128::from(zu)) >> 64) as u64,
            ((i128::from(z) * i128::from(w as i64)) >> 64) as u64,
            ((u128::from(w) + u128::from(zu)) >> 64) as u64
                + (wide_a.wrapping_add(wide_b) >> 64) as u64,
            w.reverse_bits(),
        ];
        assert_eq!(
            &got64[i * 4..i * 4 + 4],
            &want64[..],
            "thread {i}: z={z:#x} w={w:#x}"
        );
    }
}

#[test]
fn float_class_tests_and_copysign_match_ieee() {
    let p = program();
    let fs = [
        1.5f32,
        -2.0,
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-40,
        -3.25e38,
        7.0,
    ];
    let ds = [
        1.5f64,
        -0.0,
        f64::INFINITY,
        f64::NAN,
        1e-310,
        -4.0,
        f64::NEG_INFINITY,
        3.0,
        0.1,
        -1e300,
    ];
    let n = fs.len();
    let mut host = FunctionalHost::new(&p, 0, FunctionalOptions::default());
    let ab = upload(&mut host, "a", &fs).unwrap();
    let bb = upload(&mut host, "b", &ds).unwrap();
    let out = host.alloc("out", (n * 16) as u64);
    let outd = host.alloc("outd", (n * 32) as u64);
    host.launch(
        Some("float_intrinsics"),
        [1, 1, 1],
        [32, 1, 1],
        &[
            ArgValue::U64(ab),
            ArgValue::U64(bb),
            ArgValue::U64(out),
            ArgValue::U64(outd),
            ArgValue::S32(n as i32),
        ],
    )
    .unwrap();
    let got: Vec<f32> = download(&mut host, out, n * 4).unwrap();
    let gotd: Vec<f64> = download(&mut host, outd, n * 4).unwrap();
    let b = |v: bool| if v { 1.0 } else { 0.0 };
    for i in 0..n {
        let (x, x2, y) = (fs[i], fs[(i + 1) % n], ds[i]);
        let want = [
            b(x.is_finite()),
            b(x.is_infinite()),
            b(x.is_nan()),
            x.abs().copysign(x2),
        ];
        for k in 0..4 {
            assert_eq!(
                got[i * 4 + k].to_bits(),
                want[k].to_bits(),
                "f32 {i}.{k}: x={x}"
            );
        }
        let wantd = [
            y.abs().copysign(f64::from(x)),
            f64::from(b(y.is_finite())),
            if y.is_infinite() {
                1.0
            } else if y.is_nan() {
                2.0
            } else {
                0.0
            },
            1.0 / y,
        ];
        for k in 0..4 {
            let (g, w) = (gotd[i * 4 + k], wantd[k]);
            assert!(
                g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                "f64 {i}.{k}: y={y} got {g} want {w}"
            );
        }
    }
}

#[test]
fn lane_masks_votes_and_dynamic_shared_size() {
    let p = program();
    let k = p
        .module
        .kernels
        .iter()
        .position(|k| k.name == "warp_misc")
        .unwrap();
    let kernel = p.kernel(k);
    let info = KernelInfo::new(kernel, &p.analyses[k], &|_| None);
    let n = 50usize;
    // Warp 0 all positive except lane 3; warp 1 (threads 32..49 real, the
    // rest read 0) mixed.
    let a: Vec<i32> = (0..n as i32)
        .map(|i| {
            if i == 3 {
                -1
            } else if i >= 32 {
                i % 3 - 1
            } else {
                i + 1
            }
        })
        .collect();
    let mut g = GlobalMemory::new();
    let ab = g.alloc("a", (n * 4) as u64, 256);
    let bytes: Vec<u8> = a.iter().flat_map(|v| v.to_le_bytes()).collect();
    assert!(g.write(ab, &bytes));
    let out = g.alloc("out", (n * 48) as u64, 256);
    let params = pack_params(
        &p,
        k,
        &[
            ArgValue::U64(ab),
            ArgValue::U64(out),
            ArgValue::S32(n as i32),
        ],
    )
    .unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [64, 1, 1],
        dynamic_shared: 256,
        ..LaunchConfig::default()
    };
    launch::run(kernel, &info, &params, &mut g, &cfg, None).unwrap();
    let mut raw = vec![0u8; n * 48];
    assert!(g.read(out, &mut raw));
    let got: Vec<u32> = raw
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let v = |t: usize| if t < n { a[t] } else { 0 };
    for t in 0..n {
        let lane = (t % 32) as u32;
        let warp = t / 32;
        let ballot = (0..32)
            .filter(|&l| v(warp * 32 + l) > 0)
            .fold(0u32, |m, l| m | 1 << l);
        let eq = 1u32 << lane;
        let want = [
            eq - 1,
            (eq - 1) | eq,
            eq,
            !(eq - 1),
            !((eq - 1) | eq),
            ballot,
            u32::MAX,
            256,
            u32::from(ballot == u32::MAX),
            u32::from(ballot != 0),
            u32::from(ballot == 0 || ballot == u32::MAX),
            v((t + 1) % 64) as u32,
        ];
        assert_eq!(&got[t * 12..t * 12 + 12], &want[..], "thread {t}");
    }
}
