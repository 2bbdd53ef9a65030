//! A counting semaphore: at most N requests in flight across threads.

use std::sync::{Condvar, Mutex, PoisonError};

#[derive(Debug)]
pub(crate) struct Semaphore {
    free: Mutex<usize>,
    released: Condvar,
}

/// Gives its permit back when dropped, so an early return or an error cannot leak one.
#[derive(Debug)]
pub(crate) struct Permit<'a> {
    semaphore: &'a Semaphore,
}

impl Semaphore {
    /// At least one permit: a limit of 0 would block every caller forever.
    pub(crate) fn new(permits: usize) -> Self {
        Semaphore {
            free: Mutex::new(permits.max(1)),
            released: Condvar::new(),
        }
    }

    /// A permit if one is free now, without waiting.
    pub(crate) fn try_acquire(&self) -> Option<Permit<'_>> {
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        if *free == 0 {
            return None;
        }
        *free -= 1;
        Some(Permit { semaphore: self })
    }

    /// Permits free now.
    pub(crate) fn free(&self) -> usize {
        *self.free.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits for a permit (the embedded backend: one model, one queue).
    #[cfg_attr(not(feature = "embedded"), allow(dead_code))]
    pub(crate) fn acquire(&self) -> Permit<'_> {
        // The counter stays consistent even if a holder panicked, so poisoning is ignored.
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        while *free == 0 {
            free = self
                .released
                .wait(free)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *free -= 1;
        Permit { semaphore: self }
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        let mut free = self
            .semaphore
            .free
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *free += 1;
        self.semaphore.released.notify_one();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[test]
    fn never_more_than_n_in_flight() {
        let semaphore = Arc::new(Semaphore::new(2));
        let in_flight = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (semaphore, in_flight, peak) =
                    (semaphore.clone(), in_flight.clone(), peak.clone());
                std::thread::spawn(move || {
                    for _ in 0..20 {
                        let _permit = semaphore.acquire();
                        let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                        peak.fetch_max(now, Ordering::SeqCst);
                        std::thread::yield_now();
                        in_flight.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert!(peak.load(Ordering::SeqCst) <= 2);
        assert_eq!(semaphore.free(), 2);
        let first = semaphore.try_acquire().unwrap();
        let _second = semaphore.try_acquire().unwrap();
        assert!(semaphore.try_acquire().is_none());
        drop(first);
        assert!(semaphore.try_acquire().is_some());
    }
}
