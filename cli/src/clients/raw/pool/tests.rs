//! The epoll pool against a loopback server: answers split over writes, connections closed after one answer.
use super::*;
use std::net::TcpListener;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

/// A loopback server answering `hello` with its head split over two writes, closing each connection
/// after one answer when `close_after_one` (without saying so: a keep-alive race every time). Counts
/// the connections it accepted.
fn server(close_after_one: bool) -> (String, Arc<AtomicU64>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let accepted = Arc::new(AtomicU64::new(0));
    let count = accepted.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(1000).flatten() {
            count.fetch_add(1, Ordering::Relaxed);
            std::thread::spawn(move || answer(stream, close_after_one));
        }
    });
    (url, accepted)
}

fn answer(mut stream: std::net::TcpStream, close_after_one: bool) {
    let mut buf = [0u8; 4096];
    loop {
        let mut got = Vec::new();
        while !got.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-");
        std::thread::sleep(Duration::from_millis(1));
        let _ = stream.write_all(b"Length: 5\r\n\r\nhello");
        if close_after_one {
            return;
        }
    }
}

fn pool(url: &str, mode: Mode, n: usize) -> RawPool {
    let config = DriverConfig {
        url: url.parse().unwrap(),
        mode,
        timeout: Duration::from_secs(5),
        cacert: None,
        http: HttpVersion::Http11,
    };
    RawPool::new(&config, n).unwrap()
}

fn round(p: &mut RawPool, n: u64) -> Vec<Sample> {
    let mut samples = Vec::new();
    p.round(RoundBudget::Requests(n), &AtomicBool::new(false), &mut |s| samples.push(s));
    samples
}

#[test]
fn a_count_is_met_on_one_connection_per_slot_with_heads_split_over_reads() {
    let (url, accepted) = server(false);
    let mut p = pool(&url, Mode::Reuse, 4);
    let samples = [round(&mut p, 40), round(&mut p, 40)].concat();
    assert_eq!(samples.len(), 80);
    for s in &samples {
        assert_eq!((s.outcome.failure(), s.outcome.body_bytes), (None, 5), "{s:?}");
    }
    assert_eq!(accepted.load(Ordering::Relaxed), 4, "connections kept across rounds");
    assert!(samples.iter().filter_map(|s| s.phases).all(|p| p.ttfb <= Duration::from_secs(5)));
}

#[test]
fn a_kept_connection_the_server_closed_is_retried_once_on_a_new_one() {
    let (url, accepted) = server(true);
    let mut p = pool(&url, Mode::Reuse, 2);
    let samples = round(&mut p, 20);
    assert!(samples.iter().all(|s| s.outcome.failure().is_none()), "{samples:?}");
    assert_eq!(accepted.load(Ordering::Relaxed), 20);
}

#[test]
fn fresh_mode_connects_per_request_and_a_refused_connect_is_counted() {
    let (url, accepted) = server(false);
    let samples = round(&mut pool(&url, Mode::Fresh, 3), 12);
    assert!(samples.iter().all(|s| s.outcome.failure().is_none()), "{samples:?}");
    assert_eq!(accepted.load(Ordering::Relaxed), 12);
    // A port nobody listens on (bound, then closed).
    let closed = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let samples = round(&mut pool(&format!("http://{closed}/"), Mode::Reuse, 2), 6);
    assert_eq!(samples.len(), 6);
    assert!(samples.iter().all(|s| s.outcome.failure() == Some(ErrorKind::Connect)), "{samples:?}");
    assert!(samples[0].reason.is_some() && samples[1].reason.is_none(), "why, once per kind");
}
