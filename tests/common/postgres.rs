//! A throwaway PostgreSQL server for the tests: Debian's `postgresql` package, a cluster made by
//! `initdb` in a temporary directory, run as an unprivileged user (the package's `postgres`
//! account when the tests run as root, which PostgreSQL refuses) on a free loopback port.
//! `.ci/run` installs the package.
//!
//! A small shell keeper starts the server and waits on a pipe from the test process; when the
//! pipe closes (the fixture dropped, or the test process gone, even for a fixture kept in a
//! `static`), it stops the server and removes the directory.
//!
//! The cluster trades durability for speed (`fsync=off`): the tests kill service nodes, never the
//! database.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running PostgreSQL cluster.
pub struct Postgres {
    pub port: u16,
    bin: PathBuf,
    /// The keeper shell; its stdin is the pipe whose end stops the server.
    keeper: Child,
}

/// Starts `$@` in the background, waits for stdin to close, stops it with SIGINT (PostgreSQL's
/// fast shutdown), and removes the directory `$1`.
const KEEPER: &str = r#"dir="$1"; shift
"$@" >/dev/null 2>&1 &
pg=$!
read -r _ || true
kill -INT "$pg" 2>/dev/null
wait "$pg"
rm -rf "$dir""#;

/// The newest `/usr/lib/postgresql/<version>/bin` (Debian's layout).
fn binaries() -> PathBuf {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL is not installed: apt-get install postgresql (see .ci/run)")
        .filter_map(|e| e.ok())
        .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path().join("bin"))))
        .filter(|(_, bin)| bin.join("initdb").is_file())
        .collect();
    versions.sort();
    versions.pop().expect("no /usr/lib/postgresql/<version>/bin/initdb").1
}

fn running_as_root() -> bool {
    let out = Command::new("id").arg("-u").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

/// `program` with `args`, as the `postgres` user when we are root (`setpriv` execs the program
/// itself, so the child is PostgreSQL and signals reach it).
fn as_unprivileged(program: &Path, args: &[&str]) -> Command {
    if running_as_root() {
        let mut cmd = Command::new("setpriv");
        cmd.args(["--reuid=postgres", "--regid=postgres", "--clear-groups", "--"]).arg(program).args(args);
        cmd
    } else {
        let mut cmd = Command::new(program);
        cmd.args(args);
        cmd
    }
}

impl Postgres {
    /// Makes a cluster with a superuser `crossword` (trust authentication on loopback) and starts it.
    pub fn start() -> Postgres {
        let bin = binaries();
        let dir = tempfile::tempdir().unwrap().keep();
        let data = dir.join("data");
        if running_as_root() {
            let status = Command::new("chown").arg("postgres:postgres").arg(&dir).status().unwrap();
            assert!(status.success(), "chown to the postgres user failed");
        }
        let data_arg = data.to_str().unwrap();
        let out = as_unprivileged(
            &bin.join("initdb"),
            &["-D", data_arg, "-U", "crossword", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"],
        )
        .output()
        .unwrap();
        assert!(out.status.success(), "initdb: {}", String::from_utf8_lossy(&out.stderr));
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let port_arg = port.to_string();
        let server = as_unprivileged(
            &bin.join("postgres"),
            &[
                "-D",
                data_arg,
                "-p",
                &port_arg,
                "-k",
                dir.to_str().unwrap(),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "fsync=off",
                "-c",
                "synchronous_commit=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "max_connections=300",
            ],
        );
        let keeper = Command::new("sh")
            .args(["-c", KEEPER, "keeper"])
            .arg(&dir)
            .arg(server.get_program())
            .args(server.get_args())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let pg = Postgres { port, bin, keeper };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() || !pg.psql("postgres", "SELECT 1").0 {
            assert!(started.elapsed() < Duration::from_secs(30), "PostgreSQL did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        pg
    }

    /// Runs one SQL command with `psql` on `database`: (success, output).
    pub fn psql(&self, database: &str, sql: &str) -> (bool, String) {
        let psql = self.bin.join("psql");
        let out = Command::new(psql)
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", "crossword", "-d", database])
            .args(["-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-c", sql])
            .output()
            .unwrap();
        (out.status.success(), String::from_utf8_lossy(&out.stdout).trim().to_owned())
    }

    /// Creates an empty database and answers its connection URL.
    pub fn database(&self, name: &str) -> String {
        let (ok, _) = self.psql("postgres", &format!("CREATE DATABASE {name}"));
        assert!(ok, "CREATE DATABASE {name} failed");
        self.url(name)
    }

    /// The connection URL of `database`.
    pub fn url(&self, database: &str) -> String {
        format!("postgres://crossword@127.0.0.1:{}/{database}", self.port)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        drop(self.keeper.stdin.take());
        let _ = self.keeper.wait();
    }
}
