//! The HTML report: one self-contained file that opens offline in any browser and can be mailed or attached
//! to an issue as it is. Inline CSS and inline SVG only: no script, no external asset, no web font, so
//! nothing is fetched and nothing runs. Its body is the results composition ([`super::results`]) that the
//! page shows too, under a title; its style is the sheet the page links (`report.css`), inlined.

use super::charts::escape;
use super::RenderOptions;
use crate::view::Source;

/// The one stylesheet of the results, the page's and the report's (the page links the same file through
/// trunk, see `index.html`).
const STYLE: &str = include_str!("report.css");

/// Render the HTML report (see [`super::html`]).
pub(super) fn render(sources: &[Source<'_>], options: &RenderOptions) -> String {
    let url = sources.first().map_or("", |s| s.report.target.url.as_str());
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>httpbench report: GET {}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<main>\n\
         <h1>httpbench report</h1>\n{}</main>\n</body>\n</html>\n",
        escape(url),
        super::results(sources, options)
    )
}
