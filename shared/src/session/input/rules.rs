//! The rules of [`RawPlan::parse`], each once: every value read by shared's parsers, the plan within every
//! side's limits, TLS for HTTP/2 and HTTP/3, load levels only from a front end's own server, the case cap over
//! every side, and no side without a case.

use super::*;

impl RawPlan {
    /// Check every value for `front`, whose run has `sides`; the error names the field as `front` spells it.
    pub fn parse(&self, front: &FrontEnd, sides: &[Side]) -> Result<Input, InputError> {
        let sp = front.spelling;
        let targets = self.targets(front)?;
        let tls = match &targets {
            Some(t) => t.default.starts_with("https:"),
            None => front.own_server == Some(true),
        };
        let mut shape = Matrix::new(EnvironmentKind::Native, Vec::new(), self.modes(sp)?);
        shape.tls = tls;
        match self.http.trim() {
            // None asked: a browser negotiates, and its cases expect what it would pick, HTTP/2 over TLS.
            "" => {
                shape.negotiated = true;
                shape.http_versions = vec![if tls { HttpVersion::Http2 } else { HttpVersion::Http11 }];
            }
            choice => {
                shape.http_versions =
                    choice.parse::<HttpChoice>().map_err(|e| InputError::of(Field::Http, sp, e))?.versions();
            }
        }
        if !tls && shape.http_versions.iter().any(|v| v.needs_tls()) {
            return Err(self.needs_tls(front));
        }
        shape.concurrency =
            parse_concurrency(&self.concurrency).map_err(|e| InputError::of(Field::Concurrency, sp, e))?;
        shape.body_sizes = levels(Field::BodySizes, sp, &self.body_sizes, parse_sizes)?;
        shape.server_delays_ms = levels(Field::ServerDelays, sp, &self.server_delays, parse_delays)?;
        self.load_only_from_own_server(front, targets.as_ref())?;
        let timeout = parse_timeout(&self.timeout).map_err(|e| InputError::of(Field::Timeout, sp, e))?;
        let matrices: Vec<Matrix> = sides
            .iter()
            .map(|side| Matrix {
                environment: side.environment,
                clients: side.clients.clone(),
                declared_versions: side.declared_versions.clone(),
                engine: side.engine,
                ..shape.clone()
            })
            .collect();
        let cases = count_cases(front, sides, &matrices)?;
        let plan = self.plan(front, sides, cases)?;
        Ok(Input { plan, matrices, timeout, targets })
    }

    /// The targets: none for a front end's own server (a blank target), else each an http(s) URL.
    fn targets(&self, front: &FrontEnd) -> Result<Option<Targets>, InputError> {
        let target = self.target.trim();
        if target.is_empty() && front.own_server.is_some() {
            return Ok(None);
        }
        let url = |raw: &str| match raw.strip_prefix("http://").or_else(|| raw.strip_prefix("https://")) {
            Some(rest) if !rest.is_empty() => Ok(raw.to_string()),
            _ => {
                Err(InputError::of(Field::Target, front.spelling, format!("'{raw}' is not an http:// or https:// URL")))
            }
        };
        let default = url(target)?;
        let per_version = self
            .targets
            .iter()
            .map(|(http, raw)| Ok((*http, url(raw.trim())?)))
            .collect::<Result<Vec<_>, InputError>>()?;
        Ok(Some(Targets { default, per_version }))
    }

    fn modes(&self, sp: Spelling) -> Result<Vec<crate::model::Mode>, InputError> {
        Ok(self.mode.parse::<Modes>().map_err(|e| InputError::of(Field::Mode, sp, e))?.modes())
    }

    /// HTTP/2 and HTTP/3 asked of a plaintext target.
    fn needs_tls(&self, front: &FrontEnd) -> InputError {
        let name = |f: Field| f.name(front.spelling);
        let own = match front.own_server {
            Some(_) => " or add --tls for the embedded server",
            None => "",
        };
        InputError::at(
            Field::Http,
            format!(
            "{} {}: HTTP/2 and HTTP/3 are measured over TLS only (HTTP/2 negotiated by ALPN, HTTP/3 has TLS inside \
             QUIC): give an https {}{own}",
            name(Field::Http),
            self.http.trim(),
            name(Field::Target)
        ),
        )
    }

    /// Body sizes and delays ask the front end's own server: a front end that has one refuses them with another
    /// target (the page cannot tell its target's server, and leaves it to the user).
    fn load_only_from_own_server(&self, front: &FrontEnd, targets: Option<&Targets>) -> Result<(), InputError> {
        let (Some(_), Some(targets)) = (front.own_server, targets) else {
            return Ok(());
        };
        let asked = [(Field::BodySizes, &self.body_sizes), (Field::ServerDelays, &self.server_delays)];
        match asked.iter().find(|(_, v)| !v.trim().is_empty()) {
            Some((field, _)) => Err(InputError::at(
                *field,
                format!(
                "{} asks the embedded server (/bytes/N, delay_ms=N), not {}: drop the {}, or put the size or delay \
                 in the {} yourself",
                field.name(front.spelling),
                targets.default,
                Field::Target.name(front.spelling),
                Field::Target.name(front.spelling)
            ),
            )),
            None => Ok(()),
        }
    }

    /// The plan, within the limits of every side's environment; a run of one case alone has nothing to
    /// interleave with.
    fn plan(&self, front: &FrontEnd, sides: &[Side], cases: usize) -> Result<Plan, InputError> {
        let sp = front.spelling;
        let budget = if self.duration.trim().is_empty() {
            Budget::Count(number(Field::Count, sp, &self.count)?)
        } else {
            Budget::Duration(parse_duration(&self.duration).map_err(|e| InputError::of(Field::Duration, sp, e))?)
        };
        let interleave = match self.interleave.trim() {
            "1" | "true" => true,
            "0" | "false" => false,
            other => {
                let problem = format!("'{other}' must be 1 (round-robin) or 0 (case after case)");
                return Err(InputError::of(Field::Interleave, sp, problem));
            }
        };
        let interleave = interleave && (cases > 1 || front.takes_turns);
        let (warmup, rounds) = (number(Field::Warmup, sp, &self.warmup)?, number(Field::Rounds, sp, &self.rounds)?);
        let mut environments: Vec<EnvironmentKind> = sides.iter().map(|s| s.environment).collect();
        environments.dedup();
        Plan::check(budget, warmup, rounds, interleave, &environments)
            .map_err(|e| InputError::at(e.field(), e.message(sp)))
    }
}

/// The cases of the run over every side (a browser run has one per engine), at most [`MAX_CASES`] (one report shows no
/// more); every side has one at least, or it is refused with what was left out.
fn count_cases(front: &FrontEnd, sides: &[Side], matrices: &[Matrix]) -> Result<usize, InputError> {
    let mut total = 0;
    for (side, matrix) in sides.iter().zip(matrices) {
        let (cases, skipped) = matrix.cases();
        if cases.is_empty() {
            let name = |f: Field| f.name(front.spelling);
            let speaks_none = |e: Engine| matrix.http_versions.iter().all(|&v| e.cannot_speak(v).is_some());
            let what = match side.engine {
                Some(engine) if speaks_none(engine) => {
                    let leave = if front.spelling == Spelling::Cli { " or leave it out of --browser" } else { "" };
                    format!("add a version {engine} speaks to {}{leave}", name(Field::Http))
                }
                _ => format!("add {} reuse or a level of 1 to {}", name(Field::Mode), name(Field::Concurrency)),
            };
            return Err(InputError {
                field: None,
                message: format!(
                    "no {} case can run: {}; {what}",
                    side.engine.map_or(side.environment.as_str(), Engine::as_str),
                    skipped.join("; "),
                ),
            });
        }
        total += cases.len();
    }
    if total > MAX_CASES {
        return Err(InputError {
            field: None,
            message: format!(
                "{total} cases (clients x modes x HTTP versions x load levels, over every environment of the run) are \
             more than the {MAX_CASES} one report shows: scan fewer clients or values"
            ),
        });
    }
    Ok(total)
}

/// A list of load levels, each `Some`; blank: `[None]` (the target as given).
fn levels(
    field: Field,
    sp: Spelling,
    raw: &str,
    parse: fn(&str) -> Result<Vec<u64>, LoadError>,
) -> Result<Vec<Option<u64>>, InputError> {
    if raw.trim().is_empty() {
        return Ok(vec![None]);
    }
    Ok(parse(raw).map_err(|e| InputError::of(field, sp, e))?.into_iter().map(Some).collect())
}

/// A whole number, as typed; its range is the plan's to check.
fn number(field: Field, sp: Spelling, text: &str) -> Result<u64, InputError> {
    let text = text.trim();
    text.parse::<u64>().map_err(|_| InputError::of(field, sp, format!("'{text}' must be a whole number")))
}
