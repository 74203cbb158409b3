//! Placeholder for the browser page (issue 3): proves today that `shared` links into a wasm32 crate, so the
//! page can render reports with the very code the CLI uses.

use httpbench_shared::{render, Format, RenderOptions, Report, Source};

/// Render a report as the CLI's text report does.
pub fn text_report(report: &Report) -> String {
    render(&[Source::new(report)], Format::Text, &RenderOptions::default())
}
