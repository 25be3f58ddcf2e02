import Foundation
import HearthCore
import HearthTesting
import Testing

/// Issue #20's limits on what development mode opens on demand: projects per server and named databases per
/// project, each refused past its limit with `RESOURCE_EXHAUSTED` in the API's own envelope, leaving what is open
/// serving; and which project a request is for.
@Suite("Projects and databases: limits and routing")
struct ProjectLimitsTests {
    static func root(_ project: String, _ database: String = "(default)") -> String {
        "/v1/projects/\(project)/databases/\(database)/documents"
    }

    @Test("past maxDevProjects another project is refused; the open ones keep serving")
    func projectLimit() async throws {
        let server = try InProcessServer { $0.maxDevProjects = 3 }
        defer { server.stop() }
        for project in ["demo", "p1", "p2"] {
            let written = try await server.request("PATCH", Self.root(project) + "/c/d", json: #"{"fields":{}}"#)
            #expect(written.status == 200, "\(project): \(written)")
        }
        let refused = try await server.request("PATCH", Self.root("p3") + "/c/d", json: #"{"fields":{}}"#)
        #expect(refused.status == 429, "\(refused)")
        #expect(try refused.json()["error"]?["status"] == "RESOURCE_EXHAUSTED", "\(refused)")
        #expect(try await server.request("GET", Self.root("p2") + "/c/d").status == 200)
        // The accounts API answers the same refusal for a project named only by the header.
        let signUp = try await server.request(
            "POST", "/identitytoolkit.googleapis.com/v1/accounts:signUp", query: [("key", "k")],
            headers: ["X-Hearth-Project": "p4"], json: #"{"returnSecureToken":true}"#)
        #expect(signUp.status == 429, "\(signUp)")
    }

    @Test("past maxDatabasesPerProject another named database is refused")
    func databaseLimit() async throws {
        let server = try InProcessServer { $0.maxDatabasesPerProject = 1 }
        defer { server.stop() }
        let first = try await server.request("PATCH", Self.root("demo", "one-db") + "/c/d", json: #"{"fields":{}}"#)
        #expect(first.status == 200, "\(first)")
        let second = try await server.request("PATCH", Self.root("demo", "two-db") + "/c/d", json: #"{"fields":{}}"#)
        #expect(second.status == 429, "\(second)")
        #expect(try await server.request("GET", Self.root("demo") + "/c/d").status == 404)
        #expect(try await server.request("GET", Self.root("demo", "one-db") + "/c/d").status == 200)
    }

    @Test("a request's project comes from its path, then the header; unsafe IDs share the configured project")
    func projectOfRequest() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        // An anonymous sign-up for `mobile` through the header, then the same uid looked up by path in `mobile`
        // (found) and in the configured project (not found).
        let signUp = try await server.request(
            "POST", "/identitytoolkit.googleapis.com/v1/accounts:signUp", query: [("key", "k")],
            headers: ["X-Hearth-Project": "mobile"], json: #"{"returnSecureToken":true}"#)
        let uid = try signUp.json()["localId"]?.stringValue ?? ""
        #expect(!uid.isEmpty, "\(signUp)")
        let lookup = { (project: String) async throws -> Int in
            let answer = try await server.request(
                "POST", "/identitytoolkit.googleapis.com/v1/projects/\(project)/accounts:lookup",
                headers: ["Authorization": "Bearer owner"], json: #"{"localId":["\#(uid)"]}"#)
            return try answer.json()["users"]?.arrayValue?.count ?? 0
        }
        #expect(try await lookup("mobile") == 1)
        #expect(try await lookup("demo") == 0)
        // `a%2Fb` is not a directory name: that project shares the configured one rather than escaping it.
        let odd = try await server.request("PATCH", Self.root("a..%2Fb") + "/c/d", json: #"{"fields":{}}"#)
        #expect(odd.status == 200, "\(odd)")
        let projects = (server.directory.path as NSString).appendingPathComponent("projects")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: projects)) == ["mobile"])
    }
}
