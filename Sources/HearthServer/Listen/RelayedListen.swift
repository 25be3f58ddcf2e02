import HearthCore
import HearthListen

/// The messages of a `POST …:listen?session=ID` relayed to the node holding the session (``NodeRelay``): the request
/// as the receiving node authenticated it, and the holding node's answer.
///
/// A request is one line of JSON — the session, the database the POST named, and the caller exactly as the
/// authenticator produced it (`uid`, every claim with its JSON types kept, `admin`) — then a newline and the POST's
/// body, untouched: the holding node parses it, so its errors are the ones a direct POST gets.
struct RelayedListenRequest: Equatable {
    var session: String
    var database: DatabaseName
    var caller: ListenCaller
    var body: [UInt8]

    /// The message for the relay.
    func encoded() -> [UInt8] {
        var header: [String: JSONValue] = [
            "session": .string(session), "project": .string(database.project), "database": .string(database.database),
        ]
        if let auth = caller.auth {
            header["auth"] = .object([
                "uid": auth.uid.map(JSONValue.string) ?? .null, "claims": .object(auth.claims),
                "admin": .bool(auth.isAdmin),
            ])
        }
        // The serializer escapes newlines inside strings, so the first newline ends the header.
        return JSONValue.object(header).serialized() + [UInt8(ascii: "\n")] + body
    }

    /// Decodes a message ``encoded()`` made.
    /// - Throws: `INTERNAL` for a message no node of this version makes.
    init(decoding message: [UInt8]) throws(HearthError) {
        guard let newline = message.firstIndex(of: UInt8(ascii: "\n")),
            let header = try? JSONParser.parse(Array(message[..<newline])),
            let session = header["session"]?.stringValue, let project = header["project"]?.stringValue,
            let database = header["database"]?.stringValue
        else { throw .internal("A relayed listen request could not be read.") }
        var auth: AuthContext?
        if let relayed = header["auth"] {
            guard let claims = relayed["claims"]?.objectValue, let admin = relayed["admin"]?.boolValue else {
                throw .internal("A relayed listen request's caller could not be read.")
            }
            auth = AuthContext(uid: relayed["uid"]?.stringValue, claims: claims, isAdmin: admin)
        }
        self.init(
            session: session, database: DatabaseName(project: project, database: database),
            caller: ListenCaller(auth: auth), body: Array(message[(newline + 1)...]))
    }

    init(session: String, database: DatabaseName, caller: ListenCaller, body: [UInt8]) {
        self.session = session
        self.database = database
        self.caller = caller
        self.body = body
    }

    /// The holding node's answer: `{}` when the request was admitted, else the error's code and message.
    static func answer(_ error: HearthError?) -> [UInt8] {
        guard let error else { return Array("{}".utf8) }
        return JSONValue.object(["code": .string(error.code.name), "message": .string(error.message)]).serialized()
    }

    /// Reads an ``answer(_:)``: `nil` for success, else the error to answer the client with.
    static func error(inAnswer answer: [UInt8]) -> HearthError? {
        guard let json = try? JSONParser.parse(answer) else {
            return .internal("Another node's answer to a listen request could not be read.")
        }
        guard let name = json["code"]?.stringValue else { return nil }
        return HearthError(ErrorCode(name: name) ?? .unknown, json["message"]?.stringValue ?? "")
    }
}
