//! Response bodies without per-request allocation: a static page, or N bytes streamed from one static chunk.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};

/// One chunk of filler, shared by every `/bytes/N` response.
static FILLER: [u8; 64 * 1024] = [b'x'; 64 * 1024];

/// A response body the target server sends.
pub(crate) enum TargetBody {
    /// A complete body already in memory (static for the fixed pages).
    Full(Option<Bytes>),
    /// `remaining` filler bytes, sent in chunks so memory stays flat for any size.
    Filler { remaining: u64 },
}

impl TargetBody {
    /// A static body.
    pub(crate) fn fixed(bytes: &'static [u8]) -> Self {
        TargetBody::Full(Some(Bytes::from_static(bytes)))
    }

    /// A body built at run time.
    pub(crate) fn owned(bytes: impl Into<Bytes>) -> Self {
        TargetBody::Full(Some(bytes.into()))
    }

    /// No body.
    pub(crate) fn empty() -> Self {
        TargetBody::Full(None)
    }
}

impl Body for TargetBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        let frame = match this {
            TargetBody::Full(bytes) => bytes.take().map(Frame::data),
            TargetBody::Filler { remaining } if *remaining == 0 => None,
            TargetBody::Filler { remaining } => {
                let n = (*remaining).min(FILLER.len() as u64) as usize;
                *remaining -= n as u64;
                Some(Frame::data(Bytes::from_static(&FILLER[..n])))
            }
        };
        Poll::Ready(frame.map(Ok))
    }

    fn is_end_stream(&self) -> bool {
        match self {
            TargetBody::Full(b) => b.as_ref().is_none_or(|b| b.is_empty()),
            TargetBody::Filler { remaining } => *remaining == 0,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            TargetBody::Full(b) => SizeHint::with_exact(b.as_ref().map_or(0, |b| b.len() as u64)),
            TargetBody::Filler { remaining } => SizeHint::with_exact(*remaining),
        }
    }
}
