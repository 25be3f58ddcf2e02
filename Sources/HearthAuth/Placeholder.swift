/// Placeholder until the module lands.
enum HearthAuthPlaceholder {}
