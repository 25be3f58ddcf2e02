import Foundation
import HearthAuth
import HearthCore
import HearthServer

/// `hearth serve`'s federated identity providers: the config file's `providers` object (or the same JSON in
/// `--providers` / `HEARTH_PROVIDERS`), one member per provider ID, e.g.
/// `{"google.com": {"clientIds": ["123.apps.googleusercontent.com"]}}`.
///
/// Secrets never appear in the JSON itself: a provider's client secret (Facebook's app secret) is read from the
/// file its `clientSecretFile` names.
enum ProvidersOptions {
    /// (flag, environment variable, config-file key) of each option.
    static let keys: [(flag: String, environment: String, file: String)] = [
        ("--providers", "HEARTH_PROVIDERS", "providers"),
        ("--allow-loopback-providers", "HEARTH_ALLOW_LOOPBACK_PROVIDERS", "allowLoopbackProviders"),
    ]

    /// Config-file keys whose value is a JSON object rather than a string, number or boolean.
    static let objectKeys: Set<String> = ["providers"]

    /// The switches among the flags.
    static let switchFlags: Set<String> = ["--allow-loopback-providers"]

    /// The members a provider's object may have.
    static let members: Set<String> = [
        "clientIds", "clientId", "appId", "clientSecretFile", "appSecretFile", "issuer", "discoveryUrl", "jwksUrl",
        "apiUrl", "authorizationUrl", "tokenUrl",
    ]

    /// Lines for the options table of `hearth serve --help`.
    static let help = """
          --providers JSON        federated sign-in providers by ID:    HEARTH_PROVIDERS (config-file key: providers,
                                  google.com, apple.com, facebook.com,  an object)
                                  github.com, microsoft.com, oidc.NAME; each with clientIds, clientSecretFile
                                  (Facebook: appId, appSecretFile), issuer, discoveryUrl, jwksUrl, apiUrl (Graph or
                                  GitHub API), authorizationUrl, tokenUrl (Facebook's and GitHub's browser sign-in).
                                  URLs must be https.
          --allow-loopback-providers                                    HEARTH_ALLOW_LOOPBACK_PROVIDERS=1
                                  provider URLs may also be http://127.0.0.1 (tests)

        """

    /// Applies the options `value` resolves to `configuration`.
    static func apply(
        _ value: (String) -> String?, switches: Set<String>, to configuration: inout ServerConfiguration
    ) throws {
        func fail(_ message: String) -> CommandLineArguments.UsageError {
            CommandLineArguments.UsageError(description: message)
        }
        var allowLoopback = switches.contains("--allow-loopback-providers")
        if !allowLoopback, let flag = value("--allow-loopback-providers") {
            guard let parsed = ["1": true, "true": true, "0": false, "false": false][flag.lowercased()] else {
                throw fail("HEARTH_ALLOW_LOOPBACK_PROVIDERS must be 1 or 0")
            }
            allowLoopback = parsed
        }
        configuration.accounts.allowLoopbackProviders = allowLoopback
        guard let text = value("--providers") else { return }
        guard case .object(let object)? = try? JSONParser.parse(Array(text.utf8)) else {
            throw fail("providers must be a JSON object of provider IDs, e.g. {\"google.com\":{\"clientIds\":[…]}}")
        }
        let policy = ProviderURLPolicy(allowsLoopbackHTTP: allowLoopback)
        var providers: [IdentityProviderConfiguration] = []
        for (providerID, entry) in object.sorted(by: { $0.key < $1.key }) {
            providers.append(try provider(providerID, entry, policy: policy))
        }
        configuration.accounts.identityProviders = providers
    }

    /// One provider's configuration, checked: a known ID, client IDs, a readable secret where needed, `https` URLs.
    static func provider(
        _ providerID: String, _ entry: JSONValue, policy: ProviderURLPolicy
    ) throws -> IdentityProviderConfiguration {
        func fail(_ message: String) -> CommandLineArguments.UsageError {
            CommandLineArguments.UsageError(description: "providers.\(providerID): \(message)")
        }
        guard let kind = IdentityProviderConfiguration.kind(of: providerID) else {
            throw CommandLineArguments.UsageError(
                description:
                    "providers: unknown provider \"\(providerID)\" (google.com, apple.com, facebook.com, github.com, microsoft.com or oidc.NAME)"
            )
        }
        guard case .object(let members) = entry else { throw fail("must be an object") }
        if let unknown = members.keys.sorted().first(where: { !Self.members.contains($0) }) {
            throw fail("unknown member \"\(unknown)\"")
        }
        var clientIDs: [String] = []
        for name in ["clientIds", "clientId", "appId"] {
            switch members[name] {
            case .string(let one)?: clientIDs.append(one)
            case .array(let many)?:
                let strings = many.compactMap(\.stringValue)
                guard strings.count == many.count else { throw fail("\(name) must hold strings") }
                clientIDs += strings
            case nil: break
            default: throw fail("\(name) must be a string or a list of strings")
            }
        }
        guard kind == .github || !clientIDs.isEmpty else { throw fail("needs clientIds (the apps' OAuth client IDs)") }
        var configuration = IdentityProviderConfiguration(providerID: providerID, clientIDs: clientIDs)
        for name in ["clientSecretFile", "appSecretFile"] {
            guard let path = members[name]?.stringValue else { continue }
            guard let data = FileManager.default.contents(atPath: path) else { throw fail("cannot read \(path)") }
            let secret = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !secret.isEmpty else { throw fail("\(path) is empty") }
            configuration.clientSecret = secret
        }
        if kind == .facebook && configuration.clientSecret == nil {
            throw fail("needs appSecretFile: debug_token checks tokens with the app's secret")
        }
        configuration.issuer = members["issuer"]?.stringValue
        configuration.discoveryURL = members["discoveryUrl"]?.stringValue
        configuration.jwksURL = members["jwksUrl"]?.stringValue
        configuration.apiURL = members["apiUrl"]?.stringValue
        configuration.authorizationURL = members["authorizationUrl"]?.stringValue
        configuration.tokenURL = members["tokenUrl"]?.stringValue
        if providerID.hasPrefix("oidc.") && configuration.issuer == nil { throw fail("needs issuer") }
        for url in configuration.configuredURLs where !policy.allows(url) {
            throw fail(
                "\(url) must be an https URL (http://127.0.0.1 only with --allow-loopback-providers)")
        }
        return configuration
    }
}
