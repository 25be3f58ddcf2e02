import HearthCore
import HearthListen
import HearthRules
import HearthStore

/// Security rules for document listeners: a target is judged when added (documents by `get`, queries by `list`
/// from their constraints) and every document it delivers is judged again, so a listener loses access as soon as
/// the rules or the data say so.
struct ListenAccess: ListenAuthorizer {
    let access: DocumentAccess

    /// Allow-all rules (`--dev` without a rules file) need no per-document checks.
    var checksDocuments: Bool { access.rules !== FirestoreRuleset.allowAll }

    func authorize(target: ListenTarget, database: DatabaseName, caller: ListenCaller) throws(HearthError) {
        guard caller.auth?.isAdmin != true else { return }
        switch target.kind {
        case .documents(let paths): try access.authorizeGet(auth: caller.auth, paths, database: database)
        case .query(let query): try access.authorizeQuery(auth: caller.auth, query, database: database)
        }
    }

    func authorize(
        document: StoredDocument, database: DatabaseName, target: ListenTarget, caller: ListenCaller
    )
        throws(HearthError)
    {
        guard caller.auth?.isAdmin != true else { return }
        switch target.kind {
        case .documents:
            let rules = access.rules
            let request = FirestoreRequest(
                method: .get, path: document.path, database: database.database, auth: caller.auth,
                time: access.clock.now(),
                existingData: try document.fields())
            let reader = StoreDocumentReader(store: access.store)
            try DocumentAccess.require(rules.authorize(request, reader: reader))
        case .query(let query):
            try access.authorizeDelivery(auth: caller.auth, document, query: query, database: database)
        }
    }
}
