/// A storage engine for the tree (Realtime Database data), as the server uses it: its three roles together. Engines:
/// SQLite (embedded default); PostgreSQL later. A part of the server that needs one role takes that protocol alone.
///
/// There is no administration role because the server needs none: the tree shares its database (and so its
/// shutdown and counters) with the document engine, and clearing it is an ordinary write (`null` at the root).
public typealias TreeStore = TreeReader & TreeCommitter & TreeChangeLog
