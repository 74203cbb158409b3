//! `httpbench compare`: read result files and render them as one report (with `--export-html`, as the HTML
//! report too). Each file is refused with a message naming it when it is too large, not JSON, of another
//! schema version, or holds impossible figures. With `--fail-if-slower`, the newest run is gated against the one
//! before ([`gate`]).

mod gate;

use std::path::Path;
use std::process::ExitCode;

use anyhow::bail;
use httpbench_shared::parse::{parse_reports, MAX_CASES};
use httpbench_shared::protocol::share;
use httpbench_shared::{render, RenderOptions, Report, Source};

use crate::options::CompareOptions;
use crate::usage::Usage;

/// Result files larger than this are refused, counted while reading (a real one is a few KiB per case).
pub(crate) const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Load, print the report and write `--export-html`: exit 0, or 1 when the file could not be written.
pub(crate) fn run(options: &CompareOptions) -> anyhow::Result<ExitCode> {
    let mut loaded: Vec<(String, Report)> = Vec::new();
    load_into(&mut loaded, &options.files)?;
    let base_reports = loaded.len();
    load_into(&mut loaded, &options.against)?;
    let cases: usize = loaded.iter().map(|(_, r)| r.cases.len()).sum();
    if cases > MAX_CASES {
        bail!(Usage(format!(
            "these files hold {cases} cases, more than the {MAX_CASES} one report shows; compare fewer"
        )));
    }
    // With --against, each side's files are one run, their rounds pooled.
    let sides =
        (!options.against.is_empty()).then(|| (side_name(&loaded[..base_reports]), side_name(&loaded[base_reports..])));
    let sources: Vec<Source<'_>> = loaded
        .iter()
        .enumerate()
        .map(|(i, (tag, r))| {
            let source = Source::tagged(r, Some(tag));
            match &sides {
                Some((base, change)) => source.in_run(if i < base_reports { base } else { change }),
                None => source,
            }
        })
        .collect();
    if let Some(value) = &options.reference {
        check_reference(value, &loaded)?;
    }
    let render_options = RenderOptions {
        basis: options.basis,
        change: options.rule,
        reference: options.reference.clone(),
        wide: options.wide,
    };
    let comparisons = render::comparisons(&sources, options.rule);
    gate::check(comparisons.last(), options)?;
    let gated = options.gate.and(comparisons.last());
    let out = match (options.format, gated) {
        // The gate's figures beside the files, for a CI job to read.
        (httpbench_shared::Format::Json, Some(cmp)) => gate_json(cmp, &sources)?,
        (format, _) => render(&sources, format, &render_options),
    };
    match options.format {
        httpbench_shared::Format::Text => crate::output::print_report(&out)?,
        _ => crate::output::print(&out)?,
    }
    // Result files keep percentiles, not histograms: the HTML report draws percentile charts for every case.
    let files: Vec<(&Path, String)> =
        options.export_html.iter().map(|path| (path.as_path(), render::html(&sources, &render_options))).collect();
    let written = crate::output::write_all(&files);
    if let (Some(g), Some(cmp)) = (options.gate, gated) {
        if let Some(failed) = gate::verdict(cmp, g) {
            return Ok(failed);
        }
    }
    Ok(if written { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// `--reference`, by shared's one rule, against the clients of the files read: an environment's clients are
/// those of every file of it.
fn check_reference(value: &str, loaded: &[(String, Report)]) -> anyhow::Result<()> {
    let mut sides: Vec<(&str, Vec<String>)> = Vec::new();
    for (_, r) in loaded {
        let name = r.environment.name();
        let clients = r.cases.iter().map(|c| c.client.clone());
        match sides.iter_mut().find(|(n, _)| *n == name) {
            Some((_, known)) => known.extend(clients.filter(|c| !known.contains(c)).collect::<Vec<_>>()),
            None => {
                let mut unique: Vec<String> = Vec::new();
                clients.for_each(|c| {
                    if !unique.contains(&c) {
                        unique.push(c)
                    }
                });
                sides.push((name, unique));
            }
        }
    }
    httpbench_shared::headline::check_reference("--reference", value, &sides).map_err(|e| Usage(e).into()).map(|_| ())
}

/// `{"gate": ..., "reports": [...]}`: the newest comparison and every report, pretty, newline-terminated.
fn gate_json(cmp: &httpbench_shared::change::Comparison, sources: &[Source<'_>]) -> anyhow::Result<String> {
    let reports: Vec<&Report> = sources.iter().map(|s| s.report).collect();
    let value = serde_json::json!({ "gate": cmp, "reports": reports });
    Ok(serde_json::to_string_pretty(&value)? + "\n")
}

/// Load `files` (or links) into `loaded`, each file's reports under one tag of its own: its stem, `base#2`
/// for a second file of that name, `link`, `link2` for links.
fn load_into(loaded: &mut Vec<(String, Report)>, files: &[std::path::PathBuf]) -> anyhow::Result<()> {
    for path in files {
        let given = path.to_string_lossy();
        let link = share::is_link(&given) && !path.exists();
        // A link is named by its start, as its errors are; a file by its path.
        let shown = if link { format!("{}...", given.chars().take(60).collect::<String>()) } else { given.to_string() };
        let (tag, reports) = if link {
            let mut links: Vec<&str> =
                loaded.iter().map(|(t, _)| t.as_str()).filter(|t| t.starts_with("link")).collect();
            links.dedup();
            let tag = if links.is_empty() { "link".to_string() } else { format!("link{}", links.len() + 1) };
            (tag, load_link(&given)?)
        } else {
            let tag = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "?".into());
            (tag, load(path)?)
        };
        let taken = |t: &str| loaded.iter().any(|(seen, _)| seen == t);
        let tag =
            (1..).map(|n| if n == 1 { tag.clone() } else { format!("{tag}#{n}") }).find(|t| !taken(t)).unwrap_or(tag);
        for report in reports {
            match loaded.iter().find(|(_, seen)| *seen == report) {
                Some((first, _)) => eprintln!("httpbench: warning: {}", repeated(&shown, first)),
                None => loaded.push((tag.clone(), report)),
            }
        }
    }
    Ok(())
}

/// The warning for a report given twice (the same file twice, a copy, or a link to it), by content: no two runs
/// measure the same figures, and counted twice its rounds would weigh twice in a pooled run and narrow the
/// interval the gate judges by.
fn repeated(shown: &str, first: &str) -> String {
    let shown = httpbench_shared::render::escape_controls(shown);
    format!("{shown}: the same report as {first} (given twice): counted once")
}

/// The name of one side's pooled run: its file's tag, or the first one's and how many more.
fn side_name(side: &[(String, Report)]) -> String {
    let mut tags: Vec<&str> = Vec::new();
    for (t, _) in side {
        if !tags.contains(&t.as_str()) {
            tags.push(t);
        }
    }
    match tags.as_slice() {
        [] => "nothing".to_string(),
        [one] => one.to_string(),
        [first, rest @ ..] => format!("{first} and {} more", rest.len()),
    }
}

/// The reports in a link's fragment; errors name the link by its start.
fn load_link(link: &str) -> anyhow::Result<Vec<Report>> {
    let shown: String = link.chars().take(60).collect();
    let text = share::decode(link).map_err(|e| Usage(format!("{shown}...: {e}")))?;
    parse_reports(&text).map_err(|e| Usage(format!("{shown}...: {e}")).into())
}

/// `httpbench share`: the link to `page` with these files' reports (one, or a list) in it, checked first.
pub(crate) fn share(files: &[std::path::PathBuf], page: &url::Url) -> anyhow::Result<String> {
    let mut reports = Vec::new();
    for f in files {
        reports.extend(load(f)?);
    }
    // Compact JSON: the link carries it; the page reads one report or a list.
    let json = match reports.as_slice() {
        [one] => serde_json::to_string(one)?,
        all => serde_json::to_string(all)?,
    };
    let link = share::encode(page.as_str(), &json);
    // Too long to share is a warning here, not a refusal: the link works in a browser, and the user asked for it.
    if let Err(e) = share::check_length(&link) {
        eprintln!("httpbench: warning: {e}; share the file instead");
    }
    Ok(link)
}

/// Read one file's reports.
pub(crate) fn load(path: &Path) -> anyhow::Result<Vec<Report>> {
    let shown = path.display();
    let text = crate::files::read_text(path, MAX_FILE_BYTES).map_err(|e| Usage(format!("{shown}: {e}")))?;
    parse_reports(&text).map_err(|e| Usage(format!("{shown}: {e}")).into())
}
