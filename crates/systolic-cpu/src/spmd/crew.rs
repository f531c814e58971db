//! The threads the processes of an SPMD execution run on: a crew of one thread per process,
//! started once and reused by every execution that takes it.
//!
//! Each thread is a one-thread rayon pool of its own, so a kernel that splits its work
//! (`rayon::current_num_threads()`, parallel iterators) finds one thread and runs whole on the
//! process's thread, unless the process sends it to the backend's pool
//! ([`crate::threads::run`], see [`super::KernelThreads`]). A collective blocks only its
//! process's thread: nothing else ever waits for a crew's thread, because a crew serves one
//! execution at a time ([`super::SpmdExecutable`] hands an idle crew to each execution, and
//! starts another when every crew is busy). That exclusivity is also what keeps a blocked
//! thread from deadlocking: a rayon thread that waits (for the backend's pool, say) runs other
//! jobs queued on its own pool meanwhile, and the only job ever queued on a crew's thread is
//! its process of the current execution.
//!
//! [`Crew::run`] hands out borrowed work safely through nested
//! [`rayon::ThreadPool::in_place_scope`]s (one per thread): it returns only when every job has
//! finished, so the jobs may borrow the caller's arguments and the executable.

use crate::threads::DenormalMode;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

/// Stack of each process's thread (control flow and the interpreter fallback recurse).
const STACK_SIZE: usize = 32 << 20;

/// One thread per process of a grid.
pub(super) struct Crew {
    threads: Vec<rayon::ThreadPool>,
}

impl std::fmt::Debug for Crew {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Crew({} threads)", self.threads.len())
    }
}

impl Crew {
    /// Starts `n` threads, named after the processes (`names(i)`).
    pub(super) fn start(n: usize, names: impl Fn(usize) -> String) -> Result<Crew, String> {
        let threads = (0..n)
            .map(|i| {
                let name = names(i);
                rayon::ThreadPoolBuilder::new()
                    .num_threads(1)
                    .stack_size(STACK_SIZE)
                    .thread_name(move |_| name.clone())
                    // Kernels expect the flush bits (see `crate::threads`); the process's run
                    // sets them again for its duration.
                    .start_handler(|_| std::mem::forget(DenormalMode::flush()))
                    .build()
                    .map_err(|e| format!("could not start a process thread: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Crew { threads })
    }

    /// The number of threads.
    pub(super) fn len(&self) -> usize {
        self.threads.len()
    }

    /// Runs `jobs[i]` on thread `i`, all at once, and returns their results in order (`None`
    /// for a job that panicked) once every one has finished.
    pub(super) fn run<R, F>(&self, jobs: Vec<F>) -> Vec<Option<R>>
    where
        R: Send,
        F: FnOnce() -> R + Send,
    {
        assert!(
            jobs.len() <= self.threads.len(),
            "{} jobs for a crew of {}",
            jobs.len(),
            self.threads.len()
        );
        let slots: Vec<Mutex<Option<R>>> = jobs.iter().map(|_| Mutex::new(None)).collect();
        spawn_nested(&self.threads, jobs.into_iter().zip(&slots));
        slots
            .into_iter()
            .map(|s| s.into_inner().unwrap_or_else(|e| e.into_inner()))
            .collect()
    }
}

/// Spawns the first job on the first thread inside that thread's scope, and the rest inside
/// it, recursively: the innermost scope ends first, and every scope waits for its job, so all
/// jobs run at once and all have finished when this returns.
fn spawn_nested<'a, R, F>(
    threads: &[rayon::ThreadPool],
    mut jobs: impl Iterator<Item = (F, &'a Mutex<Option<R>>)>,
) where
    R: Send + 'a,
    F: FnOnce() -> R + Send + 'a,
{
    let (Some((thread, rest)), Some((job, slot))) = (threads.split_first(), jobs.next()) else {
        return;
    };
    thread.in_place_scope(|scope| {
        scope.spawn(move |_| {
            // A panicking job leaves its slot empty; the scope must not rethrow it while the
            // other jobs still borrow the caller's data (it would not: rayon waits for every
            // job of a scope first), and the caller reports it as the process's failure.
            if let Ok(r) = catch_unwind(AssertUnwindSafe(job)) {
                *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            }
        });
        spawn_nested(rest, jobs);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Barrier;

    #[test]
    fn every_job_runs_at_once_on_its_own_thread_and_borrows_the_callers_data() {
        let crew = Crew::start(4, |i| format!("test crew {i}")).unwrap();
        let data: Vec<u64> = (0..4).collect();
        // A barrier of four passes only when all four jobs run at the same time.
        let barrier = Barrier::new(4);
        for round in 0..3 {
            let jobs: Vec<_> = data
                .iter()
                .map(|x| {
                    let barrier = &barrier;
                    move || {
                        barrier.wait();
                        (
                            x * 10 + round,
                            std::thread::current().name().map(String::from),
                        )
                    }
                })
                .collect();
            let out = crew.run(jobs);
            for (i, r) in out.into_iter().enumerate() {
                let (v, name) = r.unwrap();
                assert_eq!(v, i as u64 * 10 + round);
                assert_eq!(name.as_deref(), Some(format!("test crew {i}").as_str()));
            }
        }
    }

    #[test]
    fn a_panicking_job_leaves_its_slot_empty_and_the_crew_usable() {
        let crew = Crew::start(2, |i| format!("panic crew {i}")).unwrap();
        let jobs: Vec<Box<dyn FnOnce() -> i32 + Send>> =
            vec![Box::new(|| 1), Box::new(|| panic!("job failed on purpose"))];
        assert_eq!(crew.run(jobs), vec![Some(1), None]);
        let again: Vec<Box<dyn FnOnce() -> i32 + Send>> = vec![Box::new(|| 3), Box::new(|| 4)];
        assert_eq!(crew.run(again), vec![Some(3), Some(4)]);
    }

    #[test]
    fn kernels_on_a_process_thread_see_one_thread() {
        let crew = Crew::start(2, |i| format!("width crew {i}")).unwrap();
        let jobs = vec![rayon::current_num_threads, rayon::current_num_threads];
        assert_eq!(crew.run(jobs), vec![Some(1), Some(1)]);
    }
}
