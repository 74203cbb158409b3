//! The committed JSON Schema of the result file: generated from the model's types (their doc comments become
//! the descriptions), kept in `schema/result-v5.schema.json`, and used to validate real output. The version-1
//! schema stays committed, frozen, with a version-1 file that still matches it (and that `compare` still reads).
//! Regenerate with `UPDATE_SCHEMA=1 cargo test -p httpbench --test e2e schema`.

use std::path::PathBuf;

use serde_json::Value;

fn committed_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../schema/result-v5.schema.json")
}

fn generated() -> Value {
    serde_json::to_value(schemars::schema_for!(httpbench_shared::Report)).unwrap()
}

fn committed() -> Value {
    let text = std::fs::read_to_string(committed_path()).expect("schema/result-v5.schema.json is committed");
    serde_json::from_str(&text).unwrap()
}

/// Validate a result file against the committed schema, listing every violation.
pub(crate) fn validate(instance: &Value) {
    let validator = jsonschema::validator_for(&committed()).expect("the committed schema is a valid schema");
    let errors: Vec<String> =
        validator.iter_errors(instance).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    assert!(errors.is_empty(), "result file does not match the schema:\n{}", errors.join("\n"));
}

/// Version `version`'s frozen schema and the file of that version kept for the readers' tests, checked to match
/// it: the file's text, the file, and a validator of the frozen schema (to show it refuses the next version's
/// fields).
fn frozen(version: u32) -> (String, Value, jsonschema::Validator) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let read = |p: String| std::fs::read_to_string(root.join(p)).unwrap();
    let schema: Value = serde_json::from_str(&read(format!("schema/result-v{version}.schema.json"))).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let text = read(format!("shared/tests/data/v{version}-report.json"));
    let file: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(file["schema_version"], version);
    let errors: Vec<String> = validator.iter_errors(&file).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    (text, file, validator)
}

/// The frozen version-1 schema still describes the version-1 file kept for the readers' tests.
#[test]
fn the_version_1_file_matches_the_frozen_version_1_schema() {
    let (_, file, validator) = frozen(1);
    // And a version-2 file is not a version-1 one: the old schema refuses its new fields.
    let mut v2 = file.clone();
    v2["cases"][0]["http_version"] = "2".into();
    assert!(!validator.is_valid(&v2));
}

/// The frozen version-2 schema describes the version-2 file kept for the readers' tests, which still reads.
#[test]
fn the_version_2_file_matches_the_frozen_version_2_schema_and_still_reads() {
    let (text, file, validator) = frozen(2);
    let mut v3 = file.clone();
    v3["cases"][0]["concurrency"] = 16.into();
    assert!(!validator.is_valid(&v3), "the old schema refuses version 3's fields");
    let reports = httpbench_shared::parse::parse_reports(&text).unwrap();
    assert!(reports[0].cases.iter().all(|c| c.in_flight() == 1 && c.body_bytes.is_none() && c.connections.is_none()));
}

/// The frozen version-3 schema describes the version-3 file kept for the readers' tests, which still reads, as a
/// report whose rounds carry no CPU time or percentiles (so a gate leaves those metrics unjudged, not slower).
#[test]
fn the_version_3_file_matches_the_frozen_version_3_schema_and_still_reads() {
    let (text, file, validator) = frozen(3);
    let mut v4 = file.clone();
    v4["cases"][0]["rounds"][0]["cpu_secs"] = 0.01.into();
    assert!(!validator.is_valid(&v4), "the old schema refuses version 4's fields");
    let reports = httpbench_shared::parse::parse_reports(&text).unwrap();
    let rounds = reports[0].cases.iter().flat_map(|c| &c.rounds);
    assert!(rounds.clone().count() > 0 && rounds.clone().all(|r| r.cpu_secs.is_none() && r.latency_p50_ns.is_none()));
    assert_eq!(reports[0].environment.started_unix_ms, None);
}

/// The frozen version-4 schema describes the version-4 file kept for the readers' tests, which still reads;
/// it refuses version 5's HTTP/3.
#[test]
fn the_version_4_file_matches_the_frozen_version_4_schema_and_still_reads() {
    let (text, file, validator) = frozen(4);
    let mut v5 = file.clone();
    v5["cases"][0]["http_version"] = "3".into();
    assert!(!validator.is_valid(&v5), "the old schema refuses version 5's HTTP/3");
    let reports = httpbench_shared::parse::parse_reports(&text).unwrap();
    assert!(reports[0].cases.iter().all(|c| c.http_version == httpbench_shared::model::HttpVersion::Http11));
    validate(&serde_json::to_value(&reports[0]).unwrap());
}

#[test]
fn committed_schema_matches_the_model() {
    let fresh = generated();
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        let text = serde_json::to_string_pretty(&fresh).unwrap() + "\n";
        std::fs::write(committed_path(), text).unwrap();
    }
    assert_eq!(
        committed(),
        fresh,
        "the model changed: regenerate with UPDATE_SCHEMA=1 (and bump the version if readers break)"
    );
}

#[test]
fn every_field_is_documented() {
    fn walk(v: &Value, path: &str, missing: &mut Vec<String>) {
        if let Some(props) = v.get("properties").and_then(Value::as_object) {
            for (name, p) in props {
                let has_doc = p.get("description").is_some()
                    || p.get("$ref").is_some()
                    || p.get("allOf").is_some()
                    || p.get("anyOf").is_some();
                if !has_doc {
                    missing.push(format!("{path}.{name}"));
                }
                walk(p, &format!("{path}.{name}"), missing);
            }
        }
        if let Some(defs) = v.get("$defs").and_then(Value::as_object) {
            for (name, d) in defs {
                if d.get("description").is_none() {
                    missing.push(format!("$defs.{name}"));
                }
                walk(d, &format!("$defs.{name}"), missing);
            }
        }
    }
    let mut missing = Vec::new();
    walk(&committed(), "", &mut missing);
    assert!(missing.is_empty(), "undocumented: {missing:?}");
}

#[test]
fn the_schema_rejects_what_it_should() {
    let validator = jsonschema::validator_for(&committed()).unwrap();
    assert!(!validator.is_valid(&serde_json::json!({"schema_version": 1})), "missing fields");
    let mut extra = serde_json::json!({});
    extra["unexpected"] = Value::Bool(true);
    assert!(!validator.is_valid(&extra));
}
