//! `gpusim list [WHAT]`: every scheduler, fetch, CTA and sync policy,
//! preset, kernel and reproduction target with a one-line description
//! (the library's registries: `gpusim::report::catalog`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use gpusim::report::catalog::{self, Section};

/// The arguments of `gpusim list`.
#[derive(Args, Debug)]
pub struct ListArgs {
    /// What to list: `schedulers`, `fetch`, `cta`, `sync`, `presets`,
    /// `kernels` or `repro`; default everything, in that order.
    #[arg(value_name = "WHAT", value_parser = Section::parse)]
    pub what: Option<Section>,
    /// The kernels directory (default: `kernels` under the current
    /// directory, else under the source tree gpusim was built from).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Print whole descriptions (default: cut at 100 characters).
    #[arg(long)]
    pub full: bool,
    /// Print JSON (`{"schedulers": [{"name", "description"}], …}`)
    /// instead of text; descriptions whole.
    #[arg(long)]
    pub json: bool,
}

/// The kernels directory: `--dir`, else `kernels/` here, else the source
/// tree's.
fn kernels_dir(dir: Option<PathBuf>) -> PathBuf {
    dir.unwrap_or_else(|| {
        let here = PathBuf::from("kernels");
        if here.is_dir() {
            here
        } else {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kernels")
        }
    })
}

/// Runs `gpusim list`: exit status 0, or 2 when the kernels directory
/// cannot be read.
pub fn run(args: ListArgs) -> ExitCode {
    let which: Vec<Section> = match args.what {
        Some(s) => vec![s],
        None => Section::ALL.to_vec(),
    };
    let mut sections = Vec::new();
    for s in which {
        let entries = if s == Section::Kernels {
            let dir = kernels_dir(args.dir.clone());
            match catalog::kernels(&dir) {
                Ok(v) => {
                    let prefix = dir.display().to_string();
                    let prefix = prefix.trim_end_matches('/');
                    v.into_iter()
                        .map(|mut e| {
                            e.name = format!("{prefix}/{}", e.name);
                            e
                        })
                        .collect()
                }
                Err(e) => {
                    eprintln!("error: {}: {}", e.path.display(), e.message);
                    return ExitCode::from(2);
                }
            }
        } else {
            catalog::entries(s)
        };
        sections.push((s, entries));
    }
    if args.json {
        outln!("{}", catalog::render_json(&sections));
    } else {
        let width = (!args.full).then_some(catalog::WIDTH);
        out!("{}", catalog::render_text(&sections, width));
    }
    ExitCode::SUCCESS
}
