//! Functional-only execution speed, in simulated warp instructions per
//! second (criterion's "elements"). Target: at least 30 million warp
//! instructions/s on one core.
//!
//! Kernels: FWT and SPMV-scalar with their real inputs (the launches of one
//! workload run are recorded with the memory they started from and
//! replayed, so input generation and the CPU reference are not timed), plus
//! a synthetic ALU loop that isolates the interpreter.

use std::path::Path;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use gpusim::func::GlobalMemory;
use gpusim::workload::args::Args;
use gpusim::workload::host::{ArgValue, FunctionalHost, FunctionalOptions, Host, WorkloadError};
use gpusim::workload::runner::prepare;
use gpusim::workload::{Launch, registry};

/// A host that forwards to the functional host and records every launch
/// with the memory it started from, so the bench can replay the launches
/// alone (no input generation, no CPU reference in the timing).
struct Recorder<'h, 'p> {
    inner: &'h mut FunctionalHost<'p>,
    launches: Vec<RecordedLaunch>,
}

/// A recorded launch: entry, grid, block, arguments and the memory it
/// started from.
type RecordedLaunch = (
    Option<String>,
    [u32; 3],
    [u32; 3],
    Vec<ArgValue>,
    GlobalMemory,
);

impl Host for Recorder<'_, '_> {
    fn alloc(&mut self, name: &str, bytes: u64) -> u64 {
        self.inner.alloc(name, bytes)
    }
    fn write_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), WorkloadError> {
        self.inner.write_bytes(addr, data)
    }
    fn read_bytes(&mut self, addr: u64, len: usize) -> Result<Vec<u8>, WorkloadError> {
        self.inner.read_bytes(addr, len)
    }
    fn launch(
        &mut self,
        entry: Option<&str>,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[ArgValue],
    ) -> Result<(), WorkloadError> {
        let snapshot = self.inner.global.clone();
        self.launches.push((
            entry.map(str::to_string),
            grid,
            block,
            args.to_vec(),
            snapshot,
        ));
        self.inner.launch(entry, grid, block, args)
    }
}

fn manifest_bench(c: &mut Criterion, name: &str, ptx: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let prepared = prepare(&root.join(ptx), None).unwrap_or_else(|_| panic!("prepare {ptx}"));
    let m = &prepared.manifest.manifest;
    let mut args = Args::new(m.args.clone());
    let launch = Launch {
        grid: m.grid,
        block: m.block,
        ..Launch::default()
    };
    let mut workload = registry::create(&m.workload, &mut args, launch)
        .unwrap_or_else(|_| panic!("workload {ptx}"));
    let mut host = FunctionalHost::new(
        &prepared.program,
        prepared.entry,
        FunctionalOptions::default(),
    );
    let mut rec = Recorder {
        inner: &mut host,
        launches: Vec::new(),
    };
    let check = workload
        .run(&mut rec)
        .unwrap_or_else(|_| panic!("run {ptx}"));
    assert!(check.passed(), "{ptx}: {check}");
    let launches = rec.launches;
    let insts = host.stats.warp_insts;
    let mut g = c.benchmark_group("functional");
    g.throughput(Throughput::Elements(insts));
    g.sample_size(10);
    g.bench_function(name, |b| {
        // Setup (not timed): a fresh host with its kernels decoded, and a
        // copy of each launch's starting memory. Timed: the launches. The replaced memories are
        // returned, so they are dropped outside the measurement too.
        b.iter_batched(
            || {
                let mut h = FunctionalHost::new(
                    &prepared.program,
                    prepared.entry,
                    FunctionalOptions::default(),
                );
                // Decoding a kernel is a once-per-program step.
                for l in &launches {
                    let k = h.resolve_entry(l.0.as_deref()).expect("entry");
                    h.ensure_info(k);
                }
                let memories: Vec<GlobalMemory> = launches.iter().map(|l| l.4.clone()).collect();
                (h, memories)
            },
            |(mut h, memories)| {
                let mut old = Vec::with_capacity(memories.len());
                for ((entry, grid, block, args, _), memory) in launches.iter().zip(memories) {
                    old.push(std::mem::replace(&mut h.global, memory));
                    h.launch(entry.as_deref(), *grid, *block, args)
                        .expect("replays");
                }
                assert_eq!(h.stats.warp_insts, insts);
                (h.stats, old)
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

fn synthetic(c: &mut Criterion) {
    let src = ".version 7.0\n.target sm_70\n.address_size 64\n\
        .visible .entry alu(.param .u64 out, .param .u32 iters)\n{\n\
        .reg .pred %p<2>;\n.reg .b32 %r<8>;\n.reg .f32 %f<4>;\n.reg .b64 %rd<4>;\n\
        ld.param.u32 %r1, [iters];\nmov.u32 %r2, %tid.x;\nmov.u32 %r3, 0;\nmov.f32 %f1, 0f3F800000;\n\
        L:\nadd.s32 %r2, %r2, 3;\nxor.b32 %r4, %r2, %r3;\nmad.lo.s32 %r3, %r4, 5, %r2;\n\
        fma.rn.f32 %f1, %f1, 0f3F000000, 0f3F800000;\nadd.s32 %r1, %r1, -1;\nsetp.ne.s32 %p1, %r1, 0;\n@%p1 bra L;\n\
        ld.param.u64 %rd1, [out];\nmov.u32 %r5, %tid.x;\nmul.wide.u32 %rd2, %r5, 4;\nadd.s64 %rd3, %rd1, %rd2;\n\
        st.global.u32 [%rd3], %r3;\nret;\n}\n";
    let p = gpusim::compile(gpusim::SourceFile::new("alu.ptx", src)).expect("valid");
    let iters = 1000u32;
    let warps = 64u64; // 8 CTAs x 256 threads
    let insts = warps * (4 + 7 * u64::from(iters) + 6);
    let mut g = c.benchmark_group("functional");
    g.throughput(Throughput::Elements(insts));
    g.sample_size(10);
    g.bench_function("alu_loop", |b| {
        b.iter(|| {
            let mut host = FunctionalHost::new(&p, 0, FunctionalOptions::default());
            let out = host.alloc("out", 256 * 4);
            host.launch(
                None,
                [8, 1, 1],
                [256, 1, 1],
                &[ArgValue::U64(out), ArgValue::U32(iters)],
            )
            .expect("runs");
            assert_eq!(host.stats.warp_insts, insts);
        })
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    synthetic(c);
    for (name, ptx) in [
        ("fwt", "kernels/fwt.ptx"),
        // The global-memory variant, as measured since the first session.
        ("spmv_scalar", "kernels/spmv_scalar_global.ptx"),
    ] {
        if Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(ptx)
            .with_extension("toml")
            .exists()
        {
            manifest_bench(c, name, ptx);
        }
    }
}

criterion_group!(functional, benches);
criterion_main!(functional);
