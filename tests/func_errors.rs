//! Run-time errors name the kernel, PC, source line, CTA, warp, lane and
//! address — and are errors, not panics.

use gpusim::workload::host::{ArgValue, FunctionalHost, FunctionalOptions, Host, download, upload};

const HEADER: &str = ".version 7.0\n.target sm_70\n.address_size 64\n";

fn program(body: &str) -> gpusim::Program {
    gpusim::compile(gpusim::SourceFile::new("t.ptx", format!("{HEADER}{body}")))
        .unwrap_or_else(|d| panic!("{d}"))
}

#[test]
fn out_of_bounds_global_load_names_everything() {
    // Thread i reads in[i]; the buffer holds 40 elements but 64 threads run.
    let p = program(
        ".visible .entry oob(.param .u64 in, .param .u64 out)\n{\n\
         .reg .b32 %r<4>;\n.reg .b64 %rd<6>;\n\
         ld.param.u64 %rd1, [in];\n\
         ld.param.u64 %rd2, [out];\n\
         mov.u32 %r1, %tid.x;\n\
         mul.wide.u32 %rd3, %r1, 4;\n\
         add.s64 %rd4, %rd1, %rd3;\n\
         ld.global.u32 %r2, [%rd4];\n\
         add.s64 %rd5, %rd2, %rd3;\n\
         st.global.u32 [%rd5], %r2;\n\
         ret;\n}\n",
    );
    let mut host = FunctionalHost::new(&p, 0, FunctionalOptions::default());
    let input = upload(&mut host, "in", &[7u32; 40]).unwrap();
    let out = host.alloc("out", 64 * 4);
    let err = host
        .launch(
            None,
            [1, 1, 1],
            [64, 1, 1],
            &[ArgValue::U64(input), ArgValue::U64(out)],
        )
        .unwrap_err();
    let gpusim::workload::WorkloadError::Sim(e) = err else {
        panic!("{err:?}")
    };
    // Warp 1 (threads 32..64): lane 8 is thread 40, the first past the end.
    assert_eq!(e.kernel, "oob");
    assert_eq!(e.inst, Some(5));
    assert_eq!(e.line, 13); // 3 header lines, .entry, {, 2 .reg, then instructions 0..5
    assert_eq!(e.cta, [0, 0, 0]);
    assert_eq!(e.warp, 1);
    assert_eq!(e.lane, Some(8));
    assert_eq!(e.addr, Some(input + 160));
    let msg = e.to_string();
    assert!(
        msg.starts_with("out-of-bounds global load of 4 bytes at address"),
        "{msg}"
    );
    assert!(
        msg.contains("0 bytes past the end of `in` (160 bytes at"),
        "{msg}"
    );
    assert!(
        msg.contains(
            "in kernel `oob`, PC 0x28 (instruction 5, line 13: `ld.global.u32 %r2, [%rd4];`)"
        ),
        "{msg}"
    );
    assert!(msg.contains("CTA (0, 0, 0), warp 1, lane 8"), "{msg}");
    // Whatever warp 0 stored before the fault is a correct value.
    let got: Vec<u32> = download(&mut host, out, 32).unwrap();
    assert!(got.iter().all(|&v| v == 7 || v == 0));
}

#[test]
fn shared_out_of_bounds_and_misaligned() {
    let p = program(
        ".visible .entry s(.param .u32 off)\n{\n.reg .b32 %r<4>;\n.shared .align 4 .b8 buf[64];\n\
         ld.param.u32 %r1, [off];\nmov.u32 %r2, buf;\nadd.u32 %r3, %r2, %r1;\nst.shared.u32 [%r3], %r1;\nret;\n}\n",
    );
    let mut host = FunctionalHost::new(&p, 0, FunctionalOptions::default());
    let e = host
        .launch(None, [1, 1, 1], [32, 1, 1], &[ArgValue::U32(64)])
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("out-of-bounds shared store of 4 bytes at address 0x40 (the CTA has 64 bytes of shared memory)"), "{e}");
    let e = host
        .launch(None, [1, 1, 1], [32, 1, 1], &[ArgValue::U32(2)])
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("misaligned shared access of 4 bytes at address 0x2"),
        "{e}"
    );
    assert!(
        host.launch(None, [1, 1, 1], [32, 1, 1], &[ArgValue::U32(60)])
            .is_ok()
    );
}

#[test]
fn barrier_deadlock_is_reported() {
    // Warp 0 waits at barrier 0, warp 1 at barrier 1: neither can complete.
    let p = program(
        ".visible .entry d()\n{\n.reg .pred %p<2>;\n.reg .b32 %r<3>;\n\
         mov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 32;\n@%p1 bra A;\nbar.sync 1;\nret;\nA:\nbar.sync 0;\nret;\n}\n",
    );
    let mut host = FunctionalHost::new(&p, 0, FunctionalOptions::default());
    let e = host
        .launch(None, [1, 1, 1], [64, 1, 1], &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("deadlock: every live warp waits at a barrier that cannot complete"),
        "{e}"
    );
}

#[test]
fn runaway_loops_hit_the_step_limit() {
    let p = program(".visible .entry spin()\n{\nL:\nbra.uni L;\n}\n");
    let opts = FunctionalOptions {
        step_limit: 10_000,
        ..FunctionalOptions::default()
    };
    let mut host = FunctionalHost::new(&p, 0, opts);
    let e = host
        .launch(None, [1, 1, 1], [32, 1, 1], &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("stopped after 10000 warp instructions"),
        "{e}"
    );
}

#[test]
fn launch_argument_mismatches_are_errors() {
    let p = program(".visible .entry k(.param .u64 a, .param .f32 x)\n{\nret;\n}\n");
    let mut host = FunctionalHost::new(&p, 0, FunctionalOptions::default());
    let e = host
        .launch(None, [1, 1, 1], [32, 1, 1], &[ArgValue::U64(0)])
        .unwrap_err()
        .to_string();
    assert_eq!(e, "kernel `k` takes 2 parameters, the workload passed 1");
    let e = host
        .launch(
            None,
            [1, 1, 1],
            [32, 1, 1],
            &[ArgValue::U64(0), ArgValue::U32(1)],
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("parameter `x` of `k` is `.f32`"), "{e}");
    let e = host
        .launch(
            None,
            [1, 1, 1],
            [2048, 1, 1],
            &[ArgValue::U64(0), ArgValue::F32(1.0)],
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("2048 threads per CTA"), "{e}");
}

#[test]
fn shared_reg_plus_offset_wraps_at_32_bits() {
    // nvcc -O3 addresses `buf[1]` as `[%r3+68]` with %r3 = buf - 64, which
    // is negative (it wraps) when buf sits at shared offset 0. The access
    // lands on buf + 4; with offset 0 it stays out of bounds.
    let p = program(
        ".visible .entry w(.param .u64 out, .param .u32 off)\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<2>;\n\
         .shared .align 4 .b8 buf[64];\n\
         ld.param.u64 %rd1, [out];\nld.param.u32 %r5, [off];\n\
         mov.u32 %r2, buf;\nsub.s32 %r3, %r2, 64;\nadd.s32 %r3, %r3, %r5;\n\
         mov.u32 %r4, 1234;\nst.shared.u32 [%r3+68], %r4;\n\
         ld.shared.u32 %r6, [buf+4];\nld.shared.u32 %r7, [%r3+68];\nadd.u32 %r6, %r6, %r7;\n\
         st.global.u32 [%rd1], %r6;\nret;\n}\n",
    );
    let mut host = FunctionalHost::new(&p, 0, FunctionalOptions::default());
    let out = host.alloc("out", 4);
    host.launch(
        None,
        [1, 1, 1],
        [1, 1, 1],
        &[ArgValue::U64(out), ArgValue::U32(0)],
    )
    .unwrap();
    let got: Vec<u32> = download(&mut host, out, 1).unwrap();
    assert_eq!(got, vec![2468]);
    // off = -68 (as u32): the address is buf - 64 + (-68) + 68 = 0xffff_ffc0.
    let e = host
        .launch(
            None,
            [1, 1, 1],
            [1, 1, 1],
            &[ArgValue::U64(out), ArgValue::U32((-68i32) as u32)],
        )
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("out-of-bounds shared store of 4 bytes at address 0xffffffc0"),
        "{e}"
    );
}
