//! The values of a run's plan as each front end names them ([`Field`]): the CLI's flags, the page's form labels
//! and its link's keys, so an error says the same words after the name the user typed.

/// A value of the raw plan (and the clients of a side), as each front end names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The URL the cases request.
    Target,
    /// Measured requests per case.
    Count,
    /// Measured time per case instead of a count.
    Duration,
    /// Warm-up requests per case.
    Warmup,
    /// Rounds per case.
    Rounds,
    /// Round-robin across cases, or case after case.
    Interleave,
    /// Every request's deadline.
    Timeout,
    /// The client list of the front end's own environment.
    Clients,
    /// The browser's client list of a CLI run with `--browser`.
    BrowserClients,
    /// Connection modes.
    Mode,
    /// HTTP versions.
    Http,
    /// Requests in flight per case.
    Concurrency,
    /// Body sizes asked of the embedded server.
    BodySizes,
    /// Think times asked of the embedded server.
    ServerDelays,
}

impl Field {
    /// The field's name for `spelling`: the CLI's flag, or the page's form label (lowercase).
    pub fn name(self, spelling: Spelling) -> &'static str {
        let (cli, page) = match self {
            Field::Target => ("URL", "target"),
            Field::Count => ("-n/--count", "count"),
            Field::Duration => ("--duration", "duration"),
            Field::Warmup => ("--warmup", "warm-up"),
            Field::Rounds => ("--rounds", "rounds"),
            Field::Interleave => ("--no-interleave", "interleave"),
            Field::Timeout => ("--timeout", "timeout"),
            Field::Clients => ("--clients", "clients"),
            Field::BrowserClients => ("--browser-clients", "clients"),
            Field::Mode => ("--mode", "mode"),
            Field::Http => ("--http", "http"),
            Field::Concurrency => ("-c/--concurrency", "requests in flight"),
            Field::BodySizes => ("--body-size", "body sizes"),
            Field::ServerDelays => ("--server-delay", "server delays"),
        };
        match spelling {
            Spelling::Cli => cli,
            Spelling::Page => page,
        }
    }

    /// The key of the page's query string that carries the field (the link's spelling).
    pub fn key(self) -> &'static str {
        match self {
            Field::Target => "target",
            Field::Count => "n",
            Field::Duration => "duration",
            Field::Warmup => "warmup",
            Field::Rounds => "rounds",
            Field::Interleave => "interleave",
            Field::Timeout => "timeout",
            Field::Clients | Field::BrowserClients => "clients",
            Field::Mode => "mode",
            Field::Http => "http",
            Field::Concurrency => "c",
            Field::BodySizes => "size",
            Field::ServerDelays => "delay",
        }
    }

    /// The smallest value a number of the plan takes.
    pub(super) fn min(self) -> u64 {
        match self {
            Field::Warmup => 0,
            _ => 1,
        }
    }
}

/// Who is told of a bad value: the flag a CLI user typed, or the field a page user filled in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    /// The flags: `-n/--count`, `--warmup`, `-c/--concurrency` ([`Field::name`]).
    Cli,
    /// The form's fields: `count`, `warm-up`, `requests in flight`.
    Page,
}
