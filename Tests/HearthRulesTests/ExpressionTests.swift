import HearthCore
import HearthRules
import Testing

/// Each condition is evaluated for alice reading `users/alice` whose stored data is ``Fixture/sample``.
@Suite("Firestore rules expressions")
struct ExpressionTests {
    static let operators: [(String, Bool)] = [
        ("1 + 2 == 3", true), ("7 / 2 == 3", true), ("7 % 3 == 1", true), ("7.0 / 2 == 3.5", true),
        ("1 == 1.0", true), ("2 - 5 == -3", true), ("2 * 3 == 6", true), ("1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 3", true),
        ("'a' < 'b'", true), ("'a' + 'b' == 'ab'", true), ("!(1 == 2)", true), ("1 != 2", true),
        ("true ? 1 == 1 : false", true), ("false ? true : 2 == 3", false), ("null == null", true),
        ("1 == '1'", false), ("[1, 2] == [1, 2]", true), ("{'a': 1} == {'a': 1.0}", true),
        ("2 in [1, 2]", true), ("'a' in {'a': 1}", true), ("'z' in {'a': 1}", false), ("3 in [1, 2]", false),
        ("[1] + [2] == [1, 2]", true), ("-(3) == -3", true),
        // Error absorption: `||` and `&&` ignore an error when the other side decides.
        ("resource.data.missing == 1 || true", true), ("resource.data.missing == 1 && false", false),
        ("true || resource.data.missing", true), ("resource.data.missing == 1", false),
        ("1 / 0 == 0", false), ("9223372036854775807 + 1 > 0", false), ("1 < 'a'", false), ("'a' + 1 == 'a1'", false),
    ]

    @Test("operators", arguments: operators)
    func operatorsEvaluate(_ condition: String, _ expected: Bool) throws {
        #expect(try Fixture.holds(condition) == expected)
    }

    static let types: [(String, Bool)] = [
        ("1 is int", true), ("1 is number", true), ("1.5 is float", true), ("1.5 is number", true),
        ("'a' is string", true), ("true is bool", true), ("[1] is list", true), ("{} is map", true),
        ("request.time is timestamp", true), ("duration.value(1, 's') is duration", true),
        ("resource.data.place is latlng", true), ("resource.data.blob is bytes", true),
        ("request.path is path", true), ("[1].toSet() is set", true), ("1 is string", false),
        ("resource.data.nothing == null", true), ("resource.data.created is timestamp", true),
    ]

    @Test("is type checks", arguments: types)
    func typeChecks(_ condition: String, _ expected: Bool) throws {
        #expect(try Fixture.holds(condition) == expected)
    }

    static let strings: [(String, Bool)] = [
        ("'Hello'.size() == 5", true), ("'Hello'.lower() == 'hello'", true), ("'Hello'.upper() == 'HELLO'", true),
        ("'  x '.trim() == 'x'", true), ("'abc123'.matches('[a-z]+[0-9]+')", true), ("'abc'.matches('b')", false),
        ("'a,b,c'.split(',') == ['a', 'b', 'c']", true), ("'a-b'.replace('-', '+') == 'a+b'", true),
        ("'abc'[1] == 'b'", true), ("'abcdef'[1:3] == 'bc'", true), ("'ab'.toUtf8().size() == 2", true),
        ("string(12) == '12'", true), ("int('42') == 42", true), ("float(1) == 1.0", true), ("int(2.9) == 2", true),
        ("'user@example.com'.matches('.*@example[.]com')", true),
    ]

    @Test("string methods", arguments: strings)
    func stringMethods(_ condition: String, _ expected: Bool) throws {
        #expect(try Fixture.holds(condition) == expected)
    }

    static let collections: [(String, Bool)] = [
        ("resource.data.tags.size() == 2", true), ("resource.data.tags.hasAll(['a'])", true),
        ("resource.data.tags.hasAny(['z', 'b'])", true), ("resource.data.tags.hasOnly(['a', 'b', 'c'])", true),
        ("resource.data.tags.hasOnly(['a'])", false), ("resource.data.tags[0] == 'a'", true),
        ("resource.data.tags.join('/') == 'a/b'", true), ("resource.data.tags.removeAll(['a']) == ['b']", true),
        ("resource.data.tags.concat(['c']).size() == 3", true), ("[1, 1, 2].toSet().size() == 2", true),
        ("[1, 2].toSet().union([3]).size() == 3", true), ("[1, 2].toSet().intersection([2]) == [2].toSet()", true),
        ("[1, 2].toSet().difference([2]) == [1].toSet()", true), ("resource.data.tags[0:1] == ['a']", true),
        ("resource.data.profile.keys().hasAll(['name', 'age'])", true), ("resource.data.profile.size() == 2", true),
        ("resource.data.profile.values().size() == 2", true), ("resource.data.profile.get('nick', 'x') == 'x'", true),
        ("resource.data.profile.get(['name'], '') == 'Alice'", true), ("resource.data.profile['age'] == 30", true),
        ("resource.data.profile.name == 'Alice'", true), ("resource.data.tags[5] == 'a'", false),
    ]

    @Test("lists, sets and maps", arguments: collections)
    func collectionMethods(_ condition: String, _ expected: Bool) throws {
        #expect(try Fixture.holds(condition) == expected)
    }

    static let diffs: [(String, Bool)] = [
        ("request.resource.data.diff(resource.data).affectedKeys().hasOnly(['count'])", true),
        ("resource.data.diff(request.resource.data).changedKeys() == ['count'].toSet()", true),
        ("resource.data.diff(request.resource.data).addedKeys() == ['extra'].toSet()", true),
        ("resource.data.diff(request.resource.data).removedKeys() == ['nothing'].toSet()", true),
        ("resource.data.diff(request.resource.data).unchangedKeys().hasAll(['owner', 'tags'])", true),
        ("resource.data.diff(request.resource.data).affectedKeys().hasOnly(['owner'])", false),
    ]

    @Test("map diffs", arguments: diffs)
    func mapDiffs(_ condition: String, _ expected: Bool) throws {
        var new = Fixture.sample
        new["count"] = .integer(4)
        new["nothing"] = nil
        new["extra"] = .boolean(true)
        let changed = Fixture.sample.merging(["count": .integer(4)]) { $1 }
        let expectedHolds = try Fixture.holds(condition, new: new)
        if condition.hasPrefix("request.resource.data.diff") {
            #expect(try Fixture.holds(condition, new: changed) == expected)
        } else {
            #expect(expectedHolds == expected)
        }
    }

    static let time: [(String, Bool)] = [
        ("request.time == timestamp.value(1700000000000)", true),
        ("request.time > resource.data.created", true), ("request.time.year() == 2023", true),
        ("request.time.month() == 11", true), ("request.time.day() == 14", true), ("request.time.hours() == 22", true),
        ("request.time.minutes() == 13", true), ("request.time.seconds() == 20", true),
        ("request.time.dayOfWeek() == 2", true), ("request.time.dayOfYear() == 318", true),
        ("request.time.toMillis() == 1700000000000", true), ("request.time.nanos() == 0", true),
        ("request.time - duration.value(1, 'd') < request.time", true),
        ("request.time + duration.value(60, 's') == timestamp.value(1700000060000)", true),
        ("(request.time - resource.data.created).seconds() == 100000000", true),
        ("duration.time(1, 0, 0, 0) == duration.value(1, 'h')", true),
        ("timestamp.date(2023, 11, 14) == request.time.date()", true),
        ("request.time.time() == duration.time(22, 13, 20, 0)", true),
        ("duration.value(1500, 'ms').nanos() == 500000000", true), ("duration.value(1, 'x') is duration", false),
    ]

    @Test("timestamps and durations", arguments: time)
    func timestamps(_ condition: String, _ expected: Bool) throws {
        #expect(try Fixture.holds(condition) == expected)
    }

    static let math: [(String, Bool)] = [
        ("math.abs(-3) == 3", true), ("math.ceil(1.2) == 2", true), ("math.floor(1.8) == 1", true),
        ("math.round(2.5) == 3", true), ("math.sqrt(9) == 3", true), ("math.pow(2, 10) == 1024", true),
        ("math.isNaN(0.0 / 0.0)", true), ("math.isInfinite(1.0 / 0.0)", true),
        ("resource.data.place.latitude() == 52.0", true),
        ("latlng.value(0, 0).distance(latlng.value(0, 1)) > 111000", true),
        ("resource.data.blob.toBase64() == '3q0='", true), ("resource.data.blob.toHexString() == 'DEAD'", true),
        ("resource.data.blob.size() == 2", true),
        ("duration.time(9223372036854775807, 0, 0, 0) is duration", false),
    ]

    static let hashing: [(String, Bool)] = [
        (
            "hashing.sha256('abc').toHexString() == 'BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD'",
            true
        ),
        (
            "hashing.sha256('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq').toHexString() == '248D6A61D20638B8E5C026930C3E6039A33CE45964FF2167F6ECEDD419DB06C1'",
            true
        ),
        ("hashing.md5('').toHexString() == 'D41D8CD98F00B204E9800998ECF8427E'", true),
        ("hashing.md5('abc').toHexString() == '900150983CD24FB0D6963F7D28E17F72'", true),
        ("hashing.crc32('123456789').toHexString() == 'CBF43926'", true),
        ("hashing.crc32c('123456789').toHexString() == 'E3069283'", true),
        ("hashing.md5(resource.data.blob) == hashing.md5('abc')", false),
        ("hashing.sha256('a') == hashing.sha256('a')", true), ("hashing.sha256(1) is bytes", false),
    ]

    @Test("hashing: crc32, crc32c, md5 and sha256 of strings and bytes", arguments: hashing)
    func hashingFunctions(_ condition: String, _ expected: Bool) throws {
        #expect(try Fixture.holds(condition) == expected)
    }

    @Test("math, latlng and bytes", arguments: math)
    func mathFunctions(_ condition: String, _ expected: Bool) throws {
        #expect(try Fixture.holds(condition) == expected)
    }

    static let requestFields: [(String, Bool)] = [
        ("request.auth.uid == 'alice'", true), ("request.auth.token.email == 'alice@example.com'", true),
        ("request.auth.token.admin == true", true), ("request.method == 'get'", true),
        ("request.path == /databases/(default)/documents/users/alice", true),
        ("request.path[4] == 'alice'", true), ("resource.id == 'alice'", true),
        ("resource.__name__ == /databases/$(database)/documents/users/$(request.auth.uid)", true),
        ("resource['__name__'] == /databases/$(database)/documents/users/alice", true),
        ("resource.data.owner == request.auth.uid", true), ("request.resource == null", true),
        ("document == 'users/alice'", false), ("document == /users/alice", true),
        ("debug(1) == 1", true), ("unknownVariable == 1", false), ("unknownFunction(1)", false),
    ]

    @Test("request and resource", arguments: requestFields)
    func requestAndResource(_ condition: String, _ expected: Bool) throws {
        #expect(try Fixture.holds(condition) == expected)
    }
}
