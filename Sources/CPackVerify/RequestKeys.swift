import PackModel
import PackVerify

/// The keys a C ABI request may carry, checked before anything in it is used. A misspelt key must not be ignored: a
/// `"purchace"` dropped silently would send a customer who bought the City Pack to the paywall, and a misspelt
/// `"timeout"` would quietly run with the default. An unknown key is a `request` error naming it (with the key it
/// was probably meant to be), and so is a `"clock"` that is not `{"wall": N, "boot"?: N}`.
enum RequestKeys {
    /// Keys every request may carry besides its own.
    static let common = ["state", "clock"]

    static func check(_ object: [String: JSONValue], allowed: [String]) throws {
        try refuseUnknown(in: object, allowed: allowed + common, where: "the request")
        if let place = firstNUL(in: .object(object), at: "the request") {
            // A C path ends at its first NUL: a name holding one would name another file than the caller's.
            throw VerificationFailure(.request, "\(place) holds a NUL character (\\u0000), which no path or identifier may")
        }
        if let clock = object["clock"], clock != .null {
            guard let fields = clock.object, fields["wall"]?.number != nil,
                  fields["boot"].map({ $0 == .null || $0.number != nil }) ?? true else {
                throw VerificationFailure(.request, "\"clock\" must be {\"wall\": UNIX SECONDS, \"boot\"?: SECONDS SINCE BOOT}")
            }
            try refuseUnknown(in: fields, allowed: ["wall", "boot"], where: "\"clock\"")
        }
    }

    /// Where the first string (or key) holding U+0000 is, or nil.
    static func firstNUL(in value: JSONValue, at place: String) -> String? {
        switch value {
        case .string(let s): return s.unicodeScalars.contains("\u{0}") ? place : nil
        case .array(let items):
            for (n, item) in items.enumerated() { if let found = firstNUL(in: item, at: "\(place)[\(n)]") { return found } }
            return nil
        case .object(let members):
            for key in members.keys.sorted() {
                if key.unicodeScalars.contains("\u{0}") { return "a key of \(place)" }
                if let found = firstNUL(in: members[key]!, at: place == "the request" ? "\"\(key)\"" : "\(place).\(key)") { return found }
            }
            return nil
        default: return nil
        }
    }

    /// A `request` failure for the first key (in sorted order) not in `allowed`.
    static func refuseUnknown(in object: [String: JSONValue], allowed: [String], where place: String) throws {
        guard let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) else { return }
        let guess = NearMiss.closest(to: unknown, in: allowed.sorted(), maxDistance: 2)
        let hint = guess.map { "; did you mean \"\($0)\"?" } ?? ""
        throw VerificationFailure(.request, "\(place) has an unknown key \"\(unknown)\"\(hint) (known: \(allowed.sorted().map { "\"\($0)\"" }.joined(separator: ", ")))")
    }
}

/// The keys of `packverify_access`'s `"request"`: the access request and each purchase in it.
enum AccessRequestKeys {
    static let request = ["scene", "purchases", "codes", "revokedCodes", "device"]
    static let purchase = ["productId", "purchaseDate", "revocationDate", "transactionId"]

    static func check(_ value: JSONValue) throws {
        guard let object = value.object else { return }  // not an object: the decoder's error says what was expected
        try RequestKeys.refuseUnknown(in: object, allowed: request, where: "\"request\"")
        for (n, item) in (object["purchases"]?.array ?? []).enumerated() {
            if let purchase = item.object {
                try RequestKeys.refuseUnknown(in: purchase, allowed: Self.purchase, where: "\"request\".purchases[\(n)]")
            }
        }
    }
}
