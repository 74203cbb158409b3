//! The store on real SQLite files: creation, refusal of foreign files, migration from version 1, duplicates.

use super::*;
use httpbench_shared::fixture;
use httpbench_shared::EnvironmentKind;

fn file(started: u64) -> String {
    let mut report = fixture::report(EnvironmentKind::Native);
    report.environment.started_unix_ms = Some(started);
    serde_json::to_string_pretty(&report).unwrap()
}

#[test]
fn runs_come_back_whole_and_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let mut store = Store::open_or_create(&db).unwrap();
    assert_eq!(store.add(&file(2_000), Some("b"), 10).unwrap(), Added::New(1));
    assert_eq!(store.add(&file(1_000), Some("a"), 11).unwrap(), Added::New(2));
    assert_eq!(store.add(&file(2_000), Some("again"), 12).unwrap(), Added::Already(1));
    let runs = Store::open_existing(&db).unwrap().runs().unwrap();
    // Ordered by when they started, not when they were added.
    let labels: Vec<_> = runs.iter().map(|r| (r.id, r.label.clone().unwrap())).collect();
    assert_eq!(labels, [(2, "a".to_string()), (1, "b".to_string())]);
    assert_eq!(store.files().unwrap()[1].2, file(2_000), "the file as it was added");
    assert_eq!(store.find("#1").unwrap(), Some(1));
    assert_eq!(store.find("a").unwrap(), Some(2));
    assert_eq!(store.find("nope").unwrap(), None);
    store.accept(2, 13).unwrap();
    assert!(store.runs().unwrap()[0].accepted);
}

#[test]
fn foreign_files_are_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "not a database, but precious").unwrap();
    let e = Store::open_or_create(&text).err().unwrap().to_string();
    assert!(e.contains("not an httpbench history (not an SQLite database)"), "{e}");
    assert_eq!(std::fs::read_to_string(&text).unwrap(), "not a database, but precious");

    let other = dir.path().join("other.db");
    Connection::open(&other).unwrap().execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);").unwrap();
    let e = Store::open_or_create(&other).err().unwrap().to_string();
    assert!(e.contains("an SQLite database of another program"), "{e}");
    let n: i64 = Connection::open(&other).unwrap().query_row("SELECT count(*) FROM t", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 1);

    let newer = dir.path().join("newer.db");
    Connection::open(&newer)
        .unwrap()
        .execute_batch(&format!(
            "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = 99; CREATE TABLE x (y);"
        ))
        .unwrap();
    let e = Store::open_existing(&newer).err().unwrap().to_string();
    assert!(e.contains("version 99, newer than this httpbench reads (2)"), "{e}");

    let missing = dir.path().join("missing.db");
    let e = Store::open_existing(&missing).err().unwrap().to_string();
    assert!(e.contains("no history there"), "{e}");
    assert!(!missing.exists(), "reading does not create");
}

#[test]
fn a_version_1_history_migrates_forward() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("v1.db");
    {
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch(MIGRATIONS[0]).unwrap();
        conn.execute_batch(&format!("PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = 1;")).unwrap();
        conn.execute(
            "INSERT INTO runs (label, started_unix_ms, added_unix_ms, digest, file) VALUES ('old', 1, 1, 'x', ?1)",
            [file(1)],
        )
        .unwrap();
    }
    let mut store = Store::open_existing(&db).unwrap();
    let version: i64 = store.conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version, VERSION);
    // The run of version 1 is still there, and version 2's table works.
    store.accept(1, 2).unwrap();
    let runs = store.runs().unwrap();
    assert_eq!((runs.len(), runs[0].label.as_deref(), runs[0].accepted), (1, Some("old"), true));
}

#[test]
fn a_damaged_history_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let mut store = Store::open_or_create(&db).unwrap();
    for i in 0..20 {
        store.add(&file(i), None, 1).unwrap();
    }
    drop(store);
    // Every page but the first (the header and the schema) overwritten.
    let mut bytes = std::fs::read(&db).unwrap();
    let page = 4096;
    assert!(bytes.len() > 2 * page, "{} bytes", bytes.len());
    bytes[page..].fill(0xA5);
    std::fs::write(&db, &bytes).unwrap();
    let e = Store::open_existing(&db).and_then(|s| s.runs()).err().unwrap().to_string();
    assert!(e.contains("a damaged SQLite file") && e.contains("(it was left as it was)"), "{e}");
    assert_eq!(std::fs::read(&db).unwrap(), bytes);
}
