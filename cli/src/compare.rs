//! `httpbench compare`: read result files and render them as one report. Each file is refused with a message
//! naming it when it is too large, not JSON, of another schema version, or holds impossible figures.

use std::path::Path;

use anyhow::bail;
use httpbench_shared::parse::parse_reports;
use httpbench_shared::{render, RenderOptions, Report, Source};

use crate::options::{CompareOptions, Usage};

/// Result files larger than this are refused before reading (a real one is a few KiB).
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Load and render.
pub fn run(options: &CompareOptions) -> anyhow::Result<String> {
    let mut loaded: Vec<(String, Report)> = Vec::new();
    for path in &options.files {
        let tag = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "?".into());
        for report in load(path)? {
            loaded.push((tag.clone(), report));
        }
    }
    let sources: Vec<Source<'_>> = loaded.iter().map(|(tag, r)| Source { report: r, tag: Some(tag) }).collect();
    Ok(render(&sources, options.format, &RenderOptions { basis: options.basis }))
}

/// Read one file's reports.
pub fn load(path: &Path) -> anyhow::Result<Vec<Report>> {
    let shown = path.display();
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => bail!(Usage(format!("{shown}: cannot read it ({e})"))),
    };
    if meta.len() > MAX_FILE_BYTES {
        bail!(Usage(format!(
            "{shown}: {} bytes is too large for a result file (limit {MAX_FILE_BYTES}); is it the right file?",
            meta.len()
        )));
    }
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => bail!(Usage(format!("{shown}: cannot read it as text ({e})"))),
    };
    parse_reports(&text).map_err(|e| Usage(format!("{shown}: {e}")).into())
}
