//! Corpus-driven fuzzing of the front end and of `run`: mutants of the
//! kernels in `fuzz/corpus/` (byte flips, token splices, line duplications
//! and deletions; seeded, so failures reproduce) are compiled and, when they
//! compile, run functionally with a small instruction limit. No mutant may
//! panic. Inputs in `fuzz/regressions/` (once crashes) run every time.
//! `FUZZ_CASES`, `FUZZ_SEED` and `FUZZ_SECONDS` make longer local runs.

use std::path::{Path, PathBuf};

use gpusim::workload::host::{ArgValue, FunctionalHost, FunctionalOptions, Host};

fn dir(sub: &str) -> Vec<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz").join(sub);
    let mut v: Vec<PathBuf> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    v.sort();
    v
}

/// SplitMix64: seeded, so a failing case reproduces from its seed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One to four mutations of `src`.
fn mutate(rng: &mut Rng, src: &[u8]) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = src.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    for _ in 0..1 + rng.below(4) {
        let n = lines.len();
        match rng.below(5) {
            0 => {
                // Delete a line.
                if n > 1 {
                    lines.remove(rng.below(n));
                }
            }
            1 => {
                // Duplicate a line somewhere else.
                let l = lines[rng.below(n)].clone();
                lines.insert(rng.below(n + 1), l);
            }
            2 => {
                // Splice: a token of one line replaces a token of another.
                let a = rng.below(n);
                let b = rng.below(n);
                let tokens = |l: &[u8]| -> Vec<(usize, usize)> {
                    let mut out = Vec::new();
                    let mut start = None;
                    for (i, &c) in l.iter().enumerate() {
                        let word = c.is_ascii_alphanumeric() || b"%._$[]+-".contains(&c);
                        match (word, start) {
                            (true, None) => start = Some(i),
                            (false, Some(s)) => {
                                out.push((s, i));
                                start = None;
                            }
                            _ => {}
                        }
                    }
                    if let Some(s) = start {
                        out.push((s, l.len()));
                    }
                    out
                };
                let ta = tokens(&lines[a]);
                let tb = tokens(&lines[b]);
                if !ta.is_empty() && !tb.is_empty() {
                    let (s, e) = ta[rng.below(ta.len())];
                    let (s2, e2) = tb[rng.below(tb.len())];
                    let tok = lines[b][s2..e2].to_vec();
                    lines[a].splice(s..e, tok);
                }
            }
            3 => {
                // Flip a byte to an interesting one.
                let l = rng.below(n);
                if !lines[l].is_empty() {
                    let i = rng.below(lines[l].len());
                    let pick = b"0123456789%[]{},;.-+_$!@|<>\x00\xff";
                    lines[l][i] = if rng.below(4) == 0 {
                        rng.next() as u8
                    } else {
                        pick[rng.below(pick.len())]
                    };
                }
            }
            _ => {
                // Change a number.
                let l = rng.below(n);
                if let Some(i) = lines[l].iter().position(|c| c.is_ascii_digit()) {
                    let v = [
                        "0",
                        "1",
                        "31",
                        "32",
                        "64",
                        "255",
                        "4294967295",
                        "-1",
                        "65536",
                    ];
                    lines[l].splice(i..i + 1, v[rng.below(v.len())].bytes());
                }
            }
        }
    }
    lines.join(&b'\n')
}

/// Compiles `bytes`; when it compiles, runs every kernel once (2 CTAs of
/// 64 threads, pointers to 64 KiB buffers, scalars small) under a 20 000
/// instruction limit. Returns whether it compiled.
fn exercise(name: &str, bytes: &[u8]) -> bool {
    let p = match gpusim::compile_bytes(name, bytes) {
        Ok(p) => p,
        Err(d) => {
            assert!(!d.list.is_empty(), "{name}: error without diagnostics");
            let _ = d.render(false);
            return false;
        }
    };
    for k in 0..p.module.kernels.len() {
        let _ = gpusim::report::cfg_text::to_text(&p, k);
        let options = FunctionalOptions {
            step_limit: 20_000,
            ..FunctionalOptions::default()
        };
        let mut host = FunctionalHost::new(&p, k, options);
        let mut args = Vec::new();
        for param in &p.kernel(k).params {
            args.push(match (param.ty.bytes(), param.ty.is_float()) {
                (8, false) => ArgValue::U64(host.alloc(&param.name, 64 << 10)),
                (8, true) => ArgValue::F64(1.5),
                (_, true) => ArgValue::F32(1.5),
                _ => ArgValue::U32(64),
            });
        }
        let name = p.kernel(k).name.clone();
        if let Err(e) = host.launch(Some(&name), [2, 1, 1], [64, 1, 1], &args) {
            let _ = e.to_string();
        }
    }
    true
}

#[test]
fn regressions_do_not_crash() {
    let files = dir("regressions");
    assert!(!files.is_empty());
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        exercise(&f.display().to_string(), &bytes);
    }
}

#[test]
fn mutated_kernels_never_panic() {
    let env = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let cases = env("FUZZ_CASES", 3000);
    let seed = env("FUZZ_SEED", 1);
    let seconds = env("FUZZ_SECONDS", 0);
    let corpus: Vec<(String, Vec<u8>)> = dir("corpus")
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    assert!(corpus.len() >= 10);
    // The seeds themselves compile and run.
    for (name, bytes) in &corpus {
        assert!(exercise(name, bytes), "{name} does not compile");
    }
    let start = std::time::Instant::now();
    let mut rng = Rng(seed);
    let (mut compiled, mut total) = (0u64, 0u64);
    for case in 0.. {
        if seconds > 0 {
            if start.elapsed().as_secs() >= seconds {
                break;
            }
        } else if case >= cases {
            break;
        }
        let (name, bytes) = &corpus[rng.below(corpus.len())];
        let mutant = mutate(&mut rng, bytes);
        let label = format!("{name} (seed {seed}, case {case})");
        let r = std::panic::catch_unwind(|| exercise(&label, &mutant));
        match r {
            Ok(c) => compiled += u64::from(c),
            Err(_) => {
                let out = std::env::temp_dir().join(format!("gpusim-fuzz-crash-{seed}-{case}.ptx"));
                let _ = std::fs::write(&out, &mutant);
                panic!("{label} panicked; input written to {}", out.display());
            }
        }
        total += 1;
    }
    eprintln!("fuzz: {total} mutants, {compiled} compiled and ran");
    // Mutations must leave enough programs valid to reach the interpreter.
    assert!(compiled * 10 >= total, "{compiled} of {total}");
}
