/// A value handed to another thread where the compiler cannot see that the hand-over is safe: the value is used by one
/// thread at a time, in an order the code enforces (a serial queue, a role of its own), or only read. Every use says
/// why at the place it is made, so `grep HandedOver` lists every such claim in the client (strict concurrency
/// checking, issue 42).
public struct HandedOver<Value>: @unchecked Sendable {
    /// The value, for the one thread the hand-over is to.
    public let value: Value

    /// `value`, handed over.
    public init(_ value: Value) { self.value = value }
}
