//! httpbench's target-agnostic core, shared by the native CLI and the WebAssembly page: the result model,
//! statistics, Perl-style comparison, and the renderers. It does no I/O and reads no clock of its own: callers
//! time requests (through [`clock`] or their own) and hand it durations.

pub mod cfmt;
pub mod change;
pub mod clock;
pub mod fixture;
pub mod headline;
pub mod history;
pub mod inference;
pub mod model;
pub mod order;
pub mod parse;
pub mod perl;
pub mod protocol;
pub mod render;
pub mod session;
pub mod stats;
pub mod units;
pub mod view;

pub use model::{Case, Environment, EnvironmentKind, ErrorKind, Latency, Mode, Report, Settings, Target, Tool};
pub use perl::RateBasis;
pub use render::{render, Format, RenderOptions};
pub use stats::{CpuTime, Outcome, PhaseTimes, Recorder};
pub use view::Source;
