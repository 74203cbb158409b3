//! Whose turn it is, when several sides of one run share its plan: the native clients and each browser engine
//! run their own [`Session`](super::Session) (each in its own process, with its own clock), and interleave
//! their rounds as one session interleaves its cases'. Each side stops at every pass ([`Step::Turn`]) and
//! waits; the side whose turn it is runs its pass alone while the others wait, so no side measures while
//! another one loads the machine. A side is busy from its start (loading) until it first waits, before its
//! warm-ups: a side warms up in its first turn, alone, and over its own link when a run emulates several. Sans-IO like the session: the CLI tells it who waits
//! where and who is done, and asks it whom to let go.
//!
//! [`Step::Turn`]: super::Step::Turn

/// Where one side is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    /// Starting, warming up, or running a pass it was given.
    Busy,
    /// Waiting at the start of this pass.
    Waiting(u32),
    /// Finished (or failed): it takes no more turns.
    Done,
}

/// The turns of one run's sides, numbered in the order they take each pass (the native clients first).
#[derive(Debug, Clone)]
pub struct Turns {
    sides: Vec<Side>,
}

impl Turns {
    /// `sides` sides, every one busy starting up.
    pub fn new(sides: usize) -> Self {
        Turns { sides: vec![Side::Busy; sides] }
    }

    /// Side `side` finished everything before pass `pass` and waits to begin it.
    pub fn waiting(&mut self, side: usize, pass: u32) {
        if let Some(s) = self.sides.get_mut(side).filter(|s| **s != Side::Done) {
            *s = Side::Waiting(pass);
        }
    }

    /// Side `side` is done (finished its plan, or failed): it never waits again.
    pub fn done(&mut self, side: usize) {
        if let Some(s) = self.sides.get_mut(side) {
            *s = Side::Done;
        }
    }

    /// Whether side `side` is busy: starting, warming up or running its pass (the one side a front end should
    /// hear from; a waiting side is silent by design).
    pub fn is_busy(&self, side: usize) -> bool {
        self.sides.get(side) == Some(&Side::Busy)
    }

    /// Whether every side is done.
    pub fn all_done(&self) -> bool {
        self.sides.iter().all(|s| *s == Side::Done)
    }

    /// The side to let go now, and its pass, if any: none while any side is busy; else the waiting side at the
    /// lowest pass, the first in side order among equals. It is busy from now on.
    pub fn grant(&mut self) -> Option<(usize, u32)> {
        if self.sides.contains(&Side::Busy) {
            return None;
        }
        let waiting = self.sides.iter().enumerate().filter_map(|(i, s)| match s {
            Side::Waiting(pass) => Some((*pass, i)),
            _ => None,
        });
        let (pass, side) = waiting.min()?;
        self.sides[side] = Side::Busy;
        Some((side, pass))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Run `sides` sides of `passes` passes each to the end, each side doing its pass as soon as it is let go;
    /// the grants in order.
    fn schedule(turns: &mut Turns, passes: &[u32]) -> Vec<(usize, u32)> {
        let mut granted = Vec::new();
        for (side, _) in passes.iter().enumerate() {
            turns.waiting(side, 0);
        }
        while let Some((side, pass)) = turns.grant() {
            granted.push((side, pass));
            if pass + 1 < passes[side] {
                turns.waiting(side, pass + 1);
            } else {
                turns.done(side);
            }
            assert!(granted.len() < 100, "bounded");
        }
        granted
    }

    #[test]
    fn the_sides_take_each_pass_in_turn_native_first() {
        let mut turns = Turns::new(3);
        let order = schedule(&mut turns, &[3, 3, 3]);
        assert_eq!(order, [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1), (0, 2), (1, 2), (2, 2)]);
        assert!(turns.all_done());
    }

    #[test]
    fn nobody_goes_while_a_side_is_still_starting_or_running() {
        let mut turns = Turns::new(2);
        turns.waiting(0, 0);
        assert_eq!(turns.grant(), None, "side 1 is still warming up");
        assert!(turns.is_busy(1) && !turns.is_busy(0));
        turns.waiting(1, 0);
        assert_eq!(turns.grant(), Some((0, 0)));
        assert_eq!(turns.grant(), None, "side 0 runs its pass");
        turns.waiting(0, 1);
        assert_eq!(turns.grant(), Some((1, 0)), "side 1 catches up before side 0 goes on");
    }

    #[test]
    fn a_side_that_is_done_or_failed_no_longer_holds_the_others_up() {
        let mut turns = Turns::new(3);
        turns.waiting(0, 0);
        turns.waiting(2, 0);
        turns.done(1);
        assert_eq!(turns.grant(), Some((0, 0)));
        turns.done(0);
        assert_eq!(turns.grant(), Some((2, 0)));
        turns.waiting(1, 3);
        assert!(!turns.is_busy(1), "a done side stays done");
        turns.done(2);
        assert!(turns.all_done());
        assert_eq!(turns.grant(), None);
    }

    #[test]
    fn sides_with_one_pass_run_one_after_another() {
        // Without interleaving each side's plan is one pass: the sides run whole, in side order.
        let mut turns = Turns::new(3);
        assert_eq!(schedule(&mut turns, &[1, 1, 1]), [(0, 0), (1, 0), (2, 0)]);
    }
}
