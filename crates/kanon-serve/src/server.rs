//! HTTP: the routes, the limits (body size 413, requests in flight 429 with `Retry-After`,
//! a timeout 503), JSON errors `{"error": "…"}` for every refusal, a log line per request
//! without its text, and a graceful shutdown that finishes the requests in flight.

use std::collections::HashSet;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, FromRequest, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use kanon_core::{Document, EntityType};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use tokio::sync::{Semaphore, oneshot};

use crate::config::LogLevel;
use crate::entities;
use crate::error::{Error, Result};
use crate::presidio::{self, AnalyzeRequest, AnonymizeRequest, Item, Operator, RecognizerResult};
use crate::service::{self, DocumentIn, Refusal, Service};

/// The OpenAPI description served at `/docs`.
pub const OPENAPI: &str = include_str!("openapi.json");

/// What every handler shares.
struct AppState {
    service: Arc<Service>,
    in_flight: Arc<Semaphore>,
}

/// A refusal as HTTP: a status and `{"error": message}`.
#[derive(Debug)]
struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    fn bad_request(message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
        }
    }

    fn internal(message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: message.into(),
        }
    }
}

impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::BadRequest(message) => ApiError::bad_request(message),
            Refusal::Failed(message) => ApiError::internal(message),
        }
    }
}

impl From<Error> for ApiError {
    fn from(err: Error) -> Self {
        ApiError::internal(format!("{err}"))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.message }).to_string();
        let mut response = (self.status, body).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        // The message, which may quote the request, reaches the log at `debug` only.
        response
            .extensions_mut()
            .insert(RefusalMessage(self.message));
        response
    }
}

#[derive(Debug, Clone)]
struct RefusalMessage(String);

/// A JSON body read by serde_json, every failure a 4xx with a message: 413 past the body
/// limit, 400 for JSON that does not parse or does not fit the request's shape.
struct JsonBody<T>(T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> std::result::Result<Self, ApiError> {
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            let status = rejection.status();
            ApiError {
                status,
                message: if status == StatusCode::PAYLOAD_TOO_LARGE {
                    "the request body is larger than the service's limit (`[serve] max_body_bytes`)"
                        .into()
                } else {
                    format!("reading the request body: {}", rejection.body_text())
                },
            }
        })?;
        serde_json::from_slice(&bytes).map(JsonBody).map_err(|e| {
            ApiError::bad_request(format!("the request body is not the JSON expected: {e}"))
        })
    }
}

fn json<T: serde::Serialize>(value: &T) -> Response {
    match serde_json::to_string(value) {
        Ok(body) => {
            let mut response = body.into_response();
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            response
        }
        Err(e) => ApiError::internal(format!("writing the answer: {e}")).into_response(),
    }
}

/// The app: every route with its limits.
fn router(service: Arc<Service>) -> Router {
    let settings = service.config().serve.clone();
    let state = Arc::new(AppState {
        service,
        in_flight: Arc::new(Semaphore::new(settings.max_in_flight)),
    });
    let work = Router::new()
        .route("/analyze", post(analyze))
        .route("/anonymize", post(anonymize))
        .route("/v1/detect", post(detect))
        .route("/v1/sanitize", post(sanitize))
        .route_layer(middleware::from_fn_with_state(Arc::clone(&state), limit));
    Router::new()
        .route("/health", get(health))
        .route("/supportedentities", get(supported_entities))
        .route("/v1/stats", get(stats))
        .route("/docs", get(docs))
        .route("/openapi.json", get(docs))
        .merge(work)
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(settings.max_body_bytes))
        .layer(middleware::from_fn_with_state(
            Arc::clone(&state),
            access_log,
        ))
        .with_state(state)
}

/// At most `max_in_flight` requests at work (past it: 429 and `Retry-After`), each within
/// the timeout (past it: 503).
async fn limit(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let settings = &state.service.config().serve;
    let Ok(_permit) = Arc::clone(&state.in_flight).try_acquire_owned() else {
        let mut response = ApiError {
            status: StatusCode::TOO_MANY_REQUESTS,
            message: format!(
                "{} requests are in flight, the service's limit (`[serve] max_in_flight`): retry after {} s",
                settings.max_in_flight, settings.retry_after_seconds
            ),
        }
        .into_response();
        if let Ok(value) = HeaderValue::from_str(&settings.retry_after_seconds.to_string()) {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        return response;
    };
    match tokio::time::timeout(settings.timeout(), next.run(request)).await {
        Ok(response) => response,
        Err(_) => ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            message: format!(
                "the request took longer than {} s (`[serve] timeout_seconds`)",
                settings.timeout_seconds
            ),
        }
        .into_response(),
    }
}

/// One line per request on standard error: method, path, status, milliseconds — never the
/// text; a refusal's message only at `debug`.
async fn access_log(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let level = state.service.config().serve.log;
    if level == LogLevel::Off {
        return next.run(request).await;
    }
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let started = Instant::now();
    let response = next.run(request).await;
    let millis = started.elapsed().as_secs_f64() * 1e3;
    let status = response.status();
    let mut line = format!("{method} {path} {} {millis:.1} ms", status.as_u16());
    if level == LogLevel::Debug
        && let Some(RefusalMessage(message)) = response.extensions().get::<RefusalMessage>()
    {
        line.push_str(": ");
        line.push_str(message);
    }
    let _ = writeln!(std::io::stderr(), "{line}");
    response
}

async fn health() -> &'static str {
    "kanon service is up"
}

async fn not_found(method: Method) -> ApiError {
    ApiError {
        status: StatusCode::NOT_FOUND,
        message: format!(
            "no such route for {method} (routes: POST /analyze, /anonymize, /v1/detect, /v1/sanitize; GET /health, /supportedentities, /v1/stats, /docs)"
        ),
    }
}

async fn docs() -> Response {
    let mut response = OPENAPI.into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

async fn stats(State(state): State<Arc<AppState>>) -> Response {
    json(&state.service.stats())
}

fn check_language(language: &str) -> std::result::Result<(), ApiError> {
    if language.eq_ignore_ascii_case("en") {
        Ok(())
    } else {
        Err(ApiError::bad_request(format!(
            "language {language:?} is not supported: kanon's tagger reads English (\"en\")"
        )))
    }
}

async fn supported_entities(uri: axum::http::Uri) -> Response {
    // `?language=en` (axum's query extractor is left out of the build for this one key).
    let language = uri
        .query()
        .into_iter()
        .flat_map(|query| query.split('&'))
        .find_map(|pair| pair.strip_prefix("language="));
    if let Some(language) = language
        && let Err(e) = check_language(language)
    {
        return e.into_response();
    }
    json(&entities::supported())
}

/// `POST /analyze`: one text, Presidio's results.
async fn analyze(
    State(state): State<Arc<AppState>>,
    JsonBody(request): JsonBody<AnalyzeRequest>,
) -> std::result::Result<Response, ApiError> {
    check_language(&request.language)?;
    let wanted: Option<HashSet<EntityType>> = request
        .entities
        .as_deref()
        .map(entities::parse_all)
        .transpose()
        .map_err(ApiError::bad_request)?
        .map(|types| types.into_iter().collect());
    if let Some(threshold) = request.score_threshold
        && !(0.0..=1.0).contains(&threshold)
    {
        return Err(ApiError::bad_request(format!(
            "score_threshold {threshold} is not between 0 and 1"
        )));
    }
    let mut records = state
        .service
        .detect(vec![Document {
            id: "analyze".into(),
            person: None,
            text: request.text,
            split: None,
        }])
        .await?;
    let spans = records.pop().map(|r| r.spans).unwrap_or_default();
    let results: Vec<RecognizerResult> = spans
        .into_iter()
        .filter(|span| {
            wanted
                .as_ref()
                .is_none_or(|wanted| wanted.contains(&span.entity_type.unwrap_or(EntityType::Misc)))
        })
        .map(|span| RecognizerResult {
            entity_type: entities::presidio_name(span.entity_type).into(),
            start: span.start,
            end: span.end,
            score: span.score.unwrap_or(1.0),
        })
        .filter(|result| {
            request
                .score_threshold
                .is_none_or(|threshold| result.score >= threshold)
        })
        .collect();
    Ok(json(&results))
}

/// `POST /anonymize`: Presidio's operators, or kanon's sanitizer (`{"type": "kanon"}`).
async fn anonymize(
    State(state): State<Arc<AppState>>,
    JsonBody(request): JsonBody<AnonymizeRequest>,
) -> std::result::Result<Response, ApiError> {
    let chars = request.text.chars().count();
    presidio::check_results(&request.analyzer_results, chars).map_err(ApiError::bad_request)?;
    for (entity, operator) in &request.anonymizers {
        operator
            .validate()
            .map_err(|e| ApiError::bad_request(format!("anonymizers.{entity}: {e}")))?;
    }
    let kanon: Vec<&Option<String>> = request
        .anonymizers
        .values()
        .filter_map(|operator| match operator {
            Operator::Kanon { strategy } => Some(strategy),
            _ => None,
        })
        .collect();
    if kanon.is_empty() {
        return Ok(json(&presidio::anonymize(
            &request.text,
            &request.analyzer_results,
            &request.anonymizers,
        )));
    }
    if kanon.len() != request.anonymizers.len() || kanon.windows(2).any(|w| w[0] != w[1]) {
        return Err(ApiError::bad_request(
            "anonymizers: the kanon operator sanitizes the whole text (its entities numbered and generalized together): give it alone, as DEFAULT",
        ));
    }
    let strategy = state.service.strategy(kanon[0].as_deref())?;
    let spans: Vec<kanon_core::spans::SpanRecord> = request
        .analyzer_results
        .iter()
        .map(|result| kanon_core::spans::SpanRecord {
            entity_type: Some(entities::sanitizer_type(&result.entity_type)),
            score: Some(result.score),
            ..kanon_core::spans::SpanRecord::new(result.start, result.end)
        })
        .collect();
    let doc = DocumentIn {
        id: "anonymize".into(),
        text: request.text,
        person: None,
        spans: Some(spans),
    };
    let service = Arc::clone(&state.service);
    let sanitized = tokio::task::spawn_blocking(move || {
        let mentions = service::mentions_of(doc.spans.as_deref().unwrap_or_default());
        service.sanitize_rendered(&doc, &mentions, strategy)
    })
    .await
    .map_err(|e| ApiError::internal(format!("the sanitizer's task failed: {e}")))??;
    let (document, replaced) = sanitized;
    let mut items: Vec<Item> = document
        .edits
        .iter()
        .zip(&replaced)
        .map(|(edit, range)| Item {
            start: range.start,
            end: range.end,
            entity_type: entities::presidio_name(Some(edit.original_type)).into(),
            text: edit.replacement.clone(),
            operator: "kanon".into(),
            score: None,
        })
        .collect();
    items.reverse();
    Ok(json(&presidio::AnonymizeResponse {
        text: document.text,
        items,
    }))
}

/// `POST /v1/detect`'s body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DetectRequest {
    documents: Vec<DocumentIn>,
}

/// `POST /v1/detect`: each document's spans, as `kanon detect` writes them.
async fn detect(
    State(state): State<Arc<AppState>>,
    JsonBody(request): JsonBody<DetectRequest>,
) -> std::result::Result<Response, ApiError> {
    let settings = &state.service.config().serve;
    check_documents(&request.documents, settings.max_documents)?;
    let records = state
        .service
        .detect(service::documents_of(&request.documents))
        .await?;
    Ok(json(&DetectAnswer { documents: records }))
}

/// `POST /v1/detect`'s answer. A struct rather than a `json!` value: a value would widen the
/// f32 scores to f64 digits, and each record must read as `kanon detect`'s line.
#[derive(Debug, serde::Serialize)]
struct DetectAnswer {
    documents: Vec<kanon_core::spans::SpansRecord>,
}

/// `POST /v1/sanitize`'s body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SanitizeRequest {
    documents: Vec<DocumentIn>,
    /// A strategy name (default: the service's).
    #[serde(default)]
    strategy: Option<String>,
    /// Run the release gate when the service has one (default true).
    #[serde(default = "yes")]
    certify: bool,
}

fn yes() -> bool {
    true
}

/// `POST /v1/sanitize`: detects the documents without spans, sanitizes (through the gate when
/// configured) and answers `kanon sanitize`'s records, with each certificate.
async fn sanitize(
    State(state): State<Arc<AppState>>,
    JsonBody(request): JsonBody<SanitizeRequest>,
) -> std::result::Result<Response, ApiError> {
    let service = Arc::clone(&state.service);
    check_documents(&request.documents, service.config().serve.max_documents)?;
    let strategy = service.strategy(request.strategy.as_deref())?;
    let mut docs = request.documents;
    let undetected: Vec<usize> = (0..docs.len())
        .filter(|&i| docs[i].spans.is_none())
        .collect();
    if !undetected.is_empty() {
        let to_detect: Vec<Document> = undetected
            .iter()
            .map(|&i| Document {
                id: docs[i].id.clone(),
                person: None,
                text: docs[i].text.clone(),
                split: None,
            })
            .collect();
        for (&i, record) in undetected.iter().zip(service.detect(to_detect).await?) {
            docs[i].spans = Some(record.spans);
        }
    }
    let certify = request.certify && service.has_gate();
    let worker = Arc::clone(&service);
    let sanitized = tokio::task::spawn_blocking(move || {
        let mentions: Vec<_> = docs
            .iter()
            .map(|doc| service::mentions_of(doc.spans.as_deref().unwrap_or_default()))
            .collect();
        worker.sanitize(&docs, &mentions, strategy, certify)
    })
    .await
    .map_err(|e| ApiError::internal(format!("the sanitizer's task failed: {e}")))??;
    Ok(json(&serde_json::json!({
        "strategy": strategy.to_string(),
        "certified": certify,
        "documents": sanitized,
    })))
}

fn check_documents(docs: &[DocumentIn], max: usize) -> std::result::Result<(), ApiError> {
    match service::check_documents(docs, max) {
        Ok(()) => Ok(()),
        Err(Refusal::BadRequest(message)) if docs.len() > max => Err(ApiError {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            message,
        }),
        Err(refusal) => Err(refusal.into()),
    }
}

/// A running server: its address, and how to stop it.
#[derive(Debug)]
pub struct Server {
    address: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    done: Option<std::sync::mpsc::Receiver<std::io::Result<()>>>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Server {
    /// Binds `service.config().serve.address` and serves on a runtime of its own threads
    /// until [`Server::stop`] or [`Server::wait`]'s signal.
    pub fn start(service: Service) -> Result<Server> {
        let settings = service.config().serve.clone();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(settings.http_threads)
            .thread_name("kanon-http")
            .enable_io()
            .enable_time()
            .build()
            .map_err(|source| Error::Io {
                what: "starting the HTTP runtime".into(),
                source,
            })?;
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind(settings.address.as_str()))
            .map_err(|source| Error::Bind {
                address: settings.address.clone(),
                source,
            })?;
        let address = listener.local_addr().map_err(|source| Error::Bind {
            address: settings.address.clone(),
            source,
        })?;
        let (stop, stopped) = oneshot::channel::<()>();
        let (finished, done) = std::sync::mpsc::channel();
        let app = router(Arc::new(service));
        runtime.spawn(async move {
            let result = axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = stopped.await;
                })
                .await;
            let _ = finished.send(result);
        });
        Ok(Server {
            address,
            stop: Some(stop),
            done: Some(done),
            runtime: Some(runtime),
        })
    }

    /// The address it listens on (the port the system chose for port 0).
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Stops taking connections, lets the requests in flight finish, and returns.
    pub fn stop(mut self) -> Result<()> {
        self.shut_down()
    }

    /// Serves until Ctrl-C or SIGTERM, then stops as [`Server::stop`] does.
    pub fn wait(mut self) -> Result<()> {
        if let Some(runtime) = &self.runtime {
            runtime.block_on(shutdown_signal());
        }
        self.shut_down()
    }

    fn shut_down(&mut self) -> Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let result = match self.done.take() {
            Some(done) => done.recv().unwrap_or(Ok(())),
            None => Ok(()),
        };
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(std::time::Duration::from_secs(5));
        }
        result.map_err(|source| Error::Io {
            what: "serving HTTP".into(),
            source,
        })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.shut_down();
    }
}

/// Ctrl-C, or SIGTERM on Unix.
async fn shutdown_signal() {
    let notify = Arc::new(tokio::sync::Notify::new());
    let on_ctrl_c = Arc::clone(&notify);
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_ctrl_c.notify_one();
        }
    });
    #[cfg(unix)]
    {
        let on_term = Arc::clone(&notify);
        tokio::spawn(async move {
            if let Ok(mut signal) =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            {
                signal.recv().await;
                on_term.notify_one();
            }
        });
    }
    notify.notified().await;
}
