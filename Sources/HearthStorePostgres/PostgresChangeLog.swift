import HearthCore
internal import HearthPostgres
import HearthStore

/// The `changes` table, numbered by the `change_sequence` SEQUENCE (PostgresCommitOrder).
enum PostgresChangeLog {
    /// Appends a commit's changes, in one statement per hundred.
    static func append(_ records: [ChangeRecord], in db: PostgresConnection) throws {
        for start in stride(from: 0, to: records.count, by: 100) {
            var parameters: [PostgresParameter] = []
            var tuples: [String] = []
            for record in records[start..<min(start + 100, records.count)] {
                let base = parameters.count
                parameters += [
                    .int(record.sequence), .int(record.commitTime.microseconds), .text(record.path.description),
                ]
                parameters += image(record.before) + image(record.after)
                tuples.append(
                    "(" + (1...9).map { "$\(base + $0)\(Self.casts[$0 - 1])" }.joined(separator: ", ") + ")")
            }
            try db.query(
                """
                INSERT INTO changes(sequence, commit_time, path, before_fields, before_create_time, before_update_time,
                                    after_fields, after_create_time, after_update_time)
                VALUES
                """ + " " + tuples.joined(separator: ", "), parameters)
        }
    }

    /// The casts of a change row's nine values (in a multi-row VALUES list a NULL would otherwise be text).
    private static let casts = [
        "::int8", "::int8", "::text", "::bytea", "::int8", "::int8", "::bytea", "::int8", "::int8",
    ]

    /// A document's fields and times as bound parameters; three NULLs for none.
    private static func image(_ document: StoredDocument?) -> [PostgresParameter] {
        guard let document else { return [.null, .null, .null] }
        return [
            .binary(document.fieldsJSON), .int(document.createTime.microseconds),
            .int(document.updateTime.microseconds),
        ]
    }

    /// Entries after `sequence` and at most `through`, oldest first.
    static func records(
        after sequence: Int64, through: Int64, limit: Int, in db: PostgresConnection
    ) throws -> [ChangeRecord] {
        let rows = try db.query(
            """
            SELECT sequence, commit_time, path, before_fields, before_create_time, before_update_time,
                   after_fields, after_create_time, after_update_time
            FROM changes WHERE sequence > $1 AND sequence <= $3 ORDER BY sequence LIMIT $2
            """, [.int(sequence), .int(Int64(max(0, limit))), .int(through)], binaryResults: true)
        return try rows.rows.map { row in
            let path = ResourcePath(segments: (try row.string(2) ?? "").split(separator: "/").map(String.init))
            func document(_ offset: Int) throws -> StoredDocument? {
                guard let fields = try row.bytes(offset) else { return nil }
                return StoredDocument(
                    path: path, fieldsJSON: fields, createTime: Timestamp(microseconds: try row.int(offset + 1) ?? 0),
                    updateTime: Timestamp(microseconds: try row.int(offset + 2) ?? 0))
            }
            return ChangeRecord(
                sequence: try row.int(0) ?? 0, commitTime: Timestamp(microseconds: try row.int(1) ?? 0), path: path,
                before: try document(3), after: try document(6))
        }
    }
}
