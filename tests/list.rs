//! `gpusim list` end to end: every registry entry is listed with its
//! description, every listed name is accepted by the command that takes
//! it, and kernels are found and described from their header comments.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use gpusim::config::PRESET_TABLE;
use gpusim::report::repro_target::ReproTarget;
use gpusim::sched::registry::{CTA_POLICIES, FETCH_POLICIES, ISSUE_POLICIES};
use gpusim::sync::policy::SYNC_POLICIES;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn gpusim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpusim"))
        .current_dir(root())
        .args(args)
        .output()
        .expect("runs gpusim")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `gpusim list WHAT --json`'s `(name, description)` pairs.
fn listed(what: &str) -> Vec<(String, String)> {
    let o = gpusim(&["list", what, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let obj = v.as_object().expect("an object");
    assert_eq!(obj.len(), 1, "only {what}");
    obj[what]
        .as_array()
        .expect("an array")
        .iter()
        .map(|e| {
            (
                e["name"].as_str().expect("name").to_string(),
                e["description"].as_str().expect("description").to_string(),
            )
        })
        .collect()
}

fn sorted(t: impl IntoIterator<Item = (String, String)>) -> Vec<(String, String)> {
    let mut v: Vec<_> = t.into_iter().collect();
    v.sort();
    v
}

fn pairs(t: &[(&str, &str)]) -> Vec<(String, String)> {
    sorted(t.iter().map(|(n, d)| (n.to_string(), d.to_string())))
}

#[test]
fn every_registry_entry_is_listed_with_its_description() {
    assert_eq!(listed("schedulers"), pairs(ISSUE_POLICIES));
    assert_eq!(listed("fetch"), pairs(FETCH_POLICIES));
    assert_eq!(listed("cta"), pairs(CTA_POLICIES));
    assert_eq!(listed("sync"), pairs(SYNC_POLICIES));
    assert_eq!(
        listed("presets"),
        sorted(
            PRESET_TABLE
                .iter()
                .map(|(n, d, _)| (n.to_string(), d.to_string()))
        )
    );
    assert_eq!(
        listed("repro"),
        sorted(
            ReproTarget::ALL
                .iter()
                .map(|t| (t.name().to_string(), t.description().to_string()))
        )
    );
    // Parameterized policies are listed with their parameter.
    let names = |w: &str| -> Vec<String> { listed(w).into_iter().map(|(n, _)| n).collect() };
    assert!(names("schedulers").contains(&"swl:N".to_string()));
    let sync = names("sync");
    assert!(sync.contains(&"sleep:MAX".to_string()) && sync.contains(&"timeout:T".to_string()));
}

#[test]
fn the_text_listing_has_every_section_and_line() {
    let o = gpusim(&["list"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let titles = [
        "Warp schedulers (--sched)",
        "Fetch policies (--fetch)",
        "CTA policies (--cta)",
        "Work-group sync policies (--sync)",
        "Machine presets (--config)",
        "Kernels (gpusim run FILE)",
        "Paper reproductions (gpusim repro NAME)",
    ];
    let at: Vec<usize> = titles
        .iter()
        .map(|t| {
            text.find(&format!("{t}\n"))
                .unwrap_or_else(|| panic!("{t}"))
        })
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "sections in order");
    for (n, d) in ISSUE_POLICIES
        .iter()
        .chain(FETCH_POLICIES)
        .chain(CTA_POLICIES)
        .chain(SYNC_POLICIES)
    {
        // Names padded to their section's widest, then the description.
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("  {n} ")) && l.ends_with(&format!("  {d}"))),
            "no line for `{n}`"
        );
    }
    // One section alone is exactly that section of the whole listing.
    let only = stdout(&gpusim(&["list", "fetch"]));
    let start = at[1];
    assert_eq!(only, text[start..at[2] - 1]);
    // Sorted by name within a section.
    let fetch: Vec<&str> = only
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(fetch, ["cff", "fef", "lrr"]);
    // Deterministic.
    assert_eq!(stdout(&gpusim(&["list"])), text);
}

/// A listed name with its parameter filled in.
fn concrete(name: &str) -> String {
    name.replace(":N", ":2")
        .replace(":MAX", ":4000")
        .replace(":T", ":1000")
}

#[test]
fn every_listed_policy_and_preset_is_accepted() {
    let kernel = "kernels/vector_add.toml";
    let run = |flag: &str, value: &str| gpusim(&["run", kernel, "--config", "tiny", flag, value]);
    for (name, _) in listed("schedulers") {
        let n = concrete(&name);
        let o = run("--sched", &n);
        if name == "daws-profiled" {
            // Known, but needs its profile.
            assert!(stderr(&o).contains("--profile"), "{n}: {}", stderr(&o));
        } else {
            assert!(o.status.success(), "--sched {n}: {}", stderr(&o));
        }
    }
    for (name, _) in listed("fetch") {
        let o = run("--fetch", &name);
        assert!(o.status.success(), "--fetch {name}: {}", stderr(&o));
    }
    for (name, _) in listed("cta") {
        let o = run("--cta", &name);
        assert!(o.status.success(), "--cta {name}: {}", stderr(&o));
    }
    for (name, _) in listed("sync") {
        let n = concrete(&name);
        let o = run("--sync", &n);
        assert!(o.status.success(), "--sync {n}: {}", stderr(&o));
    }
    for (name, _) in listed("presets") {
        let o = gpusim(&["config", &name]);
        assert!(o.status.success(), "config {name}: {}", stderr(&o));
    }
    for (name, _) in listed("repro") {
        // Accepted as PAPER: the reproduction itself refuses the kernel.
        let o = gpusim(&["repro", &name, "--quick", "--kernel", "no-such-kernel"]);
        assert_eq!(o.status.code(), Some(2), "repro {name}");
        assert!(
            stderr(&o).contains("no reproduction kernel `no-such-kernel`"),
            "repro {name}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn unlisted_names_are_refused_with_the_listed_choices() {
    let o = gpusim(&[
        "run",
        "kernels/vector_add.toml",
        "--config",
        "tiny",
        "--sched",
        "fastest",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    for (name, _) in listed("schedulers") {
        assert!(e.contains(&name), "`{name}` not among the choices: {e}");
    }
    let o = gpusim(&["repro", "gpgpusim"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("daws, baws, lfws, blws, awg"),
        "{}",
        stderr(&o)
    );
    let o = gpusim(&["list", "policies"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("schedulers, fetch, cta, sync, presets, kernels, repro"));
}

#[test]
fn every_kernel_of_the_tree_is_listed_and_described() {
    let listed = listed("kernels");
    let mut manifests = Vec::new();
    fn walk(d: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "toml") {
                out.push(p.strip_prefix(root()).unwrap().display().to_string());
            }
        }
    }
    walk(&root().join("kernels"), &mut manifests);
    manifests.sort();
    let names: Vec<&str> = listed.iter().map(|(n, _)| n.as_str()).collect();
    for m in &manifests {
        assert!(names.contains(&m.as_str()), "{m} not listed");
    }
    for (n, d) in &listed {
        assert!(root().join(n).is_file(), "{n} does not exist");
        assert!(d != "(no description)" && !d.is_empty(), "{n}");
    }
    // A PTX file a manifest runs is listed through the manifest only; one
    // without a manifest is listed itself.
    assert!(!names.contains(&"kernels/fwt.ptx"));
    assert!(names.contains(&"kernels/old/old_mix.ptx"));
    let d = |n: &str| &listed.iter().find(|(x, _)| x == n).unwrap().1;
    assert_eq!(
        d("kernels/sync/fa_mutex_global.toml"),
        "HeteroSync faMutex (global scope), see fa_mutex.ptx."
    );
    // Compiler output without a description: the `.cu`'s header.
    assert_eq!(
        d("kernels/cuda/bfs_expand.ptx"),
        "one level of a frontier-based breadth-first search on a CSR graph."
    );
}

#[test]
fn a_kernels_directory_is_described_file_by_file() {
    let dir = std::env::temp_dir().join(format!("gpusim-list-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let w = |p: &str, t: &str| std::fs::write(dir.join(p), t).unwrap();
    w(
        "a.toml",
        "# a: adds (a.cu -> a.ptx, nvcc 13.5) two vectors, e.g. x and y. More.\nptx = \"k.ptx\"\n",
    );
    w(
        "k.ptx",
        "// k: named by a.toml, so not listed.\n.version 7.0\n",
    );
    w(
        "sub/gen.ptx",
        "//\n// Generated by NVIDIA NVVM Compiler\n//\n\n.version 7.0\n.visible .entry g()\n{\n}\n",
    );
    w(
        "sub/gen.cu",
        "// gen: the CUDA source's summary. Details.\n__global__ void g() {}\n",
    );
    w("sub/bare.ptx", ".version 7.0\n.visible .entry b()\n{\n}\n");
    w("sub/notes.txt", "# not a kernel\n");
    let d = dir.display().to_string();
    let o = gpusim(&["list", "kernels", "--dir", &d]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "Kernels (gpusim run FILE)\n  {d}/a.toml        adds two vectors, e.g. x and y.\n  {d}/sub/bare.ptx  (no description)\n  {d}/sub/gen.ptx   the CUDA source's summary.\n"
        )
    );
    let o = gpusim(&["list", "kernels", "--dir", &format!("{d}/missing")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("missing"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn long_descriptions_are_cut_unless_full() {
    let cut = stdout(&gpusim(&["list", "kernels"]));
    let full = stdout(&gpusim(&["list", "kernels", "--full"]));
    let line = |t: &str| {
        t.lines()
            .find(|l| l.contains("kernels/baws/btree.toml"))
            .unwrap()
            .to_string()
    };
    let (c, f) = (line(&cut), line(&full));
    assert!(c.ends_with('…'), "{c}");
    assert!(
        f.len() > c.len() && f.ends_with("binary searches of the records (drivers::btree)."),
        "{f}"
    );
    let desc = c.split("btree.toml").nth(1).unwrap().trim();
    assert!(desc.chars().count() <= 100, "{desc}");
    assert!(f.contains(desc.trim_end_matches('…')));
}
