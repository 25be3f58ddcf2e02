#!/usr/bin/env python3
"""Sequential writes with one user's ID token, for Benchmarks/callgrind/rules.sh.

    rules_drive.py BASE_URL doc|tree N signup         # signs a user up, sends N warm-up writes, prints "uid token"
    rules_drive.py BASE_URL doc|tree N "uid token" zero:PID   # zeroes PID's callgrind counters, then sends N writes
"""
import http.client
import json
import subprocess
import sys
import urllib.parse
import uuid


def send(conn, method, path, body, headers):
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    data = response.read()
    if response.status != 200:
        sys.exit("%s %s -> %d %s" % (method, path, response.status, data[:200]))
    return data


def writes(conn, kind, count, uid, token):
    headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
    tag = uuid.uuid4().hex[:6]
    for i in range(count):
        if kind == "doc":
            fields = {"owner": {"stringValue": uid}, "title": {"stringValue": "task %d" % i},
                      "done": {"booleanValue": False}}
            send(conn, "POST", "/v1/projects/demo/databases/(default)/documents/todos?documentId=%s%d" % (tag, i),
                 json.dumps({"fields": fields}), headers)
        else:
            send(conn, "PUT", "/posts/%s/%s%d.json" % (uid, tag, i),
                 json.dumps({"text": "post %d" % i, "createdAt": {".sv": "timestamp"}}), headers)


def main():
    base, kind, count, who = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    url = urllib.parse.urlparse(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=600)
    if who == "signup":
        body = json.dumps({"email": "bench-%s@example.com" % uuid.uuid4().hex[:8], "password": "secret-password",
                           "returnSecureToken": True})
        account = json.loads(send(conn, "POST", "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", body,
                                  {"Content-Type": "application/json"}))
        writes(conn, kind, count, account["localId"], account["idToken"])
        print(account["localId"], account["idToken"])
        return
    uid, token = who.split(" ")
    subprocess.run(["callgrind_control", "-z", sys.argv[5].split(":")[1]], check=True, capture_output=True)
    writes(conn, kind, count, uid, token)


if __name__ == "__main__":
    main()
