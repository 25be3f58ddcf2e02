import Foundation
import Hearth
import HearthTestSupport
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Collects what a listener reports and lets the test wait, without polling, for the first report that matches.
private final class Reports<T: Sendable>: Sendable {
    private let state = Mutex<(items: [T], waiters: [CheckedContinuation<Void, Never>])>(([], []))

    func add(_ item: T) {
        let waiters = state.withLock { state in
            state.items.append(item)
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var all: [T] { state.withLock { $0.items } }

    func first(where predicate: (T) -> Bool) async -> T {
        var checked = 0
        while true {
            let items = all
            if let match = items[checked...].first(where: predicate) { return match }
            checked = items.count
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let arrived = state.withLock { state in
                    if state.items.count > checked { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if arrived { continuation.resume() }
            }
        }
    }
}

/// The seeds' data code (App/, unchanged but for its imports) driven against a real `hearth serve --dev`.
@Suite("The seed apps' data code against a real server", .serialized, .timeLimit(.minutes(2)))
struct SeedTests {
    @Test func signUpLogInLogOut() async throws {
        try await withDefaultAppServer { server in
            let auth = AuthService()
            let email = uniqueEmail()
            let uid = try await auth.signUp(email: email, password: "correct horse", name: "Ann")
            #expect(auth.currentUserID == uid && auth.currentUserName == "Ann")
            // Verification through the server's outbox: the mail is sent, its link opened as a user would.
            try await auth.sendVerification()
            #expect(try await auth.isVerified() == false)
            try await openVerificationLink(server, for: email)
            #expect(try await auth.isVerified() == true)
            try auth.logOut()
            #expect(auth.currentUserID == nil)
            do {
                try await auth.logIn(email: email, password: "wrong horse")
                Issue.record("a wrong password must not log in")
            } catch {
                #expect(auth.message(for: error) == "Wrong email or password.")
            }
            do {
                try await auth.signUp(email: email, password: "correct horse", name: "Ann again")
                Issue.record("an email registers once")
            } catch {
                #expect(auth.message(for: error) == "This email is already registered.")
            }
            #expect(try await auth.logIn(email: email, password: "correct horse") == uid)
            #expect(auth.currentUserName == "Ann")
            try auth.logOut()
        }
    }

    @Test func postsPerUserOnTheTree() async throws {
        try await withDefaultAppServer { server in
            let uid = try await AuthService().signUp(email: uniqueEmail(), password: "correct horse", name: "Bo")
            let store = PostStore()
            let live = Reports<[String]>()
            let handles = store.observeUserPosts(uid) { posts in live.add(posts.map(\.title)) }
            defer { store.stopObserving(uid, handles: handles) }

            let first = try await store.create(uid: uid, author: "Bo", title: "Hello", body: "First post")
            let second = try await store.create(uid: uid, author: "Bo", title: "Again", body: "Second post")
            #expect(await live.first { $0 == ["Hello", "Again"] } == ["Hello", "Again"])
            let read = try #require(try await store.read(first))
            #expect(read == Post(key: first, uid: uid, author: "Bo", title: "Hello", body: "First post"))
            #expect(try await store.userPosts(uid).map(\.key) == [first, second])

            try await store.update(read, title: "Hello, edited", body: "First post, edited")
            #expect(try await store.read(first)?.title == "Hello, edited")
            #expect(await live.first { $0.first == "Hello, edited" } == ["Hello, edited", "Again"])
            try await store.star(read)
            try await store.star(read)
            let starred = try await Database.database().reference().child("posts/\(first)/starCount").getData()
            #expect(starred.value as? Int == 2)

            try await store.delete(read)
            #expect(try await store.read(first) == nil)
            #expect(try await store.userPosts(uid).map(\.key) == [second])
            #expect(await live.first { $0 == ["Again"] } == ["Again"])
        }
    }

    @Test func todosOrderedByDateWithAListenerDrivenList() async throws {
        // The composite index the seed's query needs, as its firestore.indexes.json declares it.
        let indexes = FileManager.default.temporaryDirectory.appendingPathComponent("seed-\(UUID().uuidString).json")
        try Data(
            #"{"indexes":[{"collectionGroup":"todos","queryScope":"COLLECTION","fields":[{"fieldPath":"userId","order":"ASCENDING"},{"fieldPath":"dueDate","order":"ASCENDING"}]}]}"#
                .utf8
        ).write(to: indexes)
        defer { try? FileManager.default.removeItem(at: indexes) }
        try await withDefaultAppServer(arguments: ["--indexes", indexes.path]) { server in
            let uid = try await AuthService().signUp(email: uniqueEmail(), password: "correct horse", name: "Cy")
            let store = TodoStore()
            let screen = Reports<(titles: [String], pending: Bool)>()
            let registration = store.listen(for: uid) { todos, pending in screen.add((todos.map(\.title), pending)) }
            defer { registration.remove() }
            _ = await screen.first { $0.titles.isEmpty }

            let now = Date()
            let acknowledged = Reports<Bool>()
            try store.add(Todo(title: "later", userId: uid, dueDate: now.addingTimeInterval(7200))) { error in
                acknowledged.add(error == nil)
            }
            // The list shows the new todo before the server has it.
            #expect(await screen.first { $0.titles == ["later"] }.pending)
            #expect(await acknowledged.first { _ in true })
            try store.add(Todo(title: "sooner", userId: uid, dueDate: now.addingTimeInterval(60)))
            try store.add(Todo(title: "someone else's", userId: "other", dueDate: now))
            _ = await screen.first { $0.titles == ["sooner", "later"] && !$0.pending }
            let todos = try await store.list(for: uid)
            #expect(todos.map(\.title) == ["sooner", "later"])
            #expect(todos.allSatisfy { $0.createdAt != nil && $0.id != nil && !$0.completed })

            try await store.setCompleted(todos[0], true)
            #expect(try await store.list(for: uid).first?.completed == true)
            try store.rename(todos[1], to: "much later")
            _ = await screen.first { $0.titles == ["sooner", "much later"] }
            try await store.delete(todos[0])
            #expect(await screen.first { $0.titles == ["much later"] }.titles == ["much later"])
            #expect(try await store.list(for: uid).map(\.title) == ["much later"])
        }
    }
}

/// Opens the newest verification link the dev outbox holds for `email`, as clicking it in the mail would.
private func openVerificationLink(_ server: TestServer, for email: String) async throws {
    let outbox = server.baseURL.appendingPathComponent("emulator/v1/projects/demo/oobCodes")
    let (data, _) = try await URLSession.shared.data(from: outbox)
    let codes = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["oobCodes"] as? [[String: Any]] ?? []
    let link = try #require(
        codes.last { $0["email"] as? String == email && $0["requestType"] as? String == "VERIFY_EMAIL" }?["oobLink"]
            as? String)
    let (_, response) = try await URLSession.shared.data(from: try #require(URL(string: link)))
    #expect((response as? HTTPURLResponse)?.statusCode == 200)
}
