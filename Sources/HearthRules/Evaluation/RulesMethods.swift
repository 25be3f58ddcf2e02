internal import HearthCore

/// Methods on rules values: strings, lists, sets, maps, map diffs, timestamps, durations, paths, latlngs, bytes,
/// and the namespaced globals (`math.abs(x)`).
enum RulesMethods {
    static func fail(_ message: String, _ location: SourceLocation) -> EvaluationError {
        EvaluationError(message: message, location: location)
    }

    static func call(
        _ receiver: RulesValue, _ name: String, _ args: [RulesValue], _ location: SourceLocation,
        session: FirestoreSession
    ) throws(EvaluationError) -> RulesValue {
        if case .constrained(let constraint) = receiver {
            return try QueryProof.method(constraint, name, args, location)
        }
        if receiver.isPartial || args.contains(where: \.isPartial) { throw QueryProof.unproven(location) }
        // A lazy map answers its size and keys without converting every value (`data.keys().hasAll(…)` is common).
        if case .object(let object) = receiver, args.isEmpty, name == "keys" || name == "size" {
            let names = object.memberNames
            return name == "size" ? .int(Int64(names.count)) : .list(names.sorted().map(RulesValue.string))
        }
        let receiver = receiver.materialized
        let args = args.contains(where: \.isObject) ? args.map(\.materialized) : args
        func none() throws(EvaluationError) {
            guard args.isEmpty else { throw fail("\(receiver.typeName).\(name)() takes no arguments", location) }
        }
        func elements(_ i: Int) throws(EvaluationError) -> [RulesValue] {
            guard i < args.count else { throw fail("\(name)() needs an argument", location) }
            switch args[i] {
            case .list(let e), .set(let e): return e
            default: throw fail("\(name)() takes a list or set, got \(args[i].typeName)", location)
            }
        }
        func string(_ i: Int) throws(EvaluationError) -> String {
            guard i < args.count, case .string(let s) = args[i] else {
                throw fail("\(name)() takes a string argument", location)
            }
            return s
        }
        func contains(_ list: [RulesValue], _ value: RulesValue) -> Bool {
            list.contains { RulesValue.equal($0, value) }
        }

        switch (receiver, name) {
        case (.namespace(let namespace), _):
            return try RulesFunctions.namespaced(namespace, name, args, location)

        // strings
        case (.string(let s), "size"):
            try none()
            return .int(Int64(s.count))
        case (.string(let s), "lower"):
            try none()
            return .string(s.lowercased())
        case (.string(let s), "upper"):
            try none()
            return .string(s.uppercased())
        case (.string(let s), "trim"):
            try none()
            return .string(String(s.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()))
        case (.string(let s), "matches"):
            return .bool(try RulesRegex.fullMatch(s, try string(0), location, session.limits.maximumRegexInput))
        case (.string(let s), "split"):
            let parts = try RulesRegex.split(s, try string(0), location, session.limits.maximumRegexInput)
            return .list(parts.map(RulesValue.string))
        case (.string(let s), "replace"):
            return .string(
                try RulesRegex.replace(s, try string(0), try string(1), location, session.limits.maximumRegexInput))
        case (.string(let s), "toUtf8"):
            try none()
            return .bytes(Array(s.utf8))

        // lists
        case (.list(let list), "size"), (.set(let list), "size"):
            try none()
            return .int(Int64(list.count))
        case (.list(let list), "hasAll"), (.set(let list), "hasAll"):
            return .bool(try elements(0).allSatisfy { contains(list, $0) })
        case (.list(let list), "hasAny"), (.set(let list), "hasAny"):
            return .bool(try elements(0).contains { contains(list, $0) })
        case (.list(let list), "hasOnly"), (.set(let list), "hasOnly"):
            let allowed = try elements(0)
            return .bool(list.allSatisfy { contains(allowed, $0) })
        case (.list(let list), "concat"):
            return .list(list + (try elements(0)))
        case (.list(let list), "join"):
            let separator = try string(0)
            var parts: [String] = []
            for element in list {
                guard case .string(let s) = element else { throw fail("join() needs a list of strings", location) }
                parts.append(s)
            }
            return .string(parts.joined(separator: separator))
        case (.list(let list), "removeAll"):
            let removed = try elements(0)
            return .list(list.filter { !contains(removed, $0) })
        case (.list(let list), "toSet"):
            try none()
            return RulesValue.makeSet(list)
        case (.set(let set), "union"):
            return RulesValue.makeSet(set + (try elements(0)))
        case (.set(let set), "intersection"):
            let other = try elements(0)
            return .set(set.filter { contains(other, $0) })
        case (.set(let set), "difference"):
            let other = try elements(0)
            return .set(set.filter { !contains(other, $0) })

        // maps
        case (.map(let map), "size"):
            try none()
            return .int(Int64(map.count))
        case (.map(let map), "keys"):
            try none()
            return .list(map.keys.sorted().map(RulesValue.string))
        case (.map(let map), "values"):
            try none()
            return .list(map.keys.sorted().map { map[$0]! })
        case (.map(let map), "get"):
            guard args.count == 2 else { throw fail("map.get() takes a key and a default", location) }
            switch args[0] {
            case .string(let key): return map[key] ?? args[1]
            case .list(let keys):
                // A list of keys walks nested maps: `data.get(['a', 'b'], 0)`.
                var current = RulesValue.map(map)
                for key in keys {
                    guard case .string(let k) = key, case .map(let m) = current, let next = m[k] else { return args[1] }
                    current = next
                }
                return current
            default: throw fail("map.get() takes a string or list key", location)
            }
        case (.map(let map), "diff"):
            guard args.count == 1, case .map(let other) = args[0] else {
                throw fail("map.diff() takes a map", location)
            }
            return .mapDiff(old: map, new: other)
        case (.mapDiff(let old, let new), _):
            try none()
            var keys: [String]
            switch name {
            case "addedKeys": keys = new.keys.filter { old[$0] == nil }
            case "removedKeys": keys = old.keys.filter { new[$0] == nil }
            case "changedKeys":
                keys = old.keys.filter { key in new[key].map { !RulesValue.equal($0, old[key]!) } ?? false }
            case "unchangedKeys":
                keys = old.keys.filter { key in new[key].map { RulesValue.equal($0, old[key]!) } ?? false }
            case "affectedKeys":
                keys = Set(old.keys).union(new.keys).filter { key in
                    guard let a = old[key], let b = new[key] else { return true }
                    return !RulesValue.equal(a, b)
                }
            default: throw fail("map_diff has no method '\(name)'", location)
            }
            keys.sort()
            return .set(keys.map(RulesValue.string))

        // timestamps and durations
        case (.timestamp(let t), _):
            try none()
            return try timestampMethod(t, name, location)
        case (.duration(let d), "seconds"):
            try none()
            return .int(d / 1_000_000_000)
        case (.duration(let d), "nanos"):
            try none()
            return .int(d % 1_000_000_000)
        case (.duration(let d), "toMillis"):
            try none()
            return .int(d / 1_000_000)

        // paths, latlngs, bytes
        case (.path(let p), "size"):
            try none()
            return .int(Int64(p.count))
        case (.path(let p), "bind"):
            guard args.count == 1, case .map(let bindings) = args[0] else {
                throw fail("path.bind() takes a map", location)
            }
            return .path(
                p.map { segment in
                    guard segment.hasPrefix("$("), segment.hasSuffix(")"),
                        case .string(let value) = bindings[String(segment.dropFirst(2).dropLast())]
                    else { return segment }
                    return value
                })
        case (.latlng(let latitude, _), "latitude"):
            try none()
            return .float(latitude)
        case (.latlng(_, let longitude), "longitude"):
            try none()
            return .float(longitude)
        case (.latlng(let lat1, let lng1), "distance"):
            guard args.count == 1, case .latlng(let lat2, let lng2) = args[0] else {
                throw fail("latlng.distance() takes a latlng", location)
            }
            return .float(RulesGeo.distance(lat1, lng1, lat2, lng2))
        case (.bytes(let b), "size"):
            try none()
            return .int(Int64(b.count))
        case (.bytes(let b), "toBase64"):
            try none()
            return .string(Base64URL.encodeStandard(b))
        case (.bytes(let b), "toHexString"):
            try none()
            let digits = Array("0123456789ABCDEF")
            return .string(String(b.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }))
        default:
            throw fail("\(receiver.typeName) has no method '\(name)'", location)
        }
    }

    static func timestampMethod(
        _ t: Timestamp, _ name: String, _ location: SourceLocation
    ) throws(EvaluationError)
        -> RulesValue
    {
        let civil = Timestamp.civil(fromSeconds: t.seconds)
        switch name {
        case "year": return .int(civil.year)
        case "month": return .int(civil.month)
        case "day": return .int(civil.day)
        case "hours": return .int(civil.secondsOfDay / 3600)
        case "minutes": return .int(civil.secondsOfDay / 60 % 60)
        case "seconds": return .int(civil.secondsOfDay % 60)
        case "nanos": return .int(Int64(t.nanos))
        case "toMillis": return .int(t.seconds * 1000 + Int64(t.nanos / 1_000_000))
        case "dayOfWeek":
            // 1970-01-01 was a Thursday; Firestore numbers Monday 1 … Sunday 7.
            let days = (t.seconds - civil.secondsOfDay) / 86_400
            return .int(((days + 3) % 7 + 7) % 7 + 1)
        case "dayOfYear":
            let start = Timestamp.days(fromCivilYear: civil.year, month: 1, day: 1)
            let days = (t.seconds - civil.secondsOfDay) / 86_400
            return .int(days - start + 1)
        case "date": return .timestamp(Timestamp(seconds: t.seconds - civil.secondsOfDay, nanos: 0))
        case "time": return .duration(civil.secondsOfDay * 1_000_000_000 + Int64(t.nanos))
        default: throw fail("timestamp has no method '\(name)'", location)
        }
    }
}
