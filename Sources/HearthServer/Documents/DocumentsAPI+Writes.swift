import Foundation
import HearthCore
import HearthHTTP
import HearthStore

extension DocumentsAPI {
    /// `POST …/documents/{collection}[?documentId=]`: creates a document, with a random ID unless one is given.
    func create(_ request: HTTPRequest, _ route: DocumentsRoute) throws(HearthError) -> HTTPReply {
        try RequestParameters.check(request, allowed: ["documentId", "mask.fieldPaths"])
        let mask = try RequestParameters.fieldPaths(request, "mask.fieldPaths")
        let id: String
        if let given = request.queryValue("documentId"), !given.isEmpty {
            try ResourcePath.validate(id: given, in: "\(route.path)/\(given)")
            id = given
        } else {
            id = AutoID.make()
        }
        let fields = try Self.documentFields(request)
        let path = route.path.appending(id)
        let write = Write(path: path, operation: .update(fields: fields, mask: nil), precondition: .exists(false))
        let judge = try access?.commitJudge(request, database: route.database)
        return commitOne(write, database: route.database, mask: mask, judge: judge)
    }

    /// `PATCH …/documents/{document}`: overwrites, or with `updateMask.fieldPaths` merges, a document.
    func patch(_ request: HTTPRequest, _ route: DocumentsRoute) throws(HearthError) -> HTTPReply {
        try RequestParameters.check(
            request,
            allowed: [
                "updateMask.fieldPaths", "mask.fieldPaths", "currentDocument.exists", "currentDocument.updateTime",
            ])
        let mask = try RequestParameters.fieldPaths(request, "mask.fieldPaths")
        let updateMask = try RequestParameters.fieldPaths(request, "updateMask.fieldPaths")
        let precondition = try Precondition(
            exists: request.queryValue("currentDocument.exists"),
            updateTime: request.queryValue("currentDocument.updateTime"))
        let fields = try Self.documentFields(request)
        let write = Write(
            path: route.path, operation: .update(fields: fields, mask: updateMask), precondition: precondition)
        let judge = try access?.commitJudge(request, database: route.database)
        return commitOne(write, database: route.database, mask: mask, judge: judge)
    }

    /// `DELETE …/documents/{document}`.
    func delete(_ request: HTTPRequest, _ route: DocumentsRoute) throws(HearthError) -> HTTPReply {
        try RequestParameters.check(request, allowed: ["currentDocument.exists", "currentDocument.updateTime"])
        let precondition = try Precondition(
            exists: request.queryValue("currentDocument.exists"),
            updateTime: request.queryValue("currentDocument.updateTime"))
        let write = Write(path: route.path, operation: .delete, precondition: precondition)
        let judge = try access?.commitJudge(request, database: route.database)
        return .deferred { respond in
            store.commit([write], in: route.database, transaction: nil, judge: judge) { result in
                switch result {
                case .success: respond(Responses.emptyObject)
                case .failure(let error): respond(Responses.error(error))
                }
            }
        }
    }

    /// `POST …/documents:commit`: several writes, atomically.
    func commit(_ request: HTTPRequest, _ route: DocumentsRoute) throws(HearthError) -> HTTPReply {
        try RequestParameters.check(request, allowed: [])
        guard route.path.segments.isEmpty else {
            throw .invalidArgument(":commit is called on the documents root, …/databases/(default)/documents:commit.")
        }
        let body = try JSONObjectReader(
            try RequestParameters.body(request), at: "", allowed: ["writes", "transaction"])
        let transaction = try body.string("transaction").map { text throws(HearthError) in
            try TransactionID(base64: text)
        }
        var writes: [Write] = []
        for (index, item) in (try body.array("writes") ?? []).enumerated() {
            writes.append(try Write(firestoreJSON: item, at: "writes[\(index)]", database: route.database))
        }
        let judge = try access?.commitJudge(request, database: route.database)
        // A key makes a resend apply nothing twice; a transaction's commit needs none: a resend finds the transaction
        // ended and applies nothing.
        let key = transaction == nil ? try WriteIdempotency.key(of: request) : nil
        if let key, let answer = try store.recordedAnswer(forWriteID: key) { return .response(Responses.json(answer)) }
        let receipt = key.map { WriteReceipt<CommitResult>(id: $0, answer: Self.encode) }
        return .deferred { [writes, transaction] respond in
            store.commit(writes, in: route.database, transaction: transaction, judge: judge, receipt: receipt) {
                result in
                switch result {
                case .success(let commit):
                    if receipt != nil { WriteIdempotency.committed() }
                    respond(Responses.json(Self.encode(commit)))
                case .failure(let error): respond(Responses.error(error))
                }
            }
        }
    }

    /// Commits one write and answers with the resulting document.
    private func commitOne(_ write: Write, database: DatabaseName, mask: [FieldPath]?, judge: CommitJudge?) -> HTTPReply
    {
        // Only the store is captured: copying the whole API value into the closure cost more than the store call.
        .deferred { [store] respond in
            store.commit([write], in: database, transaction: nil, judge: judge) { result in
                do throws(HearthError) {
                    guard let document = try result.get().writeResults.first?.document else {
                        throw .internal("The commit returned no document.")
                    }
                    respond(Responses.json(try DocumentJSON.encode(document, database: database, mask: mask)))
                } catch {
                    respond(Responses.error(error))
                }
            }
        }
    }

    /// The fields of a `Document` request body: read directly when it is just `{"fields":{…}}`, as creates and patches
    /// send it, otherwise (other members, or anything invalid, for the exact error) through the JSON tree.
    static func documentFields(_ request: HTTPRequest) throws(HearthError) -> [String: Value] {
        if let fields = Value.documentFields(fromBody: request.body) { return fields }
        return try documentFields(try RequestParameters.body(request))
    }

    /// The fields of a `Document` request body (`name`, `createTime` and `updateTime` are output-only and ignored).
    static func documentFields(_ json: JSONValue) throws(HearthError) -> [String: Value] {
        let document = try JSONObjectReader(
            json, at: "document", allowed: ["name", "fields", "createTime", "updateTime"])
        return try document["fields"].map { json throws(HearthError) in
            try Value.decodeFields(json, at: "document.fields")
        } ?? [:]
    }

    /// A `CommitResponse`: `writeResults` (update time and transform results each) and `commitTime`.
    static func encode(_ commit: CommitResult) -> [UInt8] {
        var out: [UInt8] = Array((commit.writeResults.isEmpty ? "{" : #"{"writeResults":["#).utf8)
        for (index, result) in commit.writeResults.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendWriteResult(result, to: &out)
        }
        out.append(contentsOf: (commit.writeResults.isEmpty ? #""commitTime":""# : #"],"commitTime":""#).utf8)
        commit.commitTime.appendRFC3339(to: &out)
        out.append(contentsOf: #""}"#.utf8)
        return out
    }

    /// Appends one `WriteResult` object: `updateTime` and `transformResults`, each when present.
    static func appendWriteResult(_ result: WriteResult, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        var needsComma = false
        if let updateTime = result.updateTime {
            out.append(contentsOf: #""updateTime":""#.utf8)
            updateTime.appendRFC3339(to: &out)
            out.append(UInt8(ascii: "\""))
            needsComma = true
        }
        if !result.transformResults.isEmpty {
            if needsComma { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #""transformResults":["#.utf8)
            for (position, value) in result.transformResults.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                value.appendFirestoreJSON(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "}"))
    }
}
