import Foundation

/// A rules file that allows every read and write, for tests of production mode (no `--dev`), where a server
/// without rules denies every client request.
enum OpenRules {
    static let path: String = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hearth-open-\(UUID().uuidString).rules")
        let text = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /{document=**} {
                  allow read, write: if true;
                }
              }
            }
            """
        try? Data(text.utf8).write(to: url)
        return url.path
    }()
}
