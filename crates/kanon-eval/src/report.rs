//! One comparison of several sanitizations of the same documents: for each (and for the original
//! text), how much it changed and kept (shares changed, TPS), how often attackers still name the
//! person (TRIR of each attacker and of their ensemble), and with a gold file how much of what
//! had to be masked it masked (TAB's recalls, from its edit log). Written as `report.json`,
//! `report.md` (a table) and `privacy-utility.svg` (TRIR against TPS, one labelled point per
//! sanitization).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use kanon_core::config::ConfigFile;
use kanon_core::{Document, Progress, Span};
use kanon_sanitize::SanitizedDocument;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::job::{TpsModels, Truth, attackers, documents_and_people, read_sanitized};
use crate::privacy::{
    AttackedDocument, Attacker, Background, ENSEMBLE, NeuralAttackerJob, Reidentification,
    evaluate_privacy,
};
use crate::tab::evaluate_tab;
use crate::tps::TpsEvaluator;
use crate::utility::evaluate_utility;

/// The name of the row of the unsanitized texts.
pub const ORIGINAL: &str = "original";
/// The report's file name in `out`: every figure, as JSON.
pub const REPORT_JSON: &str = "report.json";
/// The table's file name in `out`.
pub const REPORT_MARKDOWN: &str = "report.md";
/// The privacy–utility plot's file name in `out` (SVG).
pub const REPORT_PLOT: &str = "privacy-utility.svg";

/// One sanitized output to compare.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportRun {
    /// Its name in the table and on the plot.
    pub name: String,
    /// `kanon sanitize`'s output.
    pub sanitized: PathBuf,
}

/// Who the documents are about and what measures them, whichever way it comes: `kanon eval
/// report`'s options or a run config's `[eval]` section (this type plus the stage's inputs).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReportSettings {
    /// Who each document is about.
    #[serde(default)]
    pub truth: Truth,
    /// Also attack with a fine-tuned BERT.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neural: Option<NeuralAttackerJob>,
    /// Measure TPS with these models (without them, only the shares changed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tps: Option<TpsModels>,
}

/// What to compare and with what: the inputs, where the report goes, and the settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportJob {
    /// The original documents: JSONL `{"id","text"}` or TAB-schema JSON.
    pub docs: PathBuf,
    /// The sanitizations, a row each in this order (after the originals' row).
    pub runs: Vec<ReportRun>,
    /// Public background texts (`[{"name", "public_knowledge"}]`): without them, no TRIR.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<PathBuf>,
    /// TAB-schema gold: each run's edits scored as predicted spans.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gold: Option<PathBuf>,
    /// The directory to write the report files into.
    pub out: PathBuf,
    /// Who the documents are about, the attackers and TPS's models.
    #[serde(flatten)]
    pub settings: ReportSettings,
}

impl ConfigFile for ReportJob {}

/// TAB's figures for a run's edits.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MaskingRecall {
    /// ER_di: share of direct-identifier entities all of whose mentions an edit covers.
    pub entity_recall_direct: f64,
    /// ER_qi: the same for quasi identifiers.
    pub entity_recall_quasi: f64,
    /// Share of the tokens to mask that an edit covers.
    pub token_recall: f64,
    /// Uniform token-level precision of the edits: an edited token is right for each annotator
    /// who masked it.
    pub token_precision: f64,
}

/// One row of the comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReportRow {
    /// The run's name ([`ORIGINAL`] for the unsanitized texts).
    pub name: String,
    /// Sanitized documents measured.
    pub documents: usize,
    /// Share of the originals' characters inside replaced spans, in [0, 1].
    pub chars_changed: f64,
    /// Share of the originals' words a replaced span touches, in [0, 1].
    pub words_changed: f64,
    /// The sanitized texts' length over the originals' (characters).
    pub length_ratio: f64,
    /// Mean text preserved similarity, in [0, 1], when TPS models were given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tps: Option<f64>,
    /// By attacker (and `ensemble`).
    pub trir: BTreeMap<String, Reidentification>,
    /// TAB's recalls of the run's edits, when a gold was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub masking: Option<MaskingRecall>,
}

/// The comparison, with the estimators behind its figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// The originals' row first, then one per run in the job's order.
    pub rows: Vec<ReportRow>,
    /// Attackers in column order.
    pub attackers: Vec<String>,
    /// TPS's information-content estimator (the scoring model), when TPS was measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tps_information_content: Option<String>,
    /// TPS's similarity estimator, when TPS was measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tps_similarity: Option<String>,
    /// Documents attacked per row (their person is in the background).
    pub attacked_documents: usize,
}

impl Report {
    /// The table as Markdown.
    pub fn markdown(&self) -> String {
        let mut header = vec![
            "sanitization",
            "TPS",
            "chars changed",
            "words changed",
            "length",
        ]
        .into_iter()
        .map(str::to_owned)
        .collect::<Vec<_>>();
        for attacker in &self.attackers {
            header.push(format!("TRIR {attacker} (top-1 / top-5)"));
        }
        let masking = self.rows.iter().any(|r| r.masking.is_some());
        if masking {
            header.extend(["ER_di", "ER_qi", "token recall", "token precision"].map(str::to_owned));
        }
        let mut out = format!("| {} |\n", header.join(" | "));
        out += &format!("|{}\n", " --- |".repeat(header.len()));
        let percent = |x: f64| format!("{:.1} %", 100.0 * x);
        for row in &self.rows {
            let mut cells = vec![
                row.name.clone(),
                row.tps.map_or_else(|| "–".into(), |t| format!("{t:.3}")),
                percent(row.chars_changed),
                percent(row.words_changed),
                percent(row.length_ratio),
            ];
            for attacker in &self.attackers {
                cells.push(row.trir.get(attacker).map_or_else(
                    || "–".into(),
                    |r| format!("{} / {}", percent(r.top1), percent(r.top5)),
                ));
            }
            if masking {
                match &row.masking {
                    Some(m) => cells.extend([
                        format!("{:.3}", m.entity_recall_direct),
                        format!("{:.3}", m.entity_recall_quasi),
                        format!("{:.3}", m.token_recall),
                        format!("{:.3}", m.token_precision),
                    ]),
                    None => cells.extend(["–"; 4].map(str::to_owned)),
                }
            }
            out += &format!("| {} |\n", cells.join(" | "));
        }
        out += "\n";
        if let (Some(ic), Some(sim)) = (&self.tps_information_content, &self.tps_similarity) {
            out += &format!("TPS: information content from {ic}; similarity: {sim}.\n");
        }
        if !self.attackers.is_empty() {
            out += &format!(
                "TRIR: share of the {} attacked documents whose person the attacker names first (top-1) or among its first five (top-5)",
                self.attacked_documents
            );
            if self.attackers.iter().any(|a| a == ENSEMBLE) {
                out += &format!("; `{ENSEMBLE}`: named by any attacker");
            }
            out += ".\n";
        }
        out
    }

    /// The attacker whose TRIR the plot shows: the ensemble when there is one.
    fn headline_attacker(&self) -> Option<&str> {
        if self.attackers.iter().any(|a| a == ENSEMBLE) {
            Some(ENSEMBLE)
        } else {
            self.attackers.first().map(String::as_str)
        }
    }

    /// Writes the privacy–utility plot: TRIR (top-1) of every attacker against TPS (when every
    /// row has it) and against the share of words changed, a panel each, one labelled point per
    /// sanitization. Rows named `FAMILY@SETTING` (`idf@0.3`, `idf@0.6`) are one method at several
    /// settings: a line joins their headline points, the method's privacy–utility curve.
    pub fn plot(&self, path: &Path) -> Result<()> {
        use plotters::prelude::*;

        let plot_error =
            |e: &dyn std::fmt::Display| Error::Plot(format!("drawing {}: {e}", path.display()));
        let with_tps = self.rows.iter().all(|r| r.tps.is_some());
        type Axis = (fn(&ReportRow) -> f64, &'static str, bool);
        let mut panels: Vec<Axis> = Vec::new();
        if with_tps {
            panels.push((
                |r| r.tps.unwrap_or(0.0),
                "utility: TPS (text preserved similarity)",
                false,
            ));
        }
        panels.push((|r| r.words_changed, "share of words changed (masked)", true));
        let mut svg = String::new();
        {
            let width = 900 * panels.len() as u32;
            let root = SVGBackend::with_string(&mut svg, (width, 640)).into_drawing_area();
            root.fill(&WHITE).map_err(|e| plot_error(&e))?;
            let areas = root.split_evenly((1, panels.len()));
            for (area, (x_of, x_label, masked_axis)) in areas.iter().zip(&panels) {
                self.draw_panel(area, *x_of, x_label, *masked_axis)
                    .map_err(|e| plot_error(&e))?;
            }
            root.present().map_err(|e| plot_error(&e))?;
        }
        kanon_core::io::atomic_write(path, |w| w.write_all(svg.as_bytes()))?;
        Ok(())
    }

    /// One panel of [`plot`](Self::plot): TRIR against `x_of` of each row.
    fn draw_panel<DB: plotters::prelude::DrawingBackend>(
        &self,
        area: &plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
        x_of: fn(&ReportRow) -> f64,
        x_label: &str,
        masked_axis: bool,
    ) -> std::result::Result<(), String> {
        use plotters::prelude::*;
        let err = |e: &dyn std::fmt::Display| e.to_string();
        let caption = if masked_axis {
            "Privacy against words masked"
        } else {
            "Privacy against utility"
        };
        let mut chart = ChartBuilder::on(area)
            .caption(caption, ("sans-serif", 24))
            .margin(20)
            .x_label_area_size(50)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..1.05f64, 0.0..1.05f64)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc("re-identification risk: TRIR (top-1)")
            .x_label_formatter(&|x| format!("{x:.1}"))
            .y_label_formatter(&|y| format!("{:.0} %", 100.0 * y))
            .draw()
            .map_err(|e| err(&e))?;
        let headline = self.headline_attacker();
        self.draw_attackers(&mut chart, x_of, headline)?;
        self.draw_families(&mut chart, x_of, headline)?;
        self.draw_names(&mut chart, x_of, headline)?;
        if !self.attackers.is_empty() {
            chart
                .configure_series_labels()
                // Where no sanitization lands: masking everything yet named; losing all utility
                // yet named.
                .position(if masked_axis {
                    SeriesLabelPosition::UpperRight
                } else {
                    SeriesLabelPosition::UpperLeft
                })
                .border_style(BLACK)
                .background_style(WHITE.mix(0.8))
                .draw()
                .map_err(|e| err(&e))?;
        }
        Ok(())
    }

    /// Every attacker's points, a colour each (the headline attacker's larger), with a legend
    /// entry.
    fn draw_attackers<DB: plotters::prelude::DrawingBackend>(
        &self,
        chart: &mut Chart<'_, DB>,
        x_of: fn(&ReportRow) -> f64,
        headline: Option<&str>,
    ) -> std::result::Result<(), String> {
        use plotters::prelude::*;
        let palette = [BLUE, RED, GREEN, MAGENTA, CYAN, BLACK];
        for (i, attacker) in self.attackers.iter().enumerate() {
            let colour = palette[i % palette.len()];
            let points: Vec<(f64, f64)> = self
                .rows
                .iter()
                .filter_map(|r| r.trir.get(attacker).map(|t| (x_of(r), t.top1)))
                .collect();
            let size = if Some(attacker.as_str()) == headline {
                7
            } else {
                4
            };
            chart
                .draw_series(
                    points
                        .iter()
                        .map(|&p| Circle::new(p, size, colour.filled())),
                )
                .map_err(|e| e.to_string())?
                .label(attacker.clone())
                .legend(move |(x, y)| Circle::new((x + 10, y), size, colour.filled()));
        }
        Ok(())
    }

    /// One method at several settings (rows `FAMILY@SETTING`): a line through its headline
    /// points, its curve.
    fn draw_families<DB: plotters::prelude::DrawingBackend>(
        &self,
        chart: &mut Chart<'_, DB>,
        x_of: fn(&ReportRow) -> f64,
        headline: Option<&str>,
    ) -> std::result::Result<(), String> {
        use plotters::prelude::*;
        let mut families: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
        for row in &self.rows {
            if let Some((family, _)) = row.name.split_once('@') {
                families
                    .entry(family)
                    .or_default()
                    .push(headline_point(row, x_of, headline));
            }
        }
        for points in families.values_mut().filter(|p| p.len() > 1) {
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            chart
                .draw_series(LineSeries::new(points.clone(), BLACK.mix(0.5)))
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// The sanitizations' names beside their headline points (or on the x axis), moved down a
    /// line while they would cover an earlier one, with a line back to the point.
    fn draw_names<DB: plotters::prelude::DrawingBackend>(
        &self,
        chart: &mut Chart<'_, DB>,
        x_of: fn(&ReportRow) -> f64,
        headline: Option<&str>,
    ) -> std::result::Result<(), String> {
        use plotters::prelude::*;
        // A character of the label is about 0.0095 of the axis wide.
        let mut placed: Vec<(f64, f64, f64)> = Vec::new();
        for row in &self.rows {
            let point = headline_point(row, x_of, headline);
            let x = point.0 + 0.012;
            let width = 0.0095 * row.name.chars().count() as f64;
            let mut y = point.1 + 0.02;
            while placed
                .iter()
                .any(|&(px, pw, py)| x < px + pw && px < x + width && (py - y).abs() < 0.03)
            {
                y -= 0.035;
            }
            placed.push((x, width, y));
            if (y - (point.1 + 0.02)).abs() > 1e-9 {
                chart
                    .draw_series(LineSeries::new([point, (x, y - 0.012)], BLACK.mix(0.4)))
                    .map_err(|e| e.to_string())?;
            }
            chart
                .draw_series(std::iter::once(Text::new(
                    row.name.clone(),
                    (x, y),
                    ("sans-serif", 14),
                )))
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }
}

/// A panel of the plot: both axes run over [0, 1.05].
type Chart<'a, DB> = plotters::chart::ChartContext<
    'a,
    DB,
    plotters::coord::cartesian::Cartesian2d<
        plotters::coord::types::RangedCoordf64,
        plotters::coord::types::RangedCoordf64,
    >,
>;

/// Where a row stands on a panel: `x_of` it, and the headline attacker's TRIR (top-1; 0 when
/// there is no attacker).
fn headline_point(
    row: &ReportRow,
    x_of: fn(&ReportRow) -> f64,
    headline: Option<&str>,
) -> (f64, f64) {
    (
        x_of(row),
        headline
            .and_then(|a| row.trir.get(a))
            .map_or(0.0, |t| t.top1),
    )
}

/// Runs the comparison and writes its three files into `job.out`.
pub fn run(job: &ReportJob, progress: &dyn Progress) -> Result<Report> {
    let (originals, outputs) = read_inputs(job)?;
    let background = job
        .background
        .as_deref()
        .map(Background::read)
        .transpose()?;
    let attackers: Vec<Box<dyn Attacker>> = match &background {
        Some(background) => attackers(background, job.settings.neural.as_ref(), progress)?,
        None => Vec::new(),
    };
    let attacker_refs: Vec<&dyn Attacker> = attackers.iter().map(|a| a.as_ref()).collect();
    let tps_models = job.settings.tps.as_ref().map(TpsModels::open).transpose()?;
    let information = job.settings.tps.as_ref().map(|tps| tps.information);
    let evaluator = tps_models.as_ref().map(|(scorer, encoder)| {
        TpsEvaluator::new(scorer.as_ref(), encoder).information(information.unwrap_or_default())
    });
    let gold = job
        .gold
        .as_deref()
        .map(kanon_core::tab::read_tab)
        .transpose()?;
    // Who each document is about, from the originals (a sanitized file need not carry it).
    // Read again only when the names are not the ids and there is someone to attack.
    let people = match (&job.settings.truth, &background) {
        (Truth::Id, _) | (_, None) => Default::default(),
        (truth, Some(_)) => documents_and_people(&job.docs, truth)?.1,
    };
    let person_of = |id: &str| match &job.settings.truth {
        Truth::Id => Some(id.to_owned()),
        _ => people.get(id).cloned(),
    };
    let unsanitized = unsanitized(job, &originals, &outputs)?;
    let measures = Measures {
        originals: &originals,
        tps: evaluator.as_ref(),
        privacy: background.as_ref().map(|b| (b, attacker_refs.as_slice())),
        person_of: &person_of,
        gold: gold.as_deref(),
    };
    let mut attacker_names: Vec<String> = attackers.iter().map(|a| a.name().to_owned()).collect();
    if attackers.len() > 1 {
        attacker_names.push(ENSEMBLE.into());
    }
    progress.stage("report", job.runs.len() as u64 + 1);
    let runs = std::iter::once((ORIGINAL.to_owned(), unsanitized))
        .chain(job.runs.iter().map(|run| run.name.clone()).zip(outputs));
    let report = measures.compare(runs, attacker_names, progress)?;
    std::fs::create_dir_all(&job.out).map_err(|e| kanon_core::Error::io(&job.out, e))?;
    kanon_core::io::write_json(&job.out.join(REPORT_JSON), &report)?;
    let markdown = report.markdown();
    kanon_core::io::atomic_write(&job.out.join(REPORT_MARKDOWN), |w| {
        w.write_all(markdown.as_bytes())
    })?;
    report.plot(&job.out.join(REPORT_PLOT))?;
    Ok(report)
}

/// The originals and each run's sanitized documents, checked: the runs have names of their own
/// and every sanitized document fits its original. Every input is read before the models are
/// opened, so a bad file fails at once.
fn read_inputs(job: &ReportJob) -> Result<(Vec<Document>, Vec<Vec<SanitizedDocument>>)> {
    if job.runs.is_empty() {
        return Err(Error::Setting("no sanitized output to compare".into()));
    }
    let mut names = std::collections::HashSet::new();
    for run in &job.runs {
        if run.name == ORIGINAL || !names.insert(run.name.as_str()) {
            return Err(Error::Setting(format!(
                "two sanitizations named {:?} (`{ORIGINAL}` is the unsanitized texts' row)",
                run.name
            )));
        }
    }
    let originals = kanon_core::io::read_documents(&job.docs)?.docs;
    if originals.is_empty() {
        return Err(kanon_core::Error::format(&job.docs, "no documents").into());
    }
    let mut outputs = Vec::with_capacity(job.runs.len());
    for run in &job.runs {
        let sanitized = read_sanitized(&run.sanitized, &originals)?;
        evaluate_utility(&originals, &sanitized)?;
        outputs.push(sanitized);
    }
    Ok((originals, outputs))
}

/// The original row: the originals the sanitizations cover, unchanged. Every row measures the
/// same documents (a run limited to its first N documents is compared with those N originals),
/// so runs that cover different documents are an error.
fn unsanitized(
    job: &ReportJob,
    originals: &[Document],
    outputs: &[Vec<SanitizedDocument>],
) -> Result<Vec<SanitizedDocument>> {
    let covered: std::collections::HashSet<&str> =
        outputs[0].iter().map(|doc| doc.id.as_str()).collect();
    for (run, sanitized) in job.runs.iter().zip(outputs).skip(1) {
        let ids: std::collections::HashSet<&str> =
            sanitized.iter().map(|doc| doc.id.as_str()).collect();
        if ids != covered {
            return Err(Error::Setting(format!(
                "{} covers {} documents and {} covers {}, not the same ones: the rows would not \
                 compare the same documents",
                job.runs[0].name,
                covered.len(),
                run.name,
                ids.len()
            )));
        }
    }
    Ok(originals
        .iter()
        .filter(|doc| covered.contains(doc.id.as_str()))
        .map(|doc| SanitizedDocument {
            id: doc.id.clone(),
            text: doc.text.clone(),
            edits: Vec::new(),
        })
        .collect())
}

/// What every row is measured against and with.
struct Measures<'a> {
    originals: &'a [Document],
    tps: Option<&'a TpsEvaluator<'a>>,
    /// The background and the attackers, when there is a background.
    privacy: Option<(&'a Background, &'a [&'a dyn Attacker])>,
    person_of: &'a dyn Fn(&str) -> Option<String>,
    /// TAB-schema gold, for the runs' masking recall.
    gold: Option<&'a [kanon_core::tab::TabDocument]>,
}

impl Measures<'_> {
    /// The report of the named runs, a row each in order; `attackers` names its TRIR columns.
    fn compare(
        &self,
        runs: impl Iterator<Item = (String, Vec<SanitizedDocument>)>,
        attackers: Vec<String>,
        progress: &dyn Progress,
    ) -> Result<Report> {
        let mut rows = Vec::new();
        let mut attacked_documents = 0;
        let mut estimators = (None, None);
        for (name, sanitized) in runs {
            let (row, tps, attacked) = self.measure(&name, &sanitized)?;
            if let Some(tps) = &tps {
                estimators = (
                    Some(tps.information_content.clone()),
                    Some(tps.similarity.clone()),
                );
            }
            attacked_documents = attacked;
            rows.push(row);
            progress.advance(1);
        }
        Ok(Report {
            rows,
            attackers,
            tps_information_content: estimators.0,
            tps_similarity: estimators.1,
            attacked_documents,
        })
    }

    /// One row: the run's utility, TPS, TRIR and masking recall; with its TPS report and the
    /// number of documents attacked.
    fn measure(
        &self,
        name: &str,
        sanitized: &[SanitizedDocument],
    ) -> Result<(ReportRow, Option<crate::tps::TpsReport>, usize)> {
        let originals = self.originals;
        let utility = evaluate_utility(originals, sanitized)?;
        let tps = self
            .tps
            .map(|e| e.evaluate(originals, sanitized))
            .transpose()?;
        let (trir, attacked) = match self.privacy {
            Some((background, attackers)) => {
                let docs: Vec<AttackedDocument> = sanitized
                    .iter()
                    .map(|d| AttackedDocument {
                        id: d.id.clone(),
                        text: d.text.clone(),
                    })
                    .collect();
                let report = evaluate_privacy(background, &docs, self.person_of, attackers)?;
                (report.attackers, report.documents)
            }
            None => (BTreeMap::new(), 0),
        };
        let masking = match self.gold {
            Some(gold) => {
                let predicted: FxHashMap<String, Vec<Span>> = sanitized
                    .iter()
                    .map(|d| {
                        (
                            d.id.clone(),
                            d.edits.iter().map(|e| Span::new(e.start, e.end)).collect(),
                        )
                    })
                    .collect();
                let tab = evaluate_tab(gold, &predicted)?;
                Some(MaskingRecall {
                    entity_recall_direct: tab.entity_recall_direct,
                    entity_recall_quasi: tab.entity_recall_quasi,
                    token_recall: tab.token_recall,
                    token_precision: tab.token_precision,
                })
            }
            None => None,
        };
        Ok((
            ReportRow {
                name: name.to_owned(),
                documents: utility.documents,
                chars_changed: utility.chars_changed,
                words_changed: utility.words_changed,
                length_ratio: utility.length_ratio,
                tps: tps.as_ref().map(|t| t.tps),
                trir,
                masking,
            },
            tps,
            attacked,
        ))
    }
}
