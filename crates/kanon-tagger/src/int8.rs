//! Linear layers in 8-bit integers on the CPU: weights quantized once per output channel,
//! activations per row as they come (dynamic quantization), products summed exactly in `i32`
//! and scaled back to `f32` with the bias (and, for the feed-forward block, the GELU) in the
//! same pass.
//!
//! - weights: `q = round(w / s)` in `[-127, 127]` with `s = max |w| / 127` per output column;
//! - activations: the same per row of the input, stored shifted by 128 as `u8` (what the CPU's
//!   `u8 × i8` dot product reads), the shift taken back out with each column's sum of `q`;
//! - output: `(Σ a·q − 128·Σ q) · s_row · s_column + bias`.
//!
//! On a CPU with AVX-512 VNNI (Intel since Cascade Lake, AMD since Zen 4), each instruction sums
//! 64 products of bytes into 16 `i32` lanes (`vpdpbusd`); elsewhere a plain loop computes the same
//! integers. Integer sums are exact, so both paths give the same bits; which one runs is decided
//! at run time from the CPU's features, so the binary stays portable. A layer's rows do not
//! depend on one another (each row has its own scale), so int8 tagging is batch-invariant too.
//!
//! ```
//! use kanon_tagger::int8::{Int8Linear, QuantizedRows};
//!
//! // A 3 → 2 layer, weights `[in, out]` as burn stores them.
//! let weights = [0.5, -1.0, 0.25, 0.5, -0.125, 2.0];
//! let layer = Int8Linear::quantize(&weights, Some(&[0.0, 1.0]), 3, 2);
//! let input = QuantizedRows::quantize(&[1.0, 2.0, -1.0], 3);
//! let mut out = vec![0.0; 2];
//! layer.forward(&input, &mut out, false);
//! // 1·0.5 + 2·0.25 − 1·(−0.125) = 1.125; 1·(−1) + 2·0.5 − 1·2 + 1 = −1.
//! assert!((out[0] - 1.125).abs() < 0.05 && (out[1] + 1.0).abs() < 0.05);
//! ```

use rayon::prelude::*;

/// Columns of one packed panel: two 16-lane vectors.
const PANEL: usize = 32;
/// Rows of one register tile.
const TILE_ROWS: usize = 8;
/// The shift that makes a signed byte an unsigned one.
const SHIFT: i32 = 128;

/// Rounds `k` up to the 4 bytes one dot-product lane reads.
fn padded_depth(k: usize) -> usize {
    k.div_ceil(4) * 4
}

/// The rows of an input quantized for [`Int8Linear::forward`]: each row's values as `u8`
/// (`round(x / s) + 128`), its scale `s = max |x| / 127`.
#[derive(Debug, Clone)]
pub struct QuantizedRows {
    rows: usize,
    depth: usize,
    stride: usize,
    values: Vec<u8>,
    scales: Vec<f32>,
}

impl QuantizedRows {
    /// Quantizes `input`, rows of `depth` values one after another.
    pub fn quantize(input: &[f32], depth: usize) -> Self {
        assert!(
            depth > 0 && input.len().is_multiple_of(depth),
            "rows of {depth} values"
        );
        let rows = input.len() / depth;
        let stride = padded_depth(depth);
        // The padding bytes stand for 0 (128); the packed weights are 0 there anyway.
        let mut values = vec![SHIFT as u8; rows * stride];
        let mut scales = vec![0f32; rows];
        let arch = pulp::Arch::new();
        values
            .par_chunks_mut(stride)
            .zip(scales.par_iter_mut())
            .zip(input.par_chunks(depth))
            .with_min_len(16)
            .for_each(|((out, scale), row)| {
                *scale = arch.dispatch(|| quantize_row(row, &mut out[..depth]));
            });
        QuantizedRows {
            rows,
            depth,
            stride,
            values,
            scales,
        }
    }

    /// How many rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Values per row.
    pub fn depth(&self) -> usize {
        self.depth
    }
}

/// One row to `u8` with its scale (0 for a row of zeros, whose bytes all stand for 0).
///
/// Written as selects, clamps and the float trick for rounding (adding 1.5·2²³ leaves the
/// integer, rounded to even, in the low bits), which compile to vector instructions; `f32::max`
/// (NaN rules) and a saturating `as` cast would not.
#[inline(always)]
fn quantize_row(row: &[f32], out: &mut [u8]) -> f32 {
    const LANES: usize = 16;
    let mut lanes = [0f32; LANES];
    let mut chunks = row.chunks_exact(LANES);
    for chunk in &mut chunks {
        for (lane, &x) in lanes.iter_mut().zip(chunk) {
            let a = x.abs();
            *lane = if a > *lane { a } else { *lane };
        }
    }
    let mut largest = chunks
        .remainder()
        .iter()
        .fold(0f32, |m, &x| if x.abs() > m { x.abs() } else { m });
    for lane in lanes {
        largest = if lane > largest { lane } else { largest };
    }
    if largest == 0.0 || !largest.is_finite() {
        out.fill(SHIFT as u8);
        return if largest.is_finite() { 0.0 } else { f32::NAN };
    }
    const ROUND: f32 = 12_582_912.0;
    let inverse = 127.0 / largest;
    for (o, &x) in out.iter_mut().zip(row) {
        let v = (x * inverse).clamp(-127.0, 127.0) + ROUND;
        // The low bits of `v` are the rounded value + 2²² (+ 0x4B40_0000 in the exponent).
        let q = (v.to_bits() as i32).wrapping_sub(0x4B40_0000);
        *o = (q + SHIFT) as u8;
    }
    largest / 127.0
}

/// A linear layer `[in] → [out]` with int8 weights, packed for the dot-product kernel.
#[derive(Debug, Clone)]
pub struct Int8Linear {
    in_features: usize,
    out_features: usize,
    depth: usize,
    /// Per panel of 32 columns, per 4 rows of depth, the 32 columns' 4 bytes.
    packed: Vec<i8>,
    /// The quantized weights `[in, out]`, as burn lays a linear layer's weight out.
    weights: Vec<i8>,
    scales: Vec<f32>,
    /// `128 · Σ_k q[k][n]`: what the activations' shift adds to each column.
    shift_sums: Vec<i32>,
    bias: Vec<f32>,
}

impl Int8Linear {
    /// Quantizes a layer's weights (`[in, out]`, row after row, as burn stores them) per output
    /// column; `bias` has `out` values.
    pub fn quantize(weights: &[f32], bias: Option<&[f32]>, in_features: usize, out: usize) -> Self {
        assert_eq!(weights.len(), in_features * out, "weights are [in, out]");
        let mut scales = vec![0f32; out];
        for row in weights.chunks_exact(out) {
            for (s, &w) in scales.iter_mut().zip(row) {
                *s = s.max(w.abs());
            }
        }
        for s in &mut scales {
            *s /= 127.0;
        }
        let quantized: Vec<i8> = weights
            .chunks_exact(out)
            .flat_map(|row| {
                row.iter().zip(&scales).map(|(&w, &s)| {
                    if s == 0.0 {
                        0
                    } else {
                        (w / s).round_ties_even().clamp(-127.0, 127.0) as i8
                    }
                })
            })
            .collect();
        Self::from_quantized(quantized, scales, bias, in_features, out)
    }

    /// A layer of already quantized weights `[in, out]` and their column scales.
    pub fn from_quantized(
        weights: Vec<i8>,
        scales: Vec<f32>,
        bias: Option<&[f32]>,
        in_features: usize,
        out: usize,
    ) -> Self {
        assert_eq!(weights.len(), in_features * out, "weights are [in, out]");
        assert_eq!(scales.len(), out, "one scale per output column");
        let depth = padded_depth(in_features);
        let panels = out.div_ceil(PANEL);
        let mut packed = vec![0i8; panels * depth * PANEL];
        let mut shift_sums = vec![0i32; out];
        for k in 0..in_features {
            for n in 0..out {
                let q = weights[k * out + n];
                shift_sums[n] += SHIFT * i32::from(q);
                let (panel, column) = (n / PANEL, n % PANEL);
                packed[panel * depth * PANEL + (k / 4) * PANEL * 4 + column * 4 + k % 4] = q;
            }
        }
        let bias = bias.map_or_else(|| vec![0.0; out], <[f32]>::to_vec);
        assert_eq!(bias.len(), out, "one bias per output column");
        Int8Linear {
            in_features,
            out_features: out,
            depth,
            packed,
            weights,
            scales,
            shift_sums,
            bias,
        }
    }

    /// Inputs per row.
    pub fn in_features(&self) -> usize {
        self.in_features
    }

    /// Outputs per row.
    pub fn out_features(&self) -> usize {
        self.out_features
    }

    /// The weights the layer computes with, back in `f32` (`q · s`), `[in, out]`.
    pub fn dequantized(&self) -> Vec<f32> {
        self.weights
            .chunks_exact(self.out_features)
            .flat_map(|row| {
                row.iter()
                    .zip(&self.scales)
                    .map(|(&q, &s)| f32::from(q) * s)
            })
            .collect()
    }

    /// `out = input · W + b` (then the exact GELU where `gelu`), `out` being `[rows, out]`.
    pub fn forward(&self, input: &QuantizedRows, out: &mut [f32], gelu: bool) {
        assert_eq!(input.depth, self.in_features, "input width");
        assert_eq!(out.len(), input.rows * self.out_features, "output size");
        if input.rows == 0 {
            return;
        }
        let vnni = has_vnni();
        let block = self.block_rows(input.rows);
        let n = self.out_features;
        out.par_chunks_mut(block * n)
            .enumerate()
            .for_each(|(b, out_block)| {
                let first = b * block;
                let rows = out_block.len() / n;
                self.block(input, first, rows, out_block, vnni, gelu);
            });
    }

    /// [`Int8Linear::forward`] straight into the next layer's input: each block of output rows,
    /// while in cache, quantized as [`QuantizedRows::quantize`] would (the same bytes and
    /// scales), without the f32 output in memory (the feed-forward block's `[rows, 1536]`).
    pub fn forward_quantized(&self, input: &QuantizedRows, gelu: bool) -> QuantizedRows {
        assert_eq!(input.depth, self.in_features, "input width");
        let n = self.out_features;
        let stride = padded_depth(n);
        let mut values = vec![SHIFT as u8; input.rows * stride];
        let mut scales = vec![0f32; input.rows];
        let vnni = has_vnni();
        let block = self.block_rows(input.rows);
        let arch = pulp::Arch::new();
        values
            .par_chunks_mut(block * stride)
            .zip(scales.par_chunks_mut(block))
            .enumerate()
            .for_each(|(b, (values, scales))| {
                let rows = scales.len();
                let mut out = vec![0f32; rows * n];
                self.block(input, b * block, rows, &mut out, vnni, gelu);
                for ((row, bytes), scale) in out
                    .chunks_exact(n)
                    .zip(values.chunks_exact_mut(stride))
                    .zip(scales.iter_mut())
                {
                    *scale = arch.dispatch(|| quantize_row(row, &mut bytes[..n]));
                }
            });
        QuantizedRows {
            rows: input.rows,
            depth: n,
            stride,
            values,
            scales,
        }
    }

    /// Row blocks small enough that both cores get work on one short document, large enough
    /// that a panel of weights is read from cache by several tiles.
    fn block_rows(&self, rows: usize) -> usize {
        let threads = rayon::current_num_threads().max(1);
        rows.div_ceil(threads * 4)
            .next_multiple_of(TILE_ROWS)
            .clamp(TILE_ROWS, 64)
    }

    /// Rows `first..first + rows` of the output, panel by panel, tile by tile.
    fn block(
        &self,
        input: &QuantizedRows,
        first: usize,
        rows: usize,
        out: &mut [f32],
        vnni: bool,
        gelu: bool,
    ) {
        let n = self.out_features;
        let mut sums = [[0i32; PANEL]; TILE_ROWS];
        for panel in 0..n.div_ceil(PANEL) {
            let weights =
                &self.packed[panel * self.depth * PANEL..(panel + 1) * self.depth * PANEL];
            let columns = (panel * PANEL)..((panel + 1) * PANEL).min(n);
            let mut row = 0;
            while row < rows {
                let tile = (rows - row).min(TILE_ROWS);
                let a = &input.values[(first + row) * input.stride..];
                dot_tile(a, input.stride, tile, weights, self.depth, &mut sums, vnni);
                let shift_sums = &self.shift_sums[columns.clone()];
                let scales = &self.scales[columns.clone()];
                let bias = &self.bias[columns.clone()];
                for (r, sums) in sums.iter().enumerate().take(tile) {
                    let row_scale = input.scales[first + row + r];
                    let out = &mut out[(row + r) * n..(row + r + 1) * n][columns.clone()];
                    for ((((o, &sum), &shift), &scale), &bias) in out
                        .iter_mut()
                        .zip(sums)
                        .zip(shift_sums)
                        .zip(scales)
                        .zip(bias)
                    {
                        *o = (sum - shift) as f32 * (row_scale * scale) + bias;
                    }
                }
                row += tile;
            }
        }
        if gelu {
            crate::kernels::gelu_in_place(out);
        }
    }
}

/// Whether this CPU has AVX-512 VNNI (checked once by the standard library).
pub fn has_vnni() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512vnni")
            && std::arch::is_x86_feature_detected!("avx512bw")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `sums[r][c] = Σ_k a[r][k] · w[k][c]` for the first `tile` rows of `a` (rows `stride` bytes
/// apart) and one packed panel.
// The one place kanon calls CPU intrinsics: the workspace denies unsafe code elsewhere.
#[allow(unsafe_code)]
fn dot_tile(
    a: &[u8],
    stride: usize,
    tile: usize,
    panel: &[i8],
    depth: usize,
    sums: &mut [[i32; PANEL]; TILE_ROWS],
    vnni: bool,
) {
    #[cfg(target_arch = "x86_64")]
    if vnni {
        // SAFETY: the CPU has the features (checked by `has_vnni`); the slices hold `tile`
        // rows of `depth` bytes and `depth / 4` steps of 128 panel bytes (checked below).
        assert!(a.len() >= (tile - 1) * stride + depth && panel.len() >= depth * PANEL);
        unsafe {
            match tile {
                8 => vnni_tile::<8>(a, stride, panel, depth, sums),
                7 => vnni_tile::<7>(a, stride, panel, depth, sums),
                6 => vnni_tile::<6>(a, stride, panel, depth, sums),
                5 => vnni_tile::<5>(a, stride, panel, depth, sums),
                4 => vnni_tile::<4>(a, stride, panel, depth, sums),
                3 => vnni_tile::<3>(a, stride, panel, depth, sums),
                2 => vnni_tile::<2>(a, stride, panel, depth, sums),
                _ => vnni_tile::<1>(a, stride, panel, depth, sums),
            }
        }
        return;
    }
    let _ = vnni;
    for (r, sums) in sums.iter_mut().enumerate().take(tile) {
        let row = &a[r * stride..r * stride + depth];
        sums.fill(0);
        for (step, bytes) in row.chunks_exact(4).enumerate() {
            let weights = &panel[step * PANEL * 4..(step + 1) * PANEL * 4];
            for (c, sum) in sums.iter_mut().enumerate() {
                let w = &weights[c * 4..c * 4 + 4];
                *sum += (0..4)
                    .map(|i| i32::from(bytes[i]) * i32::from(w[i]))
                    .sum::<i32>();
            }
        }
    }
}

/// The register tile: `ROWS` × 32 sums in `2·ROWS` vectors, each step of 4 bytes of depth one
/// broadcast per row and two `vpdpbusd` per row.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
#[allow(unsafe_code)]
unsafe fn vnni_tile<const ROWS: usize>(
    a: &[u8],
    stride: usize,
    panel: &[i8],
    depth: usize,
    sums: &mut [[i32; PANEL]; TILE_ROWS],
) {
    use std::arch::x86_64::*;
    let mut low = [_mm512_setzero_si512(); ROWS];
    let mut high = [_mm512_setzero_si512(); ROWS];
    let a = a.as_ptr();
    let w = panel.as_ptr();
    for step in 0..depth / 4 {
        // SAFETY: within the slices, as the caller checked.
        unsafe {
            let w0 = _mm512_loadu_si512(w.add(step * 128).cast());
            let w1 = _mm512_loadu_si512(w.add(step * 128 + 64).cast());
            for r in 0..ROWS {
                let bytes = a.add(r * stride + step * 4).cast::<i32>().read_unaligned();
                let broadcast = _mm512_set1_epi32(bytes);
                low[r] = _mm512_dpbusd_epi32(low[r], broadcast, w0);
                high[r] = _mm512_dpbusd_epi32(high[r], broadcast, w1);
            }
        }
    }
    for r in 0..ROWS {
        // SAFETY: each row of `sums` holds 32 i32.
        unsafe {
            _mm512_storeu_si512(sums[r].as_mut_ptr().cast(), low[r]);
            _mm512_storeu_si512(sums[r].as_mut_ptr().add(16).cast(), high[r]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(count: usize, seed: u32) -> Vec<f32> {
        let mut state = seed.wrapping_mul(2_654_435_761).max(1);
        (0..count)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                (state % 2001) as f32 / 1000.0 - 1.0
            })
            .collect()
    }

    /// The products in f64 from the dequantized weights and activations.
    fn reference(layer: &Int8Linear, input: &QuantizedRows) -> Vec<f32> {
        let (k, n) = (layer.in_features, layer.out_features);
        let weights = layer.dequantized();
        let mut out = vec![0f32; input.rows * n];
        for r in 0..input.rows {
            let row: Vec<f64> = input.values[r * input.stride..r * input.stride + k]
                .iter()
                .map(|&v| f64::from(i32::from(v) - SHIFT) * f64::from(input.scales[r]))
                .collect();
            for c in 0..n {
                let dot: f64 = (0..k).map(|i| row[i] * f64::from(weights[i * n + c])).sum();
                out[r * n + c] = (dot + f64::from(layer.bias[c])) as f32;
            }
        }
        out
    }

    #[test]
    fn products_are_the_quantized_values_products() {
        // Depths and widths off the 4-byte and 32-column grid, rows off the 8-row tile.
        for (rows, k, n) in [(1, 3, 2), (13, 37, 45), (70, 384, 96), (9, 8, 32)] {
            let weights = values(k * n, 7 + k as u32);
            let bias = values(n, 3);
            let layer = Int8Linear::quantize(&weights, Some(&bias), k, n);
            let input = QuantizedRows::quantize(&values(rows * k, 11), k);
            let mut out = vec![0f32; rows * n];
            layer.forward(&input, &mut out, false);
            let expected = reference(&layer, &input);
            for (got, want) in out.iter().zip(&expected) {
                assert!((got - want).abs() < 1e-4, "{rows}×{k}×{n}: {got} vs {want}");
            }
            // Close to the f32 layer: the quantization error of 8 bits.
            let x = values(rows * k, 11);
            for r in 0..rows {
                for c in 0..n {
                    let exact: f32 = (0..k)
                        .map(|i| x[r * k + i] * weights[i * n + c])
                        .sum::<f32>()
                        + bias[c];
                    let got = out[r * n + c];
                    assert!(
                        (got - exact).abs() < 0.02 * (k as f32).sqrt(),
                        "{got} vs {exact}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_layer_into_the_next_ones_input_quantizes_as_its_output_would() {
        let (rows, k, n) = (75, 40, 50);
        let layer = Int8Linear::quantize(&values(k * n, 2), Some(&values(n, 4)), k, n);
        let input = QuantizedRows::quantize(&values(rows * k, 6), k);
        for gelu in [false, true] {
            let mut out = vec![0f32; rows * n];
            layer.forward(&input, &mut out, gelu);
            let want = QuantizedRows::quantize(&out, n);
            let got = layer.forward_quantized(&input, gelu);
            assert_eq!(
                (got.rows, got.depth, got.stride),
                (want.rows, want.depth, want.stride)
            );
            assert_eq!(got.values, want.values);
            assert_eq!(got.scales, want.scales);
        }
    }

    #[test]
    fn the_vector_and_plain_paths_give_the_same_bits() {
        let (rows, k, n) = (21, 100, 70);
        let layer = Int8Linear::quantize(&values(k * n, 5), None, k, n);
        let input = QuantizedRows::quantize(&values(rows * k, 9), k);
        let mut plain = [[0i32; PANEL]; TILE_ROWS];
        let mut vector = [[0i32; PANEL]; TILE_ROWS];
        for panel in 0..n.div_ceil(PANEL) {
            let weights = &layer.packed[panel * layer.depth * PANEL..];
            for first in (0..rows).step_by(TILE_ROWS) {
                let tile = (rows - first).min(TILE_ROWS);
                let a = &input.values[first * input.stride..];
                dot_tile(
                    a,
                    input.stride,
                    tile,
                    weights,
                    layer.depth,
                    &mut plain,
                    false,
                );
                dot_tile(
                    a,
                    input.stride,
                    tile,
                    weights,
                    layer.depth,
                    &mut vector,
                    has_vnni(),
                );
                assert_eq!(plain[..tile], vector[..tile]);
            }
        }
    }

    #[test]
    fn zero_rows_and_zero_columns_stay_exact() {
        let k = 5;
        let mut weights = values(k * 3, 1);
        for row in weights.chunks_exact_mut(3) {
            row[1] = 0.0;
        }
        let layer = Int8Linear::quantize(&weights, Some(&[0.5, 0.25, -1.0]), k, 3);
        let input = QuantizedRows::quantize(&[0.0; 5], k);
        let mut out = vec![9.0; 3];
        layer.forward(&input, &mut out, false);
        assert_eq!(out, vec![0.5, 0.25, -1.0]);
        // Quantizing the dequantized weights gives the same integers back.
        let again = Int8Linear::quantize(&layer.dequantized(), None, k, 3);
        assert_eq!(again.weights, layer.weights);
    }
}
