//! etcd and a kube-apiserver on loopback, started in a temp dir that is removed when the test
//! passes and kept, with the servers' logs, when it fails.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use kube::api::{ApiResource, GroupVersionKind};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::discovery::Scope;

use super::tools::{free_port, which};

/// The servers of one test; all stopped on drop, panics included.
pub(crate) struct Servers {
    children: Vec<Child>,
    /// Scratch space for the test too; holds `etcd.log`, `apiserver.err` and the like.
    pub(crate) dir: PathBuf,
    /// Users `admin` (in `system:masters`, the current context) and the extra ones of `start`.
    pub(crate) kubeconfig: PathBuf,
}

impl Drop for Servers {
    fn drop(&mut self) {
        for c in self.children.iter_mut().rev() {
            let _ = c.kill();
            let _ = c.wait();
        }
        if std::thread::panicking() {
            eprintln!("logs kept in {}", self.dir.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

fn run_ok(cmd: &mut Command) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

impl Servers {
    /// etcd and the kube-apiserver named by `XPRENDER_KUBE_APISERVER`, with RBAC and token users
    /// `admin` plus `users` (no groups, so only what RBAC grants them); returns once the
    /// apiserver has written its serving certificate, which is not yet ready to serve.
    pub(crate) fn start(users: &[&str]) -> Servers {
        let bin = std::env::var("XPRENDER_KUBE_APISERVER")
            .expect("XPRENDER_KUBE_APISERVER must name a kube-apiserver binary (scripts/kube-apiserver.sh builds one)");
        let dir = tempfile::Builder::new()
            .prefix("xprender-cluster-")
            .tempdir()
            .unwrap()
            .keep();
        std::fs::create_dir_all(dir.join("certs")).unwrap();
        let mut servers = Servers {
            children: Vec::new(),
            dir: dir.clone(),
            kubeconfig: dir.join("kubeconfig"),
        };

        let (etcd_port, peer_port, api_port) = (free_port(), free_port(), free_port());
        let etcd_url = format!("http://127.0.0.1:{etcd_port}");
        let peer_url = format!("http://127.0.0.1:{peer_port}");
        let log = |name: &str| Stdio::from(std::fs::File::create(dir.join(name)).unwrap());
        servers.spawn(
            Command::new(which("etcd"))
                .args(["--name", "xprender", "--data-dir"])
                .arg(dir.join("etcd"))
                .args([
                    "--listen-client-urls",
                    &etcd_url,
                    "--advertise-client-urls",
                    &etcd_url,
                ])
                .args([
                    "--listen-peer-urls",
                    &peer_url,
                    "--initial-advertise-peer-urls",
                    &peer_url,
                ])
                .args(["--initial-cluster", &format!("xprender={peer_url}")])
                .stdout(log("etcd.log"))
                .stderr(log("etcd.err")),
        );

        let key = dir.join("sa.key");
        let public = dir.join("sa.pub");
        run_ok(
            Command::new("openssl")
                .args(["genrsa", "-out"])
                .arg(&key)
                .arg("2048"),
        );
        run_ok(
            Command::new("openssl")
                .args(["rsa", "-pubout", "-in"])
                .arg(&key)
                .arg("-out")
                .arg(&public),
        );
        let mut tokens = String::from("admin-token,admin,1,\"system:masters\"\n");
        for (uid, user) in (2..).zip(users) {
            tokens.push_str(&format!("{user}-token,{user},{uid}\n"));
        }
        std::fs::write(dir.join("tokens.csv"), tokens).unwrap();
        let p = |f: &Path| f.to_str().unwrap().to_string();
        servers.spawn(
            Command::new(bin)
                .arg(format!("--etcd-servers={etcd_url}"))
                .args([
                    "--bind-address=127.0.0.1",
                    "--advertise-address=127.0.0.1",
                    "--insecure-port=0",
                ])
                .arg(format!("--secure-port={api_port}"))
                .arg(format!("--cert-dir={}", p(&dir.join("certs"))))
                .arg(format!("--token-auth-file={}", p(&dir.join("tokens.csv"))))
                .arg("--authorization-mode=RBAC")
                .arg("--service-account-issuer=https://kubernetes.default.svc")
                .arg(format!("--service-account-key-file={}", p(&public)))
                .arg(format!("--service-account-signing-key-file={}", p(&key)))
                .args([
                    "--service-cluster-ip-range=10.96.0.0/24",
                    "--disable-admission-plugins=ServiceAccount",
                ])
                .stdout(log("apiserver.log"))
                .stderr(log("apiserver.err")),
        );

        // The serving certificate appears once the apiserver is up.
        let ca = dir.join("certs/apiserver.crt");
        let deadline = Instant::now() + Duration::from_secs(60);
        while !ca.exists() {
            assert!(
                Instant::now() < deadline,
                "kube-apiserver wrote no certificate; see {}",
                dir.display()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        let (mut user_list, mut contexts) = (String::new(), String::new());
        for user in std::iter::once(&"admin").chain(users) {
            user_list.push_str(&format!(
                "- name: {user}\n  user: {{token: {user}-token}}\n"
            ));
            contexts.push_str(&format!(
                "- name: {user}\n  context: {{cluster: test, user: {user}}}\n"
            ));
        }
        let kubeconfig = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster: {{server: \"https://127.0.0.1:{api_port}\", certificate-authority: \"{}\"}}\n\
             users:\n{user_list}contexts:\n{contexts}current-context: admin\n",
            p(&ca)
        );
        std::fs::write(&servers.kubeconfig, kubeconfig).unwrap();
        servers
    }

    /// Runs `cmd` alongside the servers (its logs in `dir`), stopped first on drop.
    pub(crate) fn spawn(&mut self, cmd: &mut Command) {
        let child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
        self.children.push(child);
    }

    /// A client as the kubeconfig's current user; the caller waits for what it needs served.
    pub(crate) async fn client(&self) -> kube::Client {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let kc = Kubeconfig::read_from(&self.kubeconfig).unwrap();
        let config = kube::Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default())
            .await
            .unwrap();
        kube::Client::try_from(config).unwrap()
    }
}

/// The API of a kind once the server serves it (CRDs take a moment), and whether it is
/// namespaced.
#[allow(dead_code, reason = "not every live-server test waits for a kind")]
pub(crate) async fn served_kind(
    client: &kube::Client,
    api_version: &str,
    kind: &str,
) -> (ApiResource, bool) {
    let (g, v) = api_version.split_once('/').unwrap_or(("", api_version));
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok((ar, caps)) =
            kube::discovery::pinned_kind(client, &GroupVersionKind::gvk(g, v, kind)).await
        {
            return (ar, caps.scope == Scope::Namespaced);
        }
        assert!(
            Instant::now() < deadline,
            "{kind} in {api_version} never served"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// What a CLI run printed, and its exit code (-1 when a signal ended it).
pub(crate) struct Run {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl From<Output> for Run {
    fn from(out: Output) -> Run {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}
