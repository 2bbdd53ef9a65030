//! `kanon label`: label a JSONL of documents into a corpus directory, in shards that survive an
//! interruption (a rerun with the same inputs and parameters skips finished shards), then gather them
//! into `train/dev/test.jsonl`, `report.jsonl`, `skipped.jsonl` and `manifest.json`, all written
//! atomically.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use kanon_core::PathContext;
use kanon_core::config::ConfigFile;
use kanon_core::shard::{Fingerprint, OutputKind, Part, Shard, ShardRecord, ShardSet};
use kanon_core::{Document, Progress};
use kanon_index::Index;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::algorithm::LabelerConfig;
use crate::document::{LabeledDocument, RiskReport, label_document, split_of};
use crate::error::{Error, Result};

pub use kanon_core::corpus::CORPUS_FORMAT_VERSION;
/// The splits of a corpus, each written as `{split}.jsonl`.
pub const SPLITS: [&str; 3] = ["train", "dev", "test"];
const SHARDS_DIR: &str = ".shards";

/// Output formats besides the JSONL corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CorpusFormat {
    /// Only the JSONL splits.
    #[default]
    Jsonl,
    /// Also `{split}.conll`: one token and its BIO tag (B-MASK / I-MASK / O) a line.
    Conll,
}

kanon_core::named_choices!(
    CorpusFormat,
    "corpus format",
    [Jsonl = "jsonl", Conll = "conll"]
);

/// A document that was not labeled, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// The document's id.
    pub id: String,
    /// The document's 1-based line in the documents file.
    pub line: u64,
    /// Why it was not labeled (no `person`, or a person the index does not hold).
    pub reason: String,
}

/// Everything `kanon label` needs; as a file (TOML or JSON), `index_dir`, `docs` and `out` are
/// required and the rest take their defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelJob {
    /// The index of the KG the documents' people belong to (`kanon index build`).
    pub index_dir: PathBuf,
    /// Documents: JSONL `{"id","text","person"}` (person = the KG id of the person it is about).
    pub docs: PathBuf,
    /// The corpus directory to write.
    pub out: PathBuf,
    /// The labeler's knobs (k, max arity, strategy, seed…).
    #[serde(default)]
    pub config: LabelerConfig,
    /// Formats written besides the JSONL splits.
    #[serde(default)]
    pub format: CorpusFormat,
    /// Documents per shard (the unit of resumption).
    #[serde(default = "default_shard_size")]
    pub shard_size: usize,
    /// Only part `I/N` of the documents (a batch scheduler's array task); `kanon merge` joins
    /// the parts' corpora into the corpus of one run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

impl ConfigFile for LabelJob {}

fn default_shard_size() -> usize {
    10_000
}

impl LabelJob {
    /// A job with the default labeler config, JSONL only, shards of 10,000 documents.
    pub fn new(
        index_dir: impl Into<PathBuf>,
        docs: impl Into<PathBuf>,
        out: impl Into<PathBuf>,
    ) -> Self {
        LabelJob {
            index_dir: index_dir.into(),
            docs: docs.into(),
            out: out.into(),
            config: LabelerConfig::default(),
            format: CorpusFormat::default(),
            shard_size: default_shard_size(),
            shard: None,
        }
    }
}

/// What a labeling run made, and how long it took.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelSummary {
    /// The corpus's `manifest.json`, statistics included.
    pub manifest: Manifest,
    /// The corpus directory.
    pub out: PathBuf,
    /// Wall-clock seconds of the run.
    pub seconds: f64,
}

impl LabelSummary {
    /// The summary as a person reads it: counts and shares, never a document's text.
    pub fn render(&self) -> String {
        let s = &self.manifest.stats;
        let splits: Vec<String> = s
            .per_split
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let arities: Vec<String> = s
            .masks_by_arity
            .iter()
            .map(|(a, n)| format!("{a}: {n}"))
            .collect();
        format!(
            "{}\n\
             splits: {}\n\
             KG terms per document {:.2}, masked terms per document {:.2}, masked tokens {:.1}%, documents without KG terms {}\n\
             masks by the arity that forced them: {}\n",
            self.headline(),
            splits.join(", "),
            s.terms_per_document,
            s.masks_per_document,
            100.0 * s.masked_token_share,
            s.documents_without_terms,
            arities.join(", ")
        )
    }

    /// One line: documents labeled and skipped, the time, the corpus directory.
    pub fn headline(&self) -> String {
        let s = &self.manifest.stats;
        format!(
            "labeled {} of {} documents in {:.1}s ({} skipped: see skipped.jsonl) -> {}",
            s.labeled,
            s.documents,
            self.seconds,
            s.skipped,
            self.out.display()
        )
    }
}

/// Summary figures of a corpus (in `manifest.json`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CorpusStats {
    /// Documents read: labeled and skipped.
    pub documents: usize,
    /// Documents labeled (in some split).
    pub labeled: usize,
    /// Documents skipped (listed in `skipped.jsonl`).
    pub skipped: usize,
    /// Labeled documents per split.
    pub per_split: BTreeMap<String, usize>,
    /// Labeled spans over all documents, after merging overlaps.
    pub spans: usize,
    /// Distinct KG terms masked, summed over documents.
    pub masked_terms: usize,
    /// Distinct KG terms found, summed over documents.
    pub terms_found: usize,
    /// Word tokens of all labeled documents.
    pub tokens: usize,
    /// Word tokens inside labeled spans.
    pub masked_tokens: usize,
    /// `terms_found` per labeled document.
    pub terms_per_document: f64,
    /// `masked_terms` per labeled document.
    pub masks_per_document: f64,
    /// `masked_tokens / tokens`, in [0, 1].
    pub masked_token_share: f64,
    /// How many masks each arity forced (1 = the term alone was rarer than k).
    pub masks_by_arity: BTreeMap<usize, usize>,
    /// Labeled documents in which no KG term was found.
    pub documents_without_terms: usize,
}

/// `manifest.json`: how a corpus was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`CORPUS_FORMAT_VERSION`] when written; readers refuse another.
    pub corpus_format_version: u32,
    /// The kanon that wrote the corpus (`kanon 0.1.0`).
    pub created_by: String,
    /// The index directory the documents were labeled against, as given.
    pub index: String,
    /// That index's format version.
    pub index_format_version: u32,
    /// People in that index.
    pub index_people: u64,
    /// Terms in that index.
    pub index_terms: u64,
    /// The documents file labeled, as given.
    pub docs: String,
    /// The labeler's knobs.
    pub config: LabelerConfig,
    /// Formats written besides the JSONL splits.
    pub format: CorpusFormat,
    /// Counts and shares over the corpus.
    pub stats: CorpusStats,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ShardParams {
    index: String,
    index_terms: u64,
    index_people: u64,
    docs: String,
    docs_bytes: u64,
    config: LabelerConfig,
    shard_size: usize,
    part: Option<Shard>,
}

#[derive(Serialize, Deserialize)]
struct ShardLine {
    document: Option<LabeledDocument>,
    report: Option<RiskReport>,
    skipped: Option<Skipped>,
}

/// Labels the documents and writes the corpus.
pub fn run(job: &LabelJob, progress: &dyn Progress) -> Result<LabelSummary> {
    let started = std::time::Instant::now();
    let manifest = label(job, progress)?;
    Ok(LabelSummary {
        manifest,
        out: job.out.clone(),
        seconds: started.elapsed().as_secs_f64(),
    })
}

fn label(job: &LabelJob, progress: &dyn Progress) -> Result<Manifest> {
    if job.config.k == 0 || job.config.max_arity == 0 {
        return Err(Error::Usage("k and max_arity must be at least 1".into()));
    }
    let index = Index::open(&job.index_dir)?;
    fs::create_dir_all(&job.out).with_path(&job.out)?;
    let shards_dir = job.out.join(SHARDS_DIR);
    let params = ShardParams {
        index: job.index_dir.display().to_string(),
        index_terms: index.meta().terms,
        index_people: index.meta().people,
        docs: job.docs.display().to_string(),
        docs_bytes: fs::metadata(&job.docs).with_path(&job.docs)?.len(),
        config: job.config,
        shard_size: job.shard_size.max(1),
        part: job.shard,
    };
    prepare_shards(&shards_dir, &params)?;

    let total = count_lines(&job.docs)? as usize;
    let part = job.shard.map_or(0..total, |shard| shard.range(total));
    progress.stage("label", part.len() as u64);
    let mut reader = kanon_core::io::read_jsonl::<Document>(&job.docs)?
        .skip(part.start)
        .take(part.len());
    let mut shard_index = 0usize;
    let mut shard_paths = Vec::new();
    loop {
        let mut batch: Vec<(u64, Document)> = Vec::with_capacity(params.shard_size);
        for record in reader.by_ref().take(params.shard_size) {
            batch.push(record?);
        }
        if batch.is_empty() {
            break;
        }
        let path = shards_dir.join(format!("shard-{shard_index:06}.jsonl"));
        if !path.exists() {
            let lines: Vec<ShardLine> = batch
                .par_iter()
                .map(|(line, doc)| {
                    let out = label_one(&index, *line, doc, &job.config);
                    progress.advance(1);
                    out
                })
                .collect();
            kanon_core::io::atomic_write(&path, |w| kanon_core::io::write_jsonl(w, &lines))?;
        } else {
            progress.advance(batch.len() as u64);
        }
        shard_paths.push(path);
        shard_index += 1;
    }
    let manifest = gather(job, &index, &shard_paths)?;
    match job.shard {
        Some(shard) => {
            // Parts run in separate directories name their index and documents differently:
            // what they hold is compared instead.
            let mut settings = kanon_core::shard::settings_of(
                job,
                &["out", "shard", "index_dir", "docs", "shard_size"],
            );
            settings["index"] = serde_json::json!({
                "people": index.meta().people,
                "terms": index.meta().terms,
                "format_version": index.meta().index_format_version,
            });
            let part = Part {
                shard,
                input_documents: total,
                input_fingerprint: Fingerprint::new().file(&job.docs)?.finish(),
            };
            ShardRecord::new(OutputKind::Corpus, &part, &job.docs, settings).write(&job.out)?
        }
        None => ShardRecord::remove_stale(&job.out, OutputKind::Corpus)?,
    }
    let _ = fs::remove_dir_all(&shards_dir);
    Ok(manifest)
}

fn label_one(index: &Index, line: u64, doc: &Document, config: &LabelerConfig) -> ShardLine {
    let skip = |reason: String| ShardLine {
        document: None,
        report: None,
        skipped: Some(Skipped {
            id: doc.id.clone(),
            line,
            reason,
        }),
    };
    let Some(kg_id) = doc.person.as_deref() else {
        return skip(
            "no `person` field: the labeler needs the KG id of the person the document is about"
                .into(),
        );
    };
    let Some(person) = index.person_id(kg_id) else {
        return skip(format!("person {kg_id:?} is not in the index"));
    };
    let labeled = label_document(index, doc, kg_id, person, &split_of(doc), config);
    ShardLine {
        document: Some(labeled.document),
        report: Some(labeled.report),
        skipped: None,
    }
}

/// Keeps finished shards only when they were made with the same parameters.
fn prepare_shards(dir: &Path, params: &ShardParams) -> Result<()> {
    let params_path = dir.join("params.json");
    let same = fs::read(&params_path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<ShardParams>(&bytes).ok())
        .is_some_and(|old| old == *params);
    if !same && dir.exists() {
        fs::remove_dir_all(dir).with_path(dir)?;
    }
    fs::create_dir_all(dir).with_path(dir)?;
    kanon_core::io::atomic_write(&params_path, |w| {
        serde_json::to_writer_pretty(w, params).map_err(Into::into)
    })?;
    Ok(())
}

fn count_lines(path: &Path) -> Result<u64> {
    use std::io::BufRead;
    let mut reader = kanon_core::io::open(path)?;
    let mut count = 0;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).with_path(path)?;
        if n == 0 {
            return Ok(count);
        }
        if buf.iter().any(|b| !b.is_ascii_whitespace()) {
            count += 1;
        }
    }
}

/// Reads the shards back in order and writes the corpus files.
fn gather(job: &LabelJob, index: &Index, shards: &[PathBuf]) -> Result<Manifest> {
    let mut contents = CorpusContents::default();
    for path in shards {
        for record in kanon_core::io::read_jsonl::<ShardLine>(path)? {
            let (_, line) = record?;
            if let Some(doc) = line.document {
                contents
                    .by_split
                    .entry(doc.split.clone())
                    .or_default()
                    .push(doc);
            }
            contents.reports.extend(line.report);
            contents.skipped.extend(line.skipped);
        }
    }
    let manifest = Manifest {
        corpus_format_version: CORPUS_FORMAT_VERSION,
        created_by: format!("kanon {}", env!("CARGO_PKG_VERSION")),
        index: job.index_dir.display().to_string(),
        index_format_version: index.meta().index_format_version,
        index_people: index.meta().people,
        index_terms: index.meta().terms,
        docs: job.docs.display().to_string(),
        config: job.config,
        format: job.format,
        stats: CorpusStats::default(),
    };
    contents.write(&job.out, manifest)
}

/// Everything a corpus directory holds, in input order.
#[derive(Default)]
struct CorpusContents {
    by_split: BTreeMap<String, Vec<LabeledDocument>>,
    reports: Vec<RiskReport>,
    skipped: Vec<Skipped>,
}

impl CorpusContents {
    /// Reads the corpus at `dir` (a part of a sharded run).
    fn read(dir: &Path) -> Result<(Manifest, CorpusContents)> {
        kanon_core::corpus::check_version(dir)?;
        let manifest_path = dir.join(kanon_core::corpus::MANIFEST_FILE);
        let manifest: Manifest = serde_json::from_reader(kanon_core::io::open(&manifest_path)?)
            .map_err(|e| {
                kanon_core::Error::parse(&manifest_path, e.line() as u64, format!("manifest: {e}"))
            })?;
        let mut contents = CorpusContents::default();
        let splits = SPLITS
            .iter()
            .map(|s| s.to_string())
            .chain(manifest.stats.per_split.keys().cloned());
        for split in splits {
            if let std::collections::btree_map::Entry::Vacant(entry) =
                contents.by_split.entry(split)
            {
                let path = dir.join(format!("{}.jsonl", entry.key()));
                entry.insert(read_all(path)?);
            }
        }
        contents.by_split.retain(|_, docs| !docs.is_empty());
        contents.reports = read_all(dir.join("report.jsonl"))?;
        contents.skipped = read_all(dir.join("skipped.jsonl"))?;
        Ok((manifest, contents))
    }

    fn extend(&mut self, other: CorpusContents) {
        for (split, docs) in other.by_split {
            self.by_split.entry(split).or_default().extend(docs);
        }
        self.reports.extend(other.reports);
        self.skipped.extend(other.skipped);
    }

    /// Writes the corpus files into `out`, the manifest last with the figures of what was
    /// written.
    fn write(self, out: &Path, mut manifest: Manifest) -> Result<Manifest> {
        let CorpusContents {
            by_split,
            reports,
            skipped,
        } = self;
        manifest.stats = corpus_stats(&by_split, &reports, skipped.len());
        fs::create_dir_all(out).with_path(out)?;
        for split in SPLITS
            .iter()
            .map(|s| s.to_string())
            .chain(by_split.keys().cloned())
        {
            let docs = by_split.get(&split).map(Vec::as_slice).unwrap_or(&[]);
            let path = out.join(format!("{split}.jsonl"));
            kanon_core::io::atomic_write(&path, |w| kanon_core::io::write_jsonl(w, docs))?;
            if manifest.format == CorpusFormat::Conll {
                let path = out.join(format!("{split}.conll"));
                kanon_core::io::atomic_write(&path, |w| write_conll(w, docs))?;
            }
        }
        kanon_core::io::atomic_write(&out.join("report.jsonl"), |w| {
            kanon_core::io::write_jsonl(w, &reports)
        })?;
        kanon_core::io::atomic_write(&out.join("skipped.jsonl"), |w| {
            kanon_core::io::write_jsonl(w, &skipped)
        })?;
        kanon_core::io::write_json(&out.join(kanon_core::corpus::MANIFEST_FILE), &manifest)?;
        Ok(manifest)
    }
}

fn read_all<T: serde::de::DeserializeOwned>(path: PathBuf) -> Result<Vec<T>> {
    kanon_core::io::read_jsonl(&path)?
        .map(|record| record.map(|(_, item)| item).map_err(Error::from))
        .collect()
}

/// Joins the corpora of the parts of a sharded `kanon label` run into `out`: the same files, byte
/// for byte, as one run over all the documents.
pub fn merge(set: &ShardSet, out: &Path) -> Result<Manifest> {
    if set.kind != OutputKind::Corpus {
        return Err(Error::Usage(format!(
            "the parts are {:?} outputs, not labeled corpora",
            set.kind
        )));
    }
    let mut merged = CorpusContents::default();
    let mut manifest = None;
    for (dir, _) in &set.parts {
        let (part_manifest, contents) = CorpusContents::read(dir)?;
        manifest.get_or_insert(part_manifest);
        merged.extend(contents);
    }
    let Some(manifest) = manifest else {
        return Err(Error::Usage("nothing to merge".into()));
    };
    let manifest = merged.write(out, manifest)?;
    ShardRecord::remove_stale(out, OutputKind::Corpus)?;
    Ok(manifest)
}

fn corpus_stats(
    by_split: &BTreeMap<String, Vec<LabeledDocument>>,
    reports: &[RiskReport],
    skipped: usize,
) -> CorpusStats {
    let mut stats = CorpusStats {
        labeled: reports.len(),
        skipped,
        documents: reports.len() + skipped,
        per_split: by_split.iter().map(|(k, v)| (k.clone(), v.len())).collect(),
        spans: by_split.values().flatten().map(|d| d.spans.len()).sum(),
        ..CorpusStats::default()
    };
    for report in reports {
        stats.masked_terms += report.masked.len();
        stats.terms_found += report.terms.len();
        stats.tokens += report.tokens;
        stats.masked_tokens += report.masked_tokens;
        stats.documents_without_terms += usize::from(report.terms.is_empty());
        for mask in &report.masked {
            *stats.masks_by_arity.entry(mask.arity).or_default() += 1;
        }
    }
    let n = stats.labeled.max(1) as f64;
    stats.terms_per_document = stats.terms_found as f64 / n;
    stats.masks_per_document = stats.masked_terms as f64 / n;
    stats.masked_token_share = stats.masked_tokens as f64 / stats.tokens.max(1) as f64;
    stats
}

/// BIO tokens: one `token<TAB>tag` a line, a blank line between documents, `# id = …` before each.
/// Tokens are words and single punctuation characters, split on whitespace.
pub fn write_conll<W: Write>(w: &mut W, docs: &[LabeledDocument]) -> std::io::Result<()> {
    for doc in docs {
        writeln!(w, "# id = {}", doc.id)?;
        for (token, start, end) in conll_tokens(&doc.text) {
            let tag = match doc.spans.iter().find(|s| s.start <= start && end <= s.end) {
                Some(span) if span.start == start => "B-MASK",
                Some(_) => "I-MASK",
                None => "O",
            };
            writeln!(w, "{token}\t{tag}")?;
        }
        writeln!(w)?;
    }
    Ok(())
}

/// Tokens with character offsets: runs of alphanumeric characters, and each other visible character.
pub fn conll_tokens(text: &str) -> Vec<(String, usize, usize)> {
    let mut tokens = Vec::new();
    let mut current = String::new();
    let mut start = 0;
    let mut count = 0;
    for (i, c) in text.chars().enumerate() {
        count = i + 1;
        if c.is_alphanumeric() {
            if current.is_empty() {
                start = i;
            }
            current.push(c);
            continue;
        }
        if !current.is_empty() {
            tokens.push((std::mem::take(&mut current), start, i));
        }
        if !c.is_whitespace() {
            tokens.push((c.to_string(), i, i + 1));
        }
    }
    if !current.is_empty() {
        tokens.push((current, start, count));
    }
    tokens
}

/// Reads the risk report of one document from a corpus.
pub fn find_report(corpus: &Path, id: &str) -> Result<Option<RiskReport>> {
    for record in kanon_core::io::read_jsonl::<RiskReport>(&corpus.join("report.jsonl"))? {
        let (_, report) = record?;
        if report.id == id {
            return Ok(Some(report));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MaskStrategy;

    #[test]
    fn the_job_round_trips_through_its_file_forms() {
        let dir = tempfile::tempdir().unwrap();
        let job = LabelJob {
            config: LabelerConfig {
                k: 10,
                max_arity: 2,
                strategy: MaskStrategy::Random,
                seed: 3,
                ..LabelerConfig::default()
            },
            format: CorpusFormat::Conll,
            shard_size: 500,
            ..LabelJob::new("index", "docs.jsonl", "corpus")
        };
        for name in ["label.toml", "label.json"] {
            let path = dir.path().join(name);
            job.save(&path).unwrap();
            assert_eq!(LabelJob::load(&path).unwrap(), job);
        }
        let path = dir.path().join("label.toml");
        std::fs::write(
            &path,
            "index_dir = \"i\"\ndocs = \"d\"\nout = \"o\"\n[config]\nk = 7\nstrategy = \"first\"\n",
        )
        .unwrap();
        let err = LabelJob::load(&path).unwrap_err().to_string();
        assert!(err.contains("label.toml:6: key `config.strategy`"), "{err}");
        std::fs::write(
            &path,
            "index_dir = \"i\"\ndocs = \"d\"\nout = \"o\"\n[config]\nk = 7\n",
        )
        .unwrap();
        let job = LabelJob::load(&path).unwrap();
        assert_eq!(
            (job.config.k, job.config.max_arity, job.shard_size),
            (7, 3, 10_000)
        );
    }

    #[test]
    fn choices_read_their_names() {
        for format in [CorpusFormat::Jsonl, CorpusFormat::Conll] {
            assert_eq!(format.as_str().parse::<CorpusFormat>(), Ok(format));
        }
        for strategy in [MaskStrategy::Greedy, MaskStrategy::Random] {
            assert_eq!(strategy.to_string().parse::<MaskStrategy>(), Ok(strategy));
        }
        assert!(
            "xml"
                .parse::<CorpusFormat>()
                .unwrap_err()
                .contains("jsonl or conll")
        );
    }
}
