import HearthCore
import HearthStore

extension TreeWrite {
    /// Whether the write only removes data (a `DELETE`, a `PUT` or `PATCH` of nulls), so a full disk still lets it
    /// through.
    var onlyDeletes: Bool {
        switch operation {
        case .put(let value): value.node == nil && !value.hasServerValues
        case .patch(let members): members.allSatisfy { $0.value.node == nil && !$0.value.hasServerValues }
        case .priority: false
        }
    }
}
