//! Lingering close of TCP connections, so the last bytes of an answer reach the client.
//!
//! When hyper is done with a connection it drops the socket. If the client's frames (HTTP/2
//! window updates and pings, sent while it reads a large answer) are still unread then, the
//! kernel resets the connection instead of closing it, and drops whatever of the answer it had
//! not sent yet: the client sees `connection reset` in the middle of a body. That happened to
//! answers in flight at SIGTERM. A connection here is instead half-closed (FIN after the data),
//! and read and discarded until the client closes it or [`LINGER`] passes; `serve` waits for
//! these before the process exits.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::watch;
use tonic::transport::server::{Connected, TcpConnectInfo};

/// How long a closed connection waits for the client to close its side.
pub(super) const LINGER: Duration = Duration::from_secs(5);

/// Counts the connections open or lingering: [`Tracker::closed`] waits for all of them.
pub(super) struct Tracker {
    tx: watch::Sender<()>,
    rx: watch::Receiver<()>,
}

impl Tracker {
    pub(super) fn new() -> Self {
        let (tx, rx) = watch::channel(());
        Self { tx, rx }
    }

    /// Wraps an accepted connection.
    pub(super) fn track(&self, stream: TcpStream) -> Lingering {
        Lingering {
            stream: Some(stream),
            open: Some(self.rx.clone()),
        }
    }

    /// Waits until every tracked connection has closed and lingered, at most `limit`.
    pub(super) async fn closed(self, limit: Duration) {
        let Self { tx, rx } = self;
        drop(rx);
        let _ = tokio::time::timeout(limit, tx.closed()).await;
    }
}

/// A TCP connection that lingers when dropped.
pub(super) struct Lingering {
    stream: Option<TcpStream>,
    /// Held while the connection is open or lingering.
    open: Option<watch::Receiver<()>>,
}

impl Lingering {
    fn stream(&mut self) -> &mut TcpStream {
        self.stream
            .as_mut()
            .expect("the stream is taken only on drop")
    }
}

impl Drop for Lingering {
    fn drop(&mut self) {
        let (Some(mut stream), Some(open)) = (self.stream.take(), self.open.take()) else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            let _ = tokio::time::timeout(LINGER, async {
                stream.shutdown().await?;
                let mut sink = [0u8; 4096];
                while stream.read(&mut sink).await? > 0 {}
                io::Result::Ok(())
            })
            .await;
            drop(open);
        });
    }
}

impl Connected for Lingering {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> Self::ConnectInfo {
        self.stream
            .as_ref()
            .expect("the stream is taken only on drop")
            .connect_info()
    }
}

impl AsyncRead for Lingering {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(self.stream()).poll_read(cx, buf)
    }
}

impl AsyncWrite for Lingering {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(self.stream()).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(self.stream()).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream
            .as_ref()
            .is_some_and(AsyncWrite::is_write_vectored)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(self.stream()).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(self.stream()).poll_shutdown(cx)
    }
}
