#!/usr/bin/env python3
"""Time the Python reference renderer over the corpus, one pair at a time, in one process.

usage: perf_oracle.py [--corpus DIR] [--oracle DIR] [--mintime SECONDS] [--rounds N] [--only SUBSTRING] [--serve]

Each template is compiled once through render.compile_template (the lru_cache'd
ImmutableSandboxedEnvironment that mirrors transformers' _compile_jinja_template);
then render.render(req) -- what transformers does per apply_chat_template call once
the template is cached -- is timed per pair: one warm-up call, a batch size n
calibrated so that one batch takes at least mintime/rounds, then `rounds` batches;
the pair's figure is the median batch mean. Requests are built exactly as
gen_goldens.py builds them. A pair whose golden is an error is timed raising.

Prints one JSON object on stdout:
  {"python": ..., "jinja2": ..., "markupsafe": ..., "mintime_s": ..., "rounds": ...,
   "pairs": {"<template>__<scenario>": {"ns": float, "iters": int, "error": bool}}}

--serve: first print one JSON line with the versions and the pair names, then
answer each pair name read on stdin with one JSON line {"pair", "ns", "iters",
"error"}, timing that pair only then. scripts/perfrender uses this to time the
two sides pair by pair, alternately (never at once), so that both see the same
machine load.
"""
import argparse
import json
import os
import statistics
import sys
import time
from importlib import metadata


def default_shared():
    env = os.environ.get("DRAGOMAN_SHARED")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "shared"))


def requests(corpus):
    tdir = os.path.join(corpus, "templates")
    sdir = os.path.join(corpus, "scenarios")
    tokens = json.load(open(os.path.join(tdir, "tokens.json"), encoding="utf-8"))
    scen = sorted(f for f in os.listdir(sdir) if f.endswith(".json"))
    for tname in sorted(f for f in os.listdir(tdir) if f.endswith(".jinja")):
        src = open(os.path.join(tdir, tname), encoding="utf-8").read()
        tok = tokens.get(tname, {})
        for sf in scen:
            sc = json.load(open(os.path.join(sdir, sf), encoding="utf-8"))
            yield tname[: -len(".jinja")] + "__" + sf[: -len(".json")], {
                "template": src, "messages": sc["messages"], "tools": sc.get("tools"),
                "add_generation_prompt": sc.get("add_generation_prompt", False),
                "bos_token": tok.get("bos_token"), "eos_token": tok.get("eos_token"),
                "kwargs": sc.get("kwargs") or {},
            }


def time_pair(render, req, mintime, rounds):
    """Median ns per render(req) over `rounds` batches; returns (ns, total iterations, raised)."""
    clock = time.perf_counter_ns

    def batch(n):
        raised = False
        t0 = clock()
        for _ in range(n):
            try:
                render(req)
            except Exception:
                raised = True
        return clock() - t0, raised

    _, raised = batch(1)  # warm-up
    target = mintime * 1e9 / rounds
    n = 1
    while True:
        el, _ = batch(n)
        if el >= target:
            break
        per = max(el / n, 1.0)
        n = int(min(max(n * 2, target / per * 1.2), n * 100))
    means = [el / n] + [batch(n)[0] / n for _ in range(rounds - 1)]
    return statistics.median(means), n * rounds, raised


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=os.path.join(default_shared(), "corpus"))
    ap.add_argument("--oracle", default=None, help="directory of render.py (default: <shared>/tools/oracle)")
    ap.add_argument("--mintime", type=float, default=0.02, help="seconds of timed renders per pair")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", default="", help="time only pairs whose name contains this")
    ap.add_argument("--serve", action="store_true", help="time the pairs named on stdin, one JSON line each")
    args = ap.parse_args()
    oracle = args.oracle or os.path.join(os.path.dirname(os.path.normpath(args.corpus)), "tools", "oracle")
    sys.path.insert(0, oracle)
    import jinja2  # noqa: E402
    from render import compile_template, render  # noqa: E402

    reqs = {}
    for name, req in requests(args.corpus):
        if args.only and args.only not in name:
            continue
        try:
            compile_template(req["template"])
        except Exception:
            pass  # render() raises it again, as transformers would on every call
        reqs[name] = req
    info = {
        "python": sys.version.split()[0],
        "jinja2": jinja2.__version__,
        "markupsafe": metadata.version("markupsafe"),
        "mintime_s": args.mintime,
        "rounds": args.rounds,
    }

    def timed(name):
        ns, iters, raised = time_pair(render, reqs[name], args.mintime, args.rounds)
        return {"ns": ns, "iters": iters, "error": raised}

    if args.serve:
        print(json.dumps({**info, "names": list(reqs)}), flush=True)
        for line in sys.stdin:
            name = line.strip()
            if not name:
                continue
            ans = {"pair": name, **timed(name)} if name in reqs else {"pair": name, "missing": True}
            print(json.dumps(ans), flush=True)
        return 0

    pairs = {}
    for name in reqs:
        pairs[name] = timed(name)
        if len(pairs) % 100 == 0:
            print(f"  python: {len(pairs)} pairs", file=sys.stderr, flush=True)
    json.dump({**info, "pairs": pairs}, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
