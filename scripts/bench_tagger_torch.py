#!/usr/bin/env python3
"""PyTorch + transformers beside `kanon bench tagger`: the same model, documents, windows, batch
shape and optimiser, so the throughputs compare.

    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch transformers
    /tmp/torchenv/bin/python scripts/bench_tagger_torch.py --mode both --threads 2

Each mode runs in a child process of its own (peak RSS is the process's own, like kanon's).
Inference: each document tokenised with the model's tokenizer.json (padding and truncation off),
cut into windows of at most MAX_LEN-2 pieces overlapping by 32 (kanon's windowing), [CLS]/[SEP]
added, batches of up to 16 windows padded to the longest, BertModel + a linear head, softmax.
Then the same documents with windows of all documents sorted by length and batched up to
TOKEN_BUDGET padded pieces (what `kanon detect` does).
`--precision int8` quantizes the encoder's Linear layers with torch's dynamic quantization
(per-channel int8 weights), the peer of `kanon bench tagger --precision int8`.
Training: one fixed 8 x 128 batch of random pieces and labels, AdamW (lr 2e-5, weight decay
0.01), cross-entropy, dropout on; 2 untimed steps, then 10 timed; every step's loss is read
(`loss.item()`, as kanon reads it, which also waits for a GPU) and reported.

`--device cuda` runs on the GPU (the model, batch and optimiser there); `--random-init CONFIG`
trains a BERT of that Hugging Face config.json's shape with random weights instead of the cached
model (`kanon bench tagger --random-init` does the same; scripts/device_check.sh runs both).
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path


def cache_dir():
    root = os.environ.get("KANON_CACHE") or os.path.expanduser("~/.cache/kanon/models")
    return Path(root) / "all-minilm-l6-v2"


def read_docs(path):
    text = Path(path).read_text()
    if text.lstrip().startswith("["):
        return [d["text"] for d in json.loads(text)]
    return [json.loads(line)["text"] for line in text.splitlines() if line.strip()]


def default_docs():
    wiki = Path("../shared/data/wiki553/dev_100_tab_schema.json")
    return str(wiki) if wiki.exists() else "corpora/sample/docs.jsonl"


def windows(n, max_tokens, overlap):
    step = max(max_tokens - overlap, 1)
    out, start = [], 0
    while True:
        end = min(start + max_tokens, n)
        out.append((start, end))
        if end >= n:
            return out
        start += step


def peak_rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def model_and_head(torch, model_dir, labels, random_init=None):
    from transformers import BertConfig, BertModel

    if random_init:
        bert = BertModel(BertConfig.from_json_file(random_init), add_pooling_layer=False)
    else:
        bert = BertModel.from_pretrained(str(model_dir), add_pooling_layer=False)
    head = torch.nn.Linear(bert.config.hidden_size, labels)
    return bert, head


def device_name(torch, device):
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    return f"cpu ({torch.get_num_threads()} threads)"


def inference(args, torch):
    from tokenizers import Tokenizer

    model_dir = Path(args.pretrained) if args.pretrained else cache_dir()
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    cls, sep, pad = (tokenizer.token_to_id(t) for t in ("[CLS]", "[SEP]", "[PAD]"))
    torch.manual_seed(0)
    bert, head = model_and_head(torch, model_dir, 17)
    bert.eval()
    if args.precision == "int8":
        # PyTorch's own int8 inference: dynamic quantization of every Linear (int8 weights per
        # output channel, activations quantized as they come), the peer of kanon's int8.
        from torch.ao.quantization import default_per_channel_qconfig, quantize_dynamic

        bert = quantize_dynamic(
            bert, {torch.nn.Linear: default_per_channel_qconfig}, dtype=torch.qint8
        )
    docs = read_docs(args.docs or default_docs())
    max_tokens = args.max_len - 2
    overlap = min(32, args.max_len // 4)

    def predict(text):
        ids = tokenizer.encode(text, add_special_tokens=False).ids
        if not ids:
            return 0
        spans = windows(len(ids), max_tokens, overlap)
        for i in range(0, len(spans), 16):
            chunk = [[cls] + ids[s:e] + [sep] for s, e in spans[i : i + 16]]
            width = max(len(c) for c in chunk)
            input_ids = torch.tensor([c + [pad] * (width - len(c)) for c in chunk])
            mask = torch.tensor([[1] * len(c) + [0] * (width - len(c)) for c in chunk])
            hidden = bert(input_ids=input_ids, attention_mask=mask).last_hidden_state
            probabilities = torch.softmax(head(hidden), dim=-1)
            probabilities.max(dim=-1)
        return len(ids)

    def predict_bucketed(texts, budget):
        examples = []
        for text in texts:
            ids = tokenizer.encode(text, add_special_tokens=False).ids
            if ids:
                spans = windows(len(ids), max_tokens, overlap)
                examples.extend([cls] + ids[s:e] + [sep] for s, e in spans)
        examples.sort(key=len)
        start = 0
        while start < len(examples):
            end = start + 1
            while end < len(examples) and len(examples[end]) * (end + 1 - start) <= budget:
                end += 1
            chunk = examples[start:end]
            width = len(chunk[-1])
            input_ids = torch.tensor([c + [pad] * (width - len(c)) for c in chunk])
            mask = torch.tensor([[1] * len(c) + [0] * (width - len(c)) for c in chunk])
            hidden = bert(input_ids=input_ids, attention_mask=mask).last_hidden_state
            torch.softmax(head(hidden), dim=-1).max(dim=-1)
            start = end

    with torch.inference_mode():
        predict(docs[0])
        started = time.perf_counter()
        pieces = sum(predict(d) for d in docs)
        seconds = time.perf_counter() - started
        started = time.perf_counter()
        predict_bucketed(docs, args.token_budget)
        bucketed_seconds = time.perf_counter() - started
    return {
        "docs": len(docs),
        "pieces": pieces,
        "seconds": seconds,
        "docs_per_second": len(docs) / seconds,
        "pieces_per_second": pieces / seconds,
        "bucketed_token_budget": args.token_budget,
        "bucketed_seconds": bucketed_seconds,
        "bucketed_docs_per_second": len(docs) / bucketed_seconds,
        "peak_rss_bytes": peak_rss(),
        "precision": args.precision,
    }


def training(args, torch):
    model_dir = Path(args.pretrained) if args.pretrained else cache_dir()
    device = torch.device(args.device)
    torch.manual_seed(0)
    labels = 17
    bert, head = model_and_head(torch, model_dir, labels, args.random_init)
    bert.to(device)
    head.to(device)
    bert.train()
    parameters = list(bert.parameters()) + list(head.parameters())
    optimizer = torch.optim.AdamW(parameters, lr=2e-5, weight_decay=0.01)
    generator = torch.Generator().manual_seed(0)
    vocab = bert.config.vocab_size
    first_id = min(1000, vocab // 2)
    input_ids = torch.randint(first_id, vocab, (args.batch, args.seq), generator=generator)
    targets = torch.randint(0, labels, (args.batch, args.seq), generator=generator)
    input_ids, targets = input_ids.to(device), targets.to(device)
    mask = torch.ones_like(input_ids)
    losses = []

    def step():
        optimizer.zero_grad()
        logits = head(bert(input_ids=input_ids, attention_mask=mask).last_hidden_state)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, labels), targets.reshape(-1))
        loss.backward()
        optimizer.step()
        losses.append(loss.item())

    for _ in range(args.warmup_steps):
        step()
    started = time.perf_counter()
    for _ in range(args.steps):
        step()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    seconds = time.perf_counter() - started
    return {
        "model": f"random init of {args.random_init}" if args.random_init else str(model_dir),
        "device": device_name(torch, device),
        "attention": getattr(bert.config, "_attn_implementation", None),
        "batch": args.batch,
        "seq": args.seq,
        "steps": args.steps,
        "seconds": seconds,
        "tokens_per_second": args.batch * args.seq * args.steps / seconds,
        "seconds_per_step": seconds / args.steps,
        "losses": losses,
        "peak_rss_bytes": peak_rss(),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=["inference", "training", "both"], default="both")
    parser.add_argument("--pretrained", help="BERT directory (default: kanon's model cache)")
    parser.add_argument("--docs")
    parser.add_argument("--max-len", type=int, default=128)
    parser.add_argument("--token-budget", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--warmup-steps", type=int, default=2)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--device", default="cpu", help="cpu or cuda[:N] (training only)")
    parser.add_argument("--random-init", help="train a random BERT of this config.json's shape")
    parser.add_argument(
        "--precision", choices=["f32", "int8"], default="f32",
        help="int8: torch's dynamic quantization of the Linear layers (inference)",
    )
    parser.add_argument("--json")
    args = parser.parse_args()
    if (args.random_init or args.device != "cpu") and args.mode != "training":
        parser.error("--random-init and --device go with --mode training")

    if args.mode == "both":
        figures = {"runtime": "", "threads": args.threads}
        for mode in ("inference", "training"):
            child = [a for a in sys.argv[1:]]
            out = subprocess.run(
                [sys.executable, __file__, *child, "--mode", mode],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            result = json.loads(out.strip().splitlines()[-1])
            figures["runtime"] = result["runtime"]
            figures[mode] = result[mode]
    else:
        import torch

        torch.set_num_threads(args.threads)
        run = inference if args.mode == "inference" else training
        figures = {
            "runtime": f"PyTorch {torch.__version__} + transformers",
            "threads": args.threads,
            args.mode: run(args, torch),
        }
    text = json.dumps(figures)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    print(text)


if __name__ == "__main__":
    main()
