/// A client's idempotency key for one write (the `X-Hearth-Write-Id` header) and how to encode the answer kept with
/// it. The store records the key and the answer in the write's own transaction, so a write is applied at most once
/// per key: a resend whose first answer was lost finds the key (`recordedAnswer(forWriteID:)`) and gets the first
/// answer back instead of applying the write again.
public struct WriteReceipt<Outcome>: Sendable {
    /// The client's key.
    public var id: String
    /// The answer to keep for a committed outcome; it runs inside the write's transaction.
    public var answer: @Sendable (Outcome) -> [UInt8]

    /// A receipt.
    public init(id: String, answer: @escaping @Sendable (Outcome) -> [UInt8]) {
        self.id = id
        self.answer = answer
    }
}
