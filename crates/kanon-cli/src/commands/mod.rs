//! One file per subcommand: each resolves its settings and calls a library crate.

use std::io::Write;

use anyhow::Result;

use crate::cli::{BenchCommand, Cli, Command, EvalCommand, IndexCommand, KgCommand, LabelCommand};

mod bench_index;
mod bench_label;
mod bench_llm;
mod bench_tagger;
mod certify;
mod detect;
mod eval_privacy;
mod eval_report;
mod eval_spans;
mod eval_tab;
mod eval_utility;
mod index_build;
mod index_lookup;
mod index_match;
mod index_query;
mod index_stats;
mod kg_derive;
mod kg_import;
mod kg_synth;
mod label;
mod label_explain;
mod merge;
mod models;
mod quantize;
mod quickstart;
mod run;
mod sanitize;
mod serve;
mod shared;
mod train;

pub fn run(cli: Cli) -> Result<()> {
    if let Some(threads) = cli.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()?;
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match cli.command {
        Command::Kg(KgCommand::Import(args)) => kg_import::run(&args, &mut out),
        Command::Kg(KgCommand::Synth(args)) => kg_synth::run(&args, &mut out),
        Command::Kg(KgCommand::Derive(args)) => kg_derive::run(&args, &mut out),
        Command::Index(IndexCommand::Build(args)) => index_build::run(&args, &mut out),
        Command::Index(IndexCommand::Query(args)) => index_query::run(&args, &mut out),
        Command::Index(IndexCommand::Stats(args)) => index_stats::run(&args, &mut out),
        Command::Index(IndexCommand::Match(args)) => index_match::run(&args, &mut out),
        Command::Index(IndexCommand::Lookup(args)) => index_lookup::run(&args, &mut out),
        Command::Label(args) => match &args.command {
            Some(LabelCommand::Explain(explain)) => label_explain::run(explain, &mut out),
            None => label::run(&args.run, &mut out),
        },
        Command::Models(command) => models::run(&command, &mut out),
        Command::Train(args) => train::run(&args, &mut out),
        Command::Detect(args) => detect::run(&args, &mut out),
        Command::Merge(args) => merge::run(&args, &mut out),
        Command::Quantize(args) => quantize::run(&args, &mut out),
        Command::Sanitize(args) => sanitize::run(&args, &mut out),
        Command::Certify(args) => certify::run(&args, &mut out),
        Command::Eval(EvalCommand::Spans(args)) => eval_spans::run(&args, &mut out),
        Command::Eval(EvalCommand::Tab(args)) => eval_tab::run(&args, &mut out),
        Command::Eval(EvalCommand::Privacy(args)) => eval_privacy::run(&args, &mut out),
        Command::Eval(EvalCommand::Utility(args)) => eval_utility::run(&args, &mut out),
        Command::Eval(EvalCommand::Report(args)) => eval_report::run(&args, &mut out),
        Command::Bench(BenchCommand::Index(args)) => bench_index::run(&args, &mut out),
        Command::Bench(BenchCommand::Label(args)) => bench_label::run(&args, &mut out),
        Command::Bench(BenchCommand::Llm(args)) => bench_llm::run(&args, &mut out),
        Command::Bench(BenchCommand::Tagger(args)) => bench_tagger::run(&args, &mut out),
        Command::Run(args) => run::run(&args, &mut out),
        Command::Quickstart(args) => quickstart::run(&args, &mut out),
        Command::Serve(args) => serve::run(&args, &mut out),
    }?;
    out.flush()?;
    Ok(())
}
