#!/usr/bin/env python3
"""Fill in the expected output of hand-written template cases from the reference renderer.

Reads JSON lines {"name", "template", "vars"?} on stdin and writes them back with
"want" (the rendered text) or "error" ({"type", "message"}) as
../shared/tools/oracle/render.py produces them (Jinja2 configured as transformers).
Usage: scripts/oracle_cases.py < cases.in.jsonl > jinja/testdata/cases.jsonl
"""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
shared = os.environ.get("DRAGOMAN_SHARED", os.path.join(here, "..", "..", "shared"))
sys.path.insert(0, os.path.join(shared, "tools", "oracle"))
import render  # noqa: E402

for line in sys.stdin:
    if not line.strip():
        continue
    case = json.loads(line)
    req = {"template": case["template"], "messages": [], "add_generation_prompt": False}
    req.update(case.get("vars") or {})
    case.pop("want", None)
    case.pop("error", None)
    try:
        case["want"] = render.render(req)
    except Exception as exc:
        case["error"] = {"type": type(exc).__name__, "message": str(exc)}
    sys.stdout.write(json.dumps(case, ensure_ascii=False) + "\n")
