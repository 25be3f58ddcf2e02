/// Placeholder until the SDK lands.
enum HearthSDKPlaceholder {}
