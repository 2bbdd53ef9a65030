//! `kanon bench tagger`: the BERT tagger's inference documents/s and training tokens/s with peak
//! RSS, each measured in a child process of its own so that its peak memory is its alone.
//! `scripts/bench_tagger_torch.py` measures PyTorch + transformers the same way (same documents,
//! windows, batch shape, optimiser) for the comparison in the README.
//!
//! Training can run on any device (`--device`) and on a BERT of a given shape with random weights
//! (`--random-init CONFIG`, a Hugging Face `config.json`) instead of a cached checkpoint: what
//! `scripts/device_check.sh` times on a GPU machine that has no model to load. The losses of every
//! step are reported, so that two devices' runs of one seed can be compared.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use burn::module::{Module, ModuleMapper, Param};
use burn::tensor::{Bool, Device, Int, Tensor, TensorData};
use kanon_core::PathContext;
use kanon_core::io::read_documents;
use kanon_models::resolve_pretrained;
use kanon_tagger::checkpoint::{LabelsFile, Precision};
use kanon_tagger::data::TaggerTokenizer;
use kanon_tagger::dataset::{Batch, Windowing};
use kanon_tagger::device::{self, DeviceChoice};
use kanon_tagger::model::{BertConfig, BertTagger};
use kanon_tagger::optim::FusedAdamW;
use kanon_tagger::train::train_step;
use kanon_tagger::weights::load_pretrained;
use kanon_tagger::{LabelScheme, Tagger};
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::Result;
use crate::resources::{gib, peak_rss_self};
use crate::work::child_error;

/// What `kanon bench tagger` measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Tagging documents, one at a time and bucketed: documents and pieces per second.
    Inference,
    /// Training steps on a fixed batch of random pieces and labels: tokens per second.
    Training,
    /// Each in a child process of its own.
    Both,
}

kanon_core::named_choices!(
    Mode,
    "mode",
    [
        Inference = "inference",
        Training = "training",
        Both = "both"
    ]
);

/// The knobs of `kanon bench tagger`.
#[derive(Debug, Clone)]
pub struct TaggerBench {
    /// The `kanon` binary that runs each mode of [`Mode::Both`].
    pub kanon: PathBuf,
    /// What to measure.
    pub mode: Mode,
    /// A cached model name or a BERT checkpoint directory.
    pub pretrained: String,
    /// Documents for inference (JSONL or TAB schema); default: the wiki553 dev set when
    /// `../shared` is there, else the bundled sample corpus.
    pub docs: Option<PathBuf>,
    /// Inference window in word pieces.
    pub max_len: usize,
    /// Padded pieces per batch for the bucketed inference (as `kanon detect --token-budget`).
    pub token_budget: usize,
    /// Timed training steps.
    pub steps: usize,
    /// Untimed training steps first.
    pub warmup_steps: usize,
    /// Sequences per training batch.
    pub batch: usize,
    /// Word pieces per training sequence.
    pub seq: usize,
    /// Where the model runs.
    pub device: DeviceChoice,
    /// Train a BERT of this Hugging Face `config.json`'s shape with random weights (drawn on the
    /// CPU from seed 0, so the same on every device) instead of `pretrained`'s (training only).
    pub random_init: Option<PathBuf>,
    /// The encoder's arithmetic at inference (`int8`: quantized once the weights are loaded).
    pub precision: Precision,
}

/// Inference figures (serialised for `--json`).
#[derive(Debug, Serialize, Deserialize)]
pub struct InferenceFigures {
    docs: usize,
    pieces: usize,
    windows: usize,
    /// One document at a time, its windows in one batch (what the PyTorch script does).
    seconds: f64,
    docs_per_second: f64,
    pieces_per_second: f64,
    /// Windows of all documents sorted by length and batched up to `token_budget` padded pieces
    /// (what `kanon detect` does).
    bucketed_token_budget: usize,
    bucketed_seconds: f64,
    bucketed_docs_per_second: f64,
    peak_rss_bytes: u64,
    /// The encoder's precision.
    #[serde(default)]
    precision: Precision,
}

/// Training figures (serialised for `--json`).
#[derive(Debug, Serialize, Deserialize)]
pub struct TrainingFigures {
    /// The weights trained: the pretrained model's name, or `random init of CONFIG`.
    model: String,
    batch: usize,
    seq: usize,
    steps: usize,
    seconds: f64,
    tokens_per_second: f64,
    seconds_per_step: f64,
    /// The loss of every step, the untimed warm-up steps first.
    losses: Vec<f32>,
    peak_rss_bytes: u64,
}

/// What `kanon bench tagger` measured.
#[derive(Debug, Serialize, Deserialize)]
pub struct Figures {
    /// What ran the model (`kanon (burn flex)`).
    pub runtime: String,
    /// The device it ran on (`cpu (2 threads)`, `NVIDIA H100 … (ptx_sm90)`).
    pub device: String,
    /// Threads available to it.
    pub threads: usize,
    /// The inference figures, when inference was measured.
    pub inference: Option<InferenceFigures>,
    /// The training figures, when training was measured.
    pub training: Option<TrainingFigures>,
}

/// Runs the benchmark, writing its figures to `out`.
pub fn run(args: &TaggerBench, out: &mut dyn Write) -> Result<Figures> {
    if args.random_init.is_some() && args.mode != Mode::Training {
        return Err(kanon_tagger::Error::Setting(
            "--random-init trains a model of that shape: it goes with --mode training (inference \
             needs the pretrained model's tokenizer)"
                .into(),
        )
        .into());
    }
    let device = args.device.resolve()?;
    let runtime = format!("kanon (burn {})", backend_name(&device));
    let figures = match args.mode {
        Mode::Inference => Figures {
            runtime,
            device: device::describe(&device),
            threads: rayon::current_num_threads(),
            inference: Some(inference(args, &device)?),
            training: None,
        },
        Mode::Training => Figures {
            runtime,
            device: device::describe(&device),
            threads: rayon::current_num_threads(),
            inference: None,
            training: Some(training(args, &device)?),
        },
        Mode::Both => Figures {
            runtime,
            device: device::describe(&device),
            threads: rayon::current_num_threads(),
            inference: child(args, "inference")?.inference,
            training: child(args, "training")?.training,
        },
    };
    writeln!(out, "device: {}", figures.device)?;
    if let Some(inference) = &figures.inference {
        writeln!(
            out,
            "inference ({}): {} docs ({} word pieces, {} windows of ≤ {}): one document at a time {:.1}s = {:.2} docs/s ({:.0} pieces/s); bucketed by length (≤ {} pieces a batch) {:.1}s = {:.2} docs/s; peak RSS {:.2} GiB",
            inference.precision,
            inference.docs,
            inference.pieces,
            inference.windows,
            args.max_len,
            inference.seconds,
            inference.docs_per_second,
            inference.pieces_per_second,
            inference.bucketed_token_budget,
            inference.bucketed_seconds,
            inference.bucketed_docs_per_second,
            gib(inference.peak_rss_bytes)
        )?;
    }
    if let Some(training) = &figures.training {
        writeln!(
            out,
            "training ({}): {} steps of {}×{} tokens in {:.1}s = {:.0} tokens/s ({:.2} s/step); peak RSS {:.2} GiB",
            training.model,
            training.steps,
            training.batch,
            training.seq,
            training.seconds,
            training.tokens_per_second,
            training.seconds_per_step,
            gib(training.peak_rss_bytes)
        )?;
        let losses: Vec<String> = training.losses.iter().map(|l| format!("{l:.6}")).collect();
        writeln!(
            out,
            "losses ({} warm-up steps first): {}",
            training.losses.len() - training.steps.min(training.losses.len()),
            losses.join(" ")
        )?;
    }
    Ok(figures)
}

/// burn's name for the backend behind `device`: `flex` (the CPU), `cuda` or `wgpu`.
fn backend_name(device: &Device) -> &'static str {
    if device::is_cpu(device) {
        return "flex";
    }
    let name = format!("{device:?}").to_ascii_lowercase();
    if name.contains("cuda") {
        "cuda"
    } else if name.contains("wgpu") {
        "wgpu"
    } else {
        "gpu"
    }
}

/// Runs one mode in a child process (`kanon bench tagger --mode MODE --json FILE`) and reads
/// back its figures.
fn child(args: &TaggerBench, mode: &str) -> Result<Figures> {
    let dir = tempfile::tempdir().with_path(std::env::temp_dir())?;
    let json = dir.path().join("figures.json");
    let mut command = Command::new(&args.kanon);
    command
        .args(["--threads", &rayon::current_num_threads().to_string()])
        .args(["bench", "tagger", "--mode", mode])
        .args(["--pretrained", &args.pretrained])
        .args(["--max-len", &args.max_len.to_string()])
        .args(["--token-budget", &args.token_budget.to_string()])
        .args(["--steps", &args.steps.to_string()])
        .args(["--warmup-steps", &args.warmup_steps.to_string()])
        .args(["--batch", &args.batch.to_string()])
        .args(["--seq", &args.seq.to_string()])
        .args(["--device", &args.device.to_string()])
        .args(["--precision", args.precision.as_str()])
        .arg("--json")
        .arg(&json);
    if let Some(docs) = &args.docs {
        command.arg("--docs").arg(docs);
    }
    if let Some(config) = &args.random_init {
        command.arg("--random-init").arg(config);
    }
    // The child's own report would repeat the parent's.
    let name = format!("kanon bench tagger --mode {mode}");
    let status = command
        .stdout(std::process::Stdio::null())
        .status()
        .map_err(|e| child_error(&name, e))?;
    if !status.success() {
        return Err(child_error(&name, status));
    }
    let text = std::fs::read_to_string(&json).with_path(&json)?;
    serde_json::from_str(&text).map_err(|e| kanon_core::Error::format(&json, e.to_string()).into())
}

/// The documents: `--docs`, else the wiki553 dev set when `../shared` is there, else the bundled
/// sample corpus.
fn docs_path(args: &TaggerBench) -> PathBuf {
    if let Some(docs) = &args.docs {
        return docs.clone();
    }
    let wiki = Path::new("../shared/data/wiki553/dev_100_tab_schema.json");
    if wiki.exists() {
        wiki.to_owned()
    } else {
        PathBuf::from("corpora/sample/docs.jsonl")
    }
}

fn inference(args: &TaggerBench, device: &Device) -> Result<InferenceFigures> {
    let pretrained = resolve_pretrained(&args.pretrained)?;
    let path = docs_path(args);
    let docs = read_documents(&path)?.docs;
    if docs.is_empty() {
        return Err(kanon_core::Error::format(&path, "no documents").into());
    }
    let tokenizer = TaggerTokenizer::from_file(&pretrained.join("tokenizer.json"))?;
    device::seed(device, 0);
    let scheme = LabelScheme::Typed;
    let (config, model) = load_pretrained(&pretrained, scheme.num_labels(), device)?;
    let windowing = Windowing {
        max_len: args.max_len,
        overlap: 32.min(args.max_len / 4),
    };
    let mut pieces = 0;
    let mut windows = 0;
    for doc in &docs {
        let n = tokenizer.tokenize(&doc.text)?.len();
        pieces += n;
        windows += windowing.windows(n).len();
    }
    // The decoded pieces, as `kanon detect --raw-spans` gives them: no tidying to time.
    let tagger = Tagger::new(
        model,
        config,
        tokenizer,
        LabelsFile::new(scheme, windowing),
        device,
    )
    .with_tidy(false)
    .with_precision(args.precision);
    // One untimed document first: allocator and thread-pool warm-up.
    tagger.predict(&docs[0].text)?;
    let started = Instant::now();
    for doc in &docs {
        tagger.predict(&doc.text)?;
    }
    let seconds = started.elapsed().as_secs_f64();
    let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
    let started = Instant::now();
    tagger.predict_many(&texts, args.token_budget)?;
    let bucketed_seconds = started.elapsed().as_secs_f64();
    Ok(InferenceFigures {
        docs: docs.len(),
        pieces,
        windows,
        seconds,
        docs_per_second: docs.len() as f64 / seconds,
        pieces_per_second: pieces as f64 / seconds,
        precision: args.precision,
        bucketed_token_budget: args.token_budget,
        bucketed_seconds,
        bucketed_docs_per_second: docs.len() as f64 / bucketed_seconds,
        peak_rss_bytes: peak_rss_self().unwrap_or(0),
    })
}

fn training(args: &TaggerBench, device: &Device) -> Result<TrainingFigures> {
    let scheme = LabelScheme::Typed;
    let labels = scheme.num_labels();
    let device = device.clone().autodiff();
    device::seed(&device, 0);
    let (name, config, mut model) = match &args.random_init {
        Some(path) => {
            let config = BertConfig::from_hf_file(path, labels)?;
            let model = random_model(&config, &device);
            (format!("random init of {}", path.display()), config, model)
        }
        None => {
            let pretrained = resolve_pretrained(&args.pretrained)?;
            let (config, model) = load_pretrained(&pretrained, labels, &device)?;
            (args.pretrained.clone(), config, model)
        }
    };
    let mut optimizer = FusedAdamW::new(0.01).init();
    // A fixed batch of random pieces and labels: the same shape and work as a full batch of the
    // training corpus, identical for the PyTorch script.
    let (batch, seq) = (args.batch, args.seq);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    // Above the special and unused pieces of a BERT vocabulary (1000 in BERT's own).
    let first_id = 1000.min(config.vocab_size / 2) as i64;
    let ids: Vec<i64> = (0..batch * seq)
        .map(|_| rng.random_range(first_id..config.vocab_size as i64))
        .collect();
    let targets: Vec<i64> = (0..batch * seq)
        .map(|_| rng.random_range(0..labels as i64))
        .collect();
    let padding = Tensor::<2, Bool>::from_data(
        TensorData::new(vec![false; batch * seq], [batch, seq]),
        &device,
    );
    let fixed = Batch {
        input_ids: Tensor::<2, Int>::from_data(TensorData::new(ids, [batch, seq]), &device),
        targets: Tensor::<2, Int>::from_data(TensorData::new(targets, [batch, seq]), &device),
        labeled: padding.clone().bool_not(),
        padding,
        tokens: batch * seq,
    };
    let class_weights = Tensor::<1>::ones([labels], &device);
    let mut losses = Vec::with_capacity(args.warmup_steps + args.steps);
    // Reading each step's loss waits for the device: a GPU's queued work is in the time.
    let mut step = |model| {
        let (model, loss) = train_step(model, &mut optimizer, 2e-5, &fixed, &class_weights);
        losses.push(loss);
        model
    };
    for _ in 0..args.warmup_steps {
        model = step(model);
    }
    let started = Instant::now();
    for _ in 0..args.steps {
        model = step(model);
    }
    let seconds = started.elapsed().as_secs_f64();
    drop(model);
    Ok(TrainingFigures {
        model: name,
        batch,
        seq,
        steps: args.steps,
        seconds,
        tokens_per_second: (batch * seq * args.steps) as f64 / seconds,
        seconds_per_step: seconds / args.steps.max(1) as f64,
        losses,
        peak_rss_bytes: peak_rss_self().unwrap_or(0),
    })
}

/// A tagger of `config`'s shape with fresh parameters drawn on the CPU (burn draws them lazily,
/// on each backend from its own stream), then moved to `device`: one seed, one model, whatever
/// the device.
fn random_model(config: &BertConfig, device: &Device) -> BertTagger {
    let cpu = if device.is_autodiff() {
        Device::flex().autodiff()
    } else {
        Device::flex()
    };
    let model = config.init(&cpu).map(&mut Materialize);
    if device::is_cpu(device) {
        model
    } else {
        // `fork`, not `to_device`: the parameters stay leaves of the autodiff graph.
        model.fork(device)
    }
}

/// Draws every parameter of a module where it was declared.
struct Materialize;

impl ModuleMapper for Materialize {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let _ = param.val();
        param
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny_config(dir: &Path, dropout: f64) -> PathBuf {
        let path = dir.join("config.json");
        let config = serde_json::json!({
            "vocab_size": 300, "hidden_size": 16, "num_hidden_layers": 2,
            "num_attention_heads": 2, "intermediate_size": 32, "max_position_embeddings": 64,
            "hidden_dropout_prob": dropout, "attention_probs_dropout_prob": dropout
        });
        std::fs::write(&path, config.to_string()).unwrap();
        path
    }

    fn bench(config: PathBuf, steps: usize, warmup_steps: usize) -> TaggerBench {
        TaggerBench {
            kanon: PathBuf::from("kanon"),
            mode: Mode::Training,
            pretrained: "not-cached".into(),
            docs: None,
            max_len: 32,
            token_budget: 256,
            steps,
            warmup_steps,
            batch: 2,
            seq: 16,
            device: DeviceChoice::Cpu,
            random_init: Some(config),
            precision: Precision::F32,
        }
    }

    /// A random-init run needs no cached model, reports the loss of every step and starts near
    /// ln(17) (17 labels, random weights); the same seed gives the same losses.
    #[test]
    fn random_init_trains_without_a_model_and_repeats() {
        let dir = tempfile::tempdir().unwrap();
        let args = bench(tiny_config(dir.path(), 0.0), 6, 2);
        let device = Device::flex();
        let first = training(&args, &device).unwrap();
        assert_eq!(first.losses.len(), 8);
        assert!(
            first.model.starts_with("random init of "),
            "{}",
            first.model
        );
        assert!(
            (first.losses[0] - 17f32.ln()).abs() < 0.5,
            "{:?}",
            first.losses
        );
        assert!(first.tokens_per_second > 0.0);
        let again = training(&args, &device).unwrap();
        assert_eq!(first.losses, again.losses);
    }

    #[test]
    fn random_init_is_for_training_only() {
        let dir = tempfile::tempdir().unwrap();
        let mut args = bench(tiny_config(dir.path(), 0.1), 1, 0);
        args.mode = Mode::Inference;
        let err = run(&args, &mut Vec::new()).unwrap_err().to_string();
        assert!(err.contains("--mode training"), "{err}");
    }
}
