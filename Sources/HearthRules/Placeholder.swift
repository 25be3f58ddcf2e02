/// Placeholder until the module lands.
enum HearthRulesPlaceholder {}
