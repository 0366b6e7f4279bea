//! The generic `buffers` workload: a kernel run with nothing but TOML.

use std::path::{Path, PathBuf};

use gpusim::workload::host::FunctionalOptions;
use gpusim::workload::runner::{RunError, prepare, run_functional};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Writes `manifest` next to a copy of kernels/saxpy.ptx in a fresh
/// directory; returns the manifest path.
fn setup(name: &str, manifest: &str, files: &[(&str, Vec<u8>)]) -> Scratch {
    let dir = std::env::temp_dir().join(format!("gpusim-buffers-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(root().join("kernels/saxpy.ptx"), dir.join("saxpy.ptx")).unwrap();
    for (f, data) in files {
        std::fs::write(dir.join(f), data).unwrap();
    }
    let m = dir.join("m.toml");
    std::fs::write(&m, manifest).unwrap();
    Scratch { dir, manifest: m }
}

/// A scratch directory holding a manifest; removed when dropped.
struct Scratch {
    dir: PathBuf,
    manifest: PathBuf,
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.manifest
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn run(m: &Path) -> Result<gpusim::workload::Check, String> {
    let p = prepare(m, None).map_err(|e| format!("{e:?}"))?;
    match run_functional(&p, &[], FunctionalOptions::default(), None) {
        Ok(r) => Ok(r.check),
        Err(RunError::Workload(w)) => Err(w.to_string()),
        Err(e) => Err(format!("{e:?}")),
    }
}

const HEAD: &str =
    "ptx = \"saxpy.ptx\"\nworkload = \"buffers\"\ngrid = [2, 1, 1]\nblock = [64, 1, 1]\n";

#[test]
fn shipped_example_passes() {
    let c = run(&root().join("kernels/saxpy.toml")).unwrap();
    assert!(c.passed(), "{c}");
}

#[test]
fn inline_expectations_pass_and_fail() {
    // x = 3 (fill), y = iota from 10 step 1; a = 0.5 => y = 11.5, 12.5, …
    let body = |start: f64| {
        format!(
            "{HEAD}params = [\"x\", \"y\", {{ u32 = 128 }}, {{ f32 = 0.5 }}]\n\
             [[buffers]]\nname = \"x\"\ntype = \"f32\"\nlen = 128\ninit = \"fill\"\nvalue = 3\n\
             [[buffers]]\nname = \"y\"\ntype = \"f32\"\nlen = 128\ninit = \"iota\"\nstart = 10\nstep = 1\n\
             expect = {{ start = {start}, step = 1.0 }}\n"
        )
    };
    assert!(run(&setup("ok", &body(11.5), &[])).unwrap().passed());
    let c = run(&setup("bad", &body(11.0), &[])).unwrap();
    let text = c.to_string();
    assert!(
        text.contains("MISMATCH in `y`: 128 of 128 elements differ"),
        "{text}"
    );
    assert!(text.contains("[0] expected 1.1e1, got 1.15e1"), "{text}");
}

#[test]
fn random_and_file_inputs() {
    // x from a file, y random; checking y against a file computed here.
    let x: Vec<f32> = (0..128).map(|i| (i as f32) * 0.25 - 7.0).collect();
    let bytes = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
    // The random stream is the workload's (generate::Rng); reproduce it.
    let mut rng = gpusim::workload::generate::Rng::new(9);
    let y: Vec<f32> = (0..128)
        .map(|_| (-2.0 + 4.0 * rng.unit_f64()) as f32)
        .collect();
    let expected: Vec<f32> = x
        .iter()
        .zip(&y)
        .map(|(&xi, &yi)| 1.5f32.mul_add(xi, yi))
        .collect();
    let m = setup(
        "files",
        &format!(
            "{HEAD}params = [\"x\", \"y\", {{ u32 = 128 }}, {{ f32 = 1.5 }}]\n\
             [[buffers]]\nname = \"x\"\ntype = \"f32\"\nlen = 128\ninit = \"file\"\npath = \"x.bin\"\n\
             [[buffers]]\nname = \"y\"\ntype = \"f32\"\nlen = 128\ninit = \"random\"\nmin = -2.0\nmax = 2.0\nseed = 9\n\
             expect_file = \"y.bin\"\n"
        ),
        &[("x.bin", bytes(&x)), ("y.bin", bytes(&expected))],
    );
    let c = run(&m).unwrap();
    assert!(c.passed(), "{c}");
}

#[test]
fn mistakes_are_clear_errors() {
    let cases = [
        (
            "params = [\"x\", \"nope\", { u32 = 1 }, { f32 = 1.0 }]\n[[buffers]]\nname = \"x\"\ntype = \"f32\"\nlen = 4\n",
            "params[1] names buffer `nope`, which is not declared",
        ),
        (
            "params = []\n[[buffers]]\nname = \"x\"\ntype = \"f16\"\nlen = 4\n",
            "buffer `x`: unknown type `f16`",
        ),
        (
            "params = []\n[[buffers]]\nname = \"x\"\ntype = \"f32\"\nlen = 4\nlenght = 3\n",
            "unknown key `lenght`",
        ),
        (
            "params = []\n[[buffers]]\nname = \"x\"\ntype = \"f32\"\nlen = 4\ninit = \"file\"\npath = \"missing.bin\"\n",
            "cannot read",
        ),
        (
            "params = [\"x\", \"x\", { u32 = 1 }, { f16 = 1.0 }]\n[[buffers]]\nname = \"x\"\ntype = \"f32\"\nlen = 4\n",
            "params[3]",
        ),
        (
            "params = [\"x\"]\n[[buffers]]\nname = \"x\"\ntype = \"f32\"\nlen = 4\n",
            "kernel `saxpy` takes 4 parameters, the workload passed 1",
        ),
    ];
    for (i, (tail, want)) in cases.iter().enumerate() {
        let e = run(&setup(&format!("err{i}"), &format!("{HEAD}{tail}"), &[])).unwrap_err();
        assert!(e.contains(want), "case {i}: {e}");
    }
}
