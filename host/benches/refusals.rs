//! How fast the hostile requests of docs/security.md are refused (or rendered), and the peak
//! resident memory of the process doing it, for the CLI, the function server and the
//! playground server, on a release build. Not a timed test: the figures go to
//! docs/security.md (the tests assert the refusals' text and the memory bound). Run with
//! `cargo bench -p xprender-host --bench refusals`.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::cast_precision_loss,
    unreachable_pub
)]

mod common;
#[path = "../tests/hostile/mod.rs"]
mod hostile;

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value as Json, json};
use tonic::transport::Channel;

use common::Encoded;
use common::proto::v1::{Resource, RunFunctionRequest, RunFunctionResponse, State};
use hostile::{measure, mib};

const XPRENDER: &str = env!("CARGO_BIN_EXE_xprender");

/// The hostile requests, by name.
fn requests() -> Vec<(&'static str, String)> {
    vec![
        (
            "two million small objects",
            hostile::two_million_small_objects(),
        ),
        ("200,000 resources", hostile::resources(200_000)),
        ("a 1 MiB key", hostile::a_one_mebibyte_key()),
        ("100,000-deep nesting", hostile::nesting(100_000)),
    ]
}

/// One line of a Markdown table.
fn row(face: &str, what: &str, size: usize, outcome: &str, elapsed: Duration, peak: u64) {
    println!(
        "| {face} | {what} | {:.1} MiB | {outcome} | {:.0} ms | {:.0} MiB |",
        mib(size as u64),
        elapsed.as_secs_f64() * 1000.0,
        mib(peak)
    );
}

/// The first line of a message, shortened.
fn gist(s: &str) -> String {
    let line = s.lines().next().unwrap_or("").trim();
    let mut out: String = line.chars().take(110).collect();
    if out.len() < line.len() {
        out.push('…');
    }
    out.replace('|', "\\|")
}

/// The CLI's cases: a name, how to make the request, and the flags.
type Make = fn() -> String;
const CLI_CASES: [(&str, Make, &[&str]); 6] = [
    (
        "two million small objects",
        hostile::two_million_small_objects,
        &[],
    ),
    ("200,000 resources", || hostile::resources(200_000), &[]),
    ("a 1 MiB key", hostile::a_one_mebibyte_key, &[]),
    ("100,000-deep nesting", || hostile::nesting(100_000), &[]),
    (
        "2 MiB over `--max-request-size 1MiB`",
        || hostile::padded(2 << 20),
        &["--max-request-size", "1MiB"],
    ),
    (
        "200,000 resources over `--max-request-size 16MiB`",
        || hostile::resources(200_000),
        &["--max-request-size", "16MiB"],
    ),
];

/// Writes the CLI's requests (`request-<i>.json`): run in a child of its own, because a
/// spawned child's peak RSS starts from this process's peak (the memory it execs from).
fn write_cli_requests(dir: &Path) {
    for (i, (_, make, _)) in CLI_CASES.iter().enumerate() {
        std::fs::write(dir.join(format!("request-{i}.json")), make()).unwrap();
    }
}

fn cli(dir: &Path) {
    let status = Command::new(std::env::current_exe().unwrap())
        .arg("--write-requests")
        .arg(dir)
        .status()
        .unwrap();
    assert!(status.success());
    // Warm the module cache: the first run compiles the engine.
    measure(Command::new(XPRENDER).arg("version"));
    for (i, (what, _, extra)) in CLI_CASES.iter().enumerate() {
        let file = dir.join(format!("request-{i}.json"));
        let size = usize::try_from(std::fs::metadata(&file).unwrap().len()).unwrap();
        let run = measure(
            Command::new(XPRENDER)
                .arg("render")
                .args(*extra)
                .args(["--output", "json", "--request"])
                .arg(&file),
        );
        let outcome = if run.code == 0 {
            format!("rendered, exit 0, {} bytes out", run.out_len)
        } else {
            format!("exit {}: `{}`", run.code, gist(&run.err))
        };
        row("CLI", what, size, &outcome, run.elapsed, run.peak);
    }
    // An endless stdin, cut at the limit.
    let run = measure(
        Command::new(XPRENDER)
            .args(["render", "--max-request-size", "1MiB", "--request", "-"])
            .stdin(std::fs::File::open("/dev/zero").unwrap()),
    );
    let outcome = format!("exit {}: `{}`", run.code, gist(&run.err));
    row(
        "CLI",
        "an endless stdin, `--max-request-size 1MiB`",
        0,
        &outcome,
        run.elapsed,
        run.peak,
    );
}

/// A server child and its peak resident memory so far (`VmHWM`).
struct Server(Child);

impl Server {
    fn peak(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.0.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .unwrap_or(0)
            * 1024
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `xprender function serve` on a free port, and its address.
fn function_server() -> (Server, String) {
    let (child, address) = common::spawn_function_server(XPRENDER);
    (Server(child), address)
}

/// One RunFunction call with an encoded request, on a connection of its own.
async fn run_function(
    address: &str,
    request: Encoded,
) -> Result<RunFunctionResponse, tonic::Status> {
    let channel = Channel::from_shared(format!("http://{address}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut grpc = tonic::client::Grpc::new(channel)
        .max_encoding_message_size(usize::MAX)
        .max_decoding_message_size(usize::MAX);
    common::run_encoded(&mut grpc, request).await
}

/// A render request as the one function-patch-and-transform step that replaces it.
fn function_request(request: &str) -> RunFunctionRequest {
    let mut de = serde_json::Deserializer::from_str(request);
    de.disable_recursion_limit();
    let r: Json = serde::Deserialize::deserialize(&mut de).unwrap();
    let spec = &r["composition"]["spec"];
    let input = json!({"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources",
        "resources": spec["resources"]});
    RunFunctionRequest {
        observed: Some(State {
            composite: Some(Resource {
                resource: Some(common::structs::from_json(&r["xr"])),
                ..Resource::default()
            }),
            ..State::default()
        }),
        desired: Some(State::default()),
        input: Some(common::structs::from_json(&input)),
        ..RunFunctionRequest::default()
    }
}

fn function(rt: &tokio::runtime::Runtime) {
    use prost::Message as _;
    let mut cases = requests();
    // The server refuses more than 10,000 levels (Go's limit) before decoding: this is
    // 20,000 (a list and a value per level), and 100,000 levels take the encoder minutes.
    cases[3] = ("10,000-deep nesting", hostile::nesting(10_000));
    for (what, request) in cases {
        let req = Encoded(function_request(&request).encode_to_vec().into());
        drop(request);
        let size = req.0.len();
        let (server, address) = function_server();
        let started = Instant::now();
        let outcome = rt.block_on(async {
            match run_function(&address, req).await {
                Ok(rsp) => match rsp.results.iter().find(|r| r.severity == 1) {
                    Some(f) => format!("Fatal result: `{}`", gist(&f.message)),
                    None => "rendered".to_owned(),
                },
                Err(status) => format!("{:?}: `{}`", status.code(), gist(status.message())),
            }
        });
        let elapsed = started.elapsed();
        // The server may still be reading what the client sent after it answered.
        std::thread::sleep(Duration::from_millis(200));
        row(
            "function server",
            what,
            size,
            &outcome,
            elapsed,
            server.peak(),
        );
    }
}

/// `xprender playground` on a free port, and its address.
fn playground(dir: &Path) {
    let site = dir.join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("index.html"), "<!doctype html>\n").unwrap();
    let mut child = Command::new(XPRENDER)
        .args(["playground", "--port", "0", "--dir"])
        .arg(&site)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let server = Server(child);
    let address = line
        .trim()
        .trim_start_matches("xprender playground: http://")
        .trim_end_matches('/')
        .to_owned();
    let body = 64usize << 20;
    let cases: Vec<(&str, Vec<u8>, usize)> = vec![
        (
            "a 64 MiB POST",
            format!("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: {body}\r\n\r\n").into_bytes(),
            body,
        ),
        (
            "a 64 MiB request head",
            b"GET / HTTP/1.1\r\nX-Pad: ".to_vec(),
            body,
        ),
    ];
    for (what, head, pad) in cases {
        let started = Instant::now();
        let mut stream = TcpStream::connect(&address).unwrap();
        stream.write_all(&head).unwrap();
        let mut writer = stream.try_clone().unwrap();
        // Keep sending until the server answers and closes.
        std::thread::spawn(move || {
            let chunk = vec![b'x'; 1 << 16];
            let mut sent = 0;
            while sent < pad && writer.write_all(&chunk).is_ok() {
                sent += chunk.len();
            }
        });
        let mut status = String::new();
        BufReader::new(&stream).read_line(&mut status).unwrap();
        let elapsed = started.elapsed();
        let mut rest = Vec::new();
        let _ = stream.read_to_end(&mut rest);
        row(
            "playground server",
            what,
            head.len() + pad,
            &format!("`{}`", status.trim()),
            elapsed,
            server.peak(),
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--write-requests") {
        write_cli_requests(Path::new(&args[2]));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    println!("| Face | Hostile input | Request | Outcome | Time | Peak RSS |");
    println!("|---|---|---|---|---|---|");
    cli(dir.path());
    // Deep requests are converted and encoded recursively: give the client room.
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(|| {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            function(&rt);
        })
        .unwrap()
        .join()
        .unwrap();
    playground(dir.path());
}
