import PackCrypto

/// Decodes hex in test vectors; a malformed vector is a broken test fixture, so it stops the run.
func hex(_ s: String) -> [UInt8] {
    guard let b = Hex.decode(s) else { fatalError("bad hex in test data: \(s)") }
    return b
}
