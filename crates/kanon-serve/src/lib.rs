//! `kanon serve`: kanon's detector, sanitizer and release gate behind HTTP. Presidio's REST
//! bodies (`POST /analyze`, `POST /anonymize`, `GET /health`, `GET /supportedentities`), so a
//! Presidio client switches by changing the URL, and kanon's own batch endpoints
//! (`POST /v1/detect`, `POST /v1/sanitize`, with the gate's certificates); the OpenAPI
//! description at `/docs`. Concurrent requests share the tagger's forward passes
//! ([`batcher`]).
//!
//! ```
//! use kanon_core::{Document, Span};
//! use kanon_detect::Detector;
//! use kanon_serve::{Server, Service, ServiceConfig};
//!
//! /// A stand-in for the tagger: masks "Graz".
//! struct Graz;
//! impl Detector for Graz {
//!     fn detect(&self, doc: &Document) -> kanon_detect::Result<Vec<Span>> {
//!         let chars: Vec<char> = doc.text.chars().collect();
//!         Ok((0..chars.len().saturating_sub(3))
//!             .filter(|&i| chars[i..i + 4].iter().collect::<String>() == "Graz")
//!             .map(|i| Span::new(i, i + 4))
//!             .collect())
//!     }
//! }
//!
//! let mut config = ServiceConfig::default();
//! config.serve.address = "127.0.0.1:0".into(); // any free port
//! config.serve.log = kanon_serve::LogLevel::Off;
//! let service = Service::with_detector(config, || Ok(Graz))?;
//! let server = Server::start(service)?;
//!
//! // Presidio's request body; offsets are code points, as in Python.
//! let url = format!("http://{}/analyze", server.address());
//! let body = r#"{"text": "Zoë was born in Graz.", "language": "en"}"#;
//! let answer = ureq::post(&url).content_type("application/json").send(body)?.into_body().read_to_string()?;
//! assert_eq!(answer, r#"[{"entity_type":"MISC","start":16,"end":20,"score":1.0}]"#);
//! server.stop()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

pub mod batcher;
pub mod config;
pub mod entities;
pub mod error;
pub mod presidio;
pub mod server;
pub mod service;

pub use batcher::{BatchStats, Batcher};
pub use config::{GateSettings, LogLevel, ServeSettings, ServiceConfig};
pub use error::{Error, Result};
pub use server::Server;
pub use service::{DocumentIn, SanitizedOut, Service};
