//! What the renderers draw from: the cases of one or more reports, each with a unique, readable label.
//!
//! A label names only what varies: `curl` alone when one report ran one mode, `curl/fresh` when modes differ,
//! `curl/fresh/h2` when HTTP versions differ too, `curl/64k/c16` when body sizes and concurrency levels do
//! (the same parts as the session's [`crate::session::Matrix::label`]),
//! `native/curl` vs `browser/fetch` when reports from both environments are shown together, and a source tag
//! (e.g. a file name) when several reports of the same environment are compared.

use std::collections::BTreeSet;

use crate::model::{Case, Report};
use crate::session::{CaseHistogram, CaseKey};
use crate::stats::Bin;

/// One report to render, with an optional tag naming where it came from (a file stem, `baseline`, ...), and
/// the latency histograms its run kept.
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    /// The report.
    pub report: &'a Report,
    /// Short name of the source, used in labels when environments alone do not tell reports apart.
    pub tag: Option<&'a str>,
    /// The histograms of this report's cases, each named by its case and found by that name, never by
    /// position; empty for a report read from a file (it keeps percentiles only). Carried by the source, not
    /// beside the list of sources, because two reports can hold the same case (a native and a browser
    /// `reqwest`), and only the report a histogram came from tells which one it belongs to.
    pub histograms: &'a [CaseHistogram],
    /// The run this source belongs to, when several files make one run (`compare A1 A2 --against B1 B2`
    /// pools each side's files); `None`: its tag names its run.
    pub run: Option<&'a str>,
}

impl<'a> Source<'a> {
    /// A report with no tag and no histograms.
    pub fn new(report: &'a Report) -> Self {
        Source { report, tag: None, histograms: &[], run: None }
    }

    /// A report with a tag and no histograms.
    pub fn tagged(report: &'a Report, tag: Option<&'a str>) -> Self {
        Source { report, tag, histograms: &[], run: None }
    }

    /// This source with its run's histograms.
    pub fn with_histograms(self, histograms: &'a [CaseHistogram]) -> Self {
        Source { histograms, ..self }
    }

    /// This source as part of the run named `run`.
    pub fn in_run(self, run: &'a str) -> Self {
        Source { run: Some(run), ..self }
    }

    /// The histogram of `case`, one of this report's cases, if its run kept one.
    pub fn histogram(&self, case: &Case) -> Option<&'a [Bin]> {
        let key = CaseKey::of(case);
        self.histograms.iter().find(|h| h.key == key).map(|h| h.bins.as_slice())
    }
}

/// A case ready to render.
#[derive(Debug, Clone)]
pub struct Row<'a> {
    /// Unique label in this view.
    pub label: String,
    /// The case's figures.
    pub case: &'a Case,
    /// The report it belongs to.
    pub report: &'a Report,
    /// The case's latency histogram, where its run kept one (see [`Source::histograms`]).
    pub histogram: Option<&'a [Bin]>,
}

/// Label every case of `sources`, in order.
pub fn rows<'a>(sources: &[Source<'a>]) -> Vec<Row<'a>> {
    // `extend`, not `collect`: collecting into a B-tree sorts, one more copy of the sort in the page.
    let mut modes = BTreeSet::new();
    modes.extend(sources.iter().flat_map(|s| s.report.cases.iter().map(|c| c.mode)));
    // Compared with the first, not collected in a set: one more B-tree type would be one more in the page.
    let mut versions_seen = sources.iter().flat_map(|s| s.report.cases.iter().map(|c| c.http_version));
    let first_version = versions_seen.next();
    let versions_differ = versions_seen.any(|v| Some(v) != first_version);
    let first = sources.iter().find_map(|s| s.report.cases.first());
    let differ =
        |f: fn(&Case) -> Option<u64>| sources.iter().flat_map(|s| &s.report.cases).any(|c| f(c) != first.and_then(f));
    let (sizes_differ, delays_differ) = (differ(|c| c.body_bytes), differ(|c| c.server_delay_ms));
    let levels_differ = differ(|c| Some(c.in_flight()));
    let links_differ = sources.iter().flat_map(|s| &s.report.cases).any(|c| c.link() != first.and_then(|f| f.link()));
    // Native, chromium, firefox: the environments' names tell the reports apart when each is one report's.
    let mut names = BTreeSet::new();
    names.extend(sources.iter().map(|s| s.report.environment.name()));
    let names_tell_apart = names.len() == sources.len();
    let mut rows = Vec::new();
    for (index, source) in sources.iter().enumerate() {
        let prefix = match (sources.len(), names_tell_apart, source.tag) {
            (1, _, _) => None,
            (_, true, _) => Some(source.report.environment.name().to_string()),
            (_, false, Some(tag)) => Some(tag.to_string()),
            (_, false, None) => Some(format!("#{}", index + 1)),
        };
        for case in &source.report.cases {
            let mut label = String::new();
            if let Some(p) = &prefix {
                label.push_str(p);
                label.push('/');
            }
            label.push_str(&case.client);
            if modes.len() > 1 {
                label.push('/');
                label.push_str(case.mode.as_str());
            }
            if versions_differ {
                label.push('/');
                label.push_str(case.http_version.short());
            }
            let parts = LoadParts {
                body_bytes: sizes_differ.then_some(case.body_bytes),
                server_delay_ms: delays_differ.then_some(case.server_delay_ms),
                concurrency: levels_differ.then(|| case.in_flight()),
                link: links_differ.then(|| case.link()),
            };
            parts.push_to(&mut label);
            rows.push(Row { label, case, report: source.report, histogram: source.histogram(case) });
        }
    }
    dedupe(&mut rows);
    rows
}

/// The load parts of a case label, each `Some` when that dimension varies among the cases shown: `/64k` (or
/// `/page` for the target as given), `/d5ms`, `/c16`. One rule for the session's labels and the renderers'.
#[derive(Debug, Clone, Copy, Default)]
pub struct LoadParts {
    /// The body size asked for, when sizes vary.
    pub body_bytes: Option<Option<u64>>,
    /// The server delay asked for, when delays vary.
    pub server_delay_ms: Option<Option<u64>>,
    /// Requests in flight, when levels vary.
    pub concurrency: Option<u64>,
    /// The emulated link, when links vary (`None` inside: loopback).
    pub link: Option<Option<crate::protocol::Link>>,
}

impl LoadParts {
    /// Append the parts to `label`.
    pub fn push_to(self, label: &mut String) {
        if let Some(size) = self.body_bytes {
            let size = size.map_or_else(|| "page".to_string(), crate::protocol::size_label);
            label.push_str(&format!("/{size}"));
        }
        if let Some(ms) = self.server_delay_ms {
            label.push_str(&format!("/d{}ms", ms.unwrap_or(0)));
        }
        if let Some(n) = self.concurrency {
            label.push_str(&format!("/c{n}"));
        }
        if let Some(link) = self.link {
            label.push('/');
            label.push_str(&link.map_or_else(|| "loopback".to_string(), |l| l.label()));
        }
    }
}

/// Two sources with the same tag (or a report with the same case twice) would give equal labels; number them.
fn dedupe(rows: &mut [Row<'_>]) {
    for i in 1..rows.len() {
        let base = rows[i].label.clone();
        let mut n = 2;
        while rows[..i].iter().any(|r| r.label == rows[i].label) {
            rows[i].label = format!("{base}#{n}");
            n += 1;
        }
    }
}
