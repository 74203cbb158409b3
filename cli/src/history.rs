//! `httpbench history DB`: read a run history (the series, their change points, the HTML dashboard), accept
//! change points, import and export result files; and `run --history`'s append. The store is [`store`]; what
//! the series and change points are is shared's `history`.

mod store;

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use httpbench_shared::history::{analyse, Query, StoredRun};
use httpbench_shared::render;

use crate::args::{HistoryAction, HistoryArgs, HistoryFormat};
use crate::usage::Usage;
use store::{Added, Store};

/// `httpbench history DB [...]`.
pub(crate) fn run(a: &HistoryArgs) -> anyhow::Result<ExitCode> {
    match &a.action {
        Some(HistoryAction::Import { files }) => import(&a.db, files),
        Some(HistoryAction::Export { dir }) => export(&a.db, dir),
        None => show(a),
    }
}

/// Accept what `--ack` names, then print the history and write `--export-html`.
fn show(a: &HistoryArgs) -> anyhow::Result<ExitCode> {
    if let Some(path) = &a.export_html {
        crate::options::checked_html_export(Some(path))?;
    }
    let mut store = Store::open_existing(&a.db)?;
    // Every name checked before any is accepted: a typo accepts nothing.
    let mut accept = Vec::new();
    for run in &a.ack {
        match store.find(run)? {
            Some(id) => accept.push(id),
            None => {
                return Err(Usage(format!("--ack {run}: no run of that number or label in {}", a.db.display())).into())
            }
        }
    }
    for id in &accept {
        store.accept(*id, now_unix_ms())?;
        eprintln!("httpbench: accepted the change points at run #{id}");
    }
    let runs: Vec<StoredRun> = store.runs()?;
    let mut query = Query { metric: a.metric, ..Query::default() };
    query.detect.alpha = a.alpha;
    if let Some(min) = a.min_change {
        query.min_change = min;
    }
    let analysis = analyse(&runs, &query);
    let out = match (a.format, a.changes) {
        (HistoryFormat::Json, _) => httpbench_shared::history::to_json(&analysis),
        (HistoryFormat::Markdown, _) => render::changes_markdown(&analysis, a.nearest),
        (HistoryFormat::Text, true) => render::changes_text(&analysis),
        (HistoryFormat::Text, false) => render::history_text(&analysis),
    };
    crate::output::print(&out)?;
    let title = a.db.file_name().map_or_else(|| a.db.display().to_string(), |n| n.to_string_lossy().into_owned());
    let files: Vec<(&Path, String)> =
        a.export_html.iter().map(|p| (p.as_path(), render::history_html(&analysis, &title))).collect();
    Ok(if crate::output::write_all(&files) { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Add result files, each one run labelled by its file's stem. A file that cannot be read is told and the
/// others still added (exit 2 at the end).
fn import(db: &Path, files: &[std::path::PathBuf]) -> anyhow::Result<ExitCode> {
    let mut store = Store::open_or_create(db)?;
    let mut refused = false;
    for path in files {
        let shown = path.display();
        let text = match crate::files::read_text(path, crate::compare::MAX_FILE_BYTES) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("httpbench: error: {shown}: {e}; not imported");
                refused = true;
                continue;
            }
        };
        let label = path.file_stem().map(|s| s.to_string_lossy().into_owned());
        match store.add(&text, label.as_deref(), now_unix_ms()) {
            Ok(Added::New(id)) => eprintln!("httpbench: {shown}: added as run #{id}"),
            Ok(Added::Already(id)) => eprintln!("httpbench: {shown}: already in the history as run #{id}; skipped"),
            Err(e) if e.downcast_ref::<Usage>().is_some() => {
                eprintln!("httpbench: error: {shown}: {e}; not imported");
                refused = true;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(if refused { ExitCode::from(2) } else { ExitCode::SUCCESS })
}

/// Write each run back as the result file it was added as. Never overwrites: each file is created only where
/// no file (or link) is, and one already there with other content is told and left as it was (exit 1).
fn export(db: &Path, dir: &Path) -> anyhow::Result<ExitCode> {
    let store = Store::open_existing(db)?;
    std::fs::create_dir_all(dir).map_err(|e| Usage(format!("{}: cannot create the folder: {e}", dir.display())))?;
    let runs = store.files()?;
    let names = file_names(&runs);
    let mut kept = false;
    for ((_, _, file), name) in runs.iter().zip(names) {
        let path = dir.join(name);
        let mut temp = tempfile::NamedTempFile::new_in(dir)?;
        std::io::Write::write_all(&mut temp, file.as_bytes())?;
        temp.as_file().sync_all()?;
        // A hard link made in one step: it fails where anything already is, so nothing is ever replaced.
        match temp.persist_noclobber(&path) {
            Ok(_) => {}
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => {
                if std::fs::read_to_string(&path).ok().as_deref() != Some(file.as_str()) {
                    eprintln!(
                        "httpbench: error: {}: already exists with other content; left as it was",
                        path.display()
                    );
                    kept = true;
                }
            }
            Err(e) => return Err(anyhow::anyhow!("{}: cannot write: {}", path.display(), e.error)),
        }
    }
    Ok(if kept { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// Each run's exported file name, in `runs`' order: `LABEL.json` when its label is a plain file name no other run
/// has (importing it gives the label back), else `LABEL-run-N.json`, or `run-N.json` without a label; names that
/// would still meet (also by case, on a case-insensitive disk) get `-run-N`.
fn file_names(runs: &[(i64, Option<String>, String)]) -> Vec<String> {
    let plain = |label: &str| safe_name(label) == label && !label.is_empty() && !label.starts_with('.');
    let shared = |label: &str| runs.iter().filter(|(_, other, _)| other.as_deref() == Some(label)).count() > 1;
    let mut taken: Vec<String> = Vec::new();
    runs.iter()
        .map(|(id, label, _)| {
            let stem = match label.as_deref() {
                Some(l) if plain(l) && !shared(l) => l.to_string(),
                Some(l) if !safe_name(l).is_empty() => format!("{}-run-{id}", safe_name(l)),
                _ => format!("run-{id}"),
            };
            let mut name = format!("{stem}.json");
            if taken.contains(&name.to_lowercase()) {
                name = format!("{stem}-run-{id}.json");
            }
            taken.push(name.to_lowercase());
            name
        })
        .collect()
}

/// A label as a file name's part: letters, digits, `.`, `_` and `-` kept, anything else `_`.
fn safe_name(label: &str) -> String {
    label.chars().take(64).map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect()
}

/// The history a run will be added to, opened (created if missing) before the run so a file that is not a
/// history is refused before any work.
pub(crate) struct Pending {
    store: Store,
    label: Option<String>,
    path: std::path::PathBuf,
}

impl Pending {
    /// Open `db` and settle the run's label: `commit`, else the current folder's git commit.
    pub(crate) fn open(db: &Path, commit: Option<&str>) -> anyhow::Result<Pending> {
        let store = Store::open_or_create(db)?;
        let label = commit.map(str::to_string).or_else(git_commit);
        Ok(Pending { store, label, path: db.to_path_buf() })
    }

    /// Add the run's result file; say where it went, or why it did not (the report is printed either way).
    pub(crate) fn add(mut self, file: &str) -> bool {
        match self.store.add(file, self.label.as_deref(), now_unix_ms()) {
            Ok(Added::New(id)) => {
                eprintln!("httpbench: added to the history {} as run #{id}", self.path.display());
                true
            }
            Ok(Added::Already(id)) => {
                eprintln!("httpbench: the history {} has this run already (#{id})", self.path.display());
                true
            }
            Err(e) => {
                eprintln!("httpbench: error: cannot add the run to the history {}: {e:#}", self.path.display());
                false
            }
        }
    }
}

/// The current folder's commit (`git rev-parse --short HEAD`), if git is there and it is a repository; waits
/// at most 5 s.
fn git_commit() -> Option<String> {
    let mut child = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take()?, &mut out).ok()?;
    Some(out.trim().to_string()).filter(|s| !s.is_empty())
}

fn now_unix_ms() -> u64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::file_names;

    #[test]
    fn exported_names_never_meet() {
        let run = |id: i64, label: Option<&str>| (id, label.map(str::to_string), String::new());
        let runs = [
            run(1, Some("c1")),
            run(2, Some("C1")),
            run(3, None),
            run(4, Some("run-3")),
            run(5, Some("a b")),
            run(6, Some("x")),
            run(7, Some("x")),
        ];
        assert_eq!(
            file_names(&runs),
            [
                "c1.json",
                "C1-run-2.json",
                "run-3.json",
                "run-3-run-4.json",
                "a_b-run-5.json",
                "x-run-6.json",
                "x-run-7.json"
            ]
        );
    }
}
