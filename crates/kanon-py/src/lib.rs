//! kanon for Python: the native half of the `kanon` package (`kanon._kanon`), built into a wheel
//! by maturin from the crates the CLI uses — no second implementation. Values cross the boundary
//! as JSON text, in the shapes `kanon detect`, `kanon sanitize` and `kanon run` write, and the
//! Python half (`python/kanon/__init__.py`) turns them into plain dicts and lists. Every call that
//! works in Rust releases the GIL, so Python threads run beside it.
//!
//! ```python
//! import kanon
//! detector = kanon.Detector.load("checkpoints/tagger")
//! spans = detector.detect(["Ada Lovelace was born in London in 1815."])
//! print(kanon.Sanitizer({"config": {"strategy": {"type": "label"}}}).sanitize(texts, spans))
//! ```

use std::path::PathBuf;

use kanon_core::spans::SpanRecord;
use kanon_core::{Document, NoProgress};
use kanon_detect::Detector as _;
use kanon_detect::tagger::TaggerDetector;
use kanon_pipeline::{Pipeline, RunConfig, RunOptions};
use kanon_sanitize::Mention;
use kanon_sanitize::job::{SanitizeSettings, SanitizerModels};
use kanon_tagger::DetectConfig;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

/// A library error as Python's `RuntimeError`, its causes in the message.
fn failed(context: &str, err: &dyn std::error::Error) -> PyErr {
    let mut message = format!("{context}: {err}");
    let mut source = err.source();
    while let Some(cause) = source {
        message += &format!(": {cause}");
        source = cause.source();
    }
    PyRuntimeError::new_err(message)
}

/// A value the caller gave that does not parse, as `ValueError` naming what it is.
fn invalid(what: &str, err: &dyn std::error::Error) -> PyErr {
    PyValueError::new_err(format!("{what}: {err}"))
}

/// A trained tagger (`kanon train`'s checkpoint directory) on the CPU.
#[pyclass(module = "kanon._kanon", frozen)]
struct Detector {
    inner: TaggerDetector,
}

#[pymethods]
impl Detector {
    /// Loads the checkpoint directory `model`, deciding and tidying as `config` (a detect
    /// config's keys as JSON; empty: the defaults) says.
    #[staticmethod]
    #[pyo3(signature = (model, config_json = None))]
    fn load(py: Python<'_>, model: PathBuf, config_json: Option<&str>) -> PyResult<Self> {
        let config: DetectConfig = match config_json {
            Some(json) => serde_json::from_str(json).map_err(|e| invalid("detect config", &e))?,
            None => DetectConfig::default(),
        };
        let inner = py
            .detach(|| {
                let device = kanon_tagger::device::cpu();
                TaggerDetector::load(&model, &config, &device)
            })
            .map_err(|e| failed(&format!("loading {}", model.display()), &e))?;
        Ok(Detector { inner })
    }

    /// Each text's spans as a JSON list of lists of `kanon detect`'s span records.
    fn detect_json(&self, py: Python<'_>, texts: Vec<String>) -> PyResult<String> {
        py.detach(|| {
            let docs: Vec<Document> = texts
                .into_iter()
                .enumerate()
                .map(|(i, text)| Document {
                    id: i.to_string(),
                    person: None,
                    text,
                    split: None,
                })
                .collect();
            let refs: Vec<&Document> = docs.iter().collect();
            let spans = self
                .inner
                .detect_many(&refs)
                .map_err(|e| failed("detecting", &e))?;
            serde_json::to_string(&spans).map_err(|e| failed("writing spans", &e))
        })
    }
}

/// The sanitizer of a run config's `[sanitize]` section, with its models opened once.
#[pyclass(module = "kanon._kanon", frozen)]
struct Sanitizer {
    settings: SanitizeSettings,
    models: SanitizerModels,
}

#[pymethods]
impl Sanitizer {
    /// Opens the models `settings` (the `[sanitize]` section's keys as JSON) needs.
    #[new]
    #[pyo3(signature = (settings_json = None))]
    fn new(py: Python<'_>, settings_json: Option<&str>) -> PyResult<Self> {
        let settings: SanitizeSettings = match settings_json {
            Some(json) => {
                serde_json::from_str(json).map_err(|e| invalid("sanitize settings", &e))?
            }
            None => SanitizeSettings::default(),
        };
        let models = py
            .detach(|| SanitizerModels::open(&settings))
            .map_err(|e| failed("opening the sanitizer's models", &e))?;
        Ok(Sanitizer { settings, models })
    }

    /// The strategy's name (`label`, `intact`, …).
    #[getter]
    fn strategy(&self) -> String {
        self.settings.sanitizer.strategy.to_string()
    }

    /// Each text sanitized at its spans (`spans_json`: a JSON list, per text, of span records as
    /// `detect` gives them), named by `ids` (default: its position); a JSON list of `kanon
    /// sanitize`'s output records.
    #[pyo3(signature = (texts, spans_json, ids = None))]
    fn sanitize_json(
        &self,
        py: Python<'_>,
        texts: Vec<String>,
        spans_json: &str,
        ids: Option<Vec<String>>,
    ) -> PyResult<String> {
        let spans: Vec<Vec<SpanRecord>> =
            serde_json::from_str(spans_json).map_err(|e| invalid("spans", &e))?;
        if spans.len() != texts.len() {
            return Err(PyValueError::new_err(format!(
                "{} texts but spans for {}",
                texts.len(),
                spans.len()
            )));
        }
        let ids = ids.unwrap_or_else(|| (0..texts.len()).map(|i| i.to_string()).collect());
        if ids.len() != texts.len() {
            return Err(PyValueError::new_err(format!(
                "{} texts but {} ids",
                texts.len(),
                ids.len()
            )));
        }
        for (i, (text, spans)) in texts.iter().zip(&spans).enumerate() {
            let length = text.chars().count();
            if let Some((j, span)) = spans.iter().enumerate().find(|(_, s)| !s.fits(length)) {
                return Err(PyValueError::new_err(format!(
                    "text {i}, span {j}: start = {}, end = {} is not a span of its {length}-character text",
                    span.start, span.end
                )));
            }
        }
        py.detach(|| {
            let sanitizer = self
                .models
                .sanitizer(&self.settings.sanitizer)
                .map_err(|e| failed("building the sanitizer", &e))?;
            let mut out = Vec::with_capacity(texts.len());
            for (i, (text, spans)) in texts.iter().zip(&spans).enumerate() {
                let mentions: Vec<Mention> = spans.iter().map(Mention::of_record).collect();
                let sanitized = sanitizer
                    .sanitize(&ids[i], text, &mentions)
                    .map_err(|e| failed(&format!("sanitizing text {i}"), &e))?;
                out.push(sanitized.document);
            }
            serde_json::to_string(&out).map_err(|e| failed("writing the outputs", &e))
        })
    }
}

/// `kanon run --config CONFIG --out OUT`: every stage of the run config, resuming what an earlier
/// run in `out` left; the run's report (`report.json`) as JSON.
#[pyfunction]
#[pyo3(signature = (config, out = None))]
fn run(py: Python<'_>, config: PathBuf, out: Option<PathBuf>) -> PyResult<String> {
    py.detach(|| {
        let loaded = RunConfig::load_with(&config, &[])
            .map_err(|e| failed(&format!("reading {}", config.display()), &e))?;
        let dir = out
            .unwrap_or_else(|| PathBuf::from("runs").join(loaded.name.as_deref().unwrap_or("run")));
        let pipeline = Pipeline::new(loaded, &dir)
            .map_err(|e| failed(&format!("checking {}", config.display()), &e))?;
        pipeline
            .run(&RunOptions::default(), &NoProgress, &mut |_| {})
            .map_err(|e| failed("the run", &e))?;
        let report = pipeline.paths().report_json();
        std::fs::read_to_string(&report)
            .map_err(|e| failed(&format!("reading {}", report.display()), &e))
    })
}

/// The native module.
#[pymodule]
fn _kanon(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Detector>()?;
    module.add_class::<Sanitizer>()?;
    module.add_function(wrap_pyfunction!(run, module)?)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
