#!/usr/bin/env bash
# The GPU check for a lent machine (docs/gpu.md, "The device check"): with the GPU bundle
# (scripts/gpu_bundle.sh, carried as one archive and unpacked here), on a machine that has an
# NVIDIA driver, PyTorch and transformers but no network, in a few minutes:
#
#   1. parity: kanon trains a BERT of MiniLM's shape (6 layers, hidden 384, 12 heads, intermediate
#      1536, vocabulary 30,522) from random weights (seed 0, drawn on the CPU, so the same model on
#      every device), dropout off, a few steps on the CPU and the same steps on the GPU; the losses
#      must agree (first within PARITY_RTOL, the rest within PARITY_RTOL_LATER, relative);
#   2. kanon's training tokens/s on the GPU: the same shape from random weights, dropout on, a
#      fixed batch of random pieces and labels, AdamW (`kanon bench tagger --random-init`);
#   3. Hugging Face transformers' on the same GPU: the same shape, batch and optimiser
#      (scripts/bench_tagger_torch.py --random-init), skipped with a message when this Python has
#      no torch or transformers.
# It prints the device, both tokens/s and both runs' first losses, and exits 1 when the parity
# check fails, 2 when a phase failed or ran out of time. No model weights are needed.
#
#   scripts/device_check.sh                          # CUDA, the bundle target/gpu-bundle.tar.xz
#   scripts/device_check.sh --device wgpu            # the wgpu runtime (Vulkan), e.g. Mesa lavapipe
#   scripts/device_check.sh --kanon target/release-gpu/kanon --device wgpu --steps 2 --warmup 1
#
# Options (defaults in brackets):
#   --device cuda[:N]|wgpu[:N]   the GPU, as `kanon --device` names it [cuda]
#   --bundle PATH                the bundle: a .tar.xz/.tar.zst/.tar archive or its unpacked
#                                directory [target/gpu-bundle.tar.xz]
#   --kanon PATH                 a kanon binary (or a bundle's `kanon` wrapper) instead of a bundle
#   --python PATH                the Python with torch and transformers [python3]
#   --batch N --seq N            the timed runs' batch: sequences × word pieces [32 × 128]
#   --warmup N --steps N         untimed, then timed training steps of each timed run [5, 20]
#   --parity-batch N             sequences of the parity runs (× --seq) [8]
#   --parity-steps N             training steps of the parity runs [3]
#   --budget SECONDS             the whole check's time; each phase gets a share of what is left,
#                                and one that runs over it is stopped [450]
#   --work DIR                   where the bundle is unpacked and the figures written
#                                [target/device-check]
set -euo pipefail
cd "$(dirname "$0")/.."

device="cuda"
bundle="target/gpu-bundle.tar.xz"
kanon=""
python="python3"
batch=32
seq=128
warmup=5
steps=20
parity_batch=8
parity_steps=3
budget=450
work="target/device-check"
parity_rtol="${PARITY_RTOL:-1e-4}"
parity_rtol_later="${PARITY_RTOL_LATER:-1e-3}"

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit "${1:-2}"; }
while [ $# -gt 0 ]; do
    case "$1" in
    --device) device="$2"; shift 2 ;;
    --bundle) bundle="$2"; shift 2 ;;
    --kanon) kanon="$2"; shift 2 ;;
    --python) python="$2"; shift 2 ;;
    --batch) batch="$2"; shift 2 ;;
    --seq) seq="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --steps) steps="$2"; shift 2 ;;
    --parity-batch) parity_batch="$2"; shift 2 ;;
    --parity-steps) parity_steps="$2"; shift 2 ;;
    --budget) budget="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    -h | --help) usage 0 ;;
    *) echo "device_check: unknown option $1" >&2; usage ;;
    esac
done

started=$SECONDS
say() { printf '[device_check %3ds] %s\n' "$((SECONDS - started))" "$*"; }
mkdir -p "$work"
work="$(cd "$work" && pwd)"

# --- The bundle ---------------------------------------------------------------------------------
if [ -z "$kanon" ]; then
    if [ -d "$bundle" ]; then
        dir="$bundle"
    elif [ -f "$bundle" ]; then
        dir="$work/bundle"
        rm -rf "$dir"
        mkdir -p "$dir"
        say "unpacking $bundle ($(du -h "$bundle" | cut -f1))"
        case "$bundle" in
        *.tar.xz | *.txz)
            if command -v xz >/dev/null; then
                tar -xJf "$bundle" -C "$dir"
            else
                # No xz here: Python's tarfile reads it.
                "${python}" -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
                    "$bundle" "$dir"
            fi
            ;;
        *.tar.zst) zstd -dc "$bundle" | tar -xf - -C "$dir" ;;
        *.tar) tar -xf "$bundle" -C "$dir" ;;
        *) echo "device_check: $bundle is not a .tar.xz, .tar.zst or .tar archive" >&2; exit 2 ;;
        esac
        # The archive holds one directory (gpu-bundle/).
        inner="$(find "$dir" -mindepth 1 -maxdepth 1)"
        if [ "$(printf '%s\n' "$inner" | wc -l)" -eq 1 ] && [ -d "$inner" ]; then dir="$inner"; fi
    else
        echo "device_check: no bundle at $bundle: build one with scripts/gpu_bundle.sh (or pass --kanon)" >&2
        exit 2
    fi
    kanon="$dir/kanon"
    [ -x "$kanon" ] || { echo "device_check: $dir has no kanon wrapper: not a GPU bundle" >&2; exit 2; }
    if [ -f "$dir/MANIFEST" ]; then
        say "bundle: $(grep -E '^(commit|features):' "$dir/MANIFEST" | tr '\n' ' ')"
        if ! (cd "$dir" && grep -E '^[0-9a-f]{64}  ' MANIFEST | sha256sum --check --quiet); then
            echo "device_check: the bundle's files do not match its MANIFEST" >&2
            exit 2
        fi
    fi
fi
[ -x "$kanon" ] || { echo "device_check: $kanon is not executable" >&2; exit 2; }

# --- The machine ----------------------------------------------------------------------------------
say "host: $(uname -srm), $(nproc) cores"
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null |
        sed 's/^/[device_check] nvidia-smi: /' || true
    nvidia-smi 2>/dev/null | grep -o 'CUDA Version: [0-9.]*' | sed 's/^/[device_check] driver /' || true
fi

# MiniLM's shape (all-MiniLM-L6-v2's config.json, less the fields kanon and transformers ignore).
shape() {
    cat <<EOF
{"architectures": ["BertModel"], "model_type": "bert", "vocab_size": 30522, "hidden_size": 384,
 "num_hidden_layers": 6, "num_attention_heads": 12, "intermediate_size": 1536,
 "max_position_embeddings": 512, "type_vocab_size": 2, "hidden_act": "gelu",
 "layer_norm_eps": 1e-12, "initializer_range": 0.02, "pad_token_id": 0,
 "hidden_dropout_prob": $1, "attention_probs_dropout_prob": $1}
EOF
}
shape 0.1 >"$work/minilm-shape.json"
shape 0.0 >"$work/minilm-shape-no-dropout.json"

# --- The phases ---------------------------------------------------------------------------------
# Each phase gets its share of the time left (shares of the phases still to run), so that the
# whole check stays within --budget however long the unpacking or an earlier phase took.
shares=(20 15 35 30) # parity CPU, parity GPU, kanon on the GPU, transformers on the GPU
phase_index=0
limit_for_phase() {
    local left=$((budget - (SECONDS - started))) rest=0 i
    for ((i = phase_index; i < ${#shares[@]}; i++)); do rest=$((rest + shares[i])); done
    local limit=$((left * shares[phase_index] / rest))
    [ "$limit" -ge 10 ] || limit=10
    phase_index=$((phase_index + 1))
    echo "$limit"
}
failed=0
# run_phase NAME LOG -- COMMAND…: runs COMMAND under its time limit; its output goes to LOG.
run_phase() {
    local name="$1" log="$2"
    shift 3
    local limit
    limit="$(limit_for_phase)"
    say "$name (at most ${limit}s)"
    local rc=0
    timeout --kill-after=10 "$limit" "$@" >"$log" 2>&1 || rc=$?
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        say "$name: stopped after ${limit}s (its log: $log)"
        failed=1
        return 1
    elif [ "$rc" -ne 0 ]; then
        say "$name: failed with status $rc; its log ($log) ends:"
        tail -n 15 "$log" | sed 's/^/    /'
        failed=1
        return 1
    fi
    grep -E '^(device|training|losses)' "$log" | sed 's/^/    /' || true
}
# bench DEVICE CONFIG BATCH WARMUP STEPS JSON: the command of one kanon training run.
bench() {
    command=("$kanon" bench tagger --mode training --device "$1" --random-init "$2" --batch "$3"
        --seq "$seq" --warmup-steps "$4" --steps "$5" --json "$6")
}

parity_ok=""
rm -f "$work"/{parity-cpu,parity-gpu,kanon,torch}.json
bench cpu "$work/minilm-shape-no-dropout.json" "$parity_batch" 0 "$parity_steps" "$work/parity-cpu.json"
if run_phase "parity 1/2: kanon on the CPU, $parity_steps steps of ${parity_batch}×$seq, dropout off" \
    "$work/parity-cpu.log" -- "${command[@]}"; then
    bench "$device" "$work/minilm-shape-no-dropout.json" "$parity_batch" 0 "$parity_steps" \
        "$work/parity-gpu.json"
    if run_phase "parity 2/2: kanon on $device, the same steps" "$work/parity-gpu.log" -- \
        "${command[@]}"; then
        parity_ok=checked
    fi
else
    phase_index=$((phase_index + 1))
fi

bench "$device" "$work/minilm-shape.json" "$batch" "$warmup" "$steps" "$work/kanon.json"
run_phase "kanon on $device: $warmup + $steps steps of ${batch}×$seq, MiniLM's shape, random weights" \
    "$work/kanon.log" -- "${command[@]}" || true

torch_device=""
if ! "$python" -c 'import torch, transformers' 2>/dev/null; then
    say "transformers: skipped: $python has no torch and transformers (pip install torch transformers; or --python PATH)"
    phase_index=$((phase_index + 1))
else
    # The same GPU as kanon's: cuda:N for --device cuda:N, else the first.
    case "$device" in
    cuda:*) want="$device" ;;
    *) want="cuda:0" ;;
    esac
    if "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
        torch_device="$want"
    else
        torch_device="cpu"
        say "transformers: torch sees no CUDA device here: it runs on the CPU instead, which does not compare with the GPU"
    fi
    run_phase "transformers on $torch_device: the same shape, batch and steps" "$work/torch.log" -- \
        "$python" scripts/bench_tagger_torch.py --mode training --device "$torch_device" \
        --random-init "$work/minilm-shape.json" --batch "$batch" --seq "$seq" \
        --warmup-steps "$warmup" --steps "$steps" --threads "$(nproc)" --json "$work/torch.json" || true
fi

# --- The report -----------------------------------------------------------------------------------
status=0
python3 - "$work" "$parity_ok" "$parity_rtol" "$parity_rtol_later" <<'EOF' || status=$?
import json, math, os, sys

work, parity_ok, rtol, rtol_later = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])

def load(name):
    path = os.path.join(work, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)

def losses(values, n=6):
    return " ".join(f"{v:.5f}" for v in values[:n])

print()
print("== device check ==")
kanon, torch = load("kanon.json"), load("torch.json")
rows = []
if kanon:
    t = kanon["training"]
    print(f"kanon:        {kanon['runtime']} on {kanon['device']}")
    print(f"              {t['tokens_per_second']:,.0f} tokens/s ({t['batch']}×{t['seq']}, {t['steps']} timed steps, {t['seconds_per_step'] * 1000:.1f} ms/step)")
    print(f"              first losses: {losses(t['losses'])}")
else:
    print("kanon:        no figures (see kanon.log)")
if torch:
    t = torch["training"]
    print(f"transformers: {torch['runtime']} on {t['device']} (attention: {t.get('attention')})")
    print(f"              {t['tokens_per_second']:,.0f} tokens/s ({t['batch']}×{t['seq']}, {t['steps']} timed steps, {t['seconds_per_step'] * 1000:.1f} ms/step)")
    print(f"              first losses: {losses(t['losses'])}")
    if kanon:
        ratio = kanon["training"]["tokens_per_second"] / torch["training"]["tokens_per_second"]
        print(f"kanon / transformers: {ratio:.2f}×")
else:
    print("transformers: no figures (skipped or failed)")

cpu, gpu = load("parity-cpu.json"), load("parity-gpu.json")
if not (parity_ok and cpu and gpu):
    print("parity:       NOT CHECKED (a parity run failed or ran out of time)")
    sys.exit(2)
a, b = cpu["training"]["losses"], gpu["training"]["losses"]
worst_first = abs(a[0] - b[0]) / abs(a[0])
worst_later = max((abs(x - y) / abs(x) for x, y in zip(a[1:], b[1:])), default=0.0)
ok = (len(a) == len(b) and all(math.isfinite(v) for v in a + b)
      and worst_first <= rtol and worst_later <= rtol_later)
print(f"parity:       {cpu['device']}: {losses(a)}")
print(f"              {gpu['device']}: {losses(b)}")
print(f"              first loss {worst_first:.2e} apart (≤ {rtol:g}), later steps ≤ {worst_later:.2e} (≤ {rtol_later:g}, relative): {'PASS' if ok else 'FAIL'}")
sys.exit(0 if ok else 1)
EOF
say "done in $((SECONDS - started))s"
if [ "$status" -eq 1 ]; then
    echo "device_check: FAILED: the GPU's losses differ from the CPU's" >&2
    exit 1
fi
if [ "$status" -ne 0 ] || [ "$failed" -ne 0 ]; then
    echo "device_check: incomplete: a phase failed or ran out of time (logs in $work)" >&2
    exit 2
fi
