import HearthCore
import HearthHTTP
import HearthRules
import HearthStore

/// Security-rules checks for the document API: each handler makes one call here before touching data, and a denial
/// is `PERMISSION_DENIED` with nothing applied. Reads are judged before the store reads; writes carry their check
/// into the store's commit (``commitJudge(_:database:)``), which runs it inside the commit's transaction.
struct DocumentAccess: Sendable {
    let engine: RulesEngine
    let authenticator: RequestAuthenticator
    let store: any DocumentStore
    /// The database these checks are for: its own deployed rules, else the project's.
    var databaseID = DatabaseName.defaultDatabase
    /// What `request.time` reads.
    var clock: WallClock = .system

    /// The document rules in force for this database, read once per check.
    var rules: FirestoreRuleset { engine.firestoreRules(for: databaseID) }

    static let denied = HearthError(.permissionDenied, "Missing or insufficient permissions.")

    /// Passes when `decision` allows; throws the read error that stopped the rules, or else the denial.
    static func require(_ decision: RulesDecision) throws(HearthError) {
        if let failure = decision.failure { throw failure }
        guard decision.isAllowed else { throw denied }
    }

    /// The caller, or `nil` for an administrator (rules do not apply) and under allow-all rules (`--dev` without a
    /// rules file), where checking would only cost the extra document reads.
    private func caller(_ request: HTTPRequest) throws(HearthError) -> AuthContext?? {
        if rules === FirestoreRuleset.allowAll { return .none }
        let auth = try authenticator.authenticate(request)
        if auth?.isAdmin == true { return .none }
        return .some(auth)
    }

    /// Who holds a transaction the request begins, for the per-caller limits: the signed-in user, else the
    /// client's address; `nil` for the administrator, who has none.
    func transactionCaller(_ request: HTTPRequest) throws(HearthError) -> String? {
        let auth = try authenticator.authenticate(request)
        if auth?.isAdmin == true { return nil }
        if let uid = auth?.uid { return "user \(uid)" }
        return "address \(request.remoteAddress)"
    }

    /// `:listCollectionIds`, which Firestore serves to privileged callers only (rules cannot grant it): the admin
    /// credential, or anyone in development mode (as the emulator). Everyone else is `PERMISSION_DENIED`, whatever
    /// the rules: the names of another user's subcollections are not theirs to list.
    func authorizeListCollectionIDs(_ request: HTTPRequest, devMode: Bool) throws(HearthError) {
        if devMode { return }
        guard try authenticator.authenticate(request)?.isAdmin == true else { throw Self.denied }
    }

    /// `get` on each document (GET of a document, `:batchGet`).
    func authorizeGet(_ request: HTTPRequest, _ paths: [ResourcePath], database: DatabaseName) throws(HearthError) {
        guard case .some(let auth) = try caller(request) else { return }
        try authorizeGet(auth: auth, paths, database: database)
    }

    /// `get` on each document for a caller that is not an administrator.
    func authorizeGet(auth: AuthContext?, _ paths: [ResourcePath], database: DatabaseName) throws(HearthError) {
        guard !paths.isEmpty else { return }
        let rules = self.rules
        let documents = try store.documents(at: paths, transaction: nil)
        let reader = StoreDocumentReader(store: store)
        let now = clock.now()
        for (path, document) in zip(paths, documents) {
            let request = FirestoreRequest(
                method: .get, path: path, database: database.database, auth: auth, time: now,
                existingData: try document?.fields(), isBatch: paths.count > 1)
            try Self.require(rules.authorize(request, reader: reader))
        }
    }

    /// `list` judged from the query, not its results: each OR branch's constraints (pinned values, ranges, exclusions,
    /// array memberships) stand in for `resource.data`, and a rule they do not prove fails (rules are not filters).
    func authorizeQuery(_ request: HTTPRequest, _ query: StructuredQuery, database: DatabaseName) throws(HearthError) {
        guard case .some(let auth) = try caller(request) else { return }
        try authorizeQuery(auth: auth, query, database: database)
    }

    /// A query for a caller that is not an administrator.
    func authorizeQuery(auth: AuthContext?, _ query: StructuredQuery, database: DatabaseName) throws(HearthError) {
        // Rules match collections by ID, and a kindless query names none: the client SDKs cannot send one, and
        // only administrators (the admin clients' recursive deletes) may run it.
        if query.isKindless {
            throw HearthError(
                .permissionDenied,
                "Kindless queries (allDescendants without a collectionId) are available to administrators only.")
        }
        let rules = self.rules
        let collection =
            query.allDescendants
            ? ResourcePath(segments: [query.collectionID]) : query.parent.appending(query.collectionID)
        let info = RulesQueryInfo(
            limit: query.limit, offset: query.offset == 0 ? nil : query.offset,
            orderBy: query.orderBy.map { $0.field.description })
        let reader = StoreDocumentReader(store: store)
        for constraints in RulesQueryConstraints.branches(of: query.filter) {
            let rulesRequest = FirestoreRequest(
                method: .list, path: collection, database: database.database, auth: auth, time: clock.now(),
                query: info, queryConstraints: constraints, isCollectionGroup: query.allDescendants)
            try Self.require(rules.authorize(rulesRequest, reader: reader))
        }
    }

    /// One document a query listener is about to deliver, judged by the list rule with the document's own data.
    func authorizeDelivery(
        auth: AuthContext?, _ document: StoredDocument, query: StructuredQuery, database: DatabaseName
    )
        throws(HearthError)
    {
        let collection = query.allDescendants ? ResourcePath(segments: [query.collectionID]) : document.path.parent
        let rulesRequest = FirestoreRequest(
            method: .list, path: collection, database: database.database, auth: auth, time: clock.now(),
            existingData: try document.fields(), query: RulesQueryInfo(limit: query.limit),
            isCollectionGroup: query.allDescendants)
        let reader = StoreDocumentReader(store: store)
        try Self.require(rules.authorize(rulesRequest, reader: reader))
    }

    /// The check the writes of one request or commit by this caller carry into the store (``CommitJudge``); `nil`
    /// when rules do not apply. The store runs it inside the commit's transaction, so `resource`, `get()` and
    /// `getAfter()` see exactly the state the commit applies to; the writes are judged together (one read budget,
    /// `getAfter()` sees the whole commit), `request.time` is the commit time, and one denied write denies all.
    func commitJudge(_ request: HTTPRequest, database: DatabaseName) throws(HearthError) -> CommitJudge? {
        guard case .some(let auth) = try caller(request) else { return nil }
        let rules = self.rules
        let databaseID = database.database
        return { proposal throws(HearthError) in
            let isBatch = proposal.changes.count > 1
            let requests = proposal.changes.map { change in
                let method: FirestoreMethod
                if case .delete = change.write.operation {
                    method = .delete
                } else {
                    method = change.before == nil ? .create : .update
                }
                return FirestoreRequest(
                    method: method, path: change.write.path, database: databaseID, auth: auth,
                    // Firestore's request.time equals the REQUEST_TIME the commit writes (millisecond precision).
                    time: proposal.commitTime.truncatedToMilliseconds, existingData: change.before?.fields,
                    newData: method == .delete ? nil : change.after?.fields ?? [:], isBatch: isBatch)
            }
            let reader = ProposalDocumentReader(proposal: proposal)
            if requests.count == 1 {
                try Self.require(rules.authorize(requests[0], reader: reader))
            } else {
                let decisions = rules.authorize(batch: requests, reader: reader)
                for decision in decisions { try Self.require(decision) }
                guard decisions.count == requests.count else { throw Self.denied }
            }
        }
    }
}

/// Serves `get()`/`exists()`/`getAfter()`/`existsAfter()` for a read request from the store (nothing is written, so
/// before and after are the same). A store error stops the rules (``RulesDocumentReader``).
struct StoreDocumentReader: RulesDocumentReader {
    let store: any DocumentReader

    func document(at path: ResourcePath) throws(HearthError) -> [String: Value]? {
        guard let document = try store.documents(at: [path], transaction: nil).first, let document else { return nil }
        return try document.fields()
    }

    func documentAfter(at path: ResourcePath) throws(HearthError) -> [String: Value]? { try document(at: path) }
}

/// Serves the rules' reads for a commit from its proposal, in the commit's transaction.
struct ProposalDocumentReader: RulesDocumentReader {
    let proposal: CommitProposal

    func document(at path: ResourcePath) throws(HearthError) -> [String: Value]? {
        try proposal.document(at: path)?.fields
    }

    func documentAfter(at path: ResourcePath) throws(HearthError) -> [String: Value]? {
        try proposal.documentAfter(at: path)?.fields
    }
}
