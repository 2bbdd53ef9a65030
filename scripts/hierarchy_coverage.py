#!/usr/bin/env python3
"""Share of entities (PERSON and CODE aside) that a sanitization generalized, by type, from its
audit JSONL (`kanon sanitize --audit`): docs/results/sanitization.md, "How much the hierarchies
cover". An entity counts as generalized when its replacement is not its bare label (`DEM 1`);
`dropped` counts those of them left out because every mention modifies the noun after it or
follows the noun naming its kind (`read_context`), `context` those whose chosen phrase is the
kind their sentence names."""
import collections
import json
import sys

tot = collections.Counter()
gen = collections.Counter()
dropped = collections.Counter()
context = collections.Counter()
for line in open(sys.argv[1]):
    d = json.loads(line)
    for e in d['entities']:
        t = e['type']
        if t in ('PERSON', 'CODE'):
            continue
        tot[t] += 1
        if e['replacement'] != e['entity']:  # not its bare label (`DEM 1`)
            gen[t] += 1
        if e.get('reason') == 'dropped':
            dropped[t] += 1
        elif any(c.get('hierarchy') == 'context' and c['text'].lower() == e['replacement'].lower()
                 for c in e.get('candidates', [])):
            context[t] += 1
T = sum(tot.values())
G = sum(gen.values())
print(f"{'type':10} {'entities':>8} {'generalized':>11} {'share':>6} {'dropped':>7} {'context':>7}")
for t in sorted(tot):
    print(f"{t:10} {tot[t]:8} {gen[t]:11} {gen[t]/tot[t]:6.1%} {dropped[t]:7} {context[t]:7}")
print(f"{'all':10} {T:8} {G:11} {G/T:6.1%} {sum(dropped.values()):7} {sum(context.values()):7}")
T2 = T - tot['DATETIME']
G2 = G - gen['DATETIME']
if T2:
    print(f"{'no dates':10} {T2:8} {G2:11} {G2/T2:6.1%}")
