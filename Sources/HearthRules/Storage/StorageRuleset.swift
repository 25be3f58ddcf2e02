internal import HearthCore

/// Compiled storage rules (`service firebase.storage { match /b/{bucket}/o { … } }`): Firestore's rules language on
/// the same parser and evaluator, with storage's `request` and `resource` and the cross-service `firestore.get()` and
/// `firestore.exists()`.
public final class StorageRuleset: Sendable {
    private let compiled: FirestoreRuleset

    /// The source text the rules were compiled from.
    public var source: String { compiled.source }

    /// Compiles rules source; throws the first syntax error with its line and column.
    public init(source: String) throws(RulesSyntaxError) {
        compiled = try FirestoreRuleset(source: source, service: "firebase.storage")
    }

    /// Rules that deny every client request (the default outside `--dev` without `--storage-rules`).
    public static let denyAll = try! StorageRuleset(
        source: "rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o {\n  }\n}\n")

    /// Rules that allow everything (`--dev` without `--storage-rules`).
    public static let allowAll = try! StorageRuleset(
        source:
            "rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o {\n    match /{allPaths=**} {\n      allow read, write: if true;\n    }\n  }\n}\n"
    )

    /// Judges one request; `reader` serves `firestore.get()` / `firestore.exists()` (document paths
    /// `/databases/(default)/documents/…`).
    public func authorize(
        _ request: StorageRequest, reader: any RulesDocumentReader = EmptyDocumentReader(),
        limits: RulesLimits = .standard
    ) -> RulesDecision {
        let session = FirestoreSession(reader: reader, limits: limits, isBatch: false)
        session.beginDocument()
        var segments = ["b", request.bucket, "o"]
        segments += request.name.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let path = segments.map(PathMatcher.Segment.id)
        var fields: [String: RulesValue] = [
            "method": .string(request.method.rawValue), "path": .path(segments), "time": .timestamp(request.time),
            "resource": request.incoming?.rulesValue ?? .null,
        ]
        if let auth = request.auth, !auth.isAdmin || auth.uid != nil {
            fields["auth"] = .object(AuthObject(auth))
        } else {
            fields["auth"] = .null
        }
        return compiled.judge(
            path, method: request.method, session: session,
            globals: [
                ("request", .map(fields)), ("resource", request.existing?.rulesValue ?? .null),
                ("firestore", .namespace("firestore")),
            ])
    }
}
