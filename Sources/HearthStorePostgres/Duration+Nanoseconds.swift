extension Duration {
    /// The duration in whole nanoseconds (attoseconds below one dropped), for Dispatch's timers and waits.
    var wholeNanoseconds: Int {
        Int(components.seconds) * 1_000_000_000 + Int(components.attoseconds / 1_000_000_000)
    }
}
