// A Ballcap model file imports one module: `import HearthModels` brings the SDK's Firestore types with it, and its
// `ServerTimestamp` (Ballcap's enum) shadows the SDK's property wrapper of that name in such a file.
@_exported public import Hearth
