//! The OpenAI-compatible HTTP backend against a tiny server on 127.0.0.1: parameters, parsing, retries, limits.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kanon_llm::{ChatModel, ChatRequest, Error, HttpModel, Message, TokenLogprob};
use serde_json::{Value, json};

/// A request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    line: String,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

struct Reply {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: String,
    delay: Duration,
}

fn reply(status: u16, body: impl Into<String>) -> Reply {
    Reply {
        status,
        headers: Vec::new(),
        body: body.into(),
        delay: Duration::ZERO,
    }
}

type Responder = dyn Fn(usize, &Seen) -> Reply + Send + Sync;

/// Serves each connection on its own thread; `respond` gets the request's number (from 0).
struct Server {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    peak_in_flight: Arc<AtomicUsize>,
}

impl Server {
    fn start(respond: impl Fn(usize, &Seen) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let in_flight = Arc::new(AtomicUsize::new(0));
        let peak_in_flight = Arc::new(AtomicUsize::new(0));
        let respond: Arc<Responder> = Arc::new(respond);
        let (seen2, peak2) = (seen.clone(), peak_in_flight.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { break };
                let (seen, respond, in_flight, peak) = (
                    seen2.clone(),
                    respond.clone(),
                    in_flight.clone(),
                    peak2.clone(),
                );
                std::thread::spawn(move || {
                    let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(now, Ordering::SeqCst);
                    serve(stream, &seen, &*respond, &in_flight);
                });
            }
        });
        Server {
            url,
            seen,
            peak_in_flight,
        }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// Answers one connection. It counts as in flight from its accept until just before its reply is
/// written: within the time the client holds its slot, so that the peak the server sees never
/// exceeds the client's limit, however the threads are scheduled.
fn serve(stream: TcpStream, seen: &Mutex<Vec<Seen>>, respond: &Responder, in_flight: &AtomicUsize) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        in_flight.fetch_sub(1, Ordering::SeqCst);
        return;
    }
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).unwrap();
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':').unwrap();
        headers.push((name.trim().to_owned(), value.trim().to_owned()));
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .map_or(0, |(_, v)| v.parse().unwrap());
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let request = Seen {
        line: line.trim_end().to_owned(),
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    };
    let number = {
        let mut seen = seen.lock().unwrap();
        seen.push(request.clone());
        seen.len() - 1
    };
    let reply = respond(number, &request);
    std::thread::sleep(reply.delay);
    in_flight.fetch_sub(1, Ordering::SeqCst);
    let mut out = stream;
    let mut head = format!(
        "HTTP/1.1 {} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        reply.status,
        reply.body.len()
    );
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let _ = out.write_all(head.as_bytes());
    let _ = out.write_all(reply.body.as_bytes());
    let _ = out.flush();
}

fn completion(texts: &[&str]) -> String {
    let choices: Vec<Value> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}))
        .collect();
    json!({"id": "x", "object": "chat.completion", "choices": choices,
           "usage": {"prompt_tokens": 5, "completion_tokens": 2}})
    .to_string()
}

fn quick(url: &str) -> HttpModel {
    HttpModel::builder(url, "test-model")
        .backoff(Duration::from_millis(1))
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap()
}

fn request() -> ChatRequest {
    ChatRequest::new(vec![
        Message::system("Be brief."),
        Message::user("Where is Paris?"),
    ])
}

#[test]
fn sends_every_parameter_and_parses_choices_and_logprobs() {
    let server = Server::start(|_, _| {
        reply(
            200,
            json!({"choices": [
                {"index": 0, "message": {"role": "assistant", "content": "France"},
                 "logprobs": {"content": [{"token": "France", "logprob": -0.25, "bytes": [70],
                                           "top_logprobs": []}]}},
                {"index": 1, "message": {"role": "assistant", "content": "Europe"},
                 "logprobs": {"content": [{"token": "Europe", "logprob": -1.5}]}}],
                "usage": {"prompt_tokens": 12, "completion_tokens": 2}})
            .to_string(),
        )
    });
    let model = HttpModel::builder(format!("{}/v1/", server.url), "test-model")
        .api_key_env("CARGO_PKG_NAME")
        .build()
        .unwrap();
    let response = model
        .chat(
            &request()
                .n(2)
                .temperature(0.7)
                .top_p(0.9)
                .max_tokens(17)
                .stop(vec!["\n\n".into()])
                .seed(99)
                .logprobs(true),
        )
        .unwrap();
    assert_eq!(response.texts().collect::<Vec<_>>(), ["France", "Europe"]);
    assert_eq!(
        response.choices[0].logprobs,
        Some(vec![TokenLogprob {
            token: "France".into(),
            logprob: -0.25
        }])
    );
    assert_eq!(response.usage.prompt_tokens, 12);

    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].line, "POST /v1/chat/completions HTTP/1.1");
    assert_eq!(
        seen[0].header("authorization"),
        Some(format!("Bearer {}", env!("CARGO_PKG_NAME")).as_str())
    );
    let body = &seen[0].body;
    assert_eq!(body["model"], "test-model");
    assert_eq!(
        body["messages"],
        json!([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Where is Paris?"}])
    );
    assert_eq!(body["n"], 2);
    assert!((body["temperature"].as_f64().unwrap() - 0.7).abs() < 1e-6);
    assert!((body["top_p"].as_f64().unwrap() - 0.9).abs() < 1e-6);
    assert_eq!(body["max_tokens"], 17);
    assert_eq!(body["stop"], json!(["\n\n"]));
    assert_eq!(body["seed"], 99);
    assert_eq!(body["logprobs"], true);
    assert_eq!(model.id().backend, "http");
    assert_eq!(model.id().model, "test-model");
}

#[test]
fn no_stop_no_logprobs_no_key_means_no_such_fields() {
    let server = Server::start(|_, _| reply(200, completion(&["ok"])));
    quick(&server.url).chat(&request()).unwrap();
    let seen = &server.seen()[0];
    assert!(seen.body.get("stop").is_none());
    assert!(seen.body.get("logprobs").is_none());
    assert!(seen.header("authorization").is_none());
}

#[test]
fn retries_after_a_500() {
    let server = Server::start(|number, _| match number {
        0 => reply(500, r#"{"error": {"message": "overloaded"}}"#),
        _ => reply(200, completion(&["France"])),
    });
    let model = quick(&server.url);
    let response = model.chat(&request()).unwrap();
    assert_eq!(response.choices[0].text, "France");
    assert_eq!(server.seen().len(), 2);
    assert_eq!(model.requests(), 2);
}

#[test]
fn retries_after_a_429_honouring_retry_after() {
    // The server asks for a one-second pause; the client's own back-off (an hour, capped at a
    // minute) must not be what is used. Bounded both ways: a client that ignores the header
    // waits a minute, one that does not wait at all returns at once.
    let server = Server::start(|number, _| match number {
        0 => Reply {
            headers: vec![("Retry-After", "1".into())],
            ..reply(429, "slow down")
        },
        _ => reply(200, completion(&["ok"])),
    });
    let model = HttpModel::builder(&server.url, "m")
        .backoff(Duration::from_secs(3600))
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    assert_eq!(model.chat(&request()).unwrap().choices[0].text, "ok");
    let waited = started.elapsed();
    assert_eq!(server.seen().len(), 2);
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(20),
        "waited {waited:?} where the server asked for 1 s"
    );
}

#[test]
fn gives_up_after_the_retries() {
    let server = Server::start(|_, _| reply(503, "down for maintenance"));
    let model = HttpModel::builder(&server.url, "m")
        .retries(2)
        .backoff(Duration::from_millis(1))
        .build()
        .unwrap();
    let err = model.chat(&request()).unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, Error::Backend { .. }), "{message}");
    assert!(message.contains("gave up after 3 attempt(s)"), "{message}");
    assert!(
        message.contains("503") && message.contains("down for maintenance"),
        "{message}"
    );
    assert_eq!(server.seen().len(), 3);
}

#[test]
fn a_malformed_body_is_a_backend_error_without_retries() {
    let server = Server::start(|_, _| reply(200, "<html>not json</html>"));
    let model = quick(&server.url);
    let err = model.chat(&request()).unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, Error::Backend { .. }), "{message}");
    assert!(
        message.contains("not JSON") && message.contains("<html>"),
        "{message}"
    );
    assert!(message.contains(&server.url), "{message}");
    assert_eq!(server.seen().len(), 1);

    let server =
        Server::start(|_, _| reply(200, r#"{"choices": [{"message": {"content": null}}]}"#));
    let message = quick(&server.url).chat(&request()).unwrap_err().to_string();
    assert!(message.contains("message.content"), "{message}");
}

#[test]
fn a_client_error_fails_at_once() {
    let server = Server::start(|_, _| reply(404, r#"{"error": {"message": "no model m"}}"#));
    let message = quick(&server.url).chat(&request()).unwrap_err().to_string();
    assert!(
        message.contains("404") && message.contains("no model m"),
        "{message}"
    );
    assert_eq!(server.seen().len(), 1);
}

#[test]
fn connection_refused_is_retried_then_reported() {
    // A port that was just free: nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let model = HttpModel::builder(format!("http://127.0.0.1:{port}"), "m")
        .retries(2)
        .backoff(Duration::from_millis(1))
        .build()
        .unwrap();
    let message = model.chat(&request()).unwrap_err().to_string();
    assert!(message.contains("gave up after 3 attempt(s)"), "{message}");
    assert!(message.contains("cannot reach the server"), "{message}");
    assert_eq!(model.requests(), 3);
}

#[test]
fn a_silent_server_times_out() {
    let server = Server::start(|_, _| Reply {
        delay: Duration::from_secs(5),
        ..reply(200, completion(&["late"]))
    });
    let model = HttpModel::builder(&server.url, "m")
        .timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let message = model.chat(&request()).unwrap_err().to_string();
    assert!(started.elapsed() < Duration::from_secs(4), "{message}");
    assert!(
        message.contains("timeout") || message.contains("timed out"),
        "{message}"
    );
}

#[test]
fn servers_that_ignore_n_are_asked_again_with_the_next_seeds() {
    let server = Server::start(|_, seen| {
        let seed = seen.body["seed"].as_u64().unwrap();
        reply(200, completion(&[&format!("seed {seed}")]))
    });
    let response = quick(&server.url).chat(&request().n(3).seed(10)).unwrap();
    assert_eq!(
        response.texts().collect::<Vec<_>>(),
        ["seed 10", "seed 11", "seed 12"]
    );
    let asked: Vec<_> = server.seen().iter().map(|s| s.body["n"].clone()).collect();
    assert_eq!(asked, [json!(3), json!(2), json!(1)]);
}

#[test]
fn at_most_max_in_flight_requests_are_open() {
    let server = Server::start(|_, _| Reply {
        delay: Duration::from_millis(60),
        ..reply(200, completion(&["ok"]))
    });
    let model = HttpModel::builder(&server.url, "m")
        .max_in_flight(2)
        .build()
        .unwrap();
    std::thread::scope(|scope| {
        for _ in 0..6 {
            scope.spawn(|| model.chat(&request()).unwrap());
        }
    });
    assert_eq!(server.seen().len(), 6);
    let peak = server.peak_in_flight.load(Ordering::SeqCst);
    assert!((1..=2).contains(&peak), "peak {peak}");
}

/// A door the servers' answers wait at until the test opens it.
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    opened: std::sync::Condvar,
}

impl Gate {
    fn wait(&self) {
        let open = self.open.lock().unwrap();
        drop(self.opened.wait_while(open, |open| !*open).unwrap());
    }

    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.opened.notify_all();
    }
}

/// Opens the gate when dropped: a failed assertion lets the held requests finish rather than
/// wait for their timeout.
struct OpenOnDrop<'a>(&'a Gate);

impl Drop for OpenOnDrop<'_> {
    fn drop(&mut self) {
        self.0.open();
    }
}

/// Waits until the servers have seen `count` requests between them (a minute at most).
fn wait_for_requests(servers: &[&Server], count: usize) {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let seen: usize = servers.iter().map(|server| server.seen().len()).sum();
        assert!(seen <= count, "{seen} requests seen, expected {count}");
        if seen == count {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{seen} requests seen after a minute, expected {count}"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn a_pool_sends_each_request_to_the_least_busy_server_and_bounds_each() {
    // Both servers hold every request until the gate opens, so that which server is least busy
    // is known when each request is sent, whatever the scheduling.
    let gate = Arc::new(Gate::default());
    let held = || {
        let gate = gate.clone();
        Server::start(move |_, _| {
            gate.wait();
            reply(200, completion(&["ok"]))
        })
    };
    let (a, b) = (held(), held());
    let model = HttpModel::builder(&a.url, "m")
        .servers([b.url.clone()])
        .max_in_flight(2)
        .build()
        .unwrap();
    assert_eq!(model.endpoints().len(), 2);
    std::thread::scope(|scope| {
        let _open = OpenOnDrop(&gate);
        // One at a time: the server with the most free slots takes each, the first of the pool
        // on a tie. a 2 free, b 2 → a; a 1, b 2 → b; a 1, b 1 → a; a 0, b 1 → b.
        let mut sent = Vec::new();
        for expected in [&a, &b, &a, &b] {
            let before = expected.seen().len();
            sent.push(scope.spawn(|| model.chat(&request()).unwrap()));
            wait_for_requests(&[&a, &b], sent.len());
            assert_eq!(expected.seen().len(), before + 1, "request {}", sent.len());
        }
        // Every slot is taken: the next eight wait in the client, none reaches a server.
        for _ in 0..8 {
            sent.push(scope.spawn(|| model.chat(&request()).unwrap()));
        }
        std::thread::sleep(Duration::from_millis(200));
        assert_eq!(a.seen().len() + b.seen().len(), 4);
        gate.open();
        for request in sent {
            assert_eq!(request.join().unwrap().texts().count(), 1);
        }
    });
    let (seen_a, seen_b) = (a.seen().len(), b.seen().len());
    assert_eq!(seen_a + seen_b, 12);
    assert_eq!(model.requests(), 12);
    assert!(seen_a >= 2 && seen_b >= 2, "{seen_a} / {seen_b}");
    for server in [&a, &b] {
        let peak = server.peak_in_flight.load(Ordering::SeqCst);
        assert_eq!(peak, 2, "peak {peak}");
    }

    let err = HttpModel::builder(&a.url, "m")
        .servers(["ftp://x"])
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("server ftp://x: the URL must start with http://"),
        "{err}"
    );
}

#[test]
fn a_dead_server_is_tried_then_rested() {
    let live = Server::start(|_, _| reply(200, completion(&["ok"])));
    let dead = {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        format!("http://127.0.0.1:{port}")
    };
    let model = HttpModel::builder(&dead, "m")
        .servers([live.url.clone()])
        .retries(3)
        .backoff(Duration::from_millis(1))
        .build()
        .unwrap();
    let start = std::time::Instant::now();
    for _ in 0..12 {
        assert_eq!(model.chat(&request()).unwrap().texts().count(), 1);
    }
    let elapsed = start.elapsed().as_secs_f64();
    assert_eq!(live.seen().len(), 12);
    // The first request goes to the dead server (every server free, the first of the pool on a
    // tie). After its k-th failure it rests 2^k seconds, and one request at a time sees each rest:
    // n attempts there take at least 1 + 2 + … + 2^(n-2) = 2^(n-1) - 1 seconds.
    let to_dead = model.requests() as usize - 12;
    let most = 1 + (elapsed + 1.0).log2().floor() as usize;
    assert!(
        (1..=most).contains(&to_dead),
        "{to_dead} attempts at the dead server in {elapsed:.2} s (at most {most})"
    );
}

#[test]
fn invalid_requests_never_reach_the_server() {
    let server = Server::start(|_, _| reply(200, completion(&["ok"])));
    let model = quick(&server.url);
    assert!(matches!(
        model.chat(&request().n(0)),
        Err(Error::InvalidRequest(_))
    ));
    assert!(matches!(
        model.chat(&request().top_p(0.0)),
        Err(Error::InvalidRequest(_))
    ));
    assert!(server.seen().is_empty());
}

#[test]
fn scores_a_given_text_through_completions_with_echo() {
    // "Zoë sang" in three tokens, then one generated token past the prompt.
    let server = Server::start(|_, seen| {
        assert!(
            seen.line.starts_with("POST /v1/completions "),
            "{}",
            seen.line
        );
        reply(
            200,
            json!({"choices": [{"text": "Zoë sang.", "logprobs": {
                "tokens": ["Zo", "ë", " sang", "."],
                "token_logprobs": [null, -2.5, -1.0, -0.1],
                "text_offset": [0, 2, 3, 8]
            }}]})
            .to_string(),
        )
    });
    let model = quick(&server.url);
    let tokens = kanon_llm::TextScorer::token_logprobs(&model, "Zoë sang").unwrap();
    let spans: Vec<(usize, usize, f32)> =
        tokens.iter().map(|t| (t.start, t.end, t.logprob)).collect();
    assert_eq!(spans, [(0, 2, 0.0), (2, 3, -2.5), (3, 8, -1.0)]);
    let body = &server.seen()[0].body;
    assert_eq!(
        (body["echo"].clone(), body["logprobs"].clone()),
        (json!(true), json!(0))
    );
    assert_eq!(body["prompt"], "Zoë sang");
}

#[test]
fn an_endpoint_without_logprobs_of_the_text_is_an_error() {
    let server =
        Server::start(|_, _| reply(200, json!({"choices": [{"text": " more"}]}).to_string()));
    let model = quick(&server.url);
    let err = kanon_llm::TextScorer::token_logprobs(&model, "Zoë sang").unwrap_err();
    let chain = {
        let mut all = err.to_string();
        let mut source = std::error::Error::source(&err);
        while let Some(s) = source {
            all += &format!(": {s}");
            source = s.source();
        }
        all
    };
    assert!(
        chain.contains("no log-probabilities of the text"),
        "{chain}"
    );
}
