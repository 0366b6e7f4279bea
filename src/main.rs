//! The `gpusim` command line: parses arguments and calls the library.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// gpusim: run GPU kernels written in PTX on a cycle-level SM model.
#[derive(Parser)]
#[command(name = "gpusim", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse, lower and analyse PTX files; report every error of every file.
    ///
    /// Exits 0 when all files are valid, 1 otherwise.
    Check {
        /// PTX files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print a kernel's control-flow graph: basic blocks, successors,
    /// immediate post-dominators (reconvergence points) and natural loops.
    Cfg {
        /// The PTX file.
        file: PathBuf,
        /// Kernel to show (required when the file has several entries).
        #[arg(long)]
        entry: Option<String>,
        /// Emit Graphviz DOT (blocks with their instructions, ipdom edges
        /// dashed, loop headers filled with their depth) instead of text.
        #[arg(long)]
        dot: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let colour = std::io::stderr().is_terminal();
    match cli.command {
        Command::Check { files } => {
            let mut failed = 0;
            for f in &files {
                match gpusim::load(f) {
                    Ok(p) => {
                        let names: Vec<&str> =
                            p.module.kernels.iter().map(|k| k.name.as_str()).collect();
                        println!("ok    {} ({})", f.display(), names.join(", "));
                    }
                    Err(d) => {
                        failed += 1;
                        eprint!("{}", d.render(colour));
                        println!(
                            "error {} ({} problem{})",
                            f.display(),
                            d.list.len(),
                            if d.list.len() == 1 { "" } else { "s" }
                        );
                    }
                }
            }
            if failed > 0 {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Command::Cfg { file, entry, dot } => {
            let result = gpusim::load(&file).and_then(|p| {
                let k = p.entry(entry.as_deref())?;
                Ok(if dot {
                    gpusim::report::cfg_text::to_dot(&p, k)
                } else {
                    gpusim::report::cfg_text::to_text(&p, k)
                })
            });
            match result {
                Ok(s) => {
                    print!("{s}");
                    ExitCode::SUCCESS
                }
                Err(d) => {
                    eprint!("{}", d.render(colour));
                    ExitCode::FAILURE
                }
            }
        }
    }
}
