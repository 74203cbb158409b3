//! The history store: an SQLite database holding each run whole (its result file, as written) and an index of
//! its cases by series (name, machine, client version, plan: shared's `history` keys), for whoever queries the
//! file with SQL; `history` itself reads the runs whole. SQLite because a history is appended to by CI jobs that may run at
//! once, and must survive a job killed mid-append: its transactions give both (a writer waits for the other's
//! lock, bounded; a killed one's journal rolls back on the next open). Result files stay the interchange format
//! (`history export` writes them back).

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use httpbench_shared::history::{case_name, client_version, machine, plan, StoredRun};
use httpbench_shared::parse::parse_reports;
use httpbench_shared::Report;
use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};

use crate::usage::Usage;

/// SQLite's `application_id` of an httpbench history ("hbhi"): how a history is told from another program's
/// database.
const APPLICATION_ID: i64 = 0x6862_6869;

/// Each step migrates a history of version i to i + 1 (`PRAGMA user_version`); a new file runs them all. Never
/// edit a step once released: add one.
const MIGRATIONS: [&str; 2] = [
    // 1: runs whole, and their cases by series.
    "CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        label TEXT,
        started_unix_ms INTEGER,
        added_unix_ms INTEGER NOT NULL,
        digest TEXT NOT NULL UNIQUE,
        file TEXT NOT NULL
    );
    CREATE TABLE cases (
        run_id INTEGER NOT NULL REFERENCES runs(id),
        report INTEGER NOT NULL,
        position INTEGER NOT NULL,
        case_name TEXT NOT NULL,
        machine TEXT NOT NULL,
        client_version TEXT,
        plan TEXT NOT NULL,
        PRIMARY KEY (run_id, report, position)
    );
    CREATE INDEX cases_by_series ON cases (case_name, machine, client_version, plan);",
    // 2: change points accepted as expected (`history --ack`), by the run they start at.
    "CREATE TABLE accepted (
        run_id INTEGER PRIMARY KEY REFERENCES runs(id),
        added_unix_ms INTEGER NOT NULL
    );",
];

/// The version this build writes and reads.
pub(crate) const VERSION: i64 = MIGRATIONS.len() as i64;

/// A writer waits this long for another's transaction to end (CI jobs appending at once) before giving up.
const BUSY_WAIT: Duration = Duration::from_secs(30);

/// An open history.
pub(crate) struct Store {
    conn: Connection,
    path: PathBuf,
}

/// What adding a run did.
#[derive(Debug, PartialEq)]
pub(crate) enum Added {
    /// A new run, with its number.
    New(i64),
    /// The same file was already there, under this number: nothing was added.
    Already(i64),
}

impl Store {
    /// Open the history at `path` to add to it, creating it when nothing is there; a file that is not a history
    /// is refused and left as it was.
    pub(crate) fn open_or_create(path: &Path) -> anyhow::Result<Store> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| refused(path, &e))?;
        let mut store = Store { conn, path: path.to_path_buf() };
        store.prepare(true)?;
        Ok(store)
    }

    /// Open an existing history to read it (and accept change points in it).
    pub(crate) fn open_existing(path: &Path) -> anyhow::Result<Store> {
        if !path.exists() {
            return Err(Usage(format!(
                "{}: no history there; `httpbench run --history {0}` or `httpbench history {0} import FILES` creates one",
                path.display()
            ))
            .into());
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| refused(path, &e))?;
        let mut store = Store { conn, path: path.to_path_buf() };
        store.prepare(false)?;
        Ok(store)
    }

    /// Check the file is a history of a version this build reads, and bring it to [`VERSION`] (creating it
    /// when `create` and it is empty). A current history is only read, so a read-only copy reads; creating or
    /// migrating is one write transaction that checks again, so two processes creating it at once do not both
    /// run the migrations.
    fn prepare(&mut self, create: bool) -> anyhow::Result<()> {
        self.conn.busy_timeout(BUSY_WAIT)?;
        let path = self.path.clone();
        if header(&self.conn, &path, create)? == VERSION {
            return Ok(());
        }
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(|e| refused(&path, &e))?;
        let version = header(&tx, &path, create)?;
        let shown = path.display();
        if version == 0 {
            tx.execute_batch(&format!("PRAGMA application_id = {APPLICATION_ID};"))?;
        }
        for (step, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
            tx.execute_batch(sql).with_context(|| format!("{shown}: migrating the history to version {}", step + 1))?;
        }
        tx.execute_batch(&format!("PRAGMA user_version = {VERSION};"))?;
        tx.commit().with_context(|| format!("{shown}: cannot write the history"))?;
        Ok(())
    }

    /// Add a run: `file` is its result file as written (one report or a list), `label` what the user calls it.
    /// One transaction: the run and its index land together or not at all.
    pub(crate) fn add(&mut self, file: &str, label: Option<&str>, added_unix_ms: u64) -> anyhow::Result<Added> {
        let reports = parse_reports(file).map_err(|e| Usage(e.to_string()))?;
        self.insert(file, &reports, label, added_unix_ms).map_err(|e| refused(&self.path, &e))
    }

    fn insert(
        &mut self,
        file: &str,
        reports: &[Report],
        label: Option<&str>,
        added_unix_ms: u64,
    ) -> rusqlite::Result<Added> {
        let digest = digest(file);
        let started = reports.iter().filter_map(|r| r.environment.started_unix_ms).min();
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let existing: Option<i64> =
            tx.query_row("SELECT id FROM runs WHERE digest = ?1", [&digest], |r| r.get(0)).optional()?;
        if let Some(id) = existing {
            return Ok(Added::Already(id));
        }
        let as_i64 = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        tx.execute(
            "INSERT INTO runs (label, started_unix_ms, added_unix_ms, digest, file) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![label, started.map(as_i64), as_i64(added_unix_ms), digest, file],
        )?;
        let id = tx.last_insert_rowid();
        {
            let mut insert = tx.prepare(
                "INSERT INTO cases (run_id, report, position, case_name, machine, client_version, plan)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            for (r, report) in (0i64..).zip(reports) {
                let (plan, machine) = (plan(report).digest, machine(report).digest);
                for (p, case) in (0i64..).zip(&report.cases) {
                    let version = client_version(report, case);
                    insert.execute(params![id, r, p, case_name(report, case), machine, version, plan])?;
                }
            }
        }
        tx.commit()?;
        Ok(Added::New(id))
    }

    /// Every run, oldest first (by when it started; runs added from files keep their place in time).
    pub(crate) fn runs(&self) -> anyhow::Result<Vec<StoredRun>> {
        self.read_runs().map_err(|e| match e.downcast::<rusqlite::Error>() {
            Ok(sql) => refused(&self.path, &sql),
            Err(other) => other,
        })
    }

    fn read_runs(&self) -> anyhow::Result<Vec<StoredRun>> {
        let mut query = self.conn.prepare(
            "SELECT runs.id, label, file, accepted.run_id IS NOT NULL FROM runs
             LEFT JOIN accepted ON accepted.run_id = runs.id
             ORDER BY coalesce(runs.started_unix_ms, runs.added_unix_ms), runs.id",
        )?;
        let rows = query.query_map([], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, Option<String>>(1)?, r.get::<_, String>(2)?, r.get::<_, bool>(3)?))
        })?;
        let mut runs = Vec::new();
        for row in rows {
            let (id, label, file, accepted) = row?;
            let reports: Vec<Report> = parse_reports(&file).with_context(|| {
                format!(
                    "{}: run #{id} does not read back; `history DB export DIR` still writes every run's file",
                    self.path.display()
                )
            })?;
            runs.push(StoredRun { id, label, accepted, reports });
        }
        Ok(runs)
    }

    /// Each run's number, label and result file, in the order [`Store::runs`] gives.
    pub(crate) fn files(&self) -> anyhow::Result<Vec<(i64, Option<String>, String)>> {
        let mut query = self
            .conn
            .prepare("SELECT id, label, file FROM runs ORDER BY coalesce(started_unix_ms, added_unix_ms), id")?;
        let rows = query.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The run named `run`: its number (`16` or `#16`), else the newest run (by when it started) with that label.
    pub(crate) fn find(&self, run: &str) -> anyhow::Result<Option<i64>> {
        if let Ok(id) = run.trim_start_matches('#').parse::<i64>() {
            let found: Option<i64> =
                self.conn.query_row("SELECT id FROM runs WHERE id = ?1", [id], |r| r.get(0)).optional()?;
            if found.is_some() {
                return Ok(found);
            }
        }
        Ok(self
            .conn
            .query_row(
                "SELECT id FROM runs WHERE label = ?1
                 ORDER BY coalesce(started_unix_ms, added_unix_ms) DESC, id DESC LIMIT 1",
                [run],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Accept the change points at run `id` as expected.
    pub(crate) fn accept(&mut self, id: i64, now_unix_ms: u64) -> anyhow::Result<()> {
        self.conn
            .execute(
                "INSERT OR IGNORE INTO accepted (run_id, added_unix_ms) VALUES (?1, ?2)",
                params![id, i64::try_from(now_unix_ms).unwrap_or(i64::MAX)],
            )
            .map_err(|e| refused(&self.path, &e))?;
        Ok(())
    }
}

/// The history version of the database `conn` opened at `path` (0: empty, to be created when `create`), or
/// why it is not a history this build reads.
fn header(conn: &Connection, path: &Path, create: bool) -> anyhow::Result<i64> {
    // One statement, so one snapshot: read in two, another process creating the history in between was seen
    // as tables without the application id, "another program's" database (found by writers_at_once_lose_nothing).
    let sql = "SELECT application_id, user_version, (SELECT count(*) FROM sqlite_schema) \
               FROM pragma_application_id, pragma_user_version";
    let (app, version, tables): (i64, i64, i64) =
        conn.query_row(sql, [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).map_err(|e| refused(path, &e))?;
    let shown = path.display();
    if app == 0 && version == 0 && tables == 0 {
        if !create {
            return Err(Usage(format!("{shown}: an empty database, not an httpbench history")).into());
        }
        return Ok(0);
    }
    if app != APPLICATION_ID {
        return Err(Usage(format!(
            "{shown}: an SQLite database of another program (application id {app}), not an httpbench history; \
             give another path (it was left as it was)"
        ))
        .into());
    }
    if version > VERSION {
        return Err(Usage(format!(
            "{shown}: a history of version {version}, newer than this httpbench reads ({VERSION}); upgrade httpbench"
        ))
        .into());
    }
    Ok(version)
}

/// A run's identity: the SHA-256 of its file, so the same file added twice (an import repeated) counts once.
fn digest(file: &str) -> String {
    let hash = ring::digest::digest(&ring::digest::SHA256, file.as_bytes());
    hash.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// The one line for a file SQLite cannot use as a history.
fn refused(path: &Path, e: &rusqlite::Error) -> anyhow::Error {
    let shown = path.display();
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::NotADatabase) => Usage(format!(
            "{shown}: not an httpbench history (not an SQLite database); give another path (it was left as it was)"
        ))
        .into(),
        Some(rusqlite::ErrorCode::DatabaseCorrupt) => Usage(format!(
            "{shown}: a damaged SQLite file (\"{e}\"); restore it from a copy, or rebuild it with `history NEW import` \
             of the result files (it was left as it was)"
        ))
        .into(),
        Some(rusqlite::ErrorCode::DatabaseBusy) => {
            anyhow::anyhow!("{shown}: another process held the history for {} s; try again", BUSY_WAIT.as_secs())
        }
        Some(rusqlite::ErrorCode::ReadOnly) => {
            anyhow::anyhow!("{shown}: the history is read-only here ({e}); copy it somewhere writable")
        }
        _ => anyhow::anyhow!("{shown}: cannot use the history: {e}"),
    }
}

#[cfg(test)]
mod tests;
