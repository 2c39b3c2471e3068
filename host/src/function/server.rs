//! The listener: address and network, TLS (mutual unless insecure), health, graceful shutdown.

use std::path::Path;
use std::time::Duration;

use anyhow::Context as _;
use serde_json::json;
use tonic::transport::{Certificate, Identity, Server, ServerTlsConfig};

use super::linger;
use super::log::Log;
use super::proto::{v1, v1beta1};
use super::service::Service;

/// How the server listens.
pub(crate) struct Listen<'a> {
    pub(crate) network: &'a str,
    pub(crate) address: &'a str,
    /// `tls.crt`, `tls.key` and `ca.crt`; `None` serves plain text (`--insecure`).
    pub(crate) tls_certs_dir: Option<&'a Path>,
    pub(crate) max_recv_message_size: usize,
}

/// Serves until SIGTERM or SIGINT, then lets in-flight calls finish.
pub(crate) async fn serve(listen: Listen<'_>, service: Service, log: Log) -> anyhow::Result<()> {
    let mut builder = Server::builder().timeout(Duration::from_secs(300));
    if let Some(dir) = listen.tls_certs_dir {
        // Both ring and aws-lc-rs are linked (see Cargo.toml): name the provider.
        let _ = rustls::crypto::ring::default_provider().install_default();
        builder = builder
            .tls_config(tls(dir)?)
            .context("cannot configure TLS")?;
    }
    let (reporter, health) = tonic_health::server::health_reporter();
    reporter
        .set_serving::<v1::function_runner_service_server::FunctionRunnerServiceServer<Service>>()
        .await;
    let v1 = v1::function_runner_service_server::FunctionRunnerServiceServer::new(service.clone())
        .max_decoding_message_size(listen.max_recv_message_size);
    let v1beta1 =
        v1beta1::function_runner_service_server::FunctionRunnerServiceServer::new(service)
            .max_decoding_message_size(listen.max_recv_message_size);
    let router = builder
        .add_service(health)
        .add_service(v1)
        .add_service(v1beta1);
    let shutdown = async move {
        shutdown_signal().await;
        log.info("Shutting down: finishing in-flight requests", &[]);
    };
    match listen.network {
        "tcp" => {
            let address = if listen.address.starts_with(':') {
                format!("0.0.0.0{}", listen.address)
            } else {
                listen.address.to_owned()
            };
            let listener = tokio::net::TcpListener::bind(&address)
                .await
                .with_context(|| format!("cannot listen on tcp {address}"))?;
            let bound = listener.local_addr()?;
            log.info(
                "Listening",
                &[
                    ("network", json!("tcp")),
                    ("address", json!(bound.to_string())),
                    ("tls", json!(listen.tls_certs_dir.is_some())),
                ],
            );
            // Without TCP_NODELAY a small response waits for the client's delayed ACK (40 ms).
            // Closed connections linger until the client has read the whole answer.
            let tracker = linger::Tracker::new();
            let incoming = tokio_stream::StreamExt::map(
                tokio_stream::wrappers::TcpListenerStream::new(listener),
                |conn| {
                    conn.map(|c| {
                        let _ = c.set_nodelay(true);
                        tracker.track(c)
                    })
                },
            );
            router
                .serve_with_incoming_shutdown(incoming, shutdown)
                .await?;
            tracker.closed(linger::LINGER * 2).await;
        }
        "unix" => {
            // A stale socket file from an earlier run would make bind fail.
            let _ = std::fs::remove_file(listen.address);
            let listener = tokio::net::UnixListener::bind(listen.address)
                .with_context(|| format!("cannot listen on unix {}", listen.address))?;
            log.info(
                "Listening",
                &[
                    ("network", json!("unix")),
                    ("address", json!(listen.address)),
                    ("tls", json!(listen.tls_certs_dir.is_some())),
                ],
            );
            let incoming = tokio_stream::wrappers::UnixListenerStream::new(listener);
            router
                .serve_with_incoming_shutdown(incoming, shutdown)
                .await?;
        }
        other => anyhow::bail!("unsupported --network {other:?} (want \"tcp\" or \"unix\")"),
    }
    log.info("Stopped", &[]);
    Ok(())
}

/// Mutual TLS as Crossplane runs functions: the server's pair, and clients must present a
/// certificate signed by `ca.crt`.
fn tls(dir: &Path) -> anyhow::Result<ServerTlsConfig> {
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))
    };
    Ok(ServerTlsConfig::new()
        .identity(Identity::from_pem(read("tls.crt")?, read("tls.key")?))
        .client_ca_root(Certificate::from_pem(read("ca.crt")?)))
}

async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
        }
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
