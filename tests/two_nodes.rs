//! Two `crossword serve` processes on one PostgreSQL database (`[storage] backend =
//! "postgres"`), requests spread over both, as behind a load balancer: what one node writes the
//! other reads, and the limits the database keeps hold across nodes. The database is a
//! throwaway cluster from Debian's packages (tests/common/postgres.rs).

mod common;

use common::postgres::Postgres;
use common::{at_once, bearer, mini, request, send, tally, EventStream, Reply, Server};
use serde_json::{json, Value};

fn config(url: &str, plans: &str) -> String {
    format!("[storage]\nbackend = \"postgres\"\nurl = \"{url}\"\n{plans}")
}

/// Two nodes with the English fixture index on a fresh database of `pg`.
fn two_nodes(pg: &Postgres, name: &str, plans: &str) -> [Server; 2] {
    two_nodes_of(pg, name, plans, "en")
}

fn two_nodes_of(pg: &Postgres, name: &str, plans: &str, language: &str) -> [Server; 2] {
    let toml = config(&pg.database(name), plans);
    [Server::start(&[language], Some(&toml)), Server::start(&[language], Some(&toml))]
}

#[test]
fn what_one_node_writes_the_other_reads() {
    let pg = Postgres::start();
    let nodes = two_nodes(&pg, "written_and_read", "");
    // The account and key are made through node 0's admin command; node 1 knows them too.
    let (_, key) = nodes[0].account_with_key("starter", "");
    let r = send(&nodes[1], "POST", "/api/v1/puzzles", &key, Some(&mini("Shared")), &[]);
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["id"].as_str().unwrap().to_owned();
    let read = send(&nodes[0], "GET", &format!("/api/v1/puzzles/{id}"), &key, None, &[]);
    assert_eq!((read.status, read.json()["title"].clone()), (200, json!("Shared")));
    let edited =
        send(&nodes[0], "PATCH", &format!("/api/v1/puzzles/{id}"), &key, Some(&json!({"title": "Edited"})), &[]);
    assert_eq!(edited.status, 200, "{}", edited.body);
    let list = send(&nodes[1], "GET", "/api/v1/puzzles", &key, None, &[]).json();
    assert_eq!((list["total"].clone(), list["puzzles"][0]["title"].clone()), (json!(1), json!("Edited")));
    let published = send(&nodes[1], "POST", &format!("/api/v1/puzzles/{id}/publish"), &key, Some(&json!({})), &[]);
    assert_eq!(published.status, 200, "{}", published.body);
    // The public page, from the node that did not publish it.
    let page = request(nodes[0].addr, "GET", &format!("/p/{id}"), &[], None);
    assert_eq!(page.status, 200);
    assert!(page.body.contains("Edited"));
    let deleted = send(&nodes[0], "DELETE", &format!("/api/v1/puzzles/{id}"), &key, None, &[]);
    assert_eq!(deleted.status, 204);
    assert_eq!(send(&nodes[1], "GET", &format!("/api/v1/puzzles/{id}"), &key, None, &[]).status, 404);
}

#[test]
fn idempotency_and_the_monthly_quota_hold_across_nodes() {
    let pg = Postgres::start();
    let nodes = two_nodes(&pg, "limits", "[tiers.free]\npuzzles_per_month = 5\nreads_per_minute = -1\n");
    let (_, key) = nodes[0].account_with_key("free", "");
    // One key, 20 requests at once over both nodes: one puzzle.
    let replies = at_once(20, |i| {
        send(
            &nodes[i % 2],
            "POST",
            "/api/v1/puzzles",
            &key,
            Some(&mini(&format!("Race {i}"))),
            &[("Idempotency-Key", "one")],
        )
    });
    let created: Vec<&Reply> = replies.iter().filter(|r| r.status == 201).collect();
    assert_eq!(created.len(), 1, "one key, one puzzle, whichever node answers");
    let id = created[0].json()["id"].clone();
    assert!(replies.iter().all(|r| r.status == 201 || r.status == 200), "{:?}", tally(&replies));
    assert!(replies.iter().all(|r| r.json()["id"] == id), "every answer is the one puzzle");
    // Four puzzles are left this month; 12 creates at once over both nodes get exactly four.
    let replies = at_once(12, |i| send(&nodes[i % 2], "POST", "/api/v1/puzzles", &key, Some(&mini("Q")), &[]));
    let (ok, codes) = tally(&replies);
    assert_eq!((ok, codes), (4, vec!["429 PUZZLE_QUOTA_REACHED".to_owned()]));
    let list = send(&nodes[1], "GET", "/api/v1/puzzles", &key, None, &[]).json();
    assert_eq!(list["total"], 5, "nothing refused was stored");
}

/// A key revoked through one node is refused by the other within a second: a node trusts a
/// cached caller for half a second at most when the store is shared.
#[test]
fn a_revoked_key_is_refused_on_every_node() {
    let pg = Postgres::start();
    let nodes = two_nodes(&pg, "revocation", "[tiers.starter]\nreads_per_minute = -1\n");
    let (account, key) = nodes[0].account_with_key("starter", "");
    let words = "/api/v1/words?pattern=C_T";
    for node in &nodes {
        assert_eq!(node.get(words, &[("X-Api-Key", &key)]).status, 200, "each node now caches the caller");
    }
    let key_id = nodes[0].admin(&["key", "list", "--account", &account])["keys"][0]["id"].as_str().unwrap().to_owned();
    nodes[0].admin(&["key", "revoke", &key_id]);
    nodes[0].get(words, &[("X-Api-Key", &key)]).problem(401, "UNAUTHORIZED");
    std::thread::sleep(std::time::Duration::from_secs(1));
    nodes[1].get(words, &[("X-Api-Key", &key)]).problem(401, "UNAUTHORIZED");
}

/// `crossword admin --config` with no server running works on the configured PostgreSQL
/// database, not on a redb file in the data directory; a node started later finds the key.
#[test]
fn admin_commands_without_a_server_reach_postgres() {
    let pg = Postgres::start();
    let tmp = tempfile::tempdir().unwrap();
    let config_path = tmp.path().join("config.toml");
    std::fs::write(&config_path, config(&pg.database("offline_admin"), "")).unwrap();
    let (data, config_arg) = (tmp.path().join("data"), config_path.to_str().unwrap());
    let admin = |args: &[&str]| -> Value {
        let mut all = vec!["admin", "--data-dir", data.to_str().unwrap(), "--config", config_arg];
        all.extend_from_slice(args);
        serde_json::from_str(&common::crossword(&all)).unwrap()
    };
    let account = admin(&["account", "create", "--tier", "starter"])["id"].as_str().unwrap().to_owned();
    let key = admin(&["key", "create", "--account", &account])["key"].as_str().unwrap().to_owned();
    assert!(!data.join("crossword.redb").exists(), "nothing written to a local redb file");
    let node = Server::start(&["en"], Some(&std::fs::read_to_string(&config_path).unwrap()));
    assert_eq!(node.get("/api/v1/words?pattern=C_T", &[("X-Api-Key", &key)]).status, 200);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_crossword"))
        .args(["admin", "--data-dir", data.to_str().unwrap(), "--config", config_arg, "restore", "x.redb"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("pg_restore"));
}

/// The per-account two-fill limit counts the fills of every node, and a cancel sent to one node
/// stops the fill another node runs.
#[test]
fn the_fill_limit_and_cancel_reach_across_nodes() {
    let pg = Postgres::start();
    let nodes = two_nodes_of(&pg, "fills", "[limits]\nsolver_threads = 6\n", "it");
    let (_, key) = nodes[0].account_with_key("starter", "");
    let h = [("X-Api-Key", key.as_str())];
    let body = format!(r#"{{"grid":{},"language":"it","max_time":30}}"#, common::open9());
    let mut first = EventStream::open(nodes[0].addr, "/api/v1/fill", &h, &body);
    let second = EventStream::open(nodes[0].addr, "/api/v1/fill", &h, &body);
    assert_eq!((first.status(), second.status()), (200, 200));
    // Node 1 runs nothing for this account, but the account runs two fills.
    let third = nodes[1].post("/api/v1/fill", &h, &body);
    third.problem(429, "SOLVER_BUSY");
    // Cancel the first fill through node 1: node 0 stops it.
    let session = first.header("x-fill-session-id").unwrap().to_owned();
    let r = nodes[1].post("/api/v1/fill/cancel", &h, &format!(r#"{{"session_id":"{session}"}}"#));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["cancelled"], true);
    let mut last = None;
    while let Some(event) = first.next_event() {
        last = Some(event);
    }
    let last = last.unwrap();
    assert_eq!((last["type"].as_str(), last["reason"].as_str()), (Some("error"), Some("cancelled")), "{last}");
    // Its place is free again, for a fill on either node.
    let started = std::time::Instant::now();
    let fourth = loop {
        let stream = EventStream::open(nodes[1].addr, "/api/v1/fill", &h, &body);
        if stream.status() == 200 || started.elapsed() > std::time::Duration::from_secs(10) {
            break stream;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_eq!(fourth.status(), 200, "the cancelled fill's place is given back");
    // An unknown session: cancelled false, from either node.
    let r = nodes[1].post("/api/v1/fill/cancel", &h, r#"{"session_id":"nothing-runs-here"}"#);
    assert_eq!(r.json()["cancelled"], false);
    drop((second, fourth));
}

/// One node killed with SIGKILL in the middle of a stream of writes to both: the other node
/// keeps serving, and every write either node acknowledged is there, whole.
#[test]
fn a_killed_node_loses_nothing_acknowledged() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let pg = Postgres::start();
    let mut nodes = two_nodes(&pg, "killed", "[tiers.patron]\npuzzles_per_month = -1\nreads_per_minute = -1\n");
    let (_, key) = nodes[0].account_with_key("patron", "");
    let auth = bearer(&key);
    let addrs = [nodes[0].addr, nodes[1].addr];
    let stop = AtomicBool::new(false);
    let killed = AtomicBool::new(false);
    // Each writer: creates with its own idempotency keys, alternating nodes; (key, title, id) of
    // every acknowledged create, the keys of the ones cut off, and the acknowledgements from
    // the surviving node after the kill.
    type Ledger = (Vec<(String, String, String)>, Vec<(String, String)>, usize);
    let ledgers: Vec<Ledger> = std::thread::scope(|scope| {
        let writers: Vec<_> = (0..4)
            .map(|w| {
                let (stop, killed, auth) = (&stop, &killed, &auth);
                scope.spawn(move || {
                    let (mut acked, mut cut, mut after_kill) = (Vec::new(), Vec::new(), 0);
                    let mut n = 0;
                    while !stop.load(Ordering::Relaxed) {
                        let (idem, title) = (format!("w{w}-{n}"), format!("Writer {w} puzzle {n}"));
                        // After the kill, as a load balancer would, only the survivor.
                        let was_killed = killed.load(Ordering::Relaxed);
                        let node = if was_killed { 1 } else { (w + n) % 2 };
                        let body = mini(&title).to_string();
                        let headers = [("Authorization", auth.as_str()), ("Idempotency-Key", idem.as_str())];
                        match common::try_request(
                            addrs[node],
                            "POST",
                            "/api/v1/puzzles",
                            &headers,
                            Some(body.as_bytes()),
                        ) {
                            Some(r) if r.status == 201 => {
                                acked.push((idem, title, r.json()["id"].as_str().unwrap().to_owned()));
                                if was_killed && node == 1 {
                                    after_kill += 1;
                                }
                            }
                            Some(r) => panic!("node {node}: {} {}", r.status, r.body),
                            None => cut.push((idem, title)),
                        }
                        n += 1;
                    }
                    (acked, cut, after_kill)
                })
            })
            .collect();
        std::thread::sleep(std::time::Duration::from_millis(800));
        nodes[0].child.kill().unwrap();
        nodes[0].child.wait().unwrap();
        killed.store(true, Ordering::Relaxed);
        std::thread::sleep(std::time::Duration::from_millis(800));
        stop.store(true, Ordering::Relaxed);
        writers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let survivor = &nodes[1];
    let after_kill: usize = ledgers.iter().map(|l| l.2).sum();
    assert!(after_kill > 0, "the surviving node kept acknowledging writes");
    let mut acknowledged = 0;
    for (idem, title, id) in ledgers.iter().flat_map(|l| l.0.iter()) {
        let r = send(survivor, "GET", &format!("/api/v1/puzzles/{id}"), &key, None, &[]);
        assert_eq!((r.status, r.json()["title"].as_str()), (200, Some(title.as_str())), "{idem}");
        acknowledged += 1;
    }
    // A create the kill cut off is there whole or not at all: repeating its key on the
    // survivor either replays the stored puzzle or creates it now, never a mix.
    let mut cut_off = 0;
    for (idem, title) in ledgers.iter().flat_map(|l| l.1.iter()) {
        let r =
            send(survivor, "POST", "/api/v1/puzzles", &key, Some(&mini(title)), &[("Idempotency-Key", idem.as_str())]);
        assert!(r.status == 200 || r.status == 201, "{}", r.body);
        assert_eq!(r.json()["title"].as_str(), Some(title.as_str()));
        cut_off += 1;
    }
    let list = send(survivor, "GET", "/api/v1/puzzles?limit=1", &key, None, &[]).json();
    assert_eq!(list["total"].as_u64().unwrap() as usize, acknowledged + cut_off, "one puzzle per key, nothing else");
    assert!(acknowledged > 10, "{acknowledged} writes acknowledged");
}
