//! Every file in tests/bad_kernels/ must be rejected with exactly the
//! rendered diagnostics (no colour) in the `.expected` file beside it.
//!
//! A `// gpusim-test: entry=NAME` first line asks for that entry, to test
//! entry selection. Set `BLESS_DIAGNOSTICS=1` to rewrite the `.expected`
//! files after a deliberate change to a message (review the diff).

use std::path::Path;

fn render(path: &Path) -> String {
    let name = format!(
        "tests/bad_kernels/{}",
        path.file_name().unwrap().to_string_lossy()
    );
    let text = std::fs::read_to_string(path).unwrap();
    let entry = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("// gpusim-test: entry="))
        .map(str::trim)
        .map(str::to_string);
    match gpusim::compile(gpusim::SourceFile::new(name, text)) {
        Err(d) => d.render(false),
        Ok(p) => match p.entry(entry.as_deref()) {
            Err(d) => d.render(false),
            Ok(_) => panic!("{} was accepted", path.display()),
        },
    }
}

#[test]
fn bad_kernels_render_expected_diagnostics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_kernels");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 15, "at least 15 bad-kernel cases");
    let bless = std::env::var_os("BLESS_DIAGNOSTICS").is_some();
    let mut failures = Vec::new();
    for p in &paths {
        let got = render(p);
        let exp_path = p.with_extension("expected");
        if bless {
            std::fs::write(&exp_path, &got).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&exp_path)
            .unwrap_or_else(|_| panic!("missing {}", exp_path.display()));
        if got != expected {
            failures.push(format!(
                "--- {}\n{}\n--- got\n{}",
                exp_path.display(),
                expected,
                got
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The codes are part of the interface: each case has the code its name says.
#[test]
fn each_case_has_its_stable_code() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_kernels");
    let cases = [
        ("unknown_opcode", "gpusim::lower::unknown_opcode"),
        ("undeclared_register", "gpusim::lower::undeclared_register"),
        (
            "register_out_of_range",
            "gpusim::lower::register_out_of_range",
        ),
        ("type_mismatch", "gpusim::lower::type_mismatch"),
        ("operand_count", "gpusim::lower::operand_count"),
        ("undefined_label", "gpusim::lower::undefined_label"),
        ("duplicate_label", "gpusim::lower::duplicate_label"),
        ("missing_semicolon", "gpusim::parse::missing_semicolon"),
        ("unknown_directive", "gpusim::parse::unknown_directive"),
        ("bad_state_space", "gpusim::lower::bad_state_space"),
        ("bad_vector_width", "gpusim::lower::bad_vector_width"),
        ("vector_too_wide", "gpusim::lower::bad_vector_width"),
        (
            "immediate_out_of_range",
            "gpusim::lower::immediate_out_of_range",
        ),
        ("unknown_callee", "gpusim::lower::unknown_callee"),
        ("call_arguments", "gpusim::lower::call_arguments"),
        ("entry_not_found", "gpusim::lower::entry_not_found"),
        ("unterminated_block", "gpusim::parse::unterminated_block"),
        ("missing_type", "gpusim::lower::missing_type"),
        ("bad_character", "gpusim::parse::bad_character"),
        ("no_entry", "gpusim::lower::no_entry"),
    ];
    for (name, code) in cases {
        let rendered = render(&dir.join(format!("{name}.ptx")));
        let first_code = rendered.lines().next().unwrap_or("");
        assert_eq!(first_code, code, "{name}");
    }
}

/// One run reports every error of a file, in source order.
#[test]
fn all_errors_of_a_file_are_reported() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_kernels");
    let text = std::fs::read_to_string(dir.join("multiple_errors.ptx")).unwrap();
    let err = gpusim::compile(gpusim::SourceFile::new("m.ptx", text)).unwrap_err();
    let codes: Vec<&str> = err.list.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        [
            "gpusim::parse::missing_semicolon",
            "gpusim::lower::register_out_of_range",
            "gpusim::lower::type_mismatch",
            "gpusim::lower::undefined_label",
        ]
    );
}
