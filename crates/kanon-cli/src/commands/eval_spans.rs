use std::io::Write;

use anyhow::{Context, Result};
use kanon_eval::{SpanReport, evaluate_spans, read_gold, read_predictions};

use crate::cli::EvalSpansArgs;

pub fn run(args: &EvalSpansArgs, out: &mut dyn Write) -> Result<()> {
    let gold = read_gold(&args.gold)
        .with_context(|| format!("reading the gold {}", args.gold.display()))?;
    let predicted = read_predictions(&args.pred)
        .with_context(|| format!("reading the predictions {}", args.pred.display()))?;
    let report = evaluate_spans(&gold, &predicted);
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)?;
        return Ok(());
    }
    print_report(&report, out)
}

pub fn print_report(r: &SpanReport, out: &mut dyn Write) -> Result<()> {
    writeln!(
        out,
        "documents {} ({} without prediction, {} predicted documents not in the gold)",
        r.documents, r.documents_without_prediction, r.unknown_documents
    )?;
    writeln!(
        out,
        "gold mentions {}, predicted spans {}",
        r.gold_mentions, r.predicted_spans
    )?;
    writeln!(out, "            precision  recall     F1")?;
    for (name, pr) in [("exact", &r.exact), ("partial", &r.partial)] {
        writeln!(
            out,
            "{name:<10} {:>10.3} {:>7.3} {:>6.3}",
            pr.precision, pr.recall, pr.f1
        )?;
    }
    writeln!(
        out,
        "{:<10} {:>10.3} {:>7.3}",
        "characters", r.char_precision, r.char_recall
    )?;
    if !r.by_identifier.is_empty() {
        writeln!(
            out,
            "recall by identifier type: mentions exact partial | entities entity-level (TAB)"
        )?;
        for (name, i) in &r.by_identifier {
            writeln!(
                out,
                "  {name:<7} {:>6} {:>6.3} {:>7.3} | {:>6} {:>6.3}",
                i.mentions, i.exact, i.partial, i.entities, i.entity_level
            )?;
        }
    }
    Ok(())
}
