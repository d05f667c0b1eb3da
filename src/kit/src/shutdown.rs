//! Serving until SIGTERM or Ctrl-C, then letting in-flight requests finish.

use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;

/// Completes on SIGTERM or Ctrl-C.
pub async fn signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("shutting down: finishing in-flight requests");
}

/// How long a client may take to send a request's head (request line and headers) once it has
/// started one or kept a connection idle: slow-header clients (slowloris) are cut off here
/// instead of holding a connection and its task forever.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest request head, in bytes (hyper's read buffer); a bigger one is refused with 431.
pub const MAX_HEAD_BYTES: usize = 64 * 1024;

/// Serves `app` on `listener` (handlers may extract the peer's `ConnectInfo<SocketAddr>`) until
/// `stop` completes, then waits for in-flight requests. HTTP/1.1 on hyper, with
/// [`HEADER_READ_TIMEOUT`] and [`MAX_HEAD_BYTES`].
pub async fn serve_until(
    listener: tokio::net::TcpListener,
    app: Router,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(HEADER_READ_TIMEOUT).max_buf_size(MAX_HEAD_BYTES);
    let graceful = GracefulShutdown::new();
    tokio::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            let mut app = app.clone();
            tower_service::Service::call(&mut app, request.map(Body::new))
        });
        let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            // Errors here are the client's (reset, timeout, malformed head): nothing to do.
            let _ = connection.await;
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}
