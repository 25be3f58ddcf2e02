import HearthCore
import Synchronization

extension ListenResponse {
    /// Appends the Firestore `ListenResponse` JSON object (one line, no newline inside).
    ///
    /// Enum values are always written (`"targetChangeType":"NO_CHANGE"` too), empty ID lists are left out as
    /// proto3 JSON does, and a `cause` is a google.rpc.Status (`code`, `message`, `status`).
    public func appendFirestoreJSON(to out: inout [UInt8]) {
        switch self {
        case .targetChange(let change) where change.isMarker:
            // Every affected session gets the same marker after a change: encode it once.
            if let cached = Self.lastMarker.withLock({ $0 }), cached.change == change {
                out.append(contentsOf: cached.bytes)
            } else {
                var bytes: [UInt8] = []
                Self.appendTargetChange(change, to: &bytes)
                Self.lastMarker.withLock { $0 = (change, bytes) }
                out.append(contentsOf: bytes)
            }
        case .targetChange(let change):
            Self.appendTargetChange(change, to: &out)
        case .documentChange(let document, let targetIDs):
            out.append(contentsOf: #"{"documentChange":{"document":"#.utf8)
            out.append(contentsOf: document.json)
            Self.appendIDs("targetIds", targetIDs, to: &out)
            out.append(contentsOf: "}}".utf8)
        case .documentDelete(let name, let removed, let readTime):
            Self.appendRemoval("documentDelete", name, removed, readTime, to: &out)
        case .documentRemove(let name, let removed, let readTime):
            Self.appendRemoval("documentRemove", name, removed, readTime, to: &out)
        case .filter(let targetID, let count):
            out.append(contentsOf: #"{"filter":{"targetId":"#.utf8)
            JSONWriter.appendInteger(Int64(targetID), into: &out)
            out.append(contentsOf: #","count":"#.utf8)
            JSONWriter.appendInteger(Int64(count), into: &out)
            out.append(contentsOf: "}}".utf8)
        }
    }

    /// The last consistency marker encoded, and its bytes.
    private static let lastMarker = Mutex<(change: TargetChange, bytes: [UInt8])?>(nil)

    private static func appendTargetChange(_ change: TargetChange, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"targetChange":{"targetChangeType":""#.utf8)
        out.append(contentsOf: change.kind.rawValue.utf8)
        out.append(UInt8(ascii: "\""))
        Self.appendIDs("targetIds", change.targetIDs, to: &out)
        if let cause = change.cause {
            out.append(contentsOf: #","cause":{"code":"#.utf8)
            JSONWriter.appendInteger(Int64(cause.code.rawValue), into: &out)
            out.append(contentsOf: #","message":"#.utf8)
            JSONWriter.appendString(cause.message, into: &out)
            out.append(contentsOf: #","status":"#.utf8)
            JSONWriter.appendString(cause.code.name, into: &out)
            out.append(UInt8(ascii: "}"))
        }
        if let token = change.resumeToken {
            out.append(contentsOf: #","resumeToken":""#.utf8)
            token.appendBase64(to: &out)
            out.append(UInt8(ascii: "\""))
        }
        if let time = change.readTime { Self.appendTime("readTime", time, to: &out) }
        out.append(contentsOf: "}}".utf8)
    }

    /// The JSON object as bytes.
    public var firestoreJSON: [UInt8] {
        var out: [UInt8] = []
        appendFirestoreJSON(to: &out)
        return out
    }

    private static func appendRemoval(
        _ member: String, _ name: String, _ removed: [Int32], _ readTime: Timestamp, to out: inout [UInt8]
    ) {
        out.append(contentsOf: "{\"\(member)\":{\"document\":".utf8)
        JSONWriter.appendString(name, into: &out)
        appendIDs("removedTargetIds", removed, to: &out)
        appendTime("readTime", readTime, to: &out)
        out.append(contentsOf: "}}".utf8)
    }

    private static func appendIDs(_ member: String, _ ids: [Int32], to out: inout [UInt8]) {
        guard !ids.isEmpty else { return }
        out.append(contentsOf: ",\"\(member)\":[".utf8)
        for (index, id) in ids.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.appendInteger(Int64(id), into: &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    private static func appendTime(_ member: String, _ time: Timestamp, to out: inout [UInt8]) {
        out.append(contentsOf: ",\"\(member)\":\"".utf8)
        time.appendRFC3339(to: &out)
        out.append(UInt8(ascii: "\""))
    }
}
