#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AccessDecision {
    /// Why a stop opens or stays closed: one registry of stable names, as `VerificationFailure.Code` is for failures.
    /// Apps switch on these (`decision.code == .tripPass`); the names are what the C ABI returns in `"code"`, and
    /// docs/access-codes.md and packverify.h list every one (tests keep both equal to `all`).
    ///
    /// It is a string underneath, and a string literal is one (`decision.code == "trip-pass"` compiles and compares
    /// the name), so code written against the earlier `String` keeps working.
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
        /// The code's stable name, e.g. `"trip-pass"`: what apps match on, and what the C ABI returns in `"code"`.
        public let rawValue: String
        /// Whether this code opens the stop.
        public let opens: Bool
        /// What the code means, in one line of English (the table in docs/access-codes.md); `"not a code this library
        /// returns"` for a name outside `all`.
        public let meaning: String

        /// The code named `rawValue`. Never fails: a name outside `all` (from a newer library, or misspelt) makes a
        /// code that does not open and whose meaning says it is not one this library returns.
        public init(rawValue: String) {
            let known = Self.all.first { $0.rawValue == rawValue }
            self.rawValue = rawValue
            opens = known?.opens ?? false
            meaning = known?.meaning ?? "not a code this library returns"
        }

        /// The code named by a string literal, as `init(rawValue:)`: `decision.code == "trip-pass"` compares names.
        public init(stringLiteral value: String) { self.init(rawValue: value) }

        private init(_ name: String, opens: Bool, _ meaning: String) {
            rawValue = name
            self.opens = opens
            self.meaning = meaning
        }

        public var description: String { rawValue }

        public init(from decoder: Decoder) throws { self.init(rawValue: try decoder.singleValueContainer().decode(String.self)) }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        public static func == (a: Code, b: Code) -> Bool { a.rawValue == b.rawValue }
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

        public static let free = Code("free", opens: true, "the stop is one of the pack's free stops")
        public static let cityPack = Code("city-pack", opens: true, "the City Pack was bought and not refunded")
        public static let tripPass = Code("trip-pass", opens: true, "a Trip Pass's window is open now; `until` is its end")
        public static let accessCode = Code("access-code", opens: true, "a valid access code for this pack; `until` is its end")
        public static let clockRollback = Code("clock-rollback", opens: false,
                                               "the device clock was set back: timed access (Trip Pass, codes) pauses until the app is next online")
        public static let offlineTooLong = Code("offline-too-long", opens: false,
                                                "no fresh signed index for too long: timed access pauses until the app is next online")
        public static let noEntitlement = Code("no-entitlement", opens: false,
                                               "nothing the visitor has opens this stop (the reason says what was checked: a pass's window, a refund, a revoked code)")

        /// Every code the library returns, in the order the docs list them.
        public static let all: [Code] = [free, cityPack, tripPass, accessCode, clockRollback, offlineTooLong, noEntitlement]

        /// docs/access-codes.md, generated from `all` (a test keeps the file equal to it).
        public static var document: String {
            var out = """
                # Access decision codes

                Generated from `Sources/PackVerify/Access/AccessDecision+Code.swift` (a test keeps this file equal to it).
                Every access decision (`PackClient.decideAccess`, `packverify_access`, `packtool access`) carries one of
                these codes, whether the stop opens or not. A request the library cannot read is not a decision: it is
                a failure with a code from docs/verification-codes.md (`request`, `scene`, …).

                | code | opens | meaning |
                | --- | --- | --- |

                """
            for code in all { out += "| `\(code.rawValue)` | \(code.opens ? "yes" : "no") | \(code.meaning) |\n" }
            return out
        }
    }

    /// `until` as a date (RFC 3339 in `until`), for Swift callers.
    public var untilDate: Date? { until.flatMap { try? Date($0, strategy: .iso8601) } }
}
