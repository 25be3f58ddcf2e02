public import Foundation

/// Where a ``HearthApp`` finds its server and how it identifies itself — Hearth's `FirebaseOptions`.
public struct HearthOptions: Sendable, Hashable {
    /// The server's base URL, such as `http://127.0.0.1:8080`; every API lives on this one origin.
    public var serverURL: URL
    /// The project ID used in Firestore resource names (`projects/{projectID}/…`).
    public var projectID: String
    /// The API key sent as `?key=` on account calls; in dev mode any non-empty key works.
    public var apiKey: String
    /// Where the SDK keeps its session file and caches; `nil` picks the platform's application-support directory.
    public var storageDirectory: URL?
    /// The bucket `Storage.storage()` uses; `nil` means `{projectID}.appspot.com`, as Firebase's default bucket.
    public var storageBucket: String?

    /// Creates options for a server.
    /// - Parameters:
    ///   - serverURL: the server's base URL.
    ///   - projectID: the project ID (`demo` for a dev server).
    ///   - apiKey: the API key.
    ///   - storageDirectory: where local state is kept; `nil` for the platform default.
    ///   - storageBucket: the default Storage bucket; `nil` for `{projectID}.appspot.com`.
    public init(
        serverURL: URL, projectID: String, apiKey: String = "hearth", storageDirectory: URL? = nil,
        storageBucket: String? = nil
    ) {
        self.serverURL = serverURL
        self.projectID = projectID
        self.apiKey = apiKey
        self.storageDirectory = storageDirectory
        self.storageBucket = storageBucket
    }

    /// A local-state file in ``resolvedStorageDirectory`` named `<kind>-<app>.<project>.sqlite`, with every character
    /// other than a letter, digit or `.` of the app and project replaced by `_`.
    func storageFile(_ kind: String, app: String) -> URL {
        let safe = String("\(app).\(projectID)".map { $0.isLetter || $0.isNumber || $0 == "." ? $0 : "_" })
        return resolvedStorageDirectory.appendingPathComponent("\(kind)-\(safe).sqlite")
    }

    /// The directory for local state, created on first use.
    var resolvedStorageDirectory: URL {
        if let storageDirectory { return storageDirectory }
        let base =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return base.appendingPathComponent("Hearth", isDirectory: true)
    }
}
