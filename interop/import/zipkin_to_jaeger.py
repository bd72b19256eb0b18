"""Rewrites a Zipkin v2 record (one JSON list of spans a line, as receiver.js writes them) in
the shape Jaeger's query service answers on /api/traces: `python zipkin_to_jaeger.py IN OUT`.

No Jaeger can be installed from PyPI or npm, so the Jaeger fixture is this conversion of spans
the OpenTelemetry SDK made, not a file Jaeger wrote: the span ids, times, tags and parents are
the SDK's; the layout (traceID, spanID, references, processes, tags with types) is Jaeger's.
"""

import json
import sys

spans = []
for line in open(sys.argv[1]):
    if line.strip():
        spans.extend(json.loads(line))
traces = {}
for s in spans:
    t = traces.setdefault(s["traceId"], {"traceID": s["traceId"], "spans": [], "processes": {}})
    service = s.get("localEndpoint", {}).get("serviceName", "unknown")
    pid = next((k for k, v in t["processes"].items() if v["serviceName"] == service), None)
    if pid is None:
        pid = f"p{len(t['processes']) + 1}"
        t["processes"][pid] = {"serviceName": service, "tags": []}
    tags = [{"key": k, "type": "string", "value": v} for k, v in sorted(s.get("tags", {}).items())]
    if "kind" in s:
        tags.append({"key": "span.kind", "type": "string", "value": s["kind"].lower()})
    t["spans"].append({
        "traceID": s["traceId"],
        "spanID": s["id"],
        "operationName": s.get("name", ""),
        "references": ([{"refType": "CHILD_OF", "traceID": s["traceId"], "spanID": s["parentId"]}]
                       if s.get("parentId") else []),
        "startTime": s["timestamp"],
        "duration": s.get("duration", 0),
        "tags": tags,
        "logs": [{"timestamp": a["timestamp"], "fields": [{"key": "event", "type": "string", "value": a["value"]}]}
                 for a in s.get("annotations", [])],
        "processID": pid,
        "warnings": None,
    })
json.dump({"data": list(traces.values()), "total": 0, "limit": 0, "offset": 0, "errors": None},
          open(sys.argv[2], "w"), indent=2)
