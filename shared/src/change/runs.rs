//! Runs: the reports of one result file (or link) together, as `compare` reads them, in the order they ran.

use crate::model::Report;
use crate::view::Source;

/// One run of a plan: the reports one file holds (a `run --browser` file holds the native and the browser one).
#[derive(Debug, Clone)]
pub struct Run<'a> {
    /// The run's name: its file's stem (or the pooled files' names), or `#N` for an untagged source.
    pub name: String,
    /// Its reports, in file order.
    pub reports: Vec<&'a Report>,
    /// When it started (milliseconds since the Unix epoch), where every report says.
    pub started_unix_ms: Option<u64>,
}

/// The runs of `sources`: consecutive sources of the same run (their [`Source::run`], else their tag) form one. Two runs stay in the order given
/// (`compare base.json new.json`: the user says which is the base, whenever each ran); three or more, a trend,
/// are ordered by start time when every run records one (files given in any order, as `results/*.json` lists
/// them), else in the order given.
pub fn runs<'a>(sources: &[Source<'a>]) -> Vec<Run<'a>> {
    let mut out: Vec<Run<'a>> = Vec::new();
    for (i, s) in sources.iter().enumerate() {
        let run = s.run.or(s.tag);
        match out.last_mut() {
            Some(last) if run.is_some() && run == Some(last.name.as_str()) => last.reports.push(s.report),
            _ => out.push(Run {
                name: run.map_or_else(|| format!("#{}", i + 1), str::to_string),
                reports: vec![s.report],
                started_unix_ms: None,
            }),
        }
    }
    for run in &mut out {
        let times: Option<Vec<u64>> = run.reports.iter().map(|r| r.environment.started_unix_ms).collect();
        run.started_unix_ms = times.and_then(|t| t.into_iter().min());
    }
    if out.len() > 2 && out.iter().all(|r| r.started_unix_ms.is_some()) {
        // A stable sort: runs that started in the same millisecond keep their order.
        let indices: Vec<usize> = (0..out.len()).collect();
        let order = crate::order::sorted_by(&indices, &|a, b| out[*a].started_unix_ms.cmp(&out[*b].started_unix_ms));
        out = order.into_iter().map(|i| out[i].clone()).collect();
    }
    out
}
