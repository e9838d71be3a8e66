#!/usr/bin/env python3
# Per-seed final success of two study archives (runs.tar.gz) side by side, and
# the paired difference of means (B - A) with a 95% bootstrap CI over seeds
# (10,000 resamples, fixed seed), deterministic and stochastic.
#   scripts/study-paired.py A/runs.tar.gz B/runs.tar.gz
import json, tarfile, sys, random, re
def finals(path):
    out={}
    with tarfile.open(path) as t:
        for m in t.getmembers():
            if m.name.endswith('metrics.jsonl'):
                seed=int(re.search(r'/s(\d+)/',m.name).group(1))
                last=None
                for line in t.extractfile(m).read().decode().splitlines():
                    d=json.loads(line)
                    if 'eval/success_rate' in d: last=d
                out[seed]=(last['eval/success_rate'], last.get('eval/success_rate_stochastic'), last.get('step') or last.get('env_step'))
    return out
a=finals(sys.argv[1]); b=finals(sys.argv[2])
seeds=sorted(set(a)&set(b))
print('| seed | sim det | art det | sim stoch | art stoch |'); print('|---|---|---|---|---|')
for s in seeds: print(f'| {s} | {a[s][0]:.2f} | {b[s][0]:.2f} | {a[s][1]:.2f} | {b[s][1]:.2f} |')
rng=random.Random(12345)
for k,name in ((0,'deterministic'),(1,'stochastic')):
    d=[b[s][k]-a[s][k] for s in seeds]
    m=sum(d)/len(d); bs=[]
    for _ in range(10000):
        x=[rng.choice(d) for _ in d]; bs.append(sum(x)/len(x))
    bs.sort()
    sa=sorted(a[s][k] for s in seeds); sb=sorted(b[s][k] for s in seeds)
    med=lambda v:(v[len(v)//2-1]+v[len(v)//2])/2
    print(f'{name}: median sim {med(sa):.2f} art {med(sb):.2f}; mean sim {sum(sa)/len(sa):.3f} art {sum(sb)/len(sb):.3f}; art-sim paired mean {m:+.3f} [{bs[249]:+.3f}, {bs[9749]:+.3f}] (n={len(d)})')
