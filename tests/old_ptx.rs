//! PTX in the dialect of nvopencc / early NVVM (ISA 1.x–2.x): runs
//! `kernels/old/old_mix.ptx` (hand-written in that style; 32-bit `.u32`
//! pointers, no `.address_size`, 16-bit special-register reads, `mul24`,
//! `mad24`, old `set`, `vote` without `.sync`, `ldu`, `@@DWARF` lines) and
//! checks every output against values computed here from the PTX ISA text.

use gpusim::workload::host::{ArgValue, FunctionalHost, FunctionalOptions, Host, download, upload};

/// The low 24 bits of `x` as a signed value (bit 23 is the sign).
fn s24(x: i32) -> i64 {
    i64::from((x << 8) >> 8)
}

#[test]
fn old_nvopencc_style_kernel_runs() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/kernels/old/old_mix.ptx");
    let text = std::fs::read_to_string(path).unwrap();
    let p = gpusim::compile(gpusim::SourceFile::new(path, text)).unwrap_or_else(|d| panic!("{d}"));
    let (grid, block, n) = (3usize, 64usize, 150usize);
    // Values with bits above bit 23 set, negative ones, and all-positive
    // warps (warp 2: threads 64..95) so vote.all is true somewhere.
    let input: Vec<i32> = (0..n as i32)
        .map(|i| match i {
            64..=95 => i * 1000 + 0x0100_0000,
            _ if i % 7 == 3 => -(i * 12345),
            _ => i * 0x1_0101 - 40,
        })
        .collect();
    let mut host = FunctionalHost::new(&p, 0, FunctionalOptions::default());
    let inb = upload(&mut host, "in", &input).unwrap();
    let out = host.alloc("out", (n * 32) as u64);
    let fout = host.alloc("fout", (n * 8) as u64);
    let addr32 = |a: u64| ArgValue::U32(u32::try_from(a).expect("global addresses fit 32 bits"));
    host.launch(
        None,
        [grid as u32, 1, 1],
        [block as u32, 1, 1],
        &[
            addr32(inb),
            addr32(out),
            addr32(fout),
            ArgValue::S32(n as i32),
        ],
    )
    .unwrap();
    let got: Vec<u32> = download(&mut host, out, n * 8).unwrap();
    let gotf: Vec<f32> = download(&mut host, fout, n * 2).unwrap();
    let v = |i: usize| if i < n { input[i] } else { 0 };
    for i in 0..n {
        let (cta, tid) = (i / block, i % block);
        let x = v(i);
        let nb = v(cta * block + (tid + 1) % block);
        let warp = i / 32 * 32;
        let votes: Vec<bool> = (warp..warp + 32).map(|j| v(j) > 0).collect();
        let ballot = votes
            .iter()
            .enumerate()
            .fold(0u32, |m, (l, &b)| m | u32::from(b) << l);
        let want = [
            ((s24(x) * s24(nb)) >> 16) as u32,
            (s24(x) * s24(nb) + i as i64) as u32,
            if x > nb { u32::MAX } else { 0 },
            u32::from(votes.iter().all(|&b| b)),
            u32::from(votes.iter().any(|&b| b)),
            ballot,
            ((cta * block) & 0xffff) as u32,
            input[0] as u32,
        ];
        assert_eq!(
            &got[i * 8..i * 8 + 8],
            &want[..],
            "thread {i}: v={x} nb={nb}"
        );
        let lt = if (x as f32) < (nb as f32) {
            1.0f32
        } else {
            0.0
        };
        assert_eq!(gotf[i * 2], lt, "thread {i}");
        assert_eq!(gotf[i * 2 + 1], (x as f32) * (nb as f32) + lt, "thread {i}");
    }
    // Warp 2 (threads 64..95) voted all-true, so the test exercises both outcomes.
    assert_eq!(got[64 * 8 + 3], 1);
    assert_eq!(got[8 + 3], 0);
}

/// Version 1.4 headers, `.target` options, `.entry` without `.visible`,
/// `.file`/`.loc` and `@@DWARF` lines all parse.
#[test]
fn ptx_1_4_module_shape_parses() {
    let src = "\t.version 1.4\n\t.target sm_10, map_f64_to_f32\n\
        \t.file\t1\t\"<command-line>\"\n\t.file\t2\t\"k.cu\"\n\n\
        \t.entry k (\n\t\t.param .u64 __cudaparm_k_a)\n\t{\n\
        \t.reg .u16 %rh<3>;\n\t.reg .u32 %r<4>;\n\t.reg .u64 %rd<4>;\n\
        \t.loc\t2\t3\t0\n$LDWbegin_k:\n\
        \tmov.u16 \t%rh1, %ctaid.x;\n\tmov.u16 \t%rh2, %ntid.x;\n\
        \tmul.wide.u16 \t%r1, %rh1, %rh2;\n\tcvt.u32.u16 \t%r2, %tid.x;\n\
        \tadd.u32 \t%r3, %r2, %r1;\n\tld.param.u64 \t%rd1, [__cudaparm_k_a];\n\
        \tmul.wide.u32 \t%rd2, %r3, 4;\n\tadd.u64 \t%rd3, %rd1, %rd2;\n\
        \tst.global.u32 \t[%rd3+0], %r3;\n\texit;\n$LDWend_k:\n\t} // k\n\n\
        \t@@DWARF .section .debug_info, \"\",@progbits\n\t@@DWARF .byte\t0x4c, 0x01\n";
    let p = gpusim::compile(gpusim::SourceFile::new("v14.ptx", src.to_string()))
        .unwrap_or_else(|d| panic!("{d}"));
    let mut host = FunctionalHost::new(&p, 0, FunctionalOptions::default());
    let out = host.alloc("out", 4 * 96);
    host.launch(None, [3, 1, 1], [32, 1, 1], &[ArgValue::U64(out)])
        .unwrap();
    let got: Vec<u32> = download(&mut host, out, 96).unwrap();
    assert_eq!(got, (0..96).collect::<Vec<u32>>());
}

/// `kernels/old/tex_fetch.toml`: texture references bound by the `buffers`
/// workload (`[[textures]]`), integer and float coordinates, clamping,
/// normalized uchar4 reads; expected outputs come from
/// `kernels/old/tex_fetch_gen.py`'s own model. Also: an unbound reference
/// is a run-time error naming it.
#[test]
fn texture_reference_manifest_passes() {
    use gpusim::workload::runner::{RunError, prepare, run_functional};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/old/tex_fetch.toml");
    let p = match prepare(&path, None) {
        Ok(p) => p,
        Err(RunError::Diagnostics(d)) => panic!("{}", d.render(false)),
        Err(RunError::Workload(e)) => panic!("{e}"),
    };
    let r = run_functional(&p, &[], FunctionalOptions::default(), None)
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(r.check.passed(), "{}", r.check);

    // Without the binding the fetch fails and says which reference.
    let mut host = FunctionalHost::new(&p.program, p.entry, FunctionalOptions::default());
    let out_i = host.alloc("out_i", 320);
    let out_f = host.alloc("out_f", 1280);
    let e = host
        .launch(
            None,
            [2, 1, 1],
            [64, 1, 1],
            &[
                ArgValue::U64(out_i),
                ArgValue::U64(out_f),
                ArgValue::S32(80),
            ],
        )
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("texture reference `tex_lut` is not bound"),
        "{e}"
    );
    // A binding outside every allocation is refused.
    let bad = gpusim::func::texture::TextureDesc::packed(
        0x10,
        4,
        1,
        1,
        gpusim::func::texture::TexelType::F32,
    );
    assert!(host.bind_texture("tex_lut", bad).is_err());
}
