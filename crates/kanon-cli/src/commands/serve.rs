//! `kanon serve`: the options over a config file into one [`kanon_serve::ServiceConfig`],
//! the service opened, then served until Ctrl-C or SIGTERM (requests in flight finish).

use std::io::Write;

use anyhow::Result;
use kanon_serve::{Server, Service, ServiceConfig};

use crate::cli::ServeArgs;

pub fn run(args: &ServeArgs, out: &mut dyn Write) -> Result<()> {
    let mut config = match &args.config {
        Some(path) => ServiceConfig::load(path)?,
        None => ServiceConfig::default(),
    };
    let serve = &mut config.serve;
    if let Some(address) = &args.address {
        serve.address = address.clone();
    }
    serve.max_in_flight = args.max_in_flight.unwrap_or(serve.max_in_flight);
    serve.max_body_bytes = args.max_body_bytes.unwrap_or(serve.max_body_bytes);
    serve.max_documents = args.max_documents.unwrap_or(serve.max_documents);
    serve.timeout_seconds = args.timeout_seconds.unwrap_or(serve.timeout_seconds);
    serve.batch_wait_ms = args.batch_wait_ms.unwrap_or(serve.batch_wait_ms);
    serve.batch_tokens = args.batch_tokens.unwrap_or(serve.batch_tokens);
    serve.log = args.log.unwrap_or(serve.log);
    if let Some(model) = &args.model {
        config.model = Some(model.clone());
    }
    if args.threshold.is_some() {
        config.detect.threshold = args.threshold;
    }
    if let Some(strategy) = args.strategy {
        config.sanitize.sanitizer.strategy = strategy;
    }
    config.validate()?;
    let strategy = config.sanitize.sanitizer.strategy;
    let gate = config.gate.is_some();
    let service = Service::open(config)?;
    let server = Server::start(service)?;
    // The address on stdout (a script reads the port it got), then the service's log on stderr.
    writeln!(
        out,
        "kanon serve: http://{} (strategy {strategy}{}; Ctrl-C stops after the requests in flight)",
        server.address(),
        if gate { ", release gate on" } else { "" }
    )?;
    out.flush()?;
    server.wait()?;
    writeln!(out, "kanon serve: stopped")?;
    Ok(())
}
