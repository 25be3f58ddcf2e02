package import HearthCore

/// How one AND-group of a query is read: which index, which key ranges, which direction.
package enum ScanPlan: Sendable, Equatable {
    /// One collection's documents by ID, within inclusive ID bounds.
    case names(descending: Bool, bounds: ClosedIDRange)
    /// Every document with the collection ID below the parent, by full name (collection-group scope).
    case groupNames(descending: Bool)
    /// A single-field index in key order, then ID.
    case field(name: String, kind: IndexEntry.Kind, ranges: RangeSet, descending: Bool)
    /// Equality index streams joined by document ID (zig-zag merge).
    case ids(IDPlan, descending: Bool)
    /// A declared composite index in key order, then name (in the index's name direction).
    case composite(
        indexID: Int64, scope: String, prefix: [UInt8], ranges: RangeSet, descending: Bool, definition: IndexDefinition)
    /// Named documents (`__name__ ==` or `in`), looked up directly.
    case documents([ResourcePath])
    /// Development mode without the composite index the query needs: every document of the collection (or the
    /// group) by name, each checked by the matcher, the matches sorted afterwards — the emulator's way.
    case unindexed(needing: IndexDefinition)

    /// Whether the scan yields candidates in the query's order (all but the unindexed one do).
    package var isInQueryOrder: Bool {
        if case .unindexed = self { return false }
        return true
    }
}

/// Inclusive bounds on document IDs; `nil` is open.
package struct ClosedIDRange: Sendable, Equatable {
    package var lower: String?
    package var upper: String?

    package init(lower: String? = nil, upper: String? = nil) {
        self.lower = lower
        self.upper = upper
    }
}

/// A stream of document IDs in ID order, built from single-field equality index entries.
package indirect enum IDPlan: Sendable, Equatable {
    /// The documents whose field has one key (`==`, `array-contains`, `IS_NULL`, `IS_NAN`).
    case point(field: String, kind: IndexEntry.Kind, key: [UInt8])
    /// Any of several streams (`in`, `array-contains-any`).
    case union([IDPlan])
    /// Every stream at once (several equalities).
    case intersection([IDPlan])
}

/// The plan of one AND-group.
package struct ConjunctPlan: Sendable, Equatable {
    package var scan: ScanPlan
    /// Whether every index entry the scan yields is a result (no residual filter, no cursor): counts can then be
    /// answered from the index alone.
    package var exact: Bool
}

extension ScanPlan: CustomStringConvertible {
    package var description: String {
        switch self {
        case .names(let descending, let bounds):
            return
                "collection scan by ID\(bounds == ClosedIDRange() ? "" : " within a name range")\(descending ? " (descending)" : "")"
        case .groupNames(let descending): return "collection-group scan by name\(descending ? " (descending)" : "")"
        case .field(let name, let kind, let ranges, let descending):
            return
                "single-field index \(name)\(kind == .arrayElement ? " (array-contains)" : "") over \(ranges.ranges.count) range(s)\(descending ? " (descending)" : "")"
        case .ids(let plan, let descending): return "zig-zag merge of \(plan)\(descending ? " (descending)" : "")"
        case .composite(let id, _, _, let ranges, let descending, _):
            return "composite index #\(id) over \(ranges.ranges.count) range(s)\(descending ? " (descending)" : "")"
        case .documents(let paths): return "direct lookup of \(paths.count) document(s)"
        case .unindexed(let definition):
            return "full scan without an index (development mode), learning the index \(definition)"
        }
    }
}

extension IDPlan: CustomStringConvertible {
    package var description: String {
        switch self {
        case .point(let field, let kind, _): return "\(field)\(kind == .arrayElement ? "[contains]" : "")"
        case .union(let plans): return "any(\(plans.map(\.description).joined(separator: ", ")))"
        case .intersection(let plans): return "all(\(plans.map(\.description).joined(separator: ", ")))"
        }
    }
}
