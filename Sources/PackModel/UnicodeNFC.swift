#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension String {
    /// This string in Unicode Normalization Form C. On Linux it comes from the standard library's own normaliser
    /// (the one swift-foundation's `precomposedStringWithCanonicalMapping` is built on), so no ICU is loaded.
    public var nfc: String {
        #if canImport(FoundationEssentials)
        return String(decoding: _nfcCodeUnits, as: UTF8.self)
        #else
        return precomposedStringWithCanonicalMapping
        #endif
    }
}
