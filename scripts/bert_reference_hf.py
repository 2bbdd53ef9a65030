#!/usr/bin/env python3
"""The parity fixture checked against Hugging Face's own BertModel (transformers + PyTorch, float64).

Reads the fixture's input ids, runs `transformers.BertModel` on the same checkpoint with the same
padding mask in float64, prints the largest difference from the fixture's hidden states, and with
`--write` rewrites the fixture with Hugging Face's values (same inputs), so kanon's parity test
compares against the HF reference proper.

    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch transformers
    /tmp/torchenv/bin/python scripts/bert_reference_hf.py ~/.cache/kanon/models/all-minilm-l6-v2 \
        crates/kanon-tagger/tests/fixtures/minilm_reference.json [--write]
"""
import argparse
import json

import torch
from transformers import BertModel


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model_dir")
    parser.add_argument("fixture")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()

    fixture = json.load(open(args.fixture))
    ids = torch.tensor(fixture["input_ids"])
    lengths = fixture["lengths"]
    mask = torch.tensor([[1] * n + [0] * (ids.shape[1] - n) for n in lengths])
    model = BertModel.from_pretrained(args.model_dir, add_pooling_layer=False).double().eval()
    with torch.no_grad():
        hidden = model(input_ids=ids, attention_mask=mask).last_hidden_state
    worst = 0.0
    for b, n in enumerate(lengths):
        reference = torch.tensor(fixture["hidden"][b], dtype=torch.float64)
        worst = max(worst, (hidden[b, :n] - reference).abs().max().item())
    print(f"largest |HF - fixture| over {len(lengths)} sequences: {worst:.2e}")
    if args.write:
        fixture["note"] = (
            "Hugging Face transformers BertModel, float64 (scripts/bert_reference_hf.py); "
            f"the independent NumPy forward (scripts/bert_reference.py) agrees to {worst:.1e}"
        )
        fixture["hidden"] = [
            [[round(float(v), 6) for v in hidden[b, s]] for s in range(n)] for b, n in enumerate(lengths)
        ]
        with open(args.fixture, "w") as f:
            json.dump(fixture, f)
            f.write("\n")
        print(f"wrote {args.fixture}")


if __name__ == "__main__":
    main()
