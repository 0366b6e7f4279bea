//! No input makes the front end panic: every shipped kernel, truncated at
//! many points and with bytes mutated (deterministically seeded), must give
//! either a program or diagnostics — and diagnostics must render.

use std::path::{Path, PathBuf};

fn shipped_kernels() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in [
        "kernels",
        "kernels/cuda",
        "kernels/sync",
        "tests/bad_kernels",
    ] {
        let mut v: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
            .collect();
        v.sort();
        out.extend(v);
    }
    assert!(out.len() >= 10);
    out
}

/// xorshift64*: a tiny seeded generator, so failures reproduce exactly.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn run(name: &str, bytes: &[u8]) {
    match gpusim::compile_bytes(name, bytes) {
        Ok(p) => {
            // A valid program must also survive entry selection and rendering.
            let _ = p.entry(None);
            for k in 0..p.module.kernels.len() {
                let _ = gpusim::report::cfg_text::to_dot(&p, k);
            }
        }
        Err(d) => {
            assert!(!d.list.is_empty(), "{name}: error without diagnostics");
            let _ = d.render(false);
        }
    }
}

#[test]
fn truncations_never_panic() {
    for path in shipped_kernels() {
        let bytes = std::fs::read(&path).unwrap();
        let step = (bytes.len() / 97).max(1);
        let mut cut = 0;
        while cut < bytes.len() {
            run(&format!("{}@{cut}", path.display()), &bytes[..cut]);
            cut += step;
        }
    }
}

#[test]
fn byte_mutations_never_panic() {
    // Bytes that matter to the grammar, plus arbitrary ones (invalid UTF-8 too).
    const INTERESTING: &[u8] = b";,{}[]()<>%.@!|:+-_0123456789 \n\t/*\"xfdeU$";
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for path in shipped_kernels() {
        let original = std::fs::read(&path).unwrap();
        for case in 0..60 {
            let mut bytes = original.clone();
            let edits = 1 + rng.below(4);
            for _ in 0..edits {
                let at = rng.below(bytes.len().max(1));
                match rng.below(4) {
                    0 if !bytes.is_empty() => {
                        bytes.remove(at);
                    }
                    1 => bytes.insert(
                        at.min(bytes.len()),
                        INTERESTING[rng.below(INTERESTING.len())],
                    ),
                    2 if !bytes.is_empty() => bytes[at] = INTERESTING[rng.below(INTERESTING.len())],
                    _ if !bytes.is_empty() => bytes[at] = rng.next() as u8,
                    _ => {}
                }
            }
            run(&format!("{}#{case}", path.display()), &bytes);
        }
    }
}

#[test]
fn token_soup_never_panics() {
    let pieces = [
        ".entry",
        ".reg",
        ".b32",
        "%r<",
        "%r1",
        ">",
        "{",
        "}",
        "[",
        "]",
        ";",
        ",",
        "@",
        "!",
        "bra",
        "L:",
        "ld.global.v4.f32",
        "0f3F800000",
        "-",
        "+",
        "0x",
        "99999999999999999999999",
        ".param",
        "(",
        ")",
        ".shared",
        "mov.u32",
        "%tid.x",
        "setp.lt.s32",
        "%p<2>",
        ".pred",
        "|",
        ".visible",
        ".func",
        "call",
        "ret",
        ".loc",
        "\n",
        "atom.global.cas.wait.b32",
    ];
    let mut rng = Rng(42);
    for case in 0..400 {
        let n = rng.below(60);
        let mut s = String::new();
        for _ in 0..n {
            s.push_str(pieces[rng.below(pieces.len())]);
            s.push(' ');
        }
        run(&format!("soup#{case}"), s.as_bytes());
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let body = format!(".visible .entry k() {}", "{".repeat(100_000));
    let err = gpusim::compile_bytes("deep.ptx", body.as_bytes()).unwrap_err();
    assert_eq!(err.list[0].code, "gpusim::parse::nesting_too_deep");
    let init = format!(".global .b32 x[2] = {};", "{".repeat(100_000));
    assert!(gpusim::compile_bytes("deep2.ptx", init.as_bytes()).is_err());
}

#[test]
fn huge_declarations_are_errors() {
    let src = ".version 7.0\n.target sm_70\n.address_size 64\n.global .b32 x[99999999999] = {1};\n.visible .entry k() { ret; }";
    let err = gpusim::compile_bytes("big.ptx", src.as_bytes()).unwrap_err();
    assert_eq!(err.list[0].code, "gpusim::lower::too_large");
}
