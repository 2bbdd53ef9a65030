use std::io::Write;

use anyhow::{Context, Result, bail};
use burn::tensor::Device;
use kanon_core::Document;
use kanon_tagger::inference::{Decision, Tagger};
use serde::Serialize;

use crate::cli::DetectArgs;
use crate::progress::Bars;
use kanon_core::Progress;

#[derive(Serialize)]
struct DetectedSpan {
    start: usize,
    end: usize,
    label: &'static str,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    entity_type: Option<kanon_core::EntityType>,
    score: f32,
}

#[derive(Serialize)]
struct Detected {
    id: String,
    spans: Vec<DetectedSpan>,
}

pub(crate) fn read_docs(path: &std::path::Path) -> Result<Vec<Document>> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        return Ok(kanon_core::tab::read_tab(path)?
            .iter()
            .map(|d| d.to_document())
            .collect());
    }
    let mut docs = Vec::new();
    for record in kanon_core::io::read_jsonl::<Document>(path)? {
        docs.push(record?.1);
    }
    Ok(docs)
}

const DOCUMENTS_PER_PASS: usize = 64;

pub fn run(args: &DetectArgs, out: &mut dyn Write) -> Result<()> {
    let tab = match args.export.as_deref() {
        None => false,
        Some("tab") => true,
        Some(other) => bail!("unknown --export {other:?} (expected tab)"),
    };
    let device = Device::default();
    let mut tagger = Tagger::load(&args.model, &device)
        .with_context(|| format!("loading {}", args.model.display()))?;
    tagger.tidy = !args.raw_spans;
    if let Some(threshold) = args.threshold {
        if !(0.0..=1.0).contains(&threshold) {
            bail!("--threshold {threshold} is not a probability (0 to 1)");
        }
        tagger.decision = Decision::MaskProbability { threshold };
    }
    let docs = read_docs(&args.docs)?;
    let bars = Bars::new();
    bars.stage("detect", docs.len() as u64);
    let started = std::time::Instant::now();
    let mut detected = Vec::with_capacity(docs.len());
    // Groups of documents share forward passes (windows batched by length), small enough for the
    // progress bar to move.
    for group in docs.chunks(DOCUMENTS_PER_PASS) {
        let texts: Vec<&str> = group.iter().map(|d| d.text.as_str()).collect();
        let spans_per_doc = tagger.predict_many(&texts, args.token_budget)?;
        for (doc, spans) in group.iter().zip(spans_per_doc) {
            detected.push(Detected {
                id: doc.id.clone(),
                spans: spans
                    .into_iter()
                    .map(|(span, entity_type, score)| DetectedSpan {
                        start: span.start,
                        end: span.end,
                        label: "MASK",
                        entity_type,
                        score,
                    })
                    .collect(),
            });
        }
        bars.advance(group.len() as u64);
    }
    bars.finish();
    kanon_core::io::atomic_write(&args.out, |w| {
        if tab {
            let system: serde_json::Map<String, serde_json::Value> = detected
                .iter()
                .map(|d| {
                    (
                        d.id.clone(),
                        d.spans
                            .iter()
                            .map(|s| serde_json::json!([s.start, s.end]))
                            .collect(),
                    )
                })
                .collect();
            serde_json::to_writer(&mut *w, &system)?;
            w.write_all(b"\n")
        } else {
            kanon_core::io::write_jsonl(w, &detected)
        }
    })?;
    let seconds = started.elapsed().as_secs_f64();
    writeln!(
        out,
        "detected {} spans in {} documents in {seconds:.1}s ({:.1} docs/s) -> {}",
        detected.iter().map(|d| d.spans.len()).sum::<usize>(),
        docs.len(),
        docs.len() as f64 / seconds.max(1e-9),
        args.out.display()
    )?;
    Ok(())
}
