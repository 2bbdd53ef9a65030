#!/usr/bin/env python3
"""Share of entities (PERSON and CODE aside) that a sanitization generalized, by type, from its
audit JSONL (`kanon sanitize --audit`): docs/results/sanitization.md, "How much the hierarchies
cover"."""
import json,sys,collections
tot=collections.Counter(); gen=collections.Counter()
for line in open(sys.argv[1]):
    d=json.loads(line)
    for e in d['entities']:
        t=e['type']
        if t in ('PERSON','CODE'): continue
        tot[t]+=1
        if e['replacement'] != e['entity']:  # not its bare label (`DEM 1`)
            gen[t]+=1
T=sum(tot.values()); G=sum(gen.values())
print(f"{'type':10} {'entities':>8} {'generalized':>11} {'share':>6}")
for t in sorted(tot): print(f"{t:10} {tot[t]:8} {gen[t]:11} {gen[t]/tot[t]:6.1%}")
print(f"{'all':10} {T:8} {G:11} {G/T:6.1%}")
T2=T-tot['DATETIME']; G2=G-gen['DATETIME']
if T2: print(f"{'no dates':10} {T2:8} {G2:11} {G2/T2:6.1%}")
