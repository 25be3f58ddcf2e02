import HearthCore
import HearthStore

/// One change record with its documents decoded on first use, so a write no query looks at is never decoded.
final class DecodedChange {
    let record: ChangeRecord
    private var decodedBefore: MatchedDocument??
    private var decodedAfter: MatchedDocument??

    init(_ record: ChangeRecord) {
        self.record = record
    }

    var path: ResourcePath { record.path }

    /// The document before the change, when it existed and is readable.
    var before: MatchedDocument? {
        if let decodedBefore { return decodedBefore }
        let value = record.before.flatMap(MatchedDocument.init)
        decodedBefore = .some(value)
        return value
    }

    /// The document after the change, when it exists and is readable.
    var after: MatchedDocument? {
        if let decodedAfter { return decodedAfter }
        let value = record.after.flatMap(MatchedDocument.init)
        decodedAfter = .some(value)
        return value
    }
}
