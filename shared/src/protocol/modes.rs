//! The connection modes a run measures, as users choose them: `fresh`, `reuse` or `both`. The one parser of
//! a mode, for the CLI's `--mode` (a clap value with the `clap` feature) and the page's form and query.

use std::fmt;
use std::str::FromStr;

use crate::model::Mode;

/// Which modes to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Modes {
    /// A new client and connection per request, as the Perl script did.
    Fresh,
    /// One client, keep-alive.
    Reuse,
    /// Fresh, then reuse.
    #[default]
    Both,
}

impl Modes {
    /// The modes, fresh before reuse.
    pub fn modes(self) -> Vec<Mode> {
        match self {
            Modes::Fresh => vec![Mode::Fresh],
            Modes::Reuse => vec![Mode::Reuse],
            Modes::Both => vec![Mode::Fresh, Mode::Reuse],
        }
    }

    /// The choice that runs exactly `modes` (`both` for anything with both).
    pub fn of(modes: &[Mode]) -> Self {
        match (modes.contains(&Mode::Fresh), modes.contains(&Mode::Reuse)) {
            (true, false) => Modes::Fresh,
            (false, true) => Modes::Reuse,
            _ => Modes::Both,
        }
    }

    /// The name as typed.
    pub fn as_str(self) -> &'static str {
        match self {
            Modes::Fresh => "fresh",
            Modes::Reuse => "reuse",
            Modes::Both => "both",
        }
    }
}

impl fmt::Display for Modes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Modes {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "fresh" => Ok(Modes::Fresh),
            "reuse" => Ok(Modes::Reuse),
            "both" => Ok(Modes::Both),
            other => Err(format!("'{other}' is not a mode: give fresh, reuse or both")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_print_and_round_trip() {
        for m in [Modes::Fresh, Modes::Reuse, Modes::Both] {
            assert_eq!(m.as_str().parse::<Modes>(), Ok(m));
            assert_eq!(Modes::of(&m.modes()), m);
        }
        assert_eq!(Modes::Both.modes(), [Mode::Fresh, Mode::Reuse]);
        assert!(" sometimes".parse::<Modes>().unwrap_err().contains("'sometimes'"));
    }
}
