import Foundation
import HearthCore

/// One queued tree write (`setValue`, `updateChildValues`, `removeValue`) as it is stored, sent and applied locally.
struct TreeLocalWrite: Sendable, Equatable {
    /// The queue position (the SQLite row ID).
    var id: Int64
    /// The idempotency key sent as `X-Hearth-Write-Id`, the same on every resend.
    var writeID: String
    /// `PUT`, `PATCH` or `DELETE`.
    var method: String
    var path: [String]
    /// The request body (`.null` for `DELETE`).
    var body: JSONValue
    /// When the app made the write, in milliseconds: the local estimate of `ServerValue.timestamp()`.
    var localMillis: Int64

    /// The write as whole values at absolute paths: one for `PUT` and `DELETE`, one per key for `PATCH`.
    var sets: [(path: [String], value: JSONValue)] {
        switch method {
        case "PATCH":
            return (body.objectValue ?? [:]).sorted { $0.key < $1.key }.map { entry in
                (path + entry.key.split(separator: "/").map(String.init), entry.value)
            }
        case "DELETE": return [(path, .null)]
        default: return [(path, body)]
        }
    }

    /// What the server's answer says it wrote, as whole values at absolute paths (server values filled in): `PUT`
    /// echoes the value, `PATCH` the updated paths, `DELETE` `null`.
    func acknowledgedSets(answer: JSONValue) -> [(path: [String], value: JSONValue)] {
        switch method {
        case "PATCH":
            guard let members = answer.objectValue else { return [] }
            return members.map { (path + $0.key.split(separator: "/").map(String.init), TreeLocalView.plain($0.value)) }
        case "DELETE": return [(path, .null)]
        default: return [(path, TreeLocalView.plain(answer))]
        }
    }
}

/// A location's value as the app sees it: the server's (or cached) value with the queued writes applied in order,
/// server values estimated locally as Firebase does (`timestamp` is the time of the write, `increment` adds to the
/// value seen so far).
enum TreeLocalView {
    /// `base` (the value at `location`) with `writes` applied.
    static func apply(_ writes: [TreeLocalWrite], to base: JSONValue, at location: [String]) -> JSONValue {
        var tree = base
        for write in writes {
            for (path, value) in write.sets where related(path, location) {
                let resolved = resolve(value, at: path, millis: write.localMillis) { site in
                    guard site.starts(with: location) else { return nil }
                    return descend(tree, site.dropFirst(location.count))
                }
                tree = set(tree, at: location, path: path, to: plain(resolved))
            }
        }
        return tree
    }

    /// Whether one path contains the other (a write there changes what is seen at the other).
    static func related(_ a: [String], _ b: [String]) -> Bool { a.starts(with: b) || b.starts(with: a) }

    /// `tree`, the value at `location`, after `value` is written at the absolute `path`.
    static func set(_ tree: JSONValue, at location: [String], path: [String], to value: JSONValue) -> JSONValue {
        if path.starts(with: location) {
            return TreeApplier.set(tree, at: path.dropFirst(location.count), to: value)
        }
        if location.starts(with: path) { return descend(value, location.dropFirst(path.count)) ?? .null }
        return tree
    }

    /// The value below `tree` at a relative path, or `nil` when absent.
    static func descend(_ tree: JSONValue, _ path: ArraySlice<String>) -> JSONValue? {
        var node: JSONValue? = tree
        for key in path { node = node?[key] }
        return node == .null ? nil : node
    }

    /// A written value as it reads back: `.priority` dropped, `.value` unwrapped, null members and empty objects
    /// removed.
    static func plain(_ value: JSONValue) -> JSONValue {
        guard case .object(var members) = value else { return value }
        if let inner = members[".value"] { return plain(inner) }
        members[".priority"] = nil
        var result: [String: JSONValue] = [:]
        for (key, member) in members {
            let child = plain(member)
            if child != .null { result[key] = child }
        }
        return result.isEmpty ? .null : .object(result)
    }

    /// Replaces `{".sv": …}` placeholders: `timestamp` by `millis`, `increment` by the number at its path plus the
    /// delta (`current` answers the value there so far).
    static func resolve(
        _ value: JSONValue, at path: [String], millis: Int64, current: ([String]) -> JSONValue?
    ) -> JSONValue {
        guard case .object(let members) = value else { return value }
        if let placeholder = members[".sv"] {
            if placeholder.stringValue == "timestamp" { return .integer(millis) }
            guard let delta = placeholder["increment"] else { return .null }
            switch (current(path), delta) {
            case (.integer(let a)?, .integer(let b)):
                let (sum, overflow) = a.addingReportingOverflow(b)
                return overflow ? .double(Double(a) + Double(b)) : .integer(sum)
            case (let base?, _) where base.doubleValue != nil:
                return .double((base.doubleValue ?? 0) + (delta.doubleValue ?? 0))
            default:
                return delta
            }
        }
        var resolved: [String: JSONValue] = [:]
        for (key, member) in members {
            resolved[key] = resolve(member, at: path + [key], millis: millis, current: current)
        }
        return .object(resolved)
    }
}
