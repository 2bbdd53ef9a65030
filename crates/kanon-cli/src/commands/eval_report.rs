use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use kanon_eval::report::{
    REPORT_PLOT, Report, ReportJob, ReportRun, ReportSettings, run as report,
};

use crate::cli::EvalReportArgs;
use crate::progress::Bars;

pub fn run(args: &EvalReportArgs, out: &mut dyn Write) -> Result<()> {
    let runs = args
        .runs
        .iter()
        .map(|run| parse_run(run))
        .collect::<Result<Vec<_>>>()?;
    let job = ReportJob {
        docs: args.docs.clone(),
        runs,
        background: args.background.clone(),
        gold: args.gold.clone(),
        out: args.out.clone(),
        settings: ReportSettings {
            truth: super::shared::truth(args.truth.as_deref()),
            neural: super::shared::neural_attacker(&args.neural)?,
            tps: if args.no_tps {
                None
            } else {
                Some(super::shared::tps_models(&args.tps_models)?)
            },
        },
    };
    let bars = Bars::new();
    let report = report(&job, &bars)?;
    bars.finish();
    super::shared::print_report(out, args.json, &report, Report::markdown)?;
    if !args.json {
        writeln!(out, "-> {}", args.out.join(REPORT_PLOT).display())?;
    }
    Ok(())
}

/// `NAME=FILE` (split at the last `=`), a file (named after its stem) or a directory with
/// `sanitized.jsonl`.
fn parse_run(run: &str) -> Result<ReportRun> {
    if let Some((name, path)) = run.rsplit_once('=')
        && !name.is_empty()
        && !Path::new(run).exists()
    {
        return Ok(ReportRun {
            name: name.to_owned(),
            sanitized: path.into(),
        });
    }
    let path = PathBuf::from(run);
    let named = |p: &Path| {
        p.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| run.to_owned())
    };
    if path.is_dir() {
        let sanitized = path.join("sanitized.jsonl");
        if !sanitized.is_file() {
            bail!("{}: a directory without sanitized.jsonl", path.display());
        }
        return Ok(ReportRun {
            name: named(&path),
            sanitized,
        });
    }
    Ok(ReportRun {
        name: named(&path),
        sanitized: path,
    })
}
