/// The kinds of one-time codes sent by mail (`requestType` of `accounts:sendOobCode`).
public enum OobRequestType: String, Sendable, CaseIterable {
    /// Confirms the account's email address.
    case verifyEmail = "VERIFY_EMAIL"
    /// Lets the owner of the address choose a new password.
    case passwordReset = "PASSWORD_RESET"
    /// Confirms a new address before it replaces the old one (`verifyBeforeUpdateEmail`).
    case verifyAndChangeEmail = "VERIFY_AND_CHANGE_EMAIL"

    /// The `mode` query argument of the action link.
    public var mode: String {
        switch self {
        case .verifyEmail: "verifyEmail"
        case .passwordReset: "resetPassword"
        case .verifyAndChangeEmail: "verifyAndChangeEmail"
        }
    }

    /// The request type whose link uses `mode`.
    public init?(mode: String) {
        guard let match = Self.allCases.first(where: { $0.mode == mode }) else { return nil }
        self = match
    }
}

/// A code as the development outbox lists it (`GET /emulator/v1/projects/{p}/oobCodes`).
public struct OobCodeEntry: Sendable, Equatable {
    /// The address the message went to.
    public var email: String
    /// The one-time code.
    public var oobCode: String
    /// The link carrying the code.
    public var oobLink: String
    /// The kind of code.
    public var requestType: OobRequestType
    /// The new address, for `VERIFY_AND_CHANGE_EMAIL`.
    public var newEmail: String?
}
