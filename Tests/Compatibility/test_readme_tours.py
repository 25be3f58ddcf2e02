"""The README's curl tours, run in the order printed against a real `hearth serve --dev`.

Every ```sh block of the README that runs `curl` is split into its commands (continuation lines, quoted bodies that
span lines and `for … done` loops kept whole) and run one after another in bash, with the variables earlier commands
set. `127.0.0.1:8080` becomes the test server's address. Where the README writes a placeholder for something a reader
copies from an earlier answer (`ID=…idToken…`, `oobCode=…`), the test copies it the same way: from the previous JSON
answer, or from the dev outbox's newest code of the right kind. Streams (`curl -N`) run for two seconds.

Each command must answer as the README shows: the status its comment names (`# 409 …`, `# 401 {…}`, the `code` of a
shown error), otherwise a 2xx (or 3xx); and a JSON answer shown in a comment must match (objects by the keys shown,
`…` standing for any text).
"""

import json
import os
import re
import subprocess

import requests

from conftest import ROOT, Hearth

README = ROOT / "README.md"


def tour_blocks():
    """The README's ```sh blocks that call curl, in order."""
    text = README.read_text()
    return [block for block in re.findall(r"```sh\n(.*?)```", text, re.S) if "curl " in block]


def scan(text, single=False, double=False, on_hash=None):
    """Walks `text` tracking single and double quotes from the given state; calls `on_hash(index)` at each `#` outside
    quotes and stops when it answers True. Returns (single, double, index where it stopped or None)."""
    for index, char in enumerate(text):
        if char == "'" and not double:
            single = not single
        elif char == '"' and not single and (index == 0 or text[index - 1] != "\\"):
            double = not double
        elif char == "#" and not single and not double and on_hash and on_hash(index):
            return single, double, index
    return single, double, None


def split_comment(line, single=False, double=False):
    """A line's code and its trailing `# …` comment (two spaces or more before the #, outside quotes)."""
    _, _, index = scan(line, single, double, on_hash=lambda i: line[max(0, i - 2):i] == "  ")
    if index is None:
        return line, None
    return line[:index].rstrip(), line[index + 1:].strip()


def quotes_open(text):
    """Whether `text` ends inside a single- or double-quoted string."""
    single, double, _ = scan(text)
    return single or double


def commands(block):
    """(command, expectation) pairs: a logical command and the comment that shows its answer, if any."""
    result = []
    current = ""
    depth = 0
    for raw in block.splitlines():
        if not current and (not raw.strip() or raw.lstrip().startswith("#")):
            comment = raw.strip()[1:].strip()
            # A comment right under a command that shows an answer belongs to it; others are headings.
            if result and comment.startswith(("{", "→", "4", "5")) and result[-1][1] is None:
                result[-1] = (result[-1][0], comment.lstrip("→ ").strip())
            continue
        single, double, _ = scan(current + "\n" if current else "")
        code, comment = split_comment(raw, single, double)
        current = current + "\n" + code if current else code
        stripped = code.strip()
        if re.match(r"^(for|while) ", stripped):
            depth += 1
        if stripped == "done" or stripped.endswith("; done"):
            depth -= 1
        if code.endswith("\\") or quotes_open(current) or depth > 0:
            continue
        result.append((current, comment))
        current = ""
    return result


def expected_status(comment):
    """The status a comment names: a leading code, or the code of an error it shows."""
    if not comment:
        return None
    match = re.match(r"^(\d{3})\b", comment)
    if match:
        return int(match.group(1))
    match = re.search(r'"code":(\d{3})', comment)
    return int(match.group(1)) if match else None


def expected_json(comment):
    """The JSON a comment shows (before any `:` explanation after it), or None."""
    if not comment:
        return None
    comment = re.sub(r"^\d{3}\s+", "", comment)
    if not comment.startswith("{"):
        return None
    depth = 0
    for index, char in enumerate(comment):
        depth += char == "{"
        depth -= char == "}"
        if depth == 0:
            try:
                return json.loads(comment[: index + 1].replace(",…}", "}").replace(",…]", "]"))
            except ValueError:
                return None
    return None


def matches(expected, actual):
    """Whether `actual` has what `expected` shows: objects by their keys, `…` in a string for any text."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(k in actual and matches(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) >= len(expected) and all(
            matches(e, a) for e, a in zip(expected, actual))
    if isinstance(expected, str) and "…" in expected:
        pattern = ".*".join(re.escape(part) for part in expected.split("…"))
        return isinstance(actual, str) and re.fullmatch(pattern, actual, re.S) is not None
    return expected == actual


class Tour:
    """One bash environment the commands share, against `server`."""

    def __init__(self, server):
        self.server = server
        self.variables = {}
        self.last_json = None

    def prelude(self):
        exports = "".join(f"export {name}={shell_quote(value)}\n" for name, value in self.variables.items())
        # Every curl also reports its status on stderr, so the answers printed stay as the README shows them.
        return exports + "curl() { command curl \"$@\" -w '%{stderr}\\n__STATUS__%{http_code}\\n'; }\ncd \"$TOUR_DIR\"\n"

    def bash(self, script, timeout=60):
        environment = dict(os.environ, TOUR_DIR=self.server.data)
        return subprocess.run(["bash", "-c", self.prelude() + script], capture_output=True, text=True,
                              timeout=timeout, env=environment)

    def localize(self, command):
        """The command against the test server, its scratch files in the server's directory."""
        return command.replace("127.0.0.1:8080", self.server.host).replace("/tmp/", self.server.data + "/")

    def fill_placeholders(self, command):
        """What a reader would paste where the README writes `…`."""
        if "oobCode=…" in command or '"oobCode":"…"' in command:
            kind = "VERIFY_EMAIL" if "verifyEmail" in command else "PASSWORD_RESET"
            codes = requests.get(f"{self.server.url}/emulator/v1/projects/demo/oobCodes", timeout=10).json()
            pending = [c for c in codes.get("oobCodes", []) if c.get("requestType") == kind]
            assert pending, f"{command}\nno {kind} code in the outbox to paste (an earlier command used it up)"
            code = pending[-1]["oobCode"]
            command = command.replace("oobCode=…", f"oobCode={code}").replace('"oobCode":"…"', f'"oobCode":"{code}"')
        return command

    def run(self, command, comment):
        assignments = re.findall(r"([A-Z_]+)=…(\w+)…", command)
        if assignments:
            for name, field in assignments:
                assert self.last_json and field in self.last_json, f"no {field} to copy for {name}: {self.last_json}"
                self.variables[name] = self.last_json[field]
            return
        command = self.localize(self.fill_placeholders(command))
        assignment = re.match(r"^([A-Z_]+)=(.*)$", command, re.S)
        if assignment:
            name, value = assignment.groups()
            done = self.bash(f"{name}={value}\nprintf '%s' \"${name}\"")
            assert done.returncode == 0, f"{command}\n{done.stderr}"
            self.variables[name] = done.stdout
            return
        stream = "-N" in command.split() and "text/event-stream" in command
        if stream:
            command = command.replace("curl -N", "curl --max-time 2 -N", 1)
        done = self.bash(command)
        statuses = [int(s) for s in re.findall(r"__STATUS__(\d{3})", done.stderr)]
        if stream:
            assert "event: put" in done.stdout, f"{command}\n{done.stdout[:500]}"
            return
        assert done.returncode == 0, f"{command}\nexit {done.returncode}\n{done.stderr[-1000:]}"
        if "curl" not in command:
            return
        assert statuses, f"{command}: no curl answered\n{done.stderr[-500:]}"
        want = expected_status(comment)
        if want is not None:
            assert statuses[-1] == want, f"{command}\nREADME shows {want}, got {statuses[-1]}: {done.stdout[:500]}"
        else:
            bad = [s for s in statuses if not 200 <= s < 400]
            assert not bad, f"{command}\nanswered {statuses}: {done.stdout[:800]}"
        try:
            self.last_json = json.loads(done.stdout)
        except ValueError:
            self.last_json = None
        shown = expected_json(comment)
        if shown is not None:
            assert matches(shown, self.last_json), f"{command}\nREADME shows {shown}\ngot {done.stdout[:800]}"


def shell_quote(value):
    return "'" + value.replace("'", "'\\''") + "'"


def test_the_parser_keeps_commands_whole_and_finds_their_answers():
    block = """B='http://x'
# heading
curl -s -X POST "$B" -d '{"a":
  1}'   # 409 ALREADY_EXISTS
for n in 1 2; do
  curl -s "$B/$n"
done
curl -s "$B/x"
# {"error":{"code":404,"status":"NOT_FOUND"}}
"""
    parsed = commands(block)
    assert [c for c, _ in parsed][1] == "curl -s -X POST \"$B\" -d '{\"a\":\n  1}'"
    assert parsed[1][1] == "409 ALREADY_EXISTS"
    assert parsed[2][0].startswith("for n") and parsed[2][0].endswith("done")
    assert expected_status(parsed[3][1]) == 404
    assert matches(expected_json('{"name":"-O…"}'), {"name": "-Oabc"})
    assert not matches(expected_json('{"name":"-O…"}'), {"name": "x"})


def test_the_tours_run_in_the_order_printed():
    server = Hearth("--project", "demo")
    try:
        tour = Tour(server)
        blocks = tour_blocks()
        assert len(blocks) >= 5, "the README's tours were not found"
        count = 0
        for block in blocks:
            for command, comment in commands(block):
                tour.run(command, comment)
                count += 1
        assert count > 50
    finally:
        server.stop()
