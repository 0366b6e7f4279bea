//! Front-end throughput: lex + parse + lower of a synthetic PTX module of
//! more than 1 MB (one kernel of straight-line code, branches and loads, in
//! the shape compilers emit). Reported in bytes/s (criterion prints MB/s or
//! MiB/s). Target: at least 50 MB/s.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// A module of `copies` repetitions of a 16-line block (14 instructions); each copy has its
/// own labels and offsets.
fn synthetic_ptx(copies: usize) -> String {
    let mut s = String::from(
        "//\n// Synthetic kernel for the front-end benchmark\n//\n\n.version 7.0\n.target sm_70\n.address_size 64\n\n\
         .visible .entry synthetic(\n\t.param .u64 synthetic_param_0,\n\t.param .u64 synthetic_param_1,\n\t.param .u32 synthetic_param_2\n)\n{\n\
         \t.reg .pred \t%p<4>;\n\t.reg .b32 \t%r<32>;\n\t.reg .f32 \t%f<16>;\n\t.reg .b64 \t%rd<16>;\n\n\
         \tld.param.u64 \t%rd1, [synthetic_param_0];\n\tld.param.u64 \t%rd2, [synthetic_param_1];\n\
         \tcvta.to.global.u64 \t%rd3, %rd1;\n\tcvta.to.global.u64 \t%rd4, %rd2;\n\tmov.u32 \t%r1, %tid.x;\n",
    );
    for i in 0..copies {
        let off = (i % 1024) * 4;
        s.push_str(&format!(
            "$L__BB0_{i}:\n\
             \tld.global.u32 \t%r2, [%rd3+{off}];\n\
             \tld.global.f32 \t%f1, [%rd4+{off}];\n\
             \tmad.lo.s32 \t%r3, %r2, %r1, 17;\n\
             \tsetp.lt.s32 \t%p1, %r3, %r2;\n\
             \t@%p1 bra \t$L__BB0_{i}_skip;\n\
             \tcvt.rn.f32.s32 \t%f2, %r3;\n\
             \tfma.rn.f32 \t%f3, %f1, %f2, 0f3F800000;\n\
             \tmul.wide.s32 \t%rd5, %r3, 4;\n\
             \tadd.s64 \t%rd6, %rd4, %rd5;\n\
             \tst.global.f32 \t[%rd6], %f3;   // scattered store\n\
             $L__BB0_{i}_skip:\n\
             \tshl.b32 \t%r4, %r2, 3;\n\
             \txor.b32 \t%r5, %r4, %r1;\n\
             \tselp.b32 \t%r6, %r5, %r4, %p1;\n\
             \tatom.global.add.u32 \t%r7, [%rd3], %r6;\n"
        ));
    }
    s.push_str("\tret;\n}\n");
    s
}

fn frontend(c: &mut Criterion) {
    let src = synthetic_ptx(2600);
    assert!(
        src.len() > 1_000_000,
        "synthetic module is {} bytes",
        src.len()
    );
    // Measure only valid input: a front end that fails fast would look fast.
    let (_, module) = gpusim::front_end(gpusim::SourceFile::new("synthetic.ptx", src.as_str()))
        .expect("valid PTX");
    assert_eq!(module.kernels[0].insts.len(), 2600 * 14 + 6);
    let mut g = c.benchmark_group("frontend");
    g.throughput(Throughput::Bytes(src.len() as u64));
    g.sample_size(20);
    g.bench_function("lex_parse_lower_1MB", |b| {
        b.iter(|| {
            gpusim::front_end(gpusim::SourceFile::new("synthetic.ptx", src.as_str()))
                .map(|(_, m)| m.kernels.len())
        })
    });
    g.bench_function("compile_with_analyses_1MB", |b| {
        b.iter(|| {
            gpusim::compile(gpusim::SourceFile::new("synthetic.ptx", src.as_str()))
                .map(|p| p.analyses.len())
        })
    });
    g.finish();
}

criterion_group!(benches, frontend);
criterion_main!(benches);
