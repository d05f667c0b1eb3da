//! What happens to a stored puzzle besides its HTTP requests: the safety verdict, the showcase
//! pre-check and a person's review, the difficulty rating, and the clues a published puzzle
//! adds to the collection. All synchronous (run on the blocking pool or from the admin
//! command); every write goes through [`Store::replace_puzzle`] with the revision it read, so a
//! background job never overwrites a newer edit.

use crossword_clues::token::ClueSigner;
use crossword_clues::{dedupe_key, Source};
use crossword_puzzle::{difficulty, entries, safety, Puzzle, ShowcaseStatus, Status};

use crate::indexes::IndexManager;
use crate::store::{Replaced, Store, StoreError, StoreResult};

/// How many of an account's puzzles may wait for showcase review at once.
pub const SHOWCASE_QUEUE_CAP: usize = 3;

/// The safety check of a puzzle's answers, clues, title and writeup.
pub fn safety_verdict(puzzle: &Puzzle) -> safety::Verdict {
    let Ok((language, grid)) = puzzle.parsed_grid() else { return safety::Verdict::default() };
    let answers: Vec<String> = entries(language, &grid).into_iter().filter_map(|e| e.answer).collect();
    let clues = puzzle.clues.across.values().chain(puzzle.clues.down.values()).map(String::as_str);
    let theme = puzzle.theme_words.iter().map(String::as_str);
    safety::check(language, &answers, clues.chain(theme).chain([puzzle.title.as_str(), puzzle.writeup.as_str()]))
}

/// Re-reads a puzzle and applies `change` until the write lands (a concurrent write moves the
/// revision). `change` returns false to leave the puzzle as it is. Returns the written puzzle,
/// or `None` when there is no such puzzle or nothing was to change.
pub fn update(store: &dyn Store, id: &str, mut change: impl FnMut(&mut Puzzle) -> bool) -> StoreResult<Option<Puzzle>> {
    for _ in 0..100 {
        let Some(mut puzzle) = store.puzzle(id)? else { return Ok(None) };
        let revision = puzzle.revision;
        if !change(&mut puzzle) {
            return Ok(None);
        }
        match store.replace_puzzle(&puzzle, revision, false, None)? {
            Replaced::Done => {
                puzzle.revision = revision + 1;
                return Ok(Some(puzzle));
            }
            Replaced::NotFound => return Ok(None),
            Replaced::Conflict | Replaced::QueueFull { .. } => continue,
        }
    }
    Err(StoreError::Backend(format!("puzzle {id} kept changing; gave up")))
}

/// The automatic pre-check of a pending showcase submission: `flagged` when a blocked word
/// appears in an answer, clue, title or writeup, else `pre_approved`. A person finishes every
/// review either way.
pub fn pre_check(store: &dyn Store, id: &str) -> StoreResult<()> {
    update(store, id, |p| {
        if p.showcase_status != Some(ShowcaseStatus::Pending) {
            return false;
        }
        let verdict = safety_verdict(p);
        p.showcase_status =
            Some(if verdict.blocked.is_empty() { ShowcaseStatus::PreApproved } else { ShowcaseStatus::Flagged });
        true
    })?;
    Ok(())
}

/// Runs the pre-check of every pending submission (at start, for submissions a stopped server
/// never checked).
pub fn pre_check_pending(store: &dyn Store) -> StoreResult<usize> {
    let pending: Vec<String> = store
        .showcase_queue()?
        .into_iter()
        .filter(|p| p.showcase_status == Some(ShowcaseStatus::Pending))
        .map(|p| p.id)
        .collect();
    for id in &pending {
        pre_check(store, id)?;
    }
    Ok(pending.len())
}

/// A person's decision on a queued puzzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Into the showcase.
    Approve,
    /// Not into the showcase.
    Reject,
}

/// Approves or rejects a puzzle waiting for review; frees its queue place. A puzzle not in the
/// queue is `NotFound`.
pub fn review(store: &dyn Store, id: &str, decision: Decision, reason: Option<&str>) -> StoreResult<Puzzle> {
    let written = update(store, id, |p| {
        if !p.showcase_status.is_some_and(ShowcaseStatus::is_queued) {
            return false;
        }
        p.showcase_status =
            Some(if decision == Decision::Approve { ShowcaseStatus::Approved } else { ShowcaseStatus::Rejected });
        p.showcase_note = reason.map(str::to_owned);
        true
    })?;
    written.ok_or_else(|| StoreError::NotFound(format!("puzzle {id} in the showcase queue")))
}

/// Makes the difficulty rating of a published puzzle that has none (from the word list's
/// scores and the clue collection) and stores it, unless the puzzle changed meanwhile in a way
/// that made a new rating necessary again (then that one wins).
pub fn rate_difficulty(store: &dyn Store, indexes: &IndexManager, id: &str) -> StoreResult<()> {
    let Some(puzzle) = store.puzzle(id)? else { return Ok(()) };
    if puzzle.status != Status::Published || puzzle.difficulty.is_some() {
        return Ok(());
    }
    let Some(sheet) = puzzle.sheet() else { return Ok(()) };
    let index = indexes.get(sheet.language).ok();
    let base = indexes.clues(sheet.language).ok().flatten();
    let signals = difficulty::signals(
        &sheet,
        |answer| index.as_ref().and_then(|i| i.score(answer)),
        |answer, clue| {
            let wanted = dedupe_key(clue);
            base.as_ref().is_some_and(|b| b.clues(answer).any(|c| dedupe_key(c.text) == wanted))
        },
    );
    let rating = difficulty::rate(&signals);
    let (clues, grid) = (puzzle.clues.clone(), puzzle.grid.clone());
    update(store, id, |p| {
        let same = p.status == Status::Published && p.difficulty.is_none() && p.clues == clues && p.grid == grid;
        if same {
            p.difficulty = Some(rating);
        }
        same
    })?;
    Ok(())
}

/// Adds the clues of a published puzzle's finished answers to the collection: as `ai` when the
/// clue carries a proof token that verifies for its answer, else as `original`. `only_changed`
/// (the puzzle's previous clues) limits it to clues that are new or changed.
pub fn add_to_collection(
    store: &dyn Store,
    signer: &ClueSigner,
    puzzle: &Puzzle,
    only_changed: Option<&crossword_puzzle::Clues>,
) -> StoreResult<usize> {
    let Ok((language, grid)) = puzzle.parsed_grid() else { return Ok(0) };
    let mut added = 0;
    for e in entries(language, &grid) {
        let (Some(answer), Some(text)) = (e.answer.as_deref(), puzzle.clues.text(e.direction, e.number)) else {
            continue;
        };
        if only_changed.is_some_and(|old| old.text(e.direction, e.number) == Some(text)) {
            continue;
        }
        let token = puzzle.clue_tokens.get(&e.label());
        let source = match token {
            Some(t) if signer.verify(language.code(), answer, text, t) => Source::Ai,
            _ => Source::Original,
        };
        store.add_clue(language.code(), answer, text.trim(), source)?;
        added += 1;
    }
    Ok(added)
}
