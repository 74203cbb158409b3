//! A panic inside a client library, caught where a request is made: one failed request of kind `protocol`
//! with the panic's message as its reason, never the end of the process (a run that ends with exit 101
//! exports nothing of what it measured). This is the last line of defence, not the fix: a peer's bytes that
//! make a library panic are refused by a bound before that (h3's header section limit, say, before `http`'s
//! `HeaderMap` panicked on 40,000 fields). Wraps every blocking driver ([`Contained`]) and every request of
//! an async pool ([`request`]). Only blocking drivers are wrapped: a pool or a command client is not one.

use std::any::Any;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::task::Poll;

use httpbench_shared::{ErrorKind, Outcome, PhaseTimes};

use super::Driver;

/// The reason of a request whose client panicked with `panic`.
fn reason(panic: &(dyn Any + Send)) -> String {
    let text = match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(s), _) => s,
        (_, Some(s)) => s.as_str(),
        _ => "no message",
    };
    let text = text.replace(['\n', '\r'], " ");
    format!("the client library panicked on the response ({text})")
}

/// The failed request a panic counts as.
pub(super) fn failed() -> Outcome {
    Outcome::failed(ErrorKind::Protocol, None)
}

/// A request of an async pool, run to its end; a panic in any of its polls is `Err` with its reason, to be
/// counted as one [`failed`] request.
pub(super) async fn request<T, F: Future<Output = T>>(request: F) -> Result<T, String> {
    let mut request = std::pin::pin!(request);
    let polled = std::future::poll_fn(|cx| match catch_unwind(AssertUnwindSafe(|| request.as_mut().poll(cx))) {
        Ok(Poll::Ready(done)) => Poll::Ready(Ok(done)),
        Ok(Poll::Pending) => Poll::Pending,
        Err(panic) => Poll::Ready(Err(panic)),
    });
    polled.await.map_err(|panic| reason(&*panic))
}

/// A blocking driver whose panics are failed requests.
pub(super) struct Contained {
    inner: Box<dyn Driver + Send>,
    /// The reason of the last request, when it panicked.
    panicked: Option<String>,
}

impl Contained {
    /// `inner`, contained.
    pub(super) fn new(inner: Box<dyn Driver + Send>) -> Self {
        Contained { inner, panicked: None }
    }
}

impl Driver for Contained {
    fn request(&mut self) -> Outcome {
        self.panicked = None;
        catch_unwind(AssertUnwindSafe(|| self.inner.request())).unwrap_or_else(|panic| {
            self.panicked = Some(reason(&*panic));
            failed()
        })
    }

    fn failure_reason(&mut self) -> Option<String> {
        self.panicked.take().or_else(|| self.inner.failure_reason())
    }

    fn phases(&mut self) -> Option<PhaseTimes> {
        self.inner.phases()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Panics on its first request, answers after.
    struct Fragile(bool);

    impl Driver for Fragile {
        fn request(&mut self) -> Outcome {
            if !std::mem::replace(&mut self.0, true) {
                panic!("requested capacity too large");
            }
            Outcome::response(200, 1)
        }
    }

    #[test]
    fn a_panicking_request_is_one_failed_request_and_the_next_one_runs() {
        let mut driver = Contained::new(Box::new(Fragile(false)));
        assert_eq!(driver.request(), failed());
        let why = driver.failure_reason().unwrap_or_default();
        assert!(why.contains("panicked") && why.contains("requested capacity too large"), "{why}");
        assert_eq!(driver.request(), Outcome::response(200, 1));
        assert_eq!(driver.failure_reason(), None);
    }

    #[test]
    fn a_panicking_task_is_one_failed_request() {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let done: Result<(), String> = runtime.block_on(request(async {
            tokio::task::yield_now().await;
            panic!("{}", String::from("a response it could not take"))
        }));
        let why = done.unwrap_err();
        assert!(why.contains("panicked") && why.contains("a response it could not take"), "{why}");
        assert_eq!(runtime.block_on(request(async { 7 })), Ok(7));
    }
}
