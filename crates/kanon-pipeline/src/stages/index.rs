//! The index stage: `kanon index build` over the run's KG.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{
    Layout, PipelineStage, StageRun, StageSummary, Upstream, Wiring, missing, resolve_opt,
};
use crate::error::{Error, Result};
use crate::record::StageHasher;
use crate::stage::Stage;

/// `kanon index build`'s settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexStage {
    /// Extra generic terms never to index (one a line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whitelist: Option<PathBuf>,
    /// Use only `whitelist`, not the default one.
    #[serde(default)]
    pub replace_whitelist: bool,
}

impl PipelineStage for IndexStage {
    fn stage(&self) -> Stage {
        Stage::Index
    }

    fn check_inputs(&self, layout: &Layout) -> Result<()> {
        if !layout.has(Stage::Kg) {
            return Err(missing(Stage::Index, "a [kg] section"));
        }
        Ok(())
    }

    fn resolve_paths(&mut self, base: &Path) {
        resolve_opt(base, &mut self.whitelist);
    }

    fn hash(
        &self,
        _: &Wiring<'_>,
        upstream: &Upstream<'_>,
        hasher: &mut StageHasher,
    ) -> Result<()> {
        hasher.params(self)?;
        if let Some(whitelist) = &self.whitelist {
            hasher.path(whitelist)?;
        }
        hasher.upstream(&upstream.or_empty(Stage::Kg));
        Ok(())
    }

    fn run(&self, run: &mut StageRun<'_>) -> Result<StageSummary> {
        let job = kanon_index::BuildJob {
            whitelist: self.whitelist.clone(),
            replace_whitelist: self.replace_whitelist,
            ..kanon_index::BuildJob::new(run.wiring.kg_dir(), run.paths().index())
        };
        let summary = kanon_index::job::build(&job, run.progress).map_err(Error::Index)?;
        Ok(StageSummary::new(summary.headline(), &summary.meta))
    }
}
