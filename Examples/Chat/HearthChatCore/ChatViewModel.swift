public import Foundation
public import Hearth
public import Observation

/// The chat app's state and actions, shared by every front end (the `hearth-chat` terminal UI, a SwiftUI view):
/// sign up or in with email and password, verify the address, then post, edit and delete short messages under
/// `/posts/{uid}` on the tree, with a live list of the user's own posts; and set an avatar picture, stored in
/// Storage at `users/{uid}/avatar`.
///
/// Every action throws a ``ChatError`` worded for the user. ``posts`` follows the server live — changes made on
/// another device appear without a reload.
@MainActor
@Observable
public final class ChatViewModel {
    /// Where the user is in the flow.
    public enum Phase: Sendable, Equatable {
        /// Nobody is signed in.
        case signedOut
        /// Signed in, but the email address is not verified yet: posting is refused.
        case awaitingVerification(email: String)
        /// Signed in with a verified address: the post list is live.
        case chatting(email: String)
    }

    /// Where the user is in the flow.
    public private(set) var phase: Phase = .signedOut
    /// The user's posts, oldest first; empty unless ``phase`` is `.chatting`.
    public private(set) var posts: [ChatPost] = []
    /// Whether ``posts`` reflects the server at least once since the list was opened.
    public private(set) var postsLoaded = false
    /// The user's avatar picture, once read from Storage (`nil` while unknown or when there is none); see
    /// ``avatarLoaded``.
    public private(set) var avatar: ChatAvatar?
    /// Whether ``avatar`` says what Storage holds (read once the chat opens, and set by ``setAvatar(fromFile:)``).
    public private(set) var avatarLoaded = false

    /// The app (server, project, local session) this model talks to.
    @ObservationIgnored public let app: HearthApp
    @ObservationIgnored private let dates: DateFormatter
    @ObservationIgnored private var listening: Listening?

    /// A live observer of the user's node and the task that applies its snapshots in order.
    private struct Listening {
        let reference: DatabaseReference
        let handle: UInt
        let task: Task<Void, Never>
    }

    /// Creates the model and restores a saved session (a verified user sees their posts at once).
    /// - Parameters:
    ///   - app: the configured app.
    ///   - timeZone: the zone post dates are shown in.
    public init(app: HearthApp, timeZone: TimeZone = .current) {
        self.app = app
        let dates = DateFormatter()
        dates.locale = Locale(identifier: "en_US_POSIX")
        dates.calendar = Calendar(identifier: .gregorian)
        dates.timeZone = timeZone
        dates.dateFormat = "yyyy/MM/dd HH:mm"
        self.dates = dates
        if let user = auth.currentUser { enter(user) }
    }

    // The live list's observer reconnects until it is removed; a model that goes away must not leave it behind.
    isolated deinit {
        if let listening {
            listening.reference.removeObserver(withHandle: listening.handle)
            listening.task.cancel()
        }
    }

    private var auth: Auth { Auth.auth(app: app) }

    /// A post's date as the list shows it: `yyyy/MM/dd HH:mm`.
    public func dateText(_ date: Date) -> String { dates.string(from: date) }

    // MARK: Account

    /// Creates an account and sends the verification mail.
    public func signUp(email: String, password: String) async throws(ChatError) {
        try await run {
            let user = try await auth.createUser(withEmail: email, password: password).user
            // On the verification step first: if the mail fails, "send again" is there.
            enter(user)
            try await user.sendEmailVerification()
        }
    }

    /// Signs in with an existing account.
    public func signIn(email: String, password: String) async throws(ChatError) {
        try await run { enter(try await auth.signIn(withEmail: email, password: password).user) }
    }

    /// Logs in with Facebook in a browser: `uiDelegate` shows the sign-in page (against a development server,
    /// `hearth serve --dev`, its provider picker; against a production one, Facebook's own page, for a Facebook app
    /// configured on the server). A new account whose address is not verified gets the verification mail, as a
    /// sign-up does.
    public func signInWithFacebook(opening uiDelegate: any AuthUIDelegate) async throws(ChatError) {
        try await run {
            let provider = OAuthProvider(providerID: FacebookAuthProvider.id, auth: auth)
            let user = try await auth.signIn(with: provider, uiDelegate: uiDelegate).user
            enter(user)
            if !user.isEmailVerified, user.email != nil { try await user.sendEmailVerification() }
        }
    }

    /// Sends the verification mail again.
    public func resendVerification() async throws(ChatError) {
        guard let user = auth.currentUser else { throw .notSignedIn }
        try await run { try await user.sendEmailVerification() }
    }

    /// Development servers only (`hearth serve --dev`): opens the verification link from the server's outbox, as
    /// clicking it in the mail would, then ``checkVerification()``.
    public func verifyFromDevOutbox() async throws(ChatError) {
        guard let user = auth.currentUser, let email = user.email else { throw .notSignedIn }
        try await run {
            try await DevOutbox(serverURL: app.options.serverURL, projectID: app.options.projectID)
                .openVerificationLink(for: email)
        }
        try await checkVerification()
    }

    /// Reloads the account after the user opened the verification link; once the address is verified, takes a
    /// fresh ID token (the rules read its `email_verified` claim) and opens the live post list.
    public func checkVerification() async throws(ChatError) {
        guard let user = auth.currentUser else { throw .notSignedIn }
        try await run {
            try await user.reload()
            guard user.isEmailVerified else { throw ChatError.emailNotVerified }
            _ = try await user.getIDToken(forcingRefresh: true)
            enter(user)
        }
    }

    /// Signs out on this device and closes the post list.
    public func signOut() throws(ChatError) {
        stopListening()
        do {
            try auth.signOut()
        } catch {
            throw ChatError.from(error)
        }
        phase = .signedOut
    }

    // MARK: Posts

    /// Posts a message; the server stamps its time. Returns the new post's ID.
    @discardableResult
    public func post(_ text: String) async throws(ChatError) -> String {
        let text = try Self.checked(text)
        let posts = try verifiedPosts()
        let reference = posts.childByAutoId()
        try await run { try await reference.setValue(["text": text, "createdAt": ServerValue.timestamp()]) }
        return reference.key ?? ""
    }

    /// Replaces a post's text; the server stamps the edit time and keeps `createdAt`.
    public func edit(_ id: String, text: String) async throws(ChatError) {
        let text = try Self.checked(text)
        let posts = try verifiedPosts()
        guard self.posts.contains(where: { $0.id == id }) else { throw .noSuchPost }
        try await run {
            try await posts.child(id).updateChildValues(["text": text, "editedAt": ServerValue.timestamp()])
        }
    }

    /// Deletes a post.
    public func delete(_ id: String) async throws(ChatError) {
        let posts = try verifiedPosts()
        guard self.posts.contains(where: { $0.id == id }) else { throw .noSuchPost }
        try await run { try await posts.child(id).removeValue() }
    }

    // MARK: Avatar

    /// Uploads the picture at `path` (a local file) as the user's avatar, `users/{uid}/avatar` in Storage, with the
    /// content type its extension names, and shows its type and size.
    public func setAvatar(fromFile path: String) async throws(ChatError) {
        guard let user = auth.currentUser else { throw .notSignedIn }
        guard case .chatting = phase else { throw .emailNotVerified }
        let file = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder), !isFolder.boolValue,
            FileManager.default.isReadableFile(atPath: file.path)
        else { throw .unreadableFile(path) }
        let metadata = StorageMetadata()
        metadata.contentType = ChatAvatar.contentType(forFile: file)
        let reference = ChatAvatar.reference(app: app, uid: user.uid)
        var stored: StorageMetadata?
        try await run { stored = try await reference.putFileAsync(from: file, metadata: metadata) }
        if let stored {
            avatar = ChatAvatar(contentType: stored.contentType ?? "application/octet-stream", size: stored.size)
            avatarLoaded = true
        }
    }

    /// Reads the avatar's metadata from Storage; none stored leaves ``avatar`` `nil`.
    private func loadAvatar(uid: String) {
        let reference = ChatAvatar.reference(app: app, uid: uid)
        Task { [weak self] in
            let found: ChatAvatar?
            do {
                let metadata = try await reference.getMetadata()
                found = ChatAvatar(contentType: metadata.contentType ?? "application/octet-stream", size: metadata.size)
            } catch let error as StorageError where error.code == .objectNotFound {
                found = nil
            } catch {
                // Unknown, not absent: the screen keeps saying so rather than claiming there is none.
                return
            }
            // An answer for a session that has since closed, or one a newer upload overtook, is dropped.
            guard let self, !self.avatarLoaded, self.auth.currentUser?.uid == uid else { return }
            self.avatar = found
            self.avatarLoaded = true
        }
    }

    // MARK: Internals

    /// Moves to the phase `user` belongs in, opening or closing the live list.
    private func enter(_ user: User) {
        let email = user.email ?? user.uid
        if user.isEmailVerified {
            phase = .chatting(email: email)
            if listening?.reference.key != user.uid {
                startListening(uid: user.uid)
                loadAvatar(uid: user.uid)
            }
        } else {
            stopListening()
            phase = .awaitingVerification(email: email)
        }
    }

    private func verifiedPosts() throws(ChatError) -> DatabaseReference {
        guard let user = auth.currentUser else { throw .notSignedIn }
        guard case .chatting = phase, user.isEmailVerified else { throw .emailNotVerified }
        return Self.postsReference(app: app, uid: user.uid)
    }

    /// `/posts/{uid}`: the user's own node, the only part of the tree the chat rules let them read or write.
    static func postsReference(app: HearthApp, uid: String) -> DatabaseReference {
        Database.database(app: app).reference(withPath: "posts").child(uid)
    }

    private static func checked(_ text: String) throws(ChatError) -> String {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw .emptyMessage }
        guard text.count <= ChatPost.maxLength else { throw .messageTooLong }
        return text
    }

    private func startListening(uid: String) {
        stopListening()
        let reference = Self.postsReference(app: app, uid: uid)
        // Observer callbacks arrive on a background executor; the stream hands each whole list to the main actor
        // in order, and only the newest matters.
        let (snapshots, continuation) = AsyncStream.makeStream(
            of: [ChatPost].self, bufferingPolicy: .bufferingNewest(1))
        let handle = reference.observe(.value) { snapshot in continuation.yield(ChatPost.list(from: snapshot)) }
        let task = Task { [weak self] in
            for await list in snapshots {
                // A list that arrives after sign-out belongs to the closed session.
                guard let self, !Task.isCancelled else { return }
                self.posts = list
                self.postsLoaded = true
            }
        }
        listening = Listening(reference: reference, handle: handle, task: task)
    }

    private func stopListening() {
        if let listening {
            listening.reference.removeObserver(withHandle: listening.handle)
            listening.task.cancel()
        }
        listening = nil
        posts = []
        postsLoaded = false
        avatar = nil
        avatarLoaded = false
    }

    /// Runs an SDK call, turning its error into the user's wording.
    private func run(_ body: () async throws -> Void) async throws(ChatError) {
        do {
            try await body()
        } catch {
            throw ChatError.from(error)
        }
    }
}
