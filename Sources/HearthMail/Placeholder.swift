/// Placeholder until the module lands.
enum HearthMailPlaceholder {}
