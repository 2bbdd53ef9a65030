//! `kanon serve` over loopback, driven by a real HTTP client (ureq, already kanon-llm's) with
//! Presidio's documented request bodies: the answers are the library's `kanon detect` and
//! `kanon sanitize` outputs byte for byte, and bad requests get a 4xx with a message.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use burn::tensor::Device;
use kanon_core::{Document, NoProgress, Span};
use kanon_detect::Detector;
use kanon_detect::job::{Method, MethodJob};
use kanon_sanitize::{SanitizeJob, SanitizeSettings, SpanSource, Strategy};
use kanon_serve::{LogLevel, ServeSettings, Server, Service, ServiceConfig};
use kanon_tagger::dataset::Windowing;
use kanon_tagger::{DetectConfig, LabelScheme};
use serde_json::{Value, json};

/// Texts with non-ASCII letters before their spans, so that a byte offset would differ from
/// the code-point offset Presidio uses.
const TEXTS: [&str; 4] = [
    "Zoë Müller was born in Zürich on 5 August 1992 and works as a chemist in Graz.",
    "Ævar Ósk, a Norwegian journalist, moved to Tromsø in 2003.",
    "Lilian Albano is an Austrian chemist.",
    "Søren Kierkegaard studied theology at the University of Copenhagen.",
];

/// A tagger checkpoint in `out`: the encoder of `pretrained`, a fresh typed head.
fn write_checkpoint(pretrained: &Path, out: &Path, max_len: usize) {
    let windowing = Windowing {
        max_len,
        overlap: max_len / 4,
    };
    kanon_tagger::testing::write_fresh_head_checkpoint(
        pretrained,
        out,
        LabelScheme::Typed,
        windowing,
        7,
    )
    .unwrap();
}

/// A tiny random tagger whose vocabulary holds the words of [`TEXTS`].
fn tiny_checkpoint(dir: &Path) -> PathBuf {
    let mut words: Vec<String> = TEXTS
        .iter()
        .flat_map(|t| t.split(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    words.sort();
    words.dedup();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    kanon_tagger::testing::write_tiny_pretrained(&dir.join("bert"), &words, 3).unwrap();
    let model = dir.join("model");
    write_checkpoint(&dir.join("bert"), &model, 24);
    model
}

fn config(model: &Path) -> ServiceConfig {
    let mut config = ServiceConfig {
        model: Some(model.to_owned()),
        ..ServiceConfig::default()
    };
    config.serve.address = "127.0.0.1:0".into();
    config.serve.log = LogLevel::Off;
    config.serve.max_body_bytes = 64 << 10;
    config.serve.max_documents = 8;
    config
}

/// An HTTP client that reads 4xx and 5xx answers as answers.
fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

/// POSTs `body` (raw), returning the status, the `Retry-After` header and the body.
fn post(server: &Server, path: &str, body: &str) -> (u16, Option<String>, String) {
    let url = format!("http://{}{path}", server.address());
    let mut response = agent()
        .post(&url)
        .content_type("application/json")
        .send(body)
        .unwrap();
    let status = response.status().as_u16();
    let retry = response
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_owned());
    let text = response.body_mut().read_to_string().unwrap();
    (status, retry, text)
}

fn get(server: &Server, path: &str) -> (u16, String) {
    let url = format!("http://{}{path}", server.address());
    let mut response = agent().get(&url).call().unwrap();
    (
        response.status().as_u16(),
        response.body_mut().read_to_string().unwrap(),
    )
}

/// `kanon detect` and `kanon sanitize` (numbered labels) over the texts, as the library's jobs
/// write them: the spans lines and the sanitized lines.
fn library_outputs(dir: &Path, model: &Path, detect: DetectConfig) -> (Vec<String>, Vec<String>) {
    let docs = dir.join("docs.jsonl");
    let lines: Vec<String> = TEXTS
        .iter()
        .enumerate()
        .map(|(i, text)| json!({"id": format!("d{i}"), "text": text}).to_string())
        .collect();
    std::fs::write(&docs, lines.join("\n") + "\n").unwrap();
    let spans = dir.join("spans.jsonl");
    let job = MethodJob {
        docs: docs.clone(),
        out: spans.clone(),
        background: None,
        method: Method::Tagger {
            model: Some(model.to_owned()),
            config: detect,
        },
        trace: None,
        format: Default::default(),
        shard: None,
    };
    kanon_detect::job::run(&job, &Device::flex(), &NoProgress).unwrap();
    let sanitized = dir.join("sanitized.jsonl");
    let mut settings = SanitizeSettings::default();
    settings.sanitizer.strategy = Strategy::NumberedLabel;
    let job = SanitizeJob {
        docs,
        spans: SpanSource::File {
            path: spans.clone(),
        },
        out: sanitized.clone(),
        audit: None,
        summary: None,
        texts: None,
        settings,
    };
    kanon_sanitize::job::run(&job, &NoProgress).unwrap();
    let read = |path: &Path| -> Vec<String> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    };
    (read(&spans), read(&sanitized))
}

fn documents_body(extra: Value) -> String {
    let docs: Vec<Value> = TEXTS
        .iter()
        .enumerate()
        .map(|(i, text)| json!({"id": format!("d{i}"), "text": text}))
        .collect();
    let mut body = json!({ "documents": docs });
    if let Value::Object(extra) = extra {
        body.as_object_mut().unwrap().extend(extra);
    }
    body.to_string()
}

/// Checks every endpoint's answers against the library's outputs on the same texts.
fn answers_match_the_library(server: &Server, spans_lines: &[String], sanitized_lines: &[String]) {
    // /v1/detect: each document's record is `kanon detect`'s line, byte for byte.
    let (status, _, body) = post(server, "/v1/detect", &documents_body(json!({})));
    assert_eq!(status, 200, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    // The same values (scores as written: f32 digits), key order aside.
    let records = answer["documents"].as_array().unwrap();
    let expected: Vec<Value> = spans_lines
        .iter()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(records, &expected);
    assert!(
        !body.contains("0000000") && !body.contains("9999999"),
        "scores widened to f64 digits: {body}"
    );

    // /analyze, Presidio's body, one text at a time: the same spans, Presidio's names.
    for (text, line) in TEXTS.iter().zip(spans_lines) {
        let body = json!({"text": text, "language": "en", "correlation_id": "abc"}).to_string();
        let (status, _, answer) = post(server, "/analyze", &body);
        assert_eq!(status, 200, "{answer}");
        let results: Vec<Value> = serde_json::from_str(&answer).unwrap();
        let record: Value = serde_json::from_str(line).unwrap();
        let spans = record["spans"].as_array().unwrap();
        assert_eq!(results.len(), spans.len());
        for (result, span) in results.iter().zip(spans) {
            assert_eq!(result["start"], span["start"]);
            assert_eq!(result["end"], span["end"]);
            assert_eq!(result["score"], span["score"]);
            let kanon = span["type"].as_str().unwrap_or("MISC");
            let expected = kanon_serve::entities::presidio_name(kanon.parse().ok());
            assert_eq!(result["entity_type"], expected);
        }
        // The offsets are code points (the texts' non-ASCII letters come first: byte offsets
        // would run past the end).
        for result in &results {
            let (start, end) = (
                result["start"].as_u64().unwrap() as usize,
                result["end"].as_u64().unwrap() as usize,
            );
            assert!(start < end && end <= text.chars().count(), "{result}");
        }
    }

    // /v1/sanitize without spans: detected, then `kanon sanitize`'s lines.
    let (status, _, body) = post(
        server,
        "/v1/sanitize",
        &documents_body(json!({"strategy": "numbered-label"})),
    );
    assert_eq!(status, 200, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["certified"], false);
    let expected: Vec<Value> = sanitized_lines
        .iter()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(answer["documents"].as_array().unwrap(), &expected);

    // /anonymize with kanon's operator over /analyze's results: the same sanitized text.
    for (text, line) in TEXTS.iter().zip(sanitized_lines) {
        let body = json!({"text": text, "language": "en"}).to_string();
        let (_, _, results) = post(server, "/analyze", &body);
        let results: Value = serde_json::from_str(&results).unwrap();
        let body = json!({
            "text": text,
            "analyzer_results": results,
            "anonymizers": {"DEFAULT": {"type": "kanon", "strategy": "numbered-label"}},
        })
        .to_string();
        let (status, _, answer) = post(server, "/anonymize", &body);
        assert_eq!(status, 200, "{answer}");
        let answer: Value = serde_json::from_str(&answer).unwrap();
        let expected: Value = serde_json::from_str(line).unwrap();
        assert_eq!(answer["text"], expected["text"]);
        // Items point into the output, last first.
        let out: Vec<char> = answer["text"].as_str().unwrap().chars().collect();
        for item in answer["items"].as_array().unwrap() {
            let (start, end) = (
                item["start"].as_u64().unwrap() as usize,
                item["end"].as_u64().unwrap() as usize,
            );
            let shown: String = out[start..end].iter().collect();
            assert_eq!(shown, item["text"].as_str().unwrap());
        }
    }
}

#[test]
fn a_tiny_tagger_served_answers_as_the_library_does() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_checkpoint(dir.path());
    let config = config(&model);
    let (spans_lines, sanitized_lines) = library_outputs(dir.path(), &model, config.detect);
    assert!(
        spans_lines.iter().any(|l| l.contains("\"score\"")),
        "the tiny tagger found no span: nothing to compare"
    );
    let server = Server::start(Service::open(config).unwrap()).unwrap();
    answers_match_the_library(&server, &spans_lines, &sanitized_lines);

    let (status, body) = get(&server, "/health");
    assert_eq!((status, body.as_str()), (200, "kanon service is up"));
    let (status, body) = get(&server, "/supportedentities?language=en");
    assert_eq!(status, 200);
    insta::assert_snapshot!(body, @r#"["PERSON","CODE","LOCATION","ORGANIZATION","NRP","DATE_TIME","QUANTITY","MISC"]"#);
    let (status, body) = get(&server, "/docs");
    assert_eq!(status, 200);
    let spec: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(spec["openapi"], "3.0.3");
    let (status, body) = get(&server, "/v1/stats");
    assert_eq!(status, 200);
    let stats: Value = serde_json::from_str(&body).unwrap();
    assert!(stats["batches"].as_u64().unwrap() > 0);
    server.stop().unwrap();
}

#[test]
fn bad_requests_get_a_4xx_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_checkpoint(dir.path());
    let server = Server::start(Service::open(config(&model)).unwrap()).unwrap();
    let oversize = json!({"text": "a ".repeat(40_000), "language": "en"}).to_string();
    let too_many: Vec<Value> = (0..9)
        .map(|i| json!({"id": format!("d{i}"), "text": "x"}))
        .collect();
    let cases: Vec<(&str, String, u16, &str)> = vec![
        ("/analyze", "{\"text\": \"Zoë".into(), 400, "not the JSON expected"),
        ("/analyze", "[1, 2]".into(), 400, "not the JSON expected"),
        ("/analyze", json!({"text": "x"}).to_string(), 400, "missing field `language`"),
        ("/analyze", oversize, 413, "larger than the service's limit"),
        (
            "/analyze",
            json!({"text": "x", "language": "en", "entities": ["PERSON", "PHONE_NUMBER"]}).to_string(),
            400,
            "unknown entity type \"PHONE_NUMBER\" (supported: PERSON, CODE, LOCATION",
        ),
        ("/analyze", json!({"text": "x", "language": "de"}).to_string(), 400, "language \"de\" is not supported"),
        (
            "/anonymize",
            json!({"text": "Zoë", "analyzer_results": [{"entity_type": "PERSON", "start": 0, "end": 4, "score": 1.0}]}).to_string(),
            400,
            "not a span of the 3-character text",
        ),
        (
            "/anonymize",
            json!({"text": "Zoë", "analyzer_results": [], "anonymizers": {"DEFAULT": {"type": "encrypt", "key": "k"}}}).to_string(),
            400,
            "unknown variant `encrypt`",
        ),
        (
            "/anonymize",
            json!({"text": "Zoë", "analyzer_results": [], "anonymizers": {"PERSON": {"type": "kanon"}, "DEFAULT": {"type": "redact"}}}).to_string(),
            400,
            "give it alone",
        ),
        ("/v1/detect", json!({"documents": []}).to_string(), 400, "none given"),
        ("/v1/detect", json!({"documents": too_many}).to_string(), 413, "at most 8 per request"),
        (
            "/v1/detect",
            json!({"documents": [{"id": "a", "text": "x"}, {"id": "a", "text": "y"}]}).to_string(),
            400,
            "repeats an earlier document's",
        ),
        (
            "/v1/sanitize",
            json!({"documents": [{"id": "a", "text": "Zoë", "spans": [{"start": 2, "end": 9}]}]}).to_string(),
            400,
            "not a span of the 3-character text",
        ),
        (
            "/v1/sanitize",
            json!({"documents": [{"id": "a", "text": "x"}], "strategy": "intact"}).to_string(),
            400,
            "needs models the service opens only when",
        ),
        ("/v1/sanitize", json!({"documents": [{"id": "a", "text": "x"}], "strategy": "blur"}).to_string(), 400, "strategy"),
        ("/nowhere", "{}".into(), 404, "no such route"),
    ];
    for (path, body, status, message) in cases {
        let (got, _, answer) = post(&server, path, &body);
        assert_eq!(got, status, "{path} {answer}");
        let answer: Value = serde_json::from_str(&answer).unwrap();
        let error = answer["error"].as_str().unwrap();
        assert!(error.contains(message), "{path}: {error}");
    }
    // Presidio's own operators, on code points.
    let body = json!({
        "text": "Zoë Müller phoned from Zürich",
        "analyzer_results": [
            {"entity_type": "PERSON", "start": 0, "end": 10, "score": 0.9},
            {"entity_type": "LOCATION", "start": 23, "end": 29, "score": 0.8},
        ],
        "anonymizers": {
            "PERSON": {"type": "mask", "masking_char": "*", "chars_to_mask": 3, "from_end": false},
            "DEFAULT": {"type": "replace", "new_value": "<PLACE>"},
        },
    })
    .to_string();
    let (status, _, answer) = post(&server, "/anonymize", &body);
    assert_eq!(status, 200);
    insta::assert_snapshot!(answer, @r#"{"text":"*** Müller phoned from <PLACE>","items":[{"start":23,"end":30,"entity_type":"LOCATION","text":"<PLACE>","operator":"replace","score":0.8},{"start":0,"end":10,"entity_type":"PERSON","text":"*** Müller","operator":"mask","score":0.9}]}"#);
    server.stop().unwrap();
}

/// A detector that takes its time: to fill the service's limits.
struct Slow(Duration);

impl Detector for Slow {
    fn detect(&self, _doc: &Document) -> kanon_detect::Result<Vec<Span>> {
        std::thread::sleep(self.0);
        Ok(vec![Span::new(0, 1)])
    }
}

#[test]
fn past_its_limits_the_service_answers_429_or_503_and_finishes_requests_at_shutdown() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(&dir.path().join("unused"));
    config.serve.max_in_flight = 1;
    config.serve.retry_after_seconds = 2;
    let service =
        Service::with_detector(config.clone(), || Ok(Slow(Duration::from_millis(600)))).unwrap();
    let server = Server::start(service).unwrap();
    let address = server.address();
    let body = json!({"text": "x", "language": "en"}).to_string();
    let first = std::thread::spawn({
        let body = body.clone();
        move || {
            let mut response = agent()
                .post(&format!("http://{address}/analyze"))
                .send(&body)
                .unwrap();
            (
                response.status().as_u16(),
                response.body_mut().read_to_string().unwrap(),
            )
        }
    });
    std::thread::sleep(Duration::from_millis(200));
    let (status, retry, answer) = post(&server, "/analyze", &body);
    assert_eq!((status, retry.as_deref()), (429, Some("2")), "{answer}");
    assert!(answer.contains("requests are in flight"), "{answer}");
    // The health check is not limited.
    assert_eq!(get(&server, "/health").0, 200);
    // Shutdown while the first request is in flight: it still gets its answer.
    server.stop().unwrap();
    let (status, answer) = first.join().unwrap();
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        answer,
        r#"[{"entity_type":"MISC","start":0,"end":1,"score":1.0}]"#
    );

    // A request past the timeout: 503, and the service goes on.
    config.serve.max_in_flight = 4;
    config.serve.timeout_seconds = 0.2;
    let service = Service::with_detector(config, || Ok(Slow(Duration::from_millis(500)))).unwrap();
    let server = Server::start(service).unwrap();
    let (status, _, answer) = post(&server, "/analyze", &body);
    assert_eq!(status, 503, "{answer}");
    assert!(answer.contains("longer than 0.2 s"), "{answer}");
    server.stop().unwrap();
}

/// The real MiniLM encoder (with a fresh typed head: the same computation as a trained
/// tagger) served: /analyze and /v1/detect agree with `kanon detect` byte for byte.
#[test]
fn the_real_minilm_tagger_served_answers_as_the_library_does() {
    let Some(pretrained) = kanon_models::cached_or_skip("all-minilm-l6-v2") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model");
    write_checkpoint(&pretrained, &model, 128);
    let mut config = config(&model);
    config.detect.threshold = Some(0.5);
    let (spans_lines, sanitized_lines) = library_outputs(dir.path(), &model, config.detect);
    let server = Server::start(Service::open(config).unwrap()).unwrap();
    answers_match_the_library(&server, &spans_lines, &sanitized_lines);
    server.stop().unwrap();
}

#[test]
fn the_example_config_and_a_run_config_load() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let config = ServiceConfig::load(&root.join("configs/serve.toml")).unwrap();
    // The example states the defaults.
    assert_eq!(config.serve, ServeSettings::default());
    assert!(config.model.unwrap().ends_with("runs/demo/train/model"));
    assert_eq!(config.detect.threshold, Some(0.3));
    assert_eq!(config.sanitize.sanitizer.strategy, Strategy::NumberedLabel);
    assert!(config.gate.is_none());
    // A run config serves what its run made: the model, the gate over the run's index.
    let demo = ServiceConfig::load(&root.join("configs/demo.toml")).unwrap();
    assert_eq!(demo.model.unwrap(), Path::new("runs/demo/train/model"));
    assert_eq!(demo.sanitize.sanitizer.strategy, Strategy::Intact);
    let gate = demo.gate.unwrap();
    assert_eq!(gate.index.unwrap(), Path::new("runs/demo/index/index"));
    // A misspelt key is named, with its file.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("serve.toml");
    std::fs::write(&path, "[serve]\nmax_in_fligth = 3\n").unwrap();
    let err = ServiceConfig::load(&path).unwrap_err().to_string();
    assert!(
        err.contains("serve.toml") && err.contains("max_in_fligth"),
        "{err}"
    );
    std::fs::write(&path, "[serve]\naddress = \"localhost\"\n").unwrap();
    let err = ServiceConfig::load(&path).unwrap_err().to_string();
    assert!(err.contains("is not HOST:PORT"), "{err}");
}
