// Seed app code as written against the Firebase iOS SDK; the only change is the import
// (was: `import FirebaseDatabase`).
import Foundation
import Hearth

/// A post as the seed stores it under `posts/{key}` and `user-posts/{uid}/{key}`.
struct Post: Equatable, Sendable {
    var key: String
    var uid: String
    var author: String
    var title: String
    var body: String

    init(key: String, uid: String, author: String, title: String, body: String) {
        self.key = key
        self.uid = uid
        self.author = author
        self.title = title
        self.body = body
    }

    init?(snapshot: DataSnapshot) {
        let key = snapshot.key
        guard let value = snapshot.value as? [String: Any],
            let uid = value["uid"] as? String, let title = value["title"] as? String
        else { return nil }
        self.init(
            key: key, uid: uid, author: value["author"] as? String ?? "", title: title,
            body: value["body"] as? String ?? "")
    }

    var dictionary: [String: Any] { ["uid": uid, "author": author, "title": title, "body": body] }
}

/// Per-user posts on the tree, in the shape of Firebase's database quickstart: fan-out writes with
/// `updateChildValues`, reads with `getData`, live lists with `observe`.
struct PostStore: Sendable {
    var ref: DatabaseReference { Database.database().reference() }

    func create(uid: String, author: String, title: String, body: String) async throws -> String {
        guard let key = ref.child("posts").childByAutoId().key else { throw CancellationError() }
        let post = Post(key: key, uid: uid, author: author, title: title, body: body).dictionary
        let childUpdates = ["/posts/\(key)": post, "/user-posts/\(uid)/\(key)/": post]
        try await ref.updateChildValues(childUpdates)
        return key
    }

    func read(_ key: String) async throws -> Post? {
        Post(snapshot: try await ref.child("posts").child(key).getData())
    }

    func userPosts(_ uid: String) async throws -> [Post] {
        let snapshot = try await ref.child("user-posts").child(uid).queryOrderedByKey().getData()
        var posts: [Post] = []
        for child in snapshot.children {
            if let snap = child as? DataSnapshot, let post = Post(snapshot: snap) { posts.append(post) }
        }
        return posts
    }

    func update(_ post: Post, title: String, body: String) async throws {
        try await ref.updateChildValues([
            "/posts/\(post.key)/title": title, "/posts/\(post.key)/body": body,
            "/user-posts/\(post.uid)/\(post.key)/title": title, "/user-posts/\(post.uid)/\(post.key)/body": body,
        ])
    }

    func delete(_ post: Post) async throws {
        try await ref.updateChildValues([
            "/posts/\(post.key)": NSNull(), "/user-posts/\(post.uid)/\(post.key)": NSNull(),
        ])
    }

    func star(_ post: Post) async throws {
        try await ref.child("posts").child(post.key).child("starCount").setValue(ServerValue.increment(1))
    }

    /// A live list of a user's posts: `.childAdded`, `.childChanged` and `.childRemoved` keep `onChange` current.
    func observeUserPosts(
        _ uid: String, onChange: @escaping @Sendable ([Post]) -> Void
    ) -> [UInt] {
        let query = ref.child("user-posts").child(uid).queryOrderedByKey()
        let list = PostList(onChange: onChange)
        return [
            query.observe(.childAdded) { snapshot in list.upsert(snapshot) },
            query.observe(.childChanged) { snapshot in list.upsert(snapshot) },
            query.observe(.childRemoved) { snapshot in list.remove(snapshot) },
        ]
    }

    func stopObserving(_ uid: String, handles: [UInt]) {
        for handle in handles { ref.child("user-posts").child(uid).removeObserver(withHandle: handle) }
    }
}

/// The list a table view would show, kept in key order.
final class PostList: @unchecked Sendable {
    private let lock = NSLock()
    private var posts: [Post] = []
    private let onChange: @Sendable ([Post]) -> Void

    init(onChange: @escaping @Sendable ([Post]) -> Void) { self.onChange = onChange }

    func upsert(_ snapshot: DataSnapshot) {
        guard let post = Post(snapshot: snapshot) else { return }
        lock.lock()
        posts.removeAll { $0.key == post.key }
        posts.append(post)
        posts.sort { $0.key < $1.key }
        let now = posts
        lock.unlock()
        onChange(now)
    }

    func remove(_ snapshot: DataSnapshot) {
        lock.lock()
        posts.removeAll { $0.key == snapshot.key }
        let now = posts
        lock.unlock()
        onChange(now)
    }
}
