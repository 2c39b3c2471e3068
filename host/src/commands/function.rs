//! `xprender function`: run the engine as a Crossplane composition function.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::render::parse_size;
use crate::function::{Listen, Log, Service, serve};
use crate::runtime::{self, Limits, Pool, Runtime};
use crate::timeout::parse_timeout;

/// Function subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum FunctionCommand {
    /// Serve RunFunction over gRPC, as function-patch-and-transform does (same input, same
    /// desired state), each request in the wasm sandbox.
    Serve(ServeArgs),
}

/// `function serve`: the flags of functions built with function-sdk-go, plus the sandbox's.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Address to listen on (`host:port`, `:port` for every interface, or a socket path).
    #[arg(long, default_value = ":9443")]
    pub(crate) address: String,
    /// Network to listen on: tcp or unix.
    #[arg(long, default_value = "tcp")]
    pub(crate) network: String,
    /// Directory holding tls.crt, tls.key and ca.crt; clients must present a certificate
    /// signed by ca.crt.
    #[arg(long, env = "TLS_SERVER_CERTS_DIR", value_name = "DIR")]
    pub(crate) tls_certs_dir: Option<PathBuf>,
    /// Serve without TLS (for local development and `crossplane render`).
    #[arg(long)]
    pub(crate) insecure: bool,
    /// Log every request (tag, resources, duration).
    #[arg(short, long)]
    pub(crate) debug: bool,
    /// Largest request accepted, in MiB.
    #[arg(long, value_name = "MB", default_value_t = 4)]
    pub(crate) max_recv_message_size: usize,
    /// Linear-memory cap of the engine per request.
    #[arg(long, value_name = "SIZE", default_value = "256MiB", value_parser = parse_size)]
    pub(crate) max_memory: usize,
    /// Wall-clock budget per request.
    #[arg(long, value_name = "DURATION", default_value = "2s", value_parser = parse_timeout)]
    pub(crate) timeout: Duration,
    /// Renders at once, 1 to 1024 (default: one per core). Each holds an engine instance,
    /// whose memory slot is reserved when the server starts.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub(crate) parallel: Option<u16>,
}

pub(crate) fn run(cmd: FunctionCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        FunctionCommand::Serve(args) => serve_cmd(&args),
    }
}

fn serve_cmd(args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let tls_certs_dir = match (&args.tls_certs_dir, args.insecure) {
        (_, true) => None,
        (Some(dir), false) => Some(dir.as_path()),
        (None, false) => {
            return Err(crate::io::InputError(
                "--tls-certs-dir (or TLS_SERVER_CERTS_DIR) is required unless --insecure".into(),
            )
            .into());
        }
    };
    let log = Log { debug: args.debug };
    let parallel = args.parallel.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get().min(1024)),
        usize::from,
    );
    // The permits bound the instances alive to `parallel` (`Pool::render`); one slot spare.
    let instances = u32::try_from(parallel)
        .unwrap_or(u32::MAX)
        .saturating_add(1);
    let runtime = Runtime::new(
        runtime::BUNDLED_ENGINE,
        runtime::default_cache_dir().as_deref(),
        instances,
    )?;
    let limits = Limits {
        max_memory: args.max_memory,
        timeout: args.timeout,
    };
    let service = Service::new(Pool::new(runtime, limits, parallel), parallel, log);
    let listen = Listen {
        network: &args.network,
        address: &args.address,
        tls_certs_dir,
        max_recv_message_size: args.max_recv_message_size.saturating_mul(1 << 20),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(parallel)
        // Requests nest as deep as Go's protobuf reads (function::codec), and decoding,
        // converting and dropping them recurse per level; only the pages used are memory.
        .thread_stack_size(64 << 20)
        .enable_all()
        .build()?;
    rt.block_on(serve(listen, service, log))?;
    Ok(ExitCode::SUCCESS)
}
