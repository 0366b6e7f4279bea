//! `gpusim explain`: run a workload and print its PTX annotated with the
//! per-line statistics; with `--vs`, run it again under a second policy
//! and show where the two differ.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::{WorkloadShape, parse_key_value, prepare_shaped, report_run_error};

/// `gpusim explain` arguments.
#[derive(Args)]
pub struct ExplainArgs {
    /// The kernel (`K.ptx`, with `K.toml` beside it) or a manifest.
    file: PathBuf,
    /// Warp issue policy (as `run --sched`). Default `gto`.
    #[arg(long, default_value = "gto", value_name = "NAME")]
    sched: String,
    /// Compare with a second run under this issue policy: line by line,
    /// the stalled warp-cycles of both, their difference and the stall
    /// categories that account for it.
    #[arg(long, value_name = "NAME")]
    vs: Option<String>,
    /// Fetch policy of both runs (as `run --fetch`). Default: each
    /// scheduler's own (`cff` under `baws`, else `lrr`).
    #[arg(long, value_name = "NAME")]
    fetch: Option<String>,
    /// CTA assignment policy of both runs.
    #[arg(long, default_value = "rr", value_name = "NAME")]
    cta: String,
    /// Work-group synchronization policy of both runs (as `run --sync`).
    #[arg(long, default_value = "busy", value_name = "POLICY",
          value_parser = gpusim::sync::policy::SyncPolicy::parse)]
    sync: gpusim::sync::policy::SyncPolicy,
    /// Show only this kernel (by name; default every launched kernel).
    #[arg(long, value_name = "NAME")]
    kernel: Option<String>,
    /// How many lines the "top" lists name.
    #[arg(long, default_value_t = 5, value_name = "N")]
    top: usize,
    /// Machine: a preset or a TOML file.
    #[arg(long, default_value = "gtx480", value_name = "PRESET|FILE")]
    config: String,
    /// Override one config field (repeatable), e.g. `--set l1d.ways=8`.
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    sets: Vec<(String, String)>,
    #[command(flatten)]
    shape: WorkloadShape,
}

/// Runs `gpusim explain`. Exit status 0, 1 if a run's functional check
/// failed (the report is still printed), 2 on an error.
pub fn run(a: ExplainArgs, colour: bool) -> ExitCode {
    let (prepared, cfg) = match prepare_shaped(&a.file, &a.shape, &a.config, &a.sets, colour) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let policies = |sched: &str| gpusim::timing::Policies {
        fetch: a
            .fetch
            .clone()
            .unwrap_or_else(|| gpusim::sched::registry::default_fetch(sched).to_string()),
        cta: a.cta.clone(),
        sync: a.sync,
        ..gpusim::timing::Policies::sched(sched)
    };
    let mut failed = false;
    let mut runs = Vec::new();
    for sched in std::iter::once(&a.sched).chain(a.vs.as_ref()) {
        match gpusim::timing::run_timed_with(
            &prepared,
            &a.shape.args,
            &cfg,
            &policies(sched),
            false,
        ) {
            Ok(r) => {
                if !r.check.passed() {
                    eprintln!(
                        "error: the workload's check failed under {sched}: {}",
                        r.check
                    );
                    failed = true;
                }
                runs.push(r.stats);
            }
            Err(e) => return report_run_error(e, colour),
        }
    }
    let opts = gpusim::report::explain::ExplainOptions {
        kernel: a.kernel,
        top: a.top,
    };
    let text = match &runs[..] {
        [one] => gpusim::report::explain::explain(&prepared.program, one, &opts),
        [x, y] => gpusim::report::explain::explain_vs(&prepared.program, x, y, &opts),
        _ => unreachable!("one or two runs"),
    };
    match text {
        Ok(t) => outln!("{}", t.trim_end()),
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
