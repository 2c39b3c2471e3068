//! `xprender playground`: serves the playground on 127.0.0.1, the built site embedded in the
//! binary (`host/assets/playground`), or a directory of it with `--dir` while developing.
//!
//! A deliberately tiny static file server (GET and HEAD only, one thread per connection,
//! `Connection: close`): the playground is a static site and talks to no server.

use std::borrow::Cow;
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::io::input_error;

/// Connections served at once; each holds a thread for at most the 10 s read timeout plus
/// the response, and reads at most a 16 KiB request head.
const MAX_CONNECTIONS: usize = 64;

#[derive(Debug, clap::Args)]
pub(crate) struct PlaygroundArgs {
    /// The port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 0)]
    pub(crate) port: u16,
    /// Serve this built playground (e.g. www/dist) instead of the one in the binary.
    #[arg(long, value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,
}

/// The built playground, as `scripts/build-embedded.sh` writes it into host/assets.
#[derive(rust_embed::Embed)]
#[folder = "assets/playground"]
struct Embedded;

/// Where the served files come from.
#[derive(Clone)]
enum Site {
    Embedded,
    Dir(PathBuf),
}

pub(crate) fn run(args: &PlaygroundArgs) -> anyhow::Result<ExitCode> {
    let site = match &args.dir {
        None => Site::Embedded,
        Some(dir) => Site::Dir(site_dir(dir)?),
    };
    let listener = TcpListener::bind(("127.0.0.1", args.port))
        .map_err(|e| input_error!("cannot listen on 127.0.0.1:{}: {e}", args.port))?;
    let addr = listener.local_addr()?;
    crate::outln!("xprender playground: http://{addr}/");
    match &site {
        Site::Embedded => eprintln!("serving the embedded playground (Ctrl-C to stop)"),
        Site::Dir(root) => eprintln!("serving {} (Ctrl-C to stop)", root.display()),
    }
    std::io::stdout().flush()?;
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        // A flood of idle connections must not pile up threads: past the cap, refuse at once.
        if open.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            open.fetch_sub(1, Ordering::SeqCst);
            let _ = respond(
                &mut stream,
                "503 Service Unavailable",
                "text/plain; charset=utf-8",
                b"too many connections\n",
                true,
            );
            continue;
        }
        let site = site.clone();
        let open = Arc::clone(&open);
        std::thread::spawn(move || {
            let _ = serve(stream, &site);
            open.fetch_sub(1, Ordering::SeqCst);
        });
    }
    Ok(ExitCode::from(super::EXIT_OK))
}

/// A `--dir` that holds a built playground, canonical so requests can be kept inside it.
fn site_dir(dir: &Path) -> anyhow::Result<PathBuf> {
    let root = dir.canonicalize().map_err(|_| {
        input_error!(
            "{} does not exist: build the playground first (see www/README.md), or leave out \
             --dir to serve the one in the binary",
            dir.display()
        )
    })?;
    if !root.join("index.html").is_file() {
        return Err(input_error!(
            "{} has no index.html: is it the built playground?",
            root.display()
        )
        .into());
    }
    Ok(root)
}

fn serve(mut stream: TcpStream, site: &Site) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?.take(16 * 1024));
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Drain the headers; nothing in them changes the answer.
    let mut line = String::new();
    while reader.read_line(&mut line)? > 2 {
        line.clear();
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    if method != "GET" && method != "HEAD" {
        return respond(
            &mut stream,
            "405 Method Not Allowed",
            "text/plain; charset=utf-8",
            b"method not allowed\n",
            true,
        );
    }
    let head_only = method == "HEAD";
    match lookup(site, target) {
        Some((path, body)) => respond(
            &mut stream,
            "200 OK",
            content_type(&path),
            &body,
            !head_only,
        ),
        None => not_found(&mut stream, head_only),
    }
}

/// The file a request target names, with its contents.
fn lookup(site: &Site, target: &str) -> Option<(PathBuf, Cow<'static, [u8]>)> {
    match site {
        Site::Dir(root) => {
            let file = resolve(root, target)?;
            let body = std::fs::read(&file).ok()?;
            Some((file, Cow::Owned(body)))
        }
        Site::Embedded => {
            let mut path = relative_path(target)?;
            // A directory's page, as for `--dir` (the built site has one: its root).
            if Embedded::get(path.to_str()?).is_none() {
                path.push("index.html");
            }
            let file = Embedded::get(path.to_str()?)?;
            Some((path, file.data))
        }
    }
}

fn not_found(stream: &mut TcpStream, head_only: bool) -> std::io::Result<()> {
    respond(
        stream,
        "404 Not Found",
        "text/plain; charset=utf-8",
        b"not found\n",
        !head_only,
    )
}

fn respond(
    stream: &mut TcpStream,
    status: &str,
    content_type: &str,
    body: &[u8],
    with_body: bool,
) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    if with_body {
        stream.write_all(body)?;
    }
    stream.flush()
}

/// A request target as a relative path (`/a/./b?q` → `a/b`), or `None` for one that climbs out.
fn relative_path(target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next()?;
    if !path.starts_with('/') {
        return None;
    }
    let decoded = percent_decode(path)?;
    let mut out = PathBuf::new();
    for component in Path::new(&decoded).components() {
        match component {
            Component::RootDir | Component::CurDir => {}
            Component::Normal(c) => out.push(c),
            Component::ParentDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// Maps a request target to a file under `root`, or `None` for anything outside it.
fn resolve(root: &Path, target: &str) -> Option<PathBuf> {
    let mut file = root.join(relative_path(target)?);
    if file.is_dir() {
        file.push("index.html");
    }
    // Symlinks must not lead out of the served directory either.
    let real = file.canonicalize().ok()?;
    (real.starts_with(root) && real.is_file()).then_some(real)
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    let s = String::from_utf8(out).ok()?;
    (!s.contains(['\0', '\\'])).then_some(s)
}

fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "json" | "map" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "txt" | "md" => "text/plain; charset=utf-8",
        "yaml" | "yml" => "application/yaml",
        _ => "application/octet-stream",
    }
}
