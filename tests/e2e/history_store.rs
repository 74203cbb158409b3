//! The history store under stress: several processes adding runs at once lose nothing, and processes killed
//! while adding (SIGKILL at random moments, some of them inside the write transaction) leave a history whose
//! every run is whole, which the next writer opens and adds to.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Instant;

use serde_json::Value;

use crate::support::cli::{bin, export_run, run};
use crate::support::scratch;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `n` distinct result files in `dir` (one real run, each copy started a minute later), with `cases` cases each
/// (the run's one case repeated with another client name, to make a transaction that takes a while).
fn result_files(dir: &Path, n: usize, cases: usize) -> Vec<PathBuf> {
    let real = dir.join("real.json");
    let text = export_run(&real, &crate::support::cli::SMALL_RAW);
    let mut v: Value = serde_json::from_str(&text).unwrap();
    let case = v["cases"][0].clone();
    v["cases"] = (0..cases)
        .map(|i| {
            let mut c = case.clone();
            c["client"] = format!("raw{i}").into();
            c
        })
        .collect();
    let start = v["environment"]["started_unix_ms"].as_u64().unwrap();
    (0..n)
        .map(|i| {
            v["environment"]["started_unix_ms"] = (start + 60_000 * i as u64).into();
            let path = dir.join(format!("r{i:03}.json"));
            std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
            path
        })
        .collect()
}

/// Every run of the history at `db` with the number of cases its index holds and its file has: they must agree
/// (a run is whole or absent). Read with SQLite directly, after its own integrity check.
fn runs_and_cases(db: &Path) -> Vec<(i64, i64, usize)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok");
    let mut q = conn
        .prepare("SELECT runs.id, (SELECT count(*) FROM cases WHERE run_id = runs.id), file FROM runs ORDER BY id")
        .unwrap();
    q.query_map([], |r| {
        let file: String = r.get(2)?;
        let v: Value = serde_json::from_str(&file).unwrap();
        Ok((r.get(0)?, r.get(1)?, v["cases"].as_array().unwrap().len()))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

#[test]
fn writers_at_once_lose_nothing() {
    let dir = scratch("history-concurrent");
    let db = dir.join("h.db");
    let files = result_files(&dir, 6, 50);
    // Six importers and two runs, all started at once on a history that does not exist yet.
    let mut children: Vec<_> = files
        .iter()
        .map(|f| bin().args(["history", s(&db), "import", s(f)]).stderr(Stdio::piped()).spawn().unwrap())
        .collect();
    for label in ["run-a", "run-b"] {
        let args = ["run", "-n", "50", "--warmup", "0", "--clients", "raw", "--mode", "reuse", "--format", "csv"];
        let mut child = bin();
        child.args(args).args(["--history", s(&db), "--commit", label]).stdout(Stdio::null()).stderr(Stdio::piped());
        children.push(child.spawn().unwrap());
    }
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let runs = runs_and_cases(&db);
    assert_eq!(runs.len(), 8, "{runs:?}");
    assert!(runs.iter().all(|(_, indexed, cases)| *indexed as usize == *cases), "{runs:?}");
    let (code, out, err) = run(&["history", s(&db), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"runs\": 8"), "{out}");
}

#[test]
fn a_writer_killed_mid_append_leaves_every_run_whole() {
    let dir = scratch("history-kill");
    let db = dir.join("h.db");
    let files = result_files(&dir, 61, 500);
    // How long one import takes, to kill the others at random moments within it.
    let started = Instant::now();
    let (code, _, err) = run(&["history", s(&db), "import", s(&files[0])]);
    assert_eq!(code, 0, "{err}");
    let whole = started.elapsed();
    let journal = PathBuf::from(format!("{}-journal", db.display()));
    let mut hot = 0;
    // Killed at 59 moments spread evenly over an import's time, from its start to its end.
    for (i, file) in files[1..60].iter().enumerate() {
        let mut child = bin().args(["history", s(&db), "import", s(file)]).stderr(Stdio::null()).spawn().unwrap();
        std::thread::sleep(whole.mul_f64(i as f64 / 59.0));
        let _ = child.kill();
        let _ = child.wait();
        // A journal left behind: the kill landed inside the write transaction. The next open rolls it back.
        if journal.exists() {
            hot += 1;
        }
        let runs = runs_and_cases(&db);
        assert!(runs.iter().all(|(_, indexed, cases)| *indexed as usize == *cases), "{runs:?}");
    }
    assert!(hot > 0, "no kill of 59 landed inside a transaction (one import takes {whole:?})");
    // The history still takes runs, and reads.
    let (code, _, err) = run(&["history", s(&db), "import", s(&files[60])]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(&["history", s(&db)]);
    assert_eq!(code, 0, "{err}");
    eprintln!("{hot} of 59 kills landed inside the write transaction (one import: {whole:?})");
}
