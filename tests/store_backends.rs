//! The storage contract, once for every backend: each scenario runs against the embedded redb
//! store and against PostgreSQL (a throwaway cluster from Debian's packages, see
//! tests/common/postgres.rs), through the `Store` trait the handlers use. Concurrency scenarios
//! use several threads, as the server's handlers do.

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use common::postgres::Postgres;
use crossword_clues::Source;
use crossword_puzzle::{Puzzle, ShowcaseStatus, Status};
use crossword_service::config::Tier;
use crossword_service::store::{
    Consumed, Counter, Created, IdempotentHit, Listing, PgStore, RedbStore, Replaced, Scope, Store, StoreError,
    MIGRATIONS,
};

/// One PostgreSQL cluster for the whole file; each scenario gets a database of its own.
fn postgres() -> &'static Postgres {
    static CLUSTER: OnceLock<Postgres> = OnceLock::new();
    CLUSTER.get_or_init(Postgres::start)
}

static NEXT_DATABASE: AtomicU64 = AtomicU64::new(0);

/// Runs `scenario` on a fresh redb store and on a fresh PostgreSQL database.
fn on_every_backend(scenario: impl Fn(&dyn Store)) {
    let dir = tempfile::tempdir().unwrap();
    let redb = RedbStore::open(&dir.path().join("crossword.redb")).unwrap();
    scenario(&redb);
    let name = format!("store_{}_{}", std::process::id(), NEXT_DATABASE.fetch_add(1, Ordering::Relaxed));
    let pg = PgStore::connect(&postgres().database(&name)).unwrap();
    scenario(&pg);
}

fn puzzle(owner: &str, id: &str, updated_at: u64) -> Puzzle {
    Puzzle {
        id: id.into(),
        owner: owner.into(),
        title: "T".into(),
        author: String::new(),
        language: "en".into(),
        grid: vec!["CAT".into(), "ODE".into(), "WET".into()],
        clues: Default::default(),
        clue_tokens: Default::default(),
        theme_words: Vec::new(),
        status: Status::Draft,
        showcase_status: None,
        showcase_note: None,
        adult_themes: false,
        difficulty: None,
        writeup: String::new(),
        show_profile: false,
        no_index: true,
        created_at: updated_at,
        updated_at,
        published_at: None,
        version: 1,
        changed: vec!["created".into()],
        revision: 0,
    }
}

#[test]
fn accounts_and_keys_round_trip() {
    on_every_backend(|s| {
        let a = s.create_account(Tier::Free, Some("Ann")).unwrap();
        assert_eq!(s.account(&a.id).unwrap().unwrap(), a);
        assert!(s.account("acct_nope").unwrap().is_none());
        assert_eq!(s.set_tier(&a.id, Tier::Patron).unwrap().tier, Tier::Patron);
        assert_eq!(s.account(&a.id).unwrap().unwrap().tier, Tier::Patron);
        assert!(matches!(s.set_tier("acct_nope", Tier::Free), Err(StoreError::NotFound(_))));
        let (secret, key) = crossword_service::keys::new_key(&a.id, &Scope::ALL);
        s.insert_key(&key).unwrap();
        let (_, second) = crossword_service::keys::new_key(&a.id, &[Scope::Read]);
        s.insert_key(&second).unwrap();
        let found = s.key_by_hash(&service_kit::keys::hash(&secret)).unwrap().unwrap();
        assert_eq!((found.id.as_str(), found.hash.as_str()), (key.id.as_str(), key.hash.as_str()));
        assert!(s.key_by_hash("0".repeat(64).as_str()).unwrap().is_none());
        let ids: Vec<String> = s.keys_of(&a.id).unwrap().into_iter().map(|k| k.id).collect();
        assert_eq!(ids.len(), 2);
        assert!(ids.contains(&key.id) && ids.contains(&second.id));
        let first = s.revoke_key(&key.id).unwrap().revoked_at;
        assert!(first.is_some());
        assert_eq!(s.revoke_key(&key.id).unwrap().revoked_at, first, "revoking twice keeps the first time");
        assert!(s.key_by_hash(&service_kit::keys::hash(&secret)).unwrap().unwrap().revoked_at.is_some());
        assert!(matches!(s.revoke_key("key_nope"), Err(StoreError::NotFound(_))));
        let (_, orphan) = crossword_service::keys::new_key("acct_missing", &Scope::ALL);
        assert!(matches!(s.insert_key(&orphan), Err(StoreError::NotFound(_))));
    });
}

#[test]
fn consume_is_exact_under_concurrency() {
    on_every_backend(|s| {
        let a = s.create_account(Tier::Free, None).unwrap();
        let taken = AtomicU64::new(0);
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    for _ in 0..10 {
                        if let Consumed::Taken { .. } = s.consume(&a.id, Counter::Fills, "2026-11", 30).unwrap() {
                            taken.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        assert_eq!(taken.into_inner(), 30);
        assert_eq!(s.usage(&a.id, Counter::Fills, "2026-11").unwrap(), 30);
        assert_eq!(s.usage(&a.id, Counter::Fills, "2026-12").unwrap(), 0, "a new month starts at zero");
        assert_eq!(s.consume(&a.id, Counter::Fills, "2026-11", 30).unwrap(), Consumed::Exhausted);
        s.refund(&a.id, Counter::Fills, "2026-11").unwrap();
        assert_eq!(s.consume(&a.id, Counter::Fills, "2026-11", 30).unwrap(), Consumed::Taken { remaining: 0 });
        assert_eq!(s.consume(&a.id, Counter::Puzzles, "2026-11", -1).unwrap(), Consumed::Taken { remaining: -1 });
    });
}

#[test]
fn puzzles_are_created_once_per_key_within_the_quota() {
    on_every_backend(|s| {
        let created = AtomicU64::new(0);
        std::thread::scope(|scope| {
            for t in 0..8 {
                let (s, created) = (&s, &created);
                scope.spawn(move || {
                    let p = puzzle("acct_a", &format!("idem000{t}"), 1);
                    match s.create_puzzle(&p, Some("same key"), "2026-11", 5).unwrap() {
                        Created::New { remaining } => {
                            assert_eq!(remaining, 4);
                            created.fetch_add(1, Ordering::Relaxed);
                        }
                        Created::Replayed(_) => {}
                        other => panic!("{other:?}"),
                    }
                });
            }
        });
        assert_eq!(created.into_inner(), 1, "one key, one puzzle");
        assert_eq!(s.usage("acct_a", Counter::Puzzles, "2026-11").unwrap(), 1);
        for i in 0..4 {
            assert!(matches!(
                s.create_puzzle(&puzzle("acct_a", &format!("quota00{i}"), 2 + i), None, "2026-11", 5).unwrap(),
                Created::New { .. }
            ));
        }
        assert_eq!(
            s.create_puzzle(&puzzle("acct_a", "over0000", 9), None, "2026-11", 5).unwrap(),
            Created::QuotaExhausted
        );
        assert!(s.puzzle("over0000").unwrap().is_none(), "nothing half-written");
        assert_eq!(s.create_puzzle(&puzzle("acct_b", "quota000", 9), None, "2026-11", 5).unwrap(), Created::IdTaken);
        let (page, total) = s.list_puzzles("acct_a", None, 2, 0).unwrap();
        assert_eq!(total, 5);
        assert_eq!(
            page.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
            ["quota003", "quota002"],
            "newest edit first"
        );
        assert_eq!(s.list_puzzles("acct_a", Some(Status::Published), 10, 0).unwrap().1, 0);
    });
}

#[test]
fn edits_keep_history_and_the_showcase_queue_has_a_cap() {
    on_every_backend(|s| {
        for i in 0..4 {
            s.create_puzzle(&puzzle("acct_a", &format!("show000{i}"), i), Some(&format!("k{i}")), "2026-11", -1)
                .unwrap();
        }
        let mut p = s.puzzle("show0000").unwrap().unwrap();
        p.title = "New".into();
        p.version = 2;
        assert_eq!(s.replace_puzzle(&p, 0, true, None).unwrap(), Replaced::Done);
        assert_eq!(s.replace_puzzle(&p, 0, true, None).unwrap(), Replaced::Conflict, "a stale revision is refused");
        let versions = s.puzzle_versions("show0000").unwrap();
        assert_eq!((versions.len(), versions[0].title.as_str(), versions[0].version), (1, "T", 1));
        for i in 0..4 {
            let mut p = s.puzzle(&format!("show000{i}")).unwrap().unwrap();
            p.showcase_status = Some(ShowcaseStatus::Pending);
            let expected = if i < 3 { Replaced::Done } else { Replaced::QueueFull { queued: 3 } };
            assert_eq!(s.replace_puzzle(&p, p.revision, false, Some(3)).unwrap(), expected);
        }
        assert_eq!(s.showcase_queue().unwrap().len(), 3);
        assert!(s.delete_puzzle("show0000").unwrap());
        assert!(!s.delete_puzzle("show0000").unwrap());
        assert!(s.puzzle_deleted("show0000").unwrap());
        assert!(s.puzzle_versions("show0000").unwrap().is_empty(), "the history goes too");
        assert_eq!(s.showcase_queue().unwrap().len(), 2, "a deleted puzzle frees its place");
        assert_eq!(s.puzzle_by_idempotency_key("acct_a", "k0").unwrap(), Some(IdempotentHit::Deleted));
        assert_eq!(
            s.create_puzzle(&puzzle("acct_a", "zzzz0000", 1), Some("k0"), "2026-11", -1).unwrap(),
            Created::ReplayedDeleted
        );
    });
}

#[test]
fn clue_additions_count_uses() {
    on_every_backend(|s| {
        assert_eq!(s.clue_additions("en", &["ICE"]).unwrap(), vec![vec![]]);
        s.add_clue("en", "ICE", "Rink surface", Source::Original).unwrap();
        s.add_clue("en", "ICE", "rink  surface!", Source::Original).unwrap();
        s.add_clue("en", "ICE", "Rink surface", Source::Ai).unwrap();
        s.add_clue("fr", "ICE", "Autre", Source::Original).unwrap();
        let got = s.clue_additions("en", &["OAK", "ICE"]).unwrap();
        assert!(got[0].is_empty());
        let counts: Vec<(Source, u32)> = got[1].iter().map(|c| (c.source, c.count)).collect();
        assert_eq!(counts, [(Source::Original, 2), (Source::Ai, 1)]);
    });
}

#[test]
fn public_listings_follow_publication_and_approval() {
    on_every_backend(|s| {
        for (i, id) in ["pub00000", "pub00001", "pub00002", "draft000"].iter().enumerate() {
            let mut p = puzzle("acct_a", id, 10 + i as u64);
            p.author = "Ann Lee".into();
            if *id != "draft000" {
                p.status = Status::Published;
                p.published_at = Some(100 + i as u64);
                p.show_profile = *id != "pub00002";
                p.language = if *id == "pub00001" { "fr".into() } else { "en".into() };
                p.showcase_status = (*id != "pub00000").then_some(ShowcaseStatus::Approved);
            }
            assert!(matches!(s.create_puzzle(&p, None, "2026-11", -1).unwrap(), Created::New { .. }));
        }
        let ids = |(page, total): (Vec<Puzzle>, usize)| (page.into_iter().map(|p| p.id).collect::<Vec<_>>(), total);
        let slug = crossword_puzzle::author_slug("Ann Lee");
        assert_eq!(
            ids(s.public_puzzles(Listing::Author(&slug), 10, 0).unwrap()),
            (vec!["pub00001".into(), "pub00000".into()], 2)
        );
        assert_eq!(ids(s.public_puzzles(Listing::Author(""), 10, 0).unwrap()), (vec![], 0), "no slug, no page");
        assert_eq!(ids(s.public_puzzles(Listing::Showcase(None), 1, 1).unwrap()), (vec!["pub00001".into()], 2));
        assert_eq!(ids(s.public_puzzles(Listing::Showcase(Some("fr")), 10, 0).unwrap()), (vec!["pub00001".into()], 1));
        assert_eq!(s.list_puzzles("acct_a", Some(Status::Draft), 10, 0).unwrap().1, 1);
        // Unpublishing (back to a draft) takes a puzzle off every listing.
        let mut p = s.puzzle("pub00001").unwrap().unwrap();
        p.status = Status::Draft;
        assert_eq!(s.replace_puzzle(&p, p.revision, false, None).unwrap(), Replaced::Done);
        assert_eq!(ids(s.public_puzzles(Listing::Showcase(None), 10, 0).unwrap()), (vec!["pub00002".into()], 1));
    });
}

/// Two nodes: two stores on one PostgreSQL database, racing for one quota, one idempotency key
/// and one showcase cap; the database keeps every limit exact.
#[test]
fn two_postgres_stores_share_limits_exactly() {
    let url = postgres().database(&format!("two_nodes_{}", std::process::id()));
    let nodes = [PgStore::connect(&url).unwrap(), PgStore::connect(&url).unwrap()];
    let account = nodes[0].create_account(Tier::Free, None).unwrap();
    let taken = AtomicU64::new(0);
    let created = AtomicU64::new(0);
    std::thread::scope(|scope| {
        for t in 0..8 {
            let (node, taken, created, account) = (&nodes[t % 2], &taken, &created, &account);
            scope.spawn(move || {
                for _ in 0..10 {
                    if let Consumed::Taken { .. } = node.consume(&account.id, Counter::Fills, "2026-11", 25).unwrap() {
                        taken.fetch_add(1, Ordering::Relaxed);
                    }
                }
                let p = puzzle(&account.id, &format!("twonode{t}"), t as u64);
                match node.create_puzzle(&p, Some("one key"), "2026-11", 10).unwrap() {
                    Created::New { .. } => {
                        created.fetch_add(1, Ordering::Relaxed);
                    }
                    Created::Replayed(first) => assert_eq!(first.owner, account.id),
                    other => panic!("{other:?}"),
                }
            });
        }
    });
    assert_eq!(taken.into_inner(), 25, "no node overshoots the shared quota");
    assert_eq!(created.into_inner(), 1, "one key, one puzzle across nodes");
    assert_eq!(nodes[1].usage(&account.id, Counter::Puzzles, "2026-11").unwrap(), 1);
    // The showcase cap: six puzzles try to join a queue capped at 2, from both nodes at once.
    for i in 0..6 {
        nodes[0].create_puzzle(&puzzle(&account.id, &format!("queue00{i}"), i), None, "2026-11", -1).unwrap();
    }
    let joined = AtomicU64::new(0);
    std::thread::scope(|scope| {
        for i in 0..6 {
            let (node, joined) = (&nodes[i % 2], &joined);
            scope.spawn(move || {
                let mut p = node.puzzle(&format!("queue00{i}")).unwrap().unwrap();
                p.showcase_status = Some(ShowcaseStatus::Pending);
                match node.replace_puzzle(&p, p.revision, false, Some(2)).unwrap() {
                    Replaced::Done => {
                        joined.fetch_add(1, Ordering::Relaxed);
                    }
                    Replaced::QueueFull { queued } => assert_eq!(queued, 2),
                    other => panic!("{other:?}"),
                }
            });
        }
    });
    assert_eq!(joined.into_inner(), 2);
    assert_eq!(nodes[1].showcase_queue().unwrap().len(), 2);
}

/// Migrations run once however many nodes start at once, and a database from a newer build is
/// refused rather than misread.
#[test]
fn migrations_are_safe_with_nodes_starting_together() {
    let url = postgres().database(&format!("migrations_{}", std::process::id()));
    let newest = MIGRATIONS.last().unwrap().0;
    let versions: Vec<i32> = std::thread::scope(|scope| {
        let starts: Vec<_> =
            (0..4).map(|_| scope.spawn(|| PgStore::connect(&url).unwrap().schema_version().unwrap())).collect();
        starts.into_iter().map(|s| s.join().unwrap()).collect()
    });
    assert_eq!(versions, vec![newest; 4]);
    let name = url.rsplit('/').next().unwrap();
    let (ok, applied) = postgres().psql(name, "SELECT count(*) FROM crossword.schema_migrations");
    assert!(ok);
    assert_eq!(applied, MIGRATIONS.len().to_string(), "each migration recorded once");
    let (ok, _) =
        postgres().psql(name, "INSERT INTO crossword.schema_migrations (version, name) VALUES (999, 'future')");
    assert!(ok);
    let refused = PgStore::connect(&url).err().expect("a newer schema is refused").to_string();
    assert!(refused.contains("newer than this build"), "{refused}");
}

/// A database that cannot be reached is a clear error at start, not a hang.
#[test]
fn an_unreachable_database_is_a_clear_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let started = std::time::Instant::now();
    let error = PgStore::connect(&format!("postgres://crossword@127.0.0.1:{port}/nothing")).err().unwrap().to_string();
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert!(error.contains("storage"), "{error}");
    assert!(PgStore::connect("not a url at all ::").is_err());
}
