//! Length bucketing, the one batcher of training, inference, scoring and embedding: sequences
//! sorted by length and cut into batches whose padded size stays within a token budget, so that
//! sequences of similar lengths share a forward pass and little of it is padding.
//!
//! ```
//! use kanon_tagger::batching::by_length;
//!
//! // Five sequences, at most 12 padded pieces a batch: a batch is as wide as its longest.
//! let lengths = [5, 2, 9, 2, 3];
//! assert_eq!(by_length(&lengths, 12), vec![vec![1, 3, 4], vec![0], vec![2]]);
//! ```

/// Batches of indices into `lengths`, together covering every index once: the indices sorted by
/// length (ties by index) and cut greedily, a batch taking the next index while its size times
/// the next index's length (the batch's padded size, its last index being its longest) stays
/// within `token_budget`. A sequence longer than the budget is a batch of its own. The order is
/// deterministic: batches from the shortest sequences to the longest, indices within a batch
/// from short to long.
pub fn by_length(lengths: &[usize], token_budget: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..lengths.len()).collect();
    order.sort_by_key(|&i| (lengths[i], i));
    let mut batches: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    for i in order {
        if !current.is_empty() && lengths[i] * (current.len() + 1) > token_budget {
            batches.push(std::mem::take(&mut current));
        }
        current.push(i);
    }
    if !current.is_empty() {
        batches.push(current);
    }
    batches
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_index_is_batched_once_within_the_budget() {
        let lengths: Vec<usize> = (0..200).map(|i| 1 + (i * 37) % 50).collect();
        for budget in [1, 40, 64, 500, 100_000] {
            let batches = by_length(&lengths, budget);
            let mut seen: Vec<usize> = batches.iter().flatten().copied().collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..lengths.len()).collect::<Vec<_>>());
            for batch in &batches {
                let longest = batch.iter().map(|&i| lengths[i]).max().unwrap_or(0);
                assert!(batch.len() == 1 || longest * batch.len() <= budget);
            }
        }
        assert!(by_length(&[], 10).is_empty());
    }
}
