#!/usr/bin/env python3
"""Reference hidden states of a BERT checkpoint, for kanon's parity test.

An independent implementation of the BERT encoder (Hugging Face's `BertModel` forward: embeddings +
LayerNorm, post-norm self-attention layers with exact GELU, eps from config.json) in NumPy, reading
the checkpoint's own `model.safetensors` and `tokenizer.json`. It writes the last hidden states of two
fixed sentences — the second padded to the first's length in a batch — as a JSON fixture.

    python3 -m pip install --target /tmp/np numpy
    PYTHONPATH=/tmp/np python3 scripts/bert_reference.py ~/.cache/kanon/models/all-minilm-l6-v2 \
        crates/kanon-tagger/tests/fixtures/minilm_reference.json
"""
import json
import math
import struct
import sys

import numpy as np

SENTENCES = [
    "the writer was born in vienna in 1992 and works in paris .",
    "she was born in london .",
]


def load_safetensors(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue  # e.g. the I64 `embeddings.position_ids` buffer
        start, end = info["data_offsets"]
        tensors[name] = np.frombuffer(data[start:end], dtype="<f4").reshape(info["shape"]).astype(np.float64)
    return tensors


def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


ERF = np.vectorize(math.erf)


def gelu(x):
    return 0.5 * x * (1.0 + ERF(x / math.sqrt(2.0)))


def main(model_dir, out_path):
    config = json.load(open(f"{model_dir}/config.json"))
    vocab = json.load(open(f"{model_dir}/tokenizer.json"))["model"]["vocab"]
    t = load_safetensors(f"{model_dir}/model.safetensors")
    prefix = "bert." if "bert.embeddings.word_embeddings.weight" in t else ""
    p = lambda name: t[prefix + name]
    eps = config.get("layer_norm_eps", 1e-12)
    heads = config["num_attention_heads"]
    hidden = config["hidden_size"]
    d = hidden // heads

    ids = [[vocab["[CLS]"]] + [vocab[w] for w in s.split()] + [vocab["[SEP]"]] for s in SENTENCES]
    length = max(len(x) for x in ids)
    mask = np.array([[1] * len(x) + [0] * (length - len(x)) for x in ids], dtype=np.float64)
    batch = np.array([x + [vocab["[PAD]"]] * (length - len(x)) for x in ids])

    x = p("embeddings.word_embeddings.weight")[batch]
    x = x + p("embeddings.position_embeddings.weight")[np.arange(length)][None]
    x = x + p("embeddings.token_type_embeddings.weight")[0][None, None]
    x = layer_norm(x, p("embeddings.LayerNorm.weight"), p("embeddings.LayerNorm.bias"), eps)
    bias = (1.0 - mask)[:, None, None, :] * -1e9
    for i in range(config["num_hidden_layers"]):
        l = lambda name: p(f"encoder.layer.{i}.{name}")
        lin = lambda x, name: x @ l(f"{name}.weight").T + l(f"{name}.bias")
        split = lambda y: y.reshape(len(ids), length, heads, d).transpose(0, 2, 1, 3)
        q, k, v = (split(lin(x, f"attention.self.{n}")) for n in ("query", "key", "value"))
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        weights = scores / scores.sum(-1, keepdims=True)
        context = (weights @ v).transpose(0, 2, 1, 3).reshape(len(ids), length, hidden)
        x = layer_norm(lin(context, "attention.output.dense") + x,
                       l("attention.output.LayerNorm.weight"), l("attention.output.LayerNorm.bias"), eps)
        inner = gelu(lin(x, "intermediate.dense"))
        x = layer_norm(lin(inner, "output.dense") + x, l("output.LayerNorm.weight"), l("output.LayerNorm.bias"), eps)

    fixture = {
        "model": "all-minilm-l6-v2",
        "note": "NumPy float64 reference of the BERT encoder (scripts/bert_reference.py)",
        "input_ids": batch.tolist(),
        "lengths": [len(x) for x in ids],
        "hidden": [[[round(float(v), 6) for v in x[b, s]] for s in range(len(ids[b]))] for b in range(len(ids))],
    }
    with open(out_path, "w") as f:
        json.dump(fixture, f)
        f.write("\n")
    print(f"wrote {out_path}: {len(ids)} sequences, {length} tokens, hidden {hidden}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
