"""The protobuf fixtures the Swift codec tests compare against are what the official Python runtime makes.

The Swift tests (Tests/HearthGRPCTests) decode each fixture into Hearth's model and encode the model back to the
same bytes; these tests close the loop on the Python side: the checked-in bytes are exactly what the installed
protobuf runtime serializes today (so a runtime upgrade that changes them is noticed), and the runtime parses every
fixture back into the message it was made from, unknown fields and unpacked numbers included.
"""

import importlib.util
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "proto-fixtures.py"


def load_script():
    spec = importlib.util.spec_from_file_location("proto_fixtures", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fixtures = load_script()


def checked_in():
    """name → bytes, read back from the generated Swift file."""
    text = fixtures.OUT.read_text()
    table = {}
    for match in re.finditer(r'static let (\w+) = hex\(\s*(?:"([0-9a-f]*)"|"""([0-9a-f\s]*)""")\)', text):
        table[match.group(1)] = bytes.fromhex("".join((match.group(2) or match.group(3) or "").split()))
    return table


def test_the_swift_fixtures_are_what_the_runtime_serializes_now():
    made = {name: data for name, data, _ in fixtures.fixtures()}
    stored = checked_in()
    assert set(stored) == set(made)
    for name, data in made.items():
        assert stored[name] == data, f"{name} differs: run scripts/proto-fixtures.py"


@pytest.mark.parametrize(
    "name, message",
    [
        ("commitEveryValue", fixtures.CommitRequest),
        ("commitWrites", fixtures.CommitRequest),
        ("runQuery", fixtures.RunQueryRequest),
        ("listenAddQuery", fixtures.ListenRequest),
        ("commitResponse", fixtures.CommitResponse),
        ("listenDocumentChange", fixtures.ListenResponse),
        ("writeResponse", fixtures.WriteResponse),
    ],
)
def test_canonical_fixtures_reserialize_to_themselves(name, message):
    # Swift's encoder writes these bytes exactly (its tests assert it), so the runtime parses Swift's output to
    # the same message and writes it back unchanged.
    data = checked_in()[name]
    assert message.FromString(data).SerializeToString(deterministic=True) == data


def test_unknown_fields_are_kept_by_the_runtime_and_dropped_by_hearth():
    stored = checked_in()
    parsed = fixtures.CommitRequest.FromString(stored["commitUnknownFields"])
    assert parsed.SerializeToString() != stored["commitA"]  # the runtime keeps unknown fields
    parsed.DiscardUnknownFields()
    assert parsed.SerializeToString(deterministic=True) == stored["commitA"]


def test_packed_and_unpacked_target_ids_are_one_message():
    stored = checked_in()
    assert fixtures.TargetChange.FromString(stored["targetIDsUnpacked"]) == fixtures.TargetChange.FromString(
        stored["targetIDsPacked"]
    )
    assert list(fixtures.TargetChange.FromString(stored["targetIDsPacked"]).target_ids) == [1, 2, 300, -1]
