public import HearthCore

/// Who a provider credential proved the caller to be, after verification.
public struct FederatedIdentity: Sendable, Equatable {
    /// The provider ID, e.g. `google.com`.
    public var providerID: String
    /// The provider's user ID (`sub`, Facebook's `id`, GitHub's numeric `id`).
    public var rawID: String
    /// The address the provider reported, lower-cased.
    public var email: String?
    /// Whether the provider vouches for the address.
    public var emailVerified: Bool = false
    /// The display name.
    public var displayName: String?
    /// The profile photo URL.
    public var photoURL: String?
    /// What the provider said about the user (ID token claims or the API's user object), as Firebase's
    /// `rawUserInfo`.
    public var rawUserInfo: [String: JSONValue] = [:]
    /// The provider ID token that was verified, returned as `oauthIdToken` when asked.
    public var idToken: String?
    /// The provider access token that was verified, returned as `oauthAccessToken` when asked.
    public var accessToken: String?

    /// An identity of `rawID` at `providerID`.
    public init(providerID: String, rawID: String) {
        self.providerID = providerID
        self.rawID = rawID
    }

    /// Firebase's `federatedId`: Google's and Facebook's as URLs, every other provider's user ID as is.
    public var federatedID: String { ProviderLink.federatedID(providerID: providerID, rawID: rawID) }
}

/// A provider identity linked to an account, as stored.
public struct ProviderLink: Sendable, Equatable {
    /// The provider ID.
    public var providerID: String
    /// The provider's user ID.
    public var rawID: String
    /// The address the provider reported.
    public var email: String?
    /// The provider's display name.
    public var displayName: String?
    /// The provider's photo URL.
    public var photoURL: String?

    /// A link of `rawID` at `providerID`.
    public init(providerID: String, rawID: String) {
        self.providerID = providerID
        self.rawID = rawID
    }

    /// The link as Identity Toolkit's `ProviderUserInfo` JSON (`providerId`, `rawId`, and `email`, `displayName`,
    /// `photoUrl` when known): what lookups answer, exports write and ``init(json:)`` reads back.
    public var json: [String: JSONValue] {
        var info: [String: JSONValue] = ["providerId": .string(providerID), "rawId": .string(rawID)]
        if let email { info["email"] = .string(email) }
        if let displayName { info["displayName"] = .string(displayName) }
        if let photoURL { info["photoUrl"] = .string(photoURL) }
        return info
    }

    /// A link as Identity Toolkit's `ProviderUserInfo` JSON has it (`providerId`, `rawId`, `email`, `displayName`,
    /// `photoUrl`): what imports and `linkProviderUserInfo` carry.
    public init(json: JSONValue) {
        self.init(providerID: json["providerId"]?.stringValue ?? "", rawID: json["rawId"]?.stringValue ?? "")
        email = json["email"]?.stringValue.map { $0.lowercased() }
        displayName = json["displayName"]?.stringValue
        photoURL = json["photoUrl"]?.stringValue
    }

    /// Firebase's `federatedId` for this link.
    public var federatedID: String { Self.federatedID(providerID: providerID, rawID: rawID) }

    static func federatedID(providerID: String, rawID: String) -> String {
        switch providerID {
        case "google.com": "https://accounts.google.com/\(rawID)"
        case "facebook.com": "http://facebook.com/\(rawID)"
        default: rawID
        }
    }
}
