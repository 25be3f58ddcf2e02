/// Placeholder until the module lands.
enum HearthCryptoPlaceholder {}
