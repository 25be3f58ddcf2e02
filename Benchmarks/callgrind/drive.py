#!/usr/bin/env python3
"""Sends a fixed number of requests to a running hearth server over keep-alive connections.

Used by Benchmarks/callgrind/profile.sh, which runs the server under `valgrind --tool=callgrind`: a fixed
request count makes instruction counts comparable between builds, where wall-clock rates on a shared
machine are not. Every response must be 2xx or the run fails.

    drive.py BASE_URL seed N          # N documents reads/doc000000… in commits of 500
    drive.py BASE_URL create N C      # N single-document POST creates over C connections
    drive.py BASE_URL get N C SEEDED  # N GETs of random seeded documents over C connections
    drive.py BASE_URL commit N C TAG  # N :commit requests of 500 new documents over C connections
"""
import http.client
import random
import sys
import threading
import urllib.parse

DOCUMENTS = "/v1/projects/demo/databases/(default)/documents"
FIELDS = '{"title":{"stringValue":"hello"},"n":{"integerValue":"42"},"done":{"booleanValue":false}}'
CREATE_BODY = '{"fields":' + FIELDS + '}'
HEADERS = {"Content-Type": "application/json"}


def commit_body(collection, ids):
    writes = [
        '{"update":{"name":"projects/demo/databases/(default)/documents/%s/%s","fields":%s}}' % (collection, i, FIELDS)
        for i in ids
    ]
    return '{"writes":[' + ",".join(writes) + "]}"


def doc_id(n):
    return "doc%06d" % n


def run(base, requests, connections):
    """Sends `requests` (a list of (method, path, body)) split over `connections` keep-alive connections."""
    host = urllib.parse.urlparse(base)
    failures = []

    def worker(part):
        conn = http.client.HTTPConnection(host.hostname, host.port, timeout=600)
        for method, path, body in part:
            conn.request(method, path, body=body, headers=HEADERS if body else {})
            response = conn.getresponse()
            data = response.read()
            if response.status // 100 != 2:
                failures.append("%s %s -> %d %s" % (method, path, response.status, data[:200]))
                return
        conn.close()

    threads = [threading.Thread(target=worker, args=(requests[i::connections],)) for i in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        sys.exit("failed: " + failures[0])


def main():
    base, mode, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    connections = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    if mode == "seed":
        reqs = []
        for start in range(0, count, 500):
            ids = [doc_id(n) for n in range(start, min(start + 500, count))]
            reqs.append(("POST", DOCUMENTS + ":commit", commit_body("reads", ids)))
        run(base, reqs, 1)
    elif mode == "create":
        run(base, [("POST", DOCUMENTS + "/bench", CREATE_BODY)] * count, connections)
    elif mode == "get":
        seeded = int(sys.argv[5])
        rng = random.Random(42)
        run(base, [("GET", DOCUMENTS + "/reads/" + doc_id(rng.randrange(seeded)), None) for _ in range(count)],
            connections)
    elif mode == "commit":
        tag = sys.argv[5]
        reqs = [
            ("POST", DOCUMENTS + ":commit", commit_body("bulk", ["%sr%dw%d" % (tag, r, w) for w in range(500)]))
            for r in range(count)
        ]
        run(base, reqs, connections)
    else:
        sys.exit("unknown mode " + mode)


if __name__ == "__main__":
    main()
