/// Proto3 JSON names: a parser must accept a field under its JSON name (`structuredQuery`) and under its name in
/// the `.proto` file (`structured_query`). Hearth's readers match JSON names, so a member given by its proto name
/// is translated once, here, before it is matched.
enum ProtoFieldName {
    /// The JSON name of a proto field name: each `_` dropped and the letter after it upper-cased
    /// (`structured_query` → `structuredQuery`, `field_path` → `fieldPath`). Names without `_` are returned as they
    /// are, so a name that is already a JSON name passes through.
    static func jsonName(_ name: String) -> String {
        guard name.utf8.contains(UInt8(ascii: "_")) else { return name }
        var result = ""
        result.reserveCapacity(name.utf8.count)
        var upperNext = false
        for character in name {
            if character == "_" {
                upperNext = true
            } else if upperNext {
                result += character.uppercased()
                upperNext = false
            } else {
                result.append(character)
            }
        }
        return result
    }
}
