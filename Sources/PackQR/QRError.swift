/// A QR code or PNG that could not be made, and why: the one place libqrencode's and libpng's failures become errors.
public struct QRError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
