#!/usr/bin/env python3
"""The embedded model as INTACT's generator and attacker, from the audit of one `kanon sanitize`
run with the shipped defaults (`candidate_sources = "both"`, attackers KG and LLM, `--index`):
docs/results/sanitization.md, "Choosing the embedded model".

    embedded_model_quality.py AUDIT.jsonl [--show N]

Entities are counted once per document; PERSON and CODE (labels) and DATETIME (the date ladder,
never the model) are left out.
- usable candidates: the model's candidates that survived the sanitizer's filters (not revealing
  an original, not copying the prompt's example or echoing the request, finished, no repeat), of
  all it proposed; and the entities with at least one usable candidate of the model.
- true on the hierarchy-resolvable entities: entities for which kanon's hierarchies give at least
  one rung; a usable model candidate counts as true when, articles and plural -s aside, every
  word of it is a word of one of the entity's rungs or a connective (in, of, from, and): `a city
  in Norway` for a rung `a city in Norway`. It is a lower bound: a true paraphrase with other
  words (`a Norwegian city`) counts as not confirmed.
- attack recovery: among the entities the LLM attacker attacked, the share whose first attacked
  candidate it recovered, and the share where it recovered every candidate it was shown and the
  entity fell back to its label (`all-guessed`, the KG attacker refusing none of those), beside
  INTACT's ≈ 47 % and ≈ 22 %.
- bare labels: entities (PERSON, CODE aside; dates in) whose replacement is their label.
"""
import collections
import json
import re
import sys

SKIP = {"PERSON", "CODE"}
CONNECTIVES = {"in", "of", "from", "and", "a", "an", "the"}


def words(text):
    out = set()
    for w in re.findall(r"[\w'-]+", text.lower()):
        if w.endswith("s") and len(w) > 3:
            w = w[:-1]
        out.add(w)
    return out


def main():
    path = sys.argv[1]
    show = int(sys.argv[sys.argv.index("--show") + 1]) if "--show" in sys.argv else 0
    c = collections.Counter()
    samples = []
    for line in open(path):
        doc = json.loads(line)
        for e in doc["entities"]:
            t = e["type"]
            if t in SKIP:
                continue
            c["entities"] += 1
            if e["replacement"] == e["entity"]:
                c["bare"] += 1
            if t == "DATETIME":
                continue
            c["model_entities"] += 1
            cands = e.get("candidates", [])
            model = [x for x in cands if x["source"] == "model"]
            usable = [x for x in model if not x.get("rejected")]
            rungs = [x for x in cands if x["source"] == "knowledge-graph"]
            c["proposed"] += len(model)
            c["usable"] += len(usable)
            c["entities_usable"] += bool(usable)
            for x in model:
                c["rejected:" + (x.get("rejected") or "kept")] += 1
            if any(not r.get("rejected") for r in rungs):
                c["resolvable"] += 1
                rung_words = set().union(*(words(r["text"]) for r in rungs))
                for x in usable:
                    c["resolvable_usable"] += 1
                    ok = words(x["text"]) <= rung_words | CONNECTIVES
                    c["resolvable_true"] += ok
                    if len(samples) < show:
                        original = e["mentions"][0]["text"]
                        samples.append((ok, original, x["text"], [r["text"] for r in rungs]))
            llm = [a for a in e.get("attacks", []) if a.get("attacker", "llm") == "llm"]
            if llm:
                c["attacked"] += 1
                c["first_recovered"] += llm[0]["recovered"]
                c["all_recovered"] += e["reason"] == "all-guessed" and all(a["recovered"] for a in llm)
                c["llm_attacks"] += len(llm)
    pct = lambda a, b: f"{100 * a / b:.1f} %" if b else "–"
    print(f"entities (PERSON, CODE aside): {c['entities']}; bare labels {c['bare']} ({pct(c['bare'], c['entities'])})")
    print(f"entities the model is asked about (dates aside): {c['model_entities']}")
    print(f"model candidates usable: {c['usable']} / {c['proposed']} ({pct(c['usable'], c['proposed'])}); "
          f"entities with a usable one: {c['entities_usable']} ({pct(c['entities_usable'], c['model_entities'])})")
    print("  dropped: " + ", ".join(f"{k[9:]} {v}" for k, v in sorted(c.items()) if k.startswith("rejected:") and k != "rejected:kept"))
    print(f"hierarchy-resolvable entities: {c['resolvable']}; their usable model candidates confirmed true: "
          f"{c['resolvable_true']} / {c['resolvable_usable']} ({pct(c['resolvable_true'], c['resolvable_usable'])})")
    print(f"LLM attacker: {c['attacked']} entities, {c['llm_attacks']} attacks; first candidate recovered "
          f"{pct(c['first_recovered'], c['attacked'])}, every candidate recovered {pct(c['all_recovered'], c['attacked'])}")
    for ok, original, cand, rungs in samples:
        print(f"  {'true' if ok else '----'}  {original!r} -> {cand!r}   rungs: {rungs}")


if __name__ == "__main__":
    main()
