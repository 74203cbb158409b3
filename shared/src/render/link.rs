//! What an emulated link did (`--link`), under a report: for each link, its cases' packets pooled, how many
//! were lost against the loss asked, and how much later than asked the emulator let them through, its own
//! delay. A warning where the link was not the one asked for, by the bounds below.

use super::notes::{fit, Note};
use crate::model::LinkCounts;
use crate::protocol::Link;
use crate::view::Row;

/// Most the measured loss may differ from the loss asked, in standard errors of a binomial count of that many
/// packets, before a warning: the emulator draws each packet's fate, so a loss this far off comes by chance
/// once in a thousand links (two-sided), and a fixed slack in points would warn on few packets and miss a
/// bias on many.
const LOSS_SLACK_SE: f64 = 3.29;
/// Most the emulator's own mean delay may add to the one-way delay asked, as a share of it, before a warning.
const DELAY_SLACK: f64 = 0.05;
/// Fewest packets the emulator's delay is judged on: a few late packets say little.
const JUDGED_FROM_PACKETS: u64 = 200;

/// A note for each link of `rows` whose cases counted packets, in the order the links first appear.
pub(super) fn link_notes(rows: &[Row<'_>]) -> Vec<Note> {
    let mut links: Vec<Link> = Vec::new();
    for link in rows.iter().filter_map(|r| r.case.link()) {
        if !links.contains(&link) {
            links.push(link);
        }
    }
    links
        .into_iter()
        .filter_map(|link| {
            let mut counts = LinkCounts::default();
            for r in rows.iter().filter(|r| r.case.link() == Some(link)) {
                counts.add(&r.case.link_counts()?);
            }
            note(&link, &counts)
        })
        .collect()
}

/// The note for one link's pooled `counts`; `None` before any packet went through.
fn note(link: &Link, counts: &LinkCounts) -> Option<Note> {
    let (asked_us, late_us) = counts.delay_means_us()?;
    let lost = counts.loss()?;
    let asked_loss = f64::from(link.loss_ppm) / 1_000_000.0;
    let seen = counts.up_packets + counts.down_packets;
    let full = match counts.queue_dropped {
        0 => String::new(),
        n => format!(", {n} dropped by a full queue"),
    };
    let figures = format!(
        "{seen} packets, {:.2}% lost ({}% asked each way){full}; each went {} later than asked on average (max \
         {}), against a one-way delay of {}",
        lost * 100.0,
        asked_loss * 100.0,
        ms(late_us),
        ms(counts.late_max_us as f64),
        ms(asked_us)
    );
    let standard_error = (asked_loss * (1.0 - asked_loss) / seen as f64).sqrt();
    let loss_off = (lost - asked_loss).abs() > LOSS_SLACK_SE * standard_error;
    let delay_off = seen >= JUDGED_FROM_PACKETS && asked_us > 0.0 && late_us > DELAY_SLACK * asked_us;
    if !loss_off && !delay_off {
        return Some(Note::detail(format!("note: link {}: {figures}.", link.label())));
    }
    let why = match (loss_off, delay_off) {
        (true, _) => "the loss is further off what was asked than chance explains".to_string(),
        _ => format!("the emulator added more than {:.0}% to the delay asked", DELAY_SLACK * 100.0),
    };
    let text = format!(
        "warning: link {}: {figures}: {why}, so its cases did not run over the link asked for; re-run on a \
         quieter machine.",
        link.label()
    );
    let short = fit(&format!("warning: link {}: {why}", link.label()));
    Some(Note { text, short: Some(short) })
}

/// `0.24 ms`, `20 ms`.
fn ms(us: f64) -> String {
    let ms = us / 1000.0;
    if ms >= 10.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{ms:.2} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(loss_ppm: u32) -> Link {
        Link { rtt_us: 40_000, jitter_us: 0, loss_ppm, down_kbit: None, up_kbit: None }
    }

    fn counts(packets: u64, dropped: u64, late_us_each: u64) -> LinkCounts {
        let passed = 2 * packets - dropped;
        LinkCounts {
            up_packets: packets,
            up_dropped: dropped,
            down_packets: packets,
            down_dropped: 0,
            asked_delay_us: 20_000 * passed,
            late_us: late_us_each * passed,
            late_max_us: 3 * late_us_each,
            queue_dropped: 0,
        }
    }

    #[test]
    fn a_link_as_asked_is_a_detail_with_its_figures() {
        let n = note(&link(10_000), &counts(1000, 20, 200)).unwrap();
        assert_eq!(n.short, None);
        assert_eq!(
            n.text,
            "note: link rtt40ms+loss1%: 2000 packets, 1.00% lost (1% asked each way); each went 0.20 ms later \
             than asked on average (max 0.60 ms), against a one-way delay of 20 ms."
        );
    }

    #[test]
    fn loss_further_off_than_chance_or_a_lagging_emulator_is_a_warning() {
        let lossy = note(&link(10_000), &counts(1000, 60, 200)).unwrap();
        assert!(lossy.text.starts_with("warning: link rtt40ms+loss1%: 2000 packets, 3.00% lost"), "{}", lossy.text);
        assert!(lossy.text.contains("further off what was asked than chance explains"), "{}", lossy.text);
        // Under a point off, but 15 standard errors over 200000 packets: a biased emulator.
        assert!(note(&link(10_000), &counts(100_000, 1300, 200)).unwrap().text.starts_with("warning:"));
        // Nothing asked, something lost.
        assert!(note(&link(0), &counts(1000, 1, 200)).unwrap().text.starts_with("warning:"));
        let slow = note(&link(0), &counts(1000, 0, 1500)).unwrap();
        assert!(slow.text.contains("added more than 5% to the delay asked"), "{}", slow.text);
        assert!(slow.short.unwrap().chars().count() <= crate::render::TEXT_COLUMNS);
        // 2% of 100 packets lost for 1% asked: one standard error, chance.
        assert!(note(&link(10_000), &counts(50, 2, 200)).unwrap().text.starts_with("note:"));
        // A full queue's drops are told, not taken for the link's loss.
        let full = note(&link(10_000), &LinkCounts { queue_dropped: 7, ..counts(1000, 20, 200) }).unwrap();
        assert!(
            full.text.starts_with("note:")
                && full.text.contains("1.00% lost (1% asked each way), 7 dropped by a full queue;"),
            "{}",
            full.text
        );
    }
}
