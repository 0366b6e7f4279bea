//! Golden fixtures (`fixtures/**/*.toml`): every fixture runs under each
//! scheduler of its `[cycles]`, passes its functional check, gives exactly
//! the recorded cycle count and accounts for every scheduler-cycle; the
//! fixtures cover every kernel × the standard schedulers; `gpusim bless`
//! rewrites numbers (and only numbers) and `bless --check` compares.

use std::path::{Path, PathBuf};
use std::process::Command;

use gpusim::fixture::{Fixture, STANDARD_SCHEDULERS, discover};

const HINT: &str = "run `cargo run --release -- bless` if the change is intended";

/// Cargo runs integration tests in the package root, so fixture paths
/// (and the messages naming them) stay relative: `fixtures/tiny/bfs.toml`.
fn fixtures() -> Vec<PathBuf> {
    let files = discover(&[PathBuf::from("fixtures")]).expect("fixtures/ readable");
    assert!(!files.is_empty(), "no fixtures found");
    files
}

#[test]
fn every_fixture_passes_with_its_exact_cycles() {
    let mut problems = Vec::new();
    let mut runs = 0;
    for path in fixtures() {
        let f = match Fixture::load(&path) {
            Ok(f) => f,
            Err(e) => {
                problems.push(e.to_string());
                continue;
            }
        };
        if f.spec.cycles.is_empty() {
            problems.push(format!("{}: [cycles] lists no scheduler", path.display()));
            continue;
        }
        let results = match f.evaluate(&[]) {
            Ok(r) => r,
            Err(e) => {
                problems.push(e.to_string());
                continue;
            }
        };
        for r in results {
            runs += 1;
            let s = &r.stats;
            if s.stalls.total() != s.schedulers * s.cycles {
                problems.push(format!(
                    "{} {}: stall categories sum to {} scheduler-cycles, not {} schedulers × {} cycles = {}",
                    path.display(),
                    r.sched,
                    s.stalls.total(),
                    s.schedulers,
                    s.cycles,
                    s.schedulers * s.cycles
                ));
            }
            if !r.matches() {
                problems.push(format!(
                    "{} {}: {} → {} cycles",
                    path.display(),
                    r.sched,
                    r.expected.expect("listed in [cycles]"),
                    s.cycles
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} fixture problem(s) in {runs} runs (old → new):\n  {}\n{HINT}",
        problems.len(),
        problems.join("\n  ")
    );
}

fn manifests(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    v.sort();
    v
}

fn same_file(a: &Path, b: &Path) -> bool {
    a.canonicalize()
        .ok()
        .is_some_and(|a| Some(a) == b.canonicalize().ok())
}

#[test]
fn fixtures_cover_every_kernel_and_scheduler() {
    let mut problems = Vec::new();
    let mut expect = |config: &str, manifest: &Path| {
        let stem = manifest.file_stem().unwrap().to_string_lossy();
        let path = PathBuf::from(format!("fixtures/{config}/{stem}.toml"));
        match Fixture::load(&path) {
            Err(e) => problems.push(format!("{} has no fixture: {e}", manifest.display())),
            Ok(f) => {
                if !same_file(&f.manifest_path(), manifest) {
                    problems.push(format!(
                        "{}: runs {}, expected {}",
                        path.display(),
                        f.spec.manifest.display(),
                        manifest.display()
                    ));
                }
            }
        }
    };
    for dir in ["kernels", "kernels/sync"] {
        for m in manifests(dir) {
            expect("tiny", &m);
        }
    }
    for k in ["spmv_scalar", "fwt", "matmul", "histogram256"] {
        expect("gtx480", Path::new(&format!("kernels/{k}.toml")));
    }
    // Every fixture accounts for every standard scheduler: a number, or a
    // reason in [skip]. Its directory names its config.
    for path in fixtures() {
        let Ok(f) = Fixture::load(&path) else {
            continue; // reported by the test above
        };
        for s in STANDARD_SCHEDULERS {
            match f.spec.skip.get(*s) {
                Some(why) if why.trim().is_empty() => {
                    problems.push(format!("{}: [skip] {s} gives no reason", path.display()))
                }
                Some(_) => {}
                None if f.spec.cycles.contains_key(*s) => {}
                None => problems.push(format!(
                    "{}: {s} is neither in [cycles] nor in [skip] (`gpusim bless --add {s} {}`)",
                    path.display(),
                    path.display()
                )),
            }
        }
        let dir = path.parent().and_then(Path::file_name).unwrap();
        if dir.to_string_lossy() != f.spec.config {
            problems.push(format!(
                "{}: config `{}` in directory {}",
                path.display(),
                f.spec.config,
                dir.to_string_lossy()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_fetch_policy_has_a_fixture() {
    let used: Vec<String> = fixtures()
        .iter()
        .filter_map(|p| Fixture::load(p).ok())
        .map(|f| f.spec.fetch.unwrap_or_else(|| "lrr".into()))
        .collect();
    for (name, _) in gpusim::sched::registry::FETCH_POLICIES {
        assert!(
            used.iter().any(|u| u == name),
            "no fixture runs fetch policy `{name}` (`fetch = \"{name}\"` in a fixture)"
        );
    }
}

#[test]
fn every_cta_policy_has_a_fixture() {
    let used: Vec<String> = fixtures()
        .iter()
        .filter_map(|p| Fixture::load(p).ok())
        .map(|f| f.spec.cta.unwrap_or_else(|| "rr".into()))
        .collect();
    for (name, _) in gpusim::sched::registry::CTA_POLICIES {
        assert!(
            used.iter().any(|u| u == name),
            "no fixture runs CTA policy `{name}` (`cta = \"{name}\"` in a fixture)"
        );
    }
}

#[test]
fn every_sync_policy_has_a_fixture() {
    let used: Vec<String> = fixtures()
        .iter()
        .filter_map(|p| Fixture::load(p).ok())
        .map(|f| f.spec.sync.unwrap_or_else(|| "busy".into()))
        .collect();
    for (name, _) in gpusim::sync::policy::SYNC_POLICIES {
        // `sleep:MAX` and `timeout:T` take a value.
        let family = name.split(':').next().unwrap_or(name);
        assert!(
            used.iter()
                .any(|u| u.split(':').next().unwrap_or(u) == family),
            "no fixture runs sync policy `{name}` (`sync = \"{name}\"` in a fixture)"
        );
    }
}

// ---- `gpusim bless` --------------------------------------------------------

fn gpusim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gpusim"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run gpusim");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("gpusim-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
    fn write(&self, name: &str, text: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn saxpy_fixture(cycles: &str) -> String {
    let m = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/saxpy.toml");
    format!(
        "# a comment that must survive\nmanifest = {:?}\nconfig = \"tiny\"  # the small machine\ncheck = \"pass\"\n\n[cycles]\n{cycles}",
        m.to_string_lossy()
    )
}

#[test]
fn bless_rewrites_only_the_numbers_and_check_compares() {
    let scratch = Scratch::new("bless");
    let text = saxpy_fixture("gto = 1   # stale\nlrr = 2\n");
    let file = scratch.write("saxpy.toml", &text);

    // --check: differences exit 1 and nothing is written.
    let (code, out, err) = gpusim(&["bless", "--check", &file]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(&format!("{file} gto: 1 → ")), "{out}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);

    // bless: rewrites the numbers, keeps the comments and layout.
    let (code, out, err) = gpusim(&["bless", &file]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    let new = |l: &str| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap();
    let (gto, lrr) = (new(lines[0]), new(lines[1]));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        saxpy_fixture(&format!("gto = {gto}   # stale\nlrr = {lrr}\n"))
    );

    // Now everything matches.
    let (code, out, _) = gpusim(&["bless", "--check", &file]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        format!("{file} gto: {gto} unchanged\n{file} lrr: {lrr} unchanged\n")
    );

    // --add runs and records a missing scheduler.
    let (code, out, err) = gpusim(&["bless", "--add", "two-level", &file]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!("{file} two-level: (none) → ")),
        "{out}"
    );
    let f = Fixture::load(Path::new(&file)).unwrap();
    assert_eq!(
        f.schedulers().collect::<Vec<_>>(),
        ["gto", "lrr", "two-level"]
    );
}

#[test]
fn bless_writes_nothing_for_a_failing_fixture() {
    let scratch = Scratch::new("bless-fail");
    // A manifest whose expectation is wrong: the check fails.
    let saxpy = std::fs::read_to_string("kernels/saxpy.toml").unwrap();
    let ptx = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/saxpy.ptx");
    let bad = saxpy
        .replace(
            "ptx = \"saxpy.ptx\"",
            &format!("ptx = {:?}", ptx.to_string_lossy()),
        )
        .replace(
            "expect_file = \"saxpy_expected.bin\"",
            "expect = { start = 1.0, step = 3.0 }",
        );
    scratch.write("bad_manifest.toml", &bad);
    let text = "manifest = \"bad_manifest.toml\"\nconfig = \"tiny\"\ncheck = \"pass\"\n[cycles]\ngto = 1\n";
    let file = scratch.write("bad.toml", text);
    let (code, out, err) = gpusim(&["bless", &file]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert!(err.contains(&format!("{file} gto: check failed")), "{err}");
    assert!(err.contains("MISMATCH"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);

    // An unknown key names the file and the key.
    let typo = scratch.write("typo.toml", &text.replace("config", "confg"));
    let (code, _, err) = gpusim(&["bless", "--check", &typo]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("{typo}: not a valid fixture")),
        "{err}"
    );
    assert!(err.contains("confg"), "{err}");
}
