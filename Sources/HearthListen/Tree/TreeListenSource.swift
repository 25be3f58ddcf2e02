public import HearthStore

/// What the tree's listener hub reads: a stream's first snapshot (with the change-log position it reflects), the
/// feed of committed changes, and the change log behind it. Both are roles of a tree engine, so any engine serves;
/// the hub never writes.
public typealias TreeListenSource = TreeReader & TreeChangeLog
