import Foundation
import Hearth

/// A document's stored contents as one comparable value, to tell whether a document changed between two snapshots
/// whatever its model (models need not be `Equatable`, and fields outside the model count too).
struct Fingerprint: Sendable, Hashable {
    private let text: String

    init(_ snapshot: DocumentSnapshot) {
        var text = ""
        Self.append(snapshot.data() ?? [:], to: &text)
        self.text = text
    }

    /// Appends a type-tagged rendering with map keys sorted, so equal values give equal text and unequal ones differ.
    private static func append(_ value: Any, to text: inout String) {
        switch value {
        case let map as [String: Any]:
            text += "{"
            for key in map.keys.sorted() {
                text += "\(key.utf8.count):\(key)="
                append(map[key] ?? NSNull(), to: &text)
                text += ","
            }
            text += "}"
        case let list as [Any]:
            text += "["
            for element in list {
                append(element, to: &text)
                text += ","
            }
            text += "]"
        case let string as String: text += "s\(string.utf8.count):\(string)"
        case let flag as Bool: text += flag ? "T" : "F"
        case let number as Int: text += "i\(number)"
        case let number as Double: text += "d\(number.bitPattern)"
        case is NSNull: text += "n"
        case let time as Timestamp: text += "t\(time.seconds).\(time.nanoseconds)"
        case let point as GeoPoint: text += "g\(point.latitude.bitPattern),\(point.longitude.bitPattern)"
        case let data as Data: text += "b\(data.base64EncodedString())"
        case let reference as DocumentReference: text += "r\(reference.path.utf8.count):\(reference.path)"
        default:
            let description = String(describing: value)
            text += "?\(description.utf8.count):\(description)"
        }
    }
}
