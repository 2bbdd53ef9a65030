//! Length bucketing, the one batcher of training, inference, scoring and embedding: sequences
//! sorted by length and cut into batches whose padded size stays within a token budget, so that
//! sequences of similar lengths share a forward pass and little of it is padding.
//!
//! Tagging batches by [`by_padded_length`] instead: each window is padded to a length that is a
//! function of its own length ([`padded_length`]) and shares a batch only with windows padded to
//! the same, so that its logits do not depend on which other windows are batched with it.
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

/// Inference pads a window to a multiple of this many pieces: at most 15 pieces of padding a
/// window, and few enough distinct lengths that batches stay full.
pub const PAD_MULTIPLE: usize = 16;

/// The length a sequence of `length` pieces is padded to at inference: the next multiple of
/// [`PAD_MULTIPLE`], but not past `limit` (the model's positions) unless it is longer already.
///
/// Why a function of the sequence alone: a row's arithmetic on the CPU depends on the padded
/// length it is computed at — the attention softmax sums a row in 16 lanes plus a tail whose
/// split moves with the row's length, and the `gemm` crate computes the score product of a
/// window of at most 16 pieces (`m·n ≤ 256`) with another kernel — but not on how many rows
/// share the batch: `gemm` splits a product's inner dimension into blocks that depend on that
/// dimension alone and sums each output element in the same order whatever the row count or
/// thread count (the linear layers' weights are row-major, so they never take the small-product
/// kernel), and layer norm and softmax go row by row. So a window padded by its own length gives
/// the same bits in any batch.
pub fn padded_length(length: usize, limit: usize) -> usize {
    length.next_multiple_of(PAD_MULTIPLE).min(limit).max(length)
}

/// Batches for inference whose results do not depend on the batching: the indices grouped by
/// [`padded_length`] (each group a run of batches of that padded length, returned with it), in
/// index order within a group, each batch at most `token_budget` padded pieces (one sequence
/// when a single one exceeds it). Groups from the shortest padded length to the longest.
///
/// ```
/// use kanon_tagger::batching::by_padded_length;
///
/// // Lengths 5, 20, 9, 16 and 30 pad to 16, 32, 16, 16 and 32; 40 pieces a batch.
/// let lengths = [5, 20, 9, 16, 30];
/// assert_eq!(
///     by_padded_length(&lengths, 512, 40),
///     vec![(16, vec![0, 2]), (16, vec![3]), (32, vec![1]), (32, vec![4])]
/// );
/// ```
pub fn by_padded_length(
    lengths: &[usize],
    limit: usize,
    token_budget: usize,
) -> Vec<(usize, Vec<usize>)> {
    let mut groups: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (i, &length) in lengths.iter().enumerate() {
        groups
            .entry(padded_length(length, limit))
            .or_default()
            .push(i);
    }
    groups
        .into_iter()
        .flat_map(|(padded, indices)| {
            let per_batch = (token_budget / padded.max(1)).max(1);
            indices
                .chunks(per_batch)
                .map(|batch| (padded, batch.to_vec()))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padded_batches_cover_every_index_at_its_own_padded_length() {
        let lengths: Vec<usize> = (0..300).map(|i| 1 + (i * 37) % 130).collect();
        for budget in [1, 40, 512, 4096, 100_000] {
            let batches = by_padded_length(&lengths, 128, budget);
            let mut seen: Vec<usize> = batches.iter().flat_map(|(_, b)| b).copied().collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..lengths.len()).collect::<Vec<_>>());
            for (padded, batch) in &batches {
                assert!(batch.len() == 1 || padded * batch.len() <= budget);
                for &i in batch {
                    assert_eq!(*padded, padded_length(lengths[i], 128));
                    assert!(*padded >= lengths[i] && *padded - lengths[i] < PAD_MULTIPLE);
                }
            }
        }
        // Capped by the model's positions, never below the length itself.
        assert_eq!(padded_length(120, 128), 128);
        assert_eq!(padded_length(125, 126), 126);
        assert_eq!(padded_length(130, 126), 130);
        assert_eq!(padded_length(16, 512), 16);
        assert_eq!(padded_length(17, 512), 32);
    }

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
