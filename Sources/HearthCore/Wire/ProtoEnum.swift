/// A protobuf enum read from proto3 JSON, which spells a member by its name or by its number (Google's Python
/// REST transport sends numbers).
protocol ProtoEnum: RawRepresentable, CaseIterable where RawValue == String {
    /// The member's number in the `.proto` definition.
    var protoNumber: Int64 { get }
}

extension ProtoEnum {
    /// The member a proto3 JSON value names: its name as a string, or its number; nil for anything else.
    init?(protoJSON json: JSONValue) {
        switch json {
        case .string(let name):
            self.init(rawValue: name)
        case .integer(let number):
            guard let member = Self.allCases.first(where: { $0.protoNumber == number }) else { return nil }
            self = member
        case .double(let number):
            guard let member = Self.allCases.first(where: { Double($0.protoNumber) == number }) else { return nil }
            self = member
        default:
            return nil
        }
    }
}

extension FieldOperator: ProtoEnum {
    /// `google.firestore.v1.StructuredQuery.FieldFilter.Operator` numbers.
    var protoNumber: Int64 {
        switch self {
        case .lessThan: 1
        case .lessThanOrEqual: 2
        case .greaterThan: 3
        case .greaterThanOrEqual: 4
        case .equal: 5
        case .notEqual: 6
        case .arrayContains: 7
        case .in: 8
        case .arrayContainsAny: 9
        case .notIn: 10
        }
    }
}

extension UnaryOperator: ProtoEnum {
    /// `google.firestore.v1.StructuredQuery.UnaryFilter.Operator` numbers (1 is unused).
    var protoNumber: Int64 {
        switch self {
        case .isNaN: 2
        case .isNull: 3
        case .isNotNaN: 4
        case .isNotNull: 5
        }
    }
}
