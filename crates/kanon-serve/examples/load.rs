//! The service's load test, on loopback only and of bounded length: `kanon serve`'s library
//! started in this process on 127.0.0.1 (any free port), then 1, 8 and 32 clients, each sending
//! Presidio `/analyze` requests of one biography (`corpora/sample/docs.jsonl`) back to back
//! for `--seconds`; requests/s, p50 and p99 latency, and how many requests shared each of the
//! tagger's batches. With `--detect-docs FILE` (documents: JSONL, TAB JSON) it also times
//! `/v1/detect` over those documents, one request per document from 8 clients.
//!
//! ```sh
//! cargo run --release -p kanon-serve --example load -- [--model DIR] [--seconds 10] \
//!     [--clients 1,8,32] [--detect-docs ../shared/data/wiki553/dev_100_tab_schema.json]
//! ```
//!
//! Without `--model`, the real MiniLM encoder (`kanon models fetch all-minilm-l6-v2`) with a
//! fresh typed head: the computation of a trained tagger, not its spans.
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use kanon_serve::{LogLevel, Server, Service, ServiceConfig};
use kanon_tagger::LabelScheme;
use kanon_tagger::dataset::Windowing;

struct Args {
    model: Option<PathBuf>,
    seconds: f64,
    clients: Vec<usize>,
    docs: PathBuf,
    detect_docs: Option<PathBuf>,
    batch_wait_ms: Option<u64>,
}

fn args() -> Args {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut args = Args {
        model: None,
        seconds: 10.0,
        clients: vec![1, 8, 32],
        docs: root.join("corpora/sample/docs.jsonl"),
        detect_docs: None,
        batch_wait_ms: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--model" => args.model = Some(value().into()),
            "--seconds" => args.seconds = value().parse().unwrap(),
            "--clients" => args.clients = value().split(',').map(|c| c.parse().unwrap()).collect(),
            "--docs" => args.docs = value().into(),
            "--detect-docs" => args.detect_docs = Some(value().into()),
            "--batch-wait-ms" => args.batch_wait_ms = Some(value().parse().unwrap()),
            other => panic!("unknown option {other} (see the example's doc comment)"),
        }
    }
    args
}

/// MiniLM's encoder with a fresh typed head, written as a tagger checkpoint into `out`.
fn minilm_fresh_head(out: &Path) -> PathBuf {
    let pretrained = kanon_models::spec("all-minilm-l6-v2")
        .ok()
        .and_then(|s| kanon_models::Cache::from_env().find(s))
        .expect(
            "all-minilm-l6-v2 is not cached: kanon models fetch all-minilm-l6-v2, or --model DIR",
        );
    let windowing = Windowing {
        max_len: 128,
        overlap: 32,
    };
    kanon_tagger::testing::write_fresh_head_checkpoint(
        &pretrained,
        out,
        LabelScheme::Typed,
        windowing,
        7,
    )
    .unwrap();
    out.to_owned()
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into()
}

fn post(agent: &ureq::Agent, url: &str, body: &str) -> u16 {
    let mut response = agent
        .post(url)
        .content_type("application/json")
        .send(body)
        .unwrap();
    let status = response.status().as_u16();
    let _ = response.body_mut().read_to_string().unwrap();
    status
}

fn stats(base: &str) -> (f64, f64) {
    let mut response = agent().get(&format!("{base}/v1/stats")).call().unwrap();
    let stats: serde_json::Value =
        serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
    (
        stats["batches"].as_f64().unwrap(),
        stats["requests"].as_f64().unwrap(),
    )
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// `clients` threads sending `bodies` round robin to `url` for `seconds`: requests, wall
/// seconds and the latencies (ms), sorted.
fn drive(
    url: &str,
    bodies: &Arc<Vec<String>>,
    clients: usize,
    seconds: f64,
) -> (usize, f64, Vec<f64>) {
    let started = Instant::now();
    let deadline = started + Duration::from_secs_f64(seconds);
    let threads: Vec<_> = (0..clients)
        .map(|c| {
            let (url, bodies) = (url.to_owned(), Arc::clone(bodies));
            std::thread::spawn(move || {
                let agent = agent();
                let mut latencies = Vec::new();
                let mut i = c;
                while Instant::now() < deadline {
                    let sent = Instant::now();
                    let status = post(&agent, &url, &bodies[i % bodies.len()]);
                    assert_eq!(status, 200, "a request failed");
                    latencies.push(sent.elapsed().as_secs_f64() * 1e3);
                    i += clients;
                }
                latencies
            })
        })
        .collect();
    let mut latencies: Vec<f64> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    let wall = started.elapsed().as_secs_f64();
    latencies.sort_by(f64::total_cmp);
    (latencies.len(), wall, latencies)
}

fn main() {
    let args = args();
    let scratch = tempfile::tempdir().unwrap();
    let model = match &args.model {
        Some(model) => model.clone(),
        None => minilm_fresh_head(&scratch.path().join("model")),
    };
    let mut config = ServiceConfig {
        model: Some(model.clone()),
        ..ServiceConfig::default()
    };
    config.serve.address = "127.0.0.1:0".into();
    config.serve.log = LogLevel::Off;
    config.serve.max_in_flight = 256;
    if let Some(wait) = args.batch_wait_ms {
        config.serve.batch_wait_ms = wait;
    }
    let server = Server::start(Service::open(config.clone()).unwrap()).unwrap();
    let base = format!("http://{}", server.address());
    let texts: Vec<String> = kanon_core::io::read_documents(&args.docs)
        .unwrap()
        .docs
        .into_iter()
        .take(200)
        .map(|d| d.text)
        .collect();
    let words: usize = texts.iter().map(|t| t.split_whitespace().count()).sum();
    let bodies: Arc<Vec<String>> = Arc::new(
        texts
            .iter()
            .map(|text| serde_json::json!({"text": text, "language": "en"}).to_string())
            .collect(),
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "kanon serve load test: {} ({cores} cores), model {}, /analyze with one of {} biographies a request ({:.0} words on average), batch wait {} ms, {} s per row",
        std::env::consts::ARCH,
        if args.model.is_some() {
            model.display().to_string()
        } else {
            "MiniLM-L6 (fresh typed head)".into()
        },
        texts.len(),
        words as f64 / texts.len() as f64,
        config.serve.batch_wait_ms,
        args.seconds
    );
    // Warm up: the allocator, the tokenizer, the first forward passes.
    drive(&format!("{base}/analyze"), &bodies, 2, 2.0);
    println!();
    println!(
        "| clients | requests | requests/s | p50 latency | p99 latency | requests per batch |"
    );
    println!("| ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut rates = Vec::new();
    for &clients in &args.clients {
        let (b0, r0) = stats(&base);
        let (n, wall, latencies) =
            drive(&format!("{base}/analyze"), &bodies, clients, args.seconds);
        let (b1, r1) = stats(&base);
        let rate = n as f64 / wall;
        rates.push((clients, rate));
        println!(
            "| {clients} | {n} | {rate:.1} | {:.0} ms | {:.0} ms | {:.1} |",
            percentile(&latencies, 0.5),
            percentile(&latencies, 0.99),
            (r1 - r0) / (b1 - b0).max(1.0)
        );
    }
    if let (Some(&(one, first)), Some(&(many, last))) = (rates.first(), rates.last()) {
        println!();
        println!(
            "{many} clients: {:.2}x the requests/s of {one}",
            last / first
        );
    }
    if let Some(path) = &args.detect_docs {
        let docs = kanon_core::io::read_documents(path).unwrap().docs;
        let bodies: Vec<String> = docs
            .iter()
            .map(|d| serde_json::json!({"documents": [{"id": d.id, "text": d.text}]}).to_string())
            .collect();
        let url = format!("{base}/v1/detect");
        let mut best = f64::INFINITY;
        for _ in 0..3 {
            let started = Instant::now();
            let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let bodies = Arc::new(bodies.clone());
            let threads: Vec<_> = (0..8)
                .map(|_| {
                    let (url, bodies, next) = (url.clone(), Arc::clone(&bodies), Arc::clone(&next));
                    std::thread::spawn(move || {
                        let agent = agent();
                        loop {
                            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            if i >= bodies.len() {
                                break;
                            }
                            assert_eq!(post(&agent, &url, &bodies[i]), 200);
                        }
                    })
                })
                .collect();
            for t in threads {
                t.join().unwrap();
            }
            best = best.min(started.elapsed().as_secs_f64());
        }
        println!();
        println!(
            "/v1/detect over {} documents of {} (one document a request, 8 clients; best of 3): {best:.2} s, {:.1} documents/s",
            docs.len(),
            path.display(),
            docs.len() as f64 / best
        );
    }
    server.stop().unwrap();
}
