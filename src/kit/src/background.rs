//! Background threads: CPU-heavy work (fills, renders) on threads that yield the CPU to request
//! handling, so a full solver pool or export queue does not show in request latency (measured
//! by `bench/soak/run.sh`). The trade-off: while requests keep every core busy, background work
//! waits.
//!
//! On a machine with two cores or more, background threads also keep off the first core they
//! could use. `SCHED_IDLE` alone lets a request preempt background work on its own core, but
//! busy background threads keep every core from going idle, and an idle core is what makes
//! Linux move a request thread waiting behind another one over at once; without one it waits
//! for the scheduler tick (bench/README.md, "Soak and overload"). The cost: background work gets
//! one core fewer. `BACKGROUND_ALL_CORES=1` in the environment lets it use them all.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};

/// Puts the calling thread behind request handling: on Linux the `SCHED_IDLE` policy (it runs
/// on the CPU time other threads leave); elsewhere the lowest thread priority.
pub fn lower_priority() {
    if std::env::var_os(ALL_CORES_VARIABLE).is_none_or(|v| v != "1") {
        spare_first_core();
    }
    #[cfg(target_os = "linux")]
    {
        use thread_priority::unix::{
            set_thread_priority_and_policy, thread_native_id, NormalThreadSchedulePolicy, ThreadSchedulePolicy,
        };
        let policy = ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle);
        if let Err(e) = set_thread_priority_and_policy(thread_native_id(), thread_priority::ThreadPriority::Min, policy)
        {
            tracing::warn!(error = ?e, "background thread priority unchanged");
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = thread_priority::set_current_thread_priority(thread_priority::ThreadPriority::Min);
    }
}

/// The environment variable that lets background threads run on every core (`1`).
pub const ALL_CORES_VARIABLE: &str = "BACKGROUND_ALL_CORES";

/// Restricts the calling thread to the cores it may use but the first, when it may use two or
/// more (Linux; elsewhere nothing changes).
fn spare_first_core() {
    #[cfg(target_os = "linux")]
    {
        use nix::sched::{sched_getaffinity, sched_setaffinity, CpuSet};
        use nix::unistd::Pid;
        let Ok(allowed) = sched_getaffinity(Pid::from_raw(0)) else { return };
        let cores: Vec<usize> = (0..CpuSet::count()).filter(|&c| allowed.is_set(c).unwrap_or(false)).collect();
        if cores.len() < 2 {
            return;
        }
        let mut background = CpuSet::new();
        for &core in &cores[1..] {
            let _ = background.set(core);
        }
        if let Err(e) = sched_setaffinity(Pid::from_raw(0), &background) {
            tracing::warn!(error = %e, "background thread affinity unchanged");
        }
    }
}

/// The cores the calling thread may run on (Linux), for tests and diagnostics.
pub fn allowed_cores() -> Vec<usize> {
    #[cfg(target_os = "linux")]
    {
        use nix::sched::{sched_getaffinity, CpuSet};
        use nix::unistd::Pid;
        match sched_getaffinity(Pid::from_raw(0)) {
            Ok(set) => (0..CpuSet::count()).filter(|&c| set.is_set(c).unwrap_or(false)).collect(),
            Err(_) => Vec::new(),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        Vec::new()
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// A fixed set of threads at [`lower_priority`] running closures in arrival order. Admission
/// (how many jobs may be under way) is the caller's: with no more jobs in flight than threads,
/// a job starts at once.
pub struct BackgroundThreads {
    sender: Mutex<Sender<Job>>,
}

/// The job panicked (the thread survives; the panic is caught).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the background job panicked")]
pub struct Panicked;

impl BackgroundThreads {
    /// Starts `count` threads (at least one) named `name-N`.
    pub fn start(name: &str, count: usize) -> BackgroundThreads {
        let (sender, receiver) = channel::<Job>();
        let receiver: Arc<Mutex<Receiver<Job>>> = Arc::new(Mutex::new(receiver));
        for n in 0..count.max(1) {
            let receiver = receiver.clone();
            let spawned = std::thread::Builder::new().name(format!("{name}-{n}")).spawn(move || {
                lower_priority();
                loop {
                    let next = receiver.lock().map(|r| r.recv());
                    match next {
                        Ok(Ok(job)) => job(),
                        _ => return,
                    }
                }
            });
            if let Err(e) = spawned {
                tracing::error!(error = %e, "background thread not started");
            }
        }
        BackgroundThreads { sender: Mutex::new(sender) }
    }

    /// Queues `job` now, and answers a future of its result. Dropping the future does not stop
    /// the job.
    pub fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> impl std::future::Future<Output = Result<T, Panicked>> + Send + 'static {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let wrapped: Job = Box::new(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).map_err(|_| Panicked);
            let _ = tx.send(result);
        });
        let sent = self.sender.lock().map(|s| s.send(wrapped).is_ok()).unwrap_or(false);
        async move {
            if !sent {
                return Err(Panicked);
            }
            rx.await.unwrap_or(Err(Panicked))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn jobs_run_and_panics_are_answered() {
        let threads = BackgroundThreads::start("test", 2);
        assert_eq!(threads.run(|| 6 * 7).await, Ok(42));
        assert_eq!(threads.run(|| -> u8 { panic!("boom") }).await, Err(Panicked));
        // The threads survive a panic.
        let name = threads.run(|| std::thread::current().name().map(str::to_owned)).await.unwrap();
        assert!(name.is_some_and(|n| n.starts_with("test-")));
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn background_threads_leave_the_first_core_to_requests() {
        let mine = allowed_cores();
        let threads = BackgroundThreads::start("cores", 1);
        let theirs = threads.run(allowed_cores).await.unwrap();
        if mine.len() >= 2 && std::env::var_os(ALL_CORES_VARIABLE).is_none() {
            assert_eq!(theirs, mine[1..].to_vec(), "every core but the first");
        } else {
            assert_eq!(theirs, mine);
        }
        assert_eq!(allowed_cores(), mine, "the calling thread is untouched");
    }
}
