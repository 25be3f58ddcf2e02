import Foundation

/// Firebase's name for the app, so `FirebaseApp.configure()` and `FirebaseApp.app()` read as they do there.
public typealias FirebaseApp = HearthApp

extension HearthApp {
    /// Configures the default app as Firebase's `FirebaseApp.configure()` does, from the environment and the
    /// `GoogleService-Info.plist` in the main bundle (the environment wins key by key):
    ///
    /// | Setting | Environment | Plist key |
    /// | --- | --- | --- |
    /// | server URL | `HEARTH_SERVER_URL` | `HEARTH_SERVER_URL`, else `DATABASE_URL` |
    /// | project ID | `HEARTH_PROJECT_ID` | `PROJECT_ID` |
    /// | API key | `HEARTH_API_KEY` | `API_KEY` (default `hearth`) |
    /// | Storage bucket | `HEARTH_STORAGE_BUCKET` | `STORAGE_BUCKET` (default `{project}.appspot.com`) |
    ///
    /// - Precondition: a server URL and project ID are found (Firebase stops the app likewise without its plist).
    public static func configure() {
        let plist = Bundle.main.url(forResource: "GoogleService-Info", withExtension: "plist").flatMap { url in
            (try? Data(contentsOf: url)).flatMap {
                try? PropertyListSerialization.propertyList(from: $0, format: nil) as? [String: Any]
            }
        }
        guard let options = HearthOptions(environment: ProcessInfo.processInfo.environment, plist: plist ?? [:]) else {
            preconditionFailure(
                "FirebaseApp.configure(): no server URL and project ID; set HEARTH_SERVER_URL and HEARTH_PROJECT_ID, "
                    + "or add GoogleService-Info.plist with HEARTH_SERVER_URL (or DATABASE_URL) and PROJECT_ID.")
        }
        configure(options: options)
    }
}

extension HearthOptions {
    /// Options from environment variables over a `GoogleService-Info.plist`'s keys (see ``HearthApp/configure()``);
    /// `nil` when the server URL or project ID is missing or the URL does not parse.
    init?(environment: [String: String], plist: [String: Any]) {
        func value(_ variable: String, _ keys: String...) -> String? {
            if let set = environment[variable], !set.isEmpty { return set }
            return keys.lazy.compactMap { plist[$0] as? String }.first { !$0.isEmpty }
        }
        guard let server = value("HEARTH_SERVER_URL", "HEARTH_SERVER_URL", "DATABASE_URL"),
            let url = URL(string: server), url.scheme != nil,
            let project = value("HEARTH_PROJECT_ID", "PROJECT_ID")
        else { return nil }
        self.init(
            serverURL: url, projectID: project, apiKey: value("HEARTH_API_KEY", "API_KEY") ?? "hearth",
            storageBucket: value("HEARTH_STORAGE_BUCKET", "STORAGE_BUCKET"))
    }
}
