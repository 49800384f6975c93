#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import PackCrypto
import PackModel

/// What the app passes in: StoreKit purchases and the access codes the visitor entered.
public struct AccessRequest: Codable, Sendable {
    /// One App Store purchase as StoreKit reports it (a `Transaction`). List every transaction of the app's products,
    /// refunded ones too (with their `revocationDate`), so the decision can say why a stop stays closed; purchases of
    /// products the pack does not sell are ignored.
    public struct Purchase: Codable, Equatable, Sendable {
        /// The App Store product id (`Transaction.productID`), compared with the pack's City Pack and Trip Pass product
        /// ids (`AccessPolicy.Products`).
        public var productId: String
        /// RFC 3339.
        public var purchaseDate: String
        /// Set when the purchase was refunded or revoked.
        public var revocationDate: String?
        /// The App Store transaction (StoreKit's `Transaction.id`), when the app has it. Listings with the same product
        /// and id are one purchase (an app that merges `Transaction.all` with its own record sees a refunded Trip Pass
        /// twice); without ids, listings with the same product and purchase date are.
        public var transactionId: String?

        /// A purchase with its dates already written as RFC 3339 date-times (e.g. `2026-12-01T05:35:23Z`). The dates
        /// are not checked here: `dateProblem` says whether they can be read, and `AccessRequest.validate()` (which
        /// `PackClient.decideAccess` runs) throws `request` for one that cannot.
        public init(productId: String, purchaseDate: String, revocationDate: String? = nil, transactionId: String? = nil) {
            self.productId = productId
            self.purchaseDate = purchaseDate
            self.revocationDate = revocationDate
            self.transactionId = transactionId
        }

        /// A purchase with StoreKit's values: its dates (written as RFC 3339 in UTC, which is what the decision reads)
        /// and its `Transaction.id`.
        public init(productId: String, purchaseDate: Date, revocationDate: Date? = nil, transactionId: UInt64? = nil) {
            self.init(productId: productId, purchaseDate: purchaseDate.formatted(.iso8601),
                      revocationDate: revocationDate.map { $0.formatted(.iso8601) }, transactionId: transactionId.map { String($0) })
        }

        /// Why a date of this purchase cannot be read, or nil. A refund date the parser does not accept must never
        /// read as "not refunded" (that would open a refunded purchase), so an unreadable date is a problem to report.
        public var dateProblem: String? {
            let expected = "is not an RFC 3339 date-time (e.g. 2026-12-01T05:35:23Z)"
            if Timestamp.parse(purchaseDate) == nil { return "purchaseDate \"\(purchaseDate)\" \(expected)" }
            if let revocationDate, Timestamp.parse(revocationDate) == nil { return "revocationDate \"\(revocationDate)\" \(expected)" }
            return nil
        }
    }

    /// The id of the stop (scene) to open, as the pack's manifest names it.
    public var scene: String
    /// The visitor's App Store purchases (StoreKit's `Transaction.all`, refunded ones included); empty when there are
    /// none.
    public var purchases: [Purchase]
    /// Access codes as printed: long (`PTG1.…`) or short (`CompactGrant`, any case, separators ignored).
    public var codes: [String]
    /// Grant ids the publisher revoked, as the app learnt them. Kept for apps written before the signed revocation
    /// list; decisions on an installed pack also apply the list the updater accepted (`ClientState.revocations`).
    public var revokedCodes: [String]
    /// The app's identifier for this device (e.g. identifierForVendor). Codes are bearer tokens unless issued with a
    /// device claim (`packtool grant issue --device`); such a code opens only when this matches its claim.
    public var device: String?

    /// A request to open the stop `scene`, with what the visitor holds: StoreKit `purchases`, the access `codes` they
    /// entered, the grant ids the app knows to be revoked, and this device's identifier for device-bound codes.
    public init(scene: String, purchases: [Purchase] = [], codes: [String] = [], revokedCodes: [String] = [], device: String? = nil) {
        self.device = device
        self.scene = scene
        self.purchases = purchases
        self.codes = codes
        self.revokedCodes = revokedCodes
    }

    private enum CodingKeys: String, CodingKey { case scene, purchases, codes, revokedCodes, device }

    /// Only `scene` is required: a visitor with no purchases and no codes is an ordinary request (`{"scene": "x"}`).
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        scene = try c.decode(String.self, forKey: .scene)
        purchases = try c.decodeIfPresent([Purchase].self, forKey: .purchases) ?? []
        codes = try c.decodeIfPresent([String].self, forKey: .codes) ?? []
        revokedCodes = try c.decodeIfPresent([String].self, forKey: .revokedCodes) ?? []
        device = try c.decodeIfPresent(String.self, forKey: .device)
    }

    /// Refuses a request whose purchase dates cannot be read, naming the purchase and the field: a decision on it
    /// could only guess (and guessing "not refunded" is failing open).
    public func validate() throws {
        for (i, purchase) in purchases.enumerated() {
            if let problem = purchase.dateProblem {
                throw VerificationFailure(.request, "purchases[\(i)] (\(purchase.productId)): \(problem)")
            }
        }
        // One App Store transaction has one purchase date: two are a record gone wrong, and either could be the guess.
        if let conflict = PurchaseHistory(purchases).conflicts.first {
            throw VerificationFailure(.request, conflict.message)
        }
    }
}

/// The answer, with its reason: allowed or not, the entitlement used, and until when (nil = no end).
public struct AccessDecision: Codable, Equatable, Sendable {
    /// Whether the stop opens now (the same as `code.opens`).
    public var allowed: Bool
    /// Why it opens or not: a stable name from one registry (`Code.all`, docs/access-codes.md).
    public var code: Code
    /// Why, in a sentence of English for logs, support and debugging (e.g. "the Trip Pass ended at …"): every fact that
    /// applies when the stop stays closed. Not stable: match on `code`, not on this text.
    public var reason: String
    /// What opened the stop: `"free"` for a free stop, the product id of the City Pack or Trip Pass, or `"code:"`
    /// followed by the access code's grant id. Nil when the stop stays closed.
    public var entitlement: String?
    /// When this access ends, as an RFC 3339 date-time in UTC (`untilDate` is the same as a `Date`): the end of the
    /// Trip Pass window (passes bought back to back extend it) or the access code's `notAfter`. Nil when the access has
    /// no end (a free stop, the City Pack) or the stop stays closed; decide again when it passes.
    public var until: String?

    /// A decision from its fields, as the library makes them (and as tests and previews may); `allowed` should be
    /// `code.opens`.
    public init(allowed: Bool, code: Code, reason: String, entitlement: String?, until: String?) {
        self.allowed = allowed
        self.code = code
        self.reason = reason
        self.entitlement = entitlement
        self.until = until
    }
}

/// Decides access to a scene from the verified manifest's access policy, the request, and the guarded clock.
/// Most apps call `PackClient.decideAccess`, which reads the installed pack's verified manifest and the client state
/// and makes the decider; use one directly to decide from a policy and root you already hold.
public struct AccessDecider {
    /// The access policy of the pack's verified manifest: its free stops and the products that open the rest.
    public let policy: AccessPolicy
    /// The trusted root: its grant keys (role `grant`) are the ones access codes must be signed with.
    public let root: RootDocument
    /// Checks short codes' signatures (long codes go through `SignedDocument`, which uses the same default).
    public let verifier: any SignatureVerifier
    /// The revocation list the client accepted (`ClientState.revocations`), applied with the request's `revokedCodes`.
    public let revocations: RevocationsDocument?

    /// A decider for a pack's `policy` under the trusted `root`; `revocations` is the signed revocation list the client
    /// accepted (nil: none), `verifier` checks Ed25519 signatures (the library's own by default).
    public init(policy: AccessPolicy, root: RootDocument, revocations: RevocationsDocument? = nil,
                verifier: any SignatureVerifier = PackCryptoSignatureVerifier()) {
        self.policy = policy
        self.root = root
        self.revocations = revocations
        self.verifier = verifier
    }

    /// Decides whether `request.scene` opens at the guarded time `clock` (from `ClockGuard.observe`): a free stop, then
    /// the City Pack (which a set-back clock or a long time offline never closes), then, unless `clock` says the clock
    /// was set back or the app was offline too long, a Trip Pass window and the access codes in order. Never throws: a
    /// stop that nothing opens is a decision with code `noEntitlement` and every reason in `reason`. It does not
    /// validate the request: a purchase whose dates cannot be read counts for nothing here, so run `request.validate()`
    /// first (as `PackClient.decideAccess` does) to have such a request refused with `request`.
    public func decide(_ request: AccessRequest, clock: ClockGuard.Verdict) -> AccessDecision {
        if policy.freeStops.contains(request.scene) {
            return AccessDecision(allowed: true, code: .free, reason: "\(request.scene) is a free stop", entitlement: "free", until: nil)
        }
        let now = clock.now
        // One entry per transaction, so a transaction listed twice is neither two Trip Passes nor unrefunded.
        let history = PurchaseHistory(request.purchases)
        // A purchase whose dates cannot be read counts for nothing (`InstalledAccess` refuses such a request first).
        let valid = history.purchases.filter { p in
            guard p.dateProblem == nil else { return false }
            guard let revoked = p.revocationDate.flatMap(Timestamp.parse) else { return true }
            return revoked.timeIntervalSince1970 > now
        }
        // City Pack: permanent, and independent of the clock (a set-back clock cannot take it away).
        if valid.contains(where: { $0.productId == policy.products.cityPack.productId }) {
            return AccessDecision(allowed: true, code: .cityPack, reason: "City Pack purchased", entitlement: policy.products.cityPack.productId, until: nil)
        }
        let refunded = history.purchases.contains { $0.productId == policy.products.cityPack.productId && $0.dateProblem == nil && !valid.contains($0) }
        if clock.rollbackDetected {
            return AccessDecision(allowed: false, code: .clockRollback, reason: "the device clock was set back; timed passes and codes are paused until the app is next online",
                                  entitlement: nil, until: nil)
        }
        if clock.offlineTooLong {
            return AccessDecision(allowed: false, code: .offlineTooLong, reason: "the app has been offline too long; connect once to confirm the time",
                                  entitlement: nil, until: nil)
        }
        var lastEnded: Double?
        var tripProblem: String?
        if let trip = policy.products.tripPass {
            // The length comes from the signed manifest: one out of range opens nothing (and never traps).
            let length: Double
            do { length = Double(try TripPassLength(hours: trip.hours).seconds()) } catch {
                length = 0
                tripProblem = "this pack's Trip Pass cannot open it (\((error as? VerificationFailure)?.message ?? "\(error)"))"
            }
            // Trip Pass windows [start, start + hours); a pass bought during an active one starts when it ends.
            let starts = tripProblem != nil ? [] : valid.filter { $0.productId == trip.productId }.compactMap { Timestamp.parse($0.purchaseDate)?.timeIntervalSince1970 }.sorted()
            var windowEnd = -Double.infinity
            for (i, purchase) in starts.enumerated() {
                let start = max(purchase, windowEnd)
                windowEnd = start + length
                if now >= start && now < windowEnd {
                    // Open until the last pass that follows without a gap ends (one bought during this window, or
                    // at its end, starts when it ends): the visitor's access does not stop before then.
                    for next in starts[(i + 1)...] where next <= windowEnd { windowEnd += length }
                    return AccessDecision(allowed: true, code: .tripPass, reason: "Trip Pass active", entitlement: trip.productId,
                                          until: Timestamp.format(Date(timeIntervalSince1970: windowEnd)))
                }
                if now >= windowEnd { lastEnded = windowEnd }
            }
        }
        let products = Set([policy.products.cityPack.productId] + (policy.products.tripPass.map { [$0.productId] } ?? []))
        var codeProblems: [String] = []
        for code in request.codes {
            switch check(code, products: products, revoked: request.revokedCodes, device: request.device, now: now) {
            case .valid(let grant):
                return AccessDecision(allowed: true, code: .accessCode, reason: "access code \(grant.id.prefix(8)) valid", entitlement: "code:\(grant.id)", until: grant.notAfter)
            case .invalid(let problem):
                codeProblems.append(problem)
            }
        }
        let why = closedReasons(request, history: history, valid: valid, refunded: refunded, tripEnded: lastEnded, codeProblems: (tripProblem.map { [$0] } ?? []) + codeProblems,
                                products: products, now: now)
        return AccessDecision(allowed: false, code: .noEntitlement, reason: why, entitlement: nil, until: nil)
    }

    /// Why nothing the visitor holds opens the stop, so the app (or support) can say more than "closed": every fact
    /// that applies, most telling first, joined by "; ".
    private func closedReasons(_ request: AccessRequest, history: PurchaseHistory, valid: [AccessRequest.Purchase], refunded: Bool, tripEnded: Double?,
                               codeProblems: [String], products: Set<String>, now: Double) -> String {
        var facts: [String] = []
        if refunded { facts.append("the City Pack purchase was refunded") }
        if let trip = policy.products.tripPass {
            let passes = history.purchases.filter { $0.productId == trip.productId }
            if let tripEnded { facts.append("the Trip Pass ended at \(Timestamp.format(Date(timeIntervalSince1970: tripEnded)))") }
            if passes.contains(where: { $0.dateProblem == nil && !valid.contains($0) }) { facts.append("the Trip Pass purchase was refunded") }
            if let first = valid.filter({ $0.productId == trip.productId }).compactMap({ Timestamp.parse($0.purchaseDate)?.timeIntervalSince1970 }).min(), first > now {
                facts.append("the Trip Pass starts at \(Timestamp.format(Date(timeIntervalSince1970: first)))")
            }
        }
        for p in history.purchases where products.contains(p.productId) {
            if let problem = p.dateProblem { facts.append("the purchase of \(p.productId) does not count: its \(problem)") }
        }
        for conflict in history.conflicts where products.contains(conflict.productId) {
            facts.append("the purchase of \(conflict.productId) does not count: transaction \(conflict.transactionId) is listed with different purchase dates")
        }
        for problem in codeProblems where !facts.contains(problem) { facts.append(problem) }
        let others = Set(request.purchases.map(\.productId)).subtracting(products).sorted()
        if !others.isEmpty {
            facts.append("purchases of \(others.joined(separator: ", ")) do not count here (this pack sells \(products.sorted().joined(separator: " and ")))")
        }
        return facts.isEmpty ? "no purchase or valid access code unlocks this stop" : facts.joined(separator: "; ")
    }

    /// An access code checked against this pack at `now`: valid, or why not.
    private enum CodeCheck {
        case valid(GrantDocument)
        case invalid(String)
    }

    /// What a code that is damaged, or not signed by a grant key of the root, is called: the same for long and short
    /// codes, since a typo and a forgery look alike to the verifier.
    static let notValidHere = "an access code entered is not valid here (damaged, or not signed by this app's publisher)"

    private func check(_ code: String, products: Set<String>, revoked: [String], device: String?, now: Double) -> CodeCheck {
        let opened = self.open(code, device: device)
        guard case .valid(let grant) = opened else { return opened }
        let name = "access code \(grant.id.prefix(8))"
        if let reason = revocations?.reason(for: grant.id) { return .invalid("\(name) was revoked: \(reason)") }
        if revoked.contains(where: { GrantID.matches($0, grant.id) }) { return .invalid("\(name) was revoked") }
        if products.isDisjoint(with: grant.products) { return .invalid("\(name) is for \(grant.products.sorted().joined(separator: ", ")), not this pack") }
        // A code with a device claim opens on that device only (a code without one is a bearer token).
        if let claimed = grant.device {
            guard let device else { return .invalid("\(name) is for one device only, and the app did not say which device this is") }
            if device != claimed { return .invalid("\(name) was issued for another device") }
        }
        guard let from = Timestamp.parse(grant.notBefore)?.timeIntervalSince1970, let to = Timestamp.parse(grant.notAfter)?.timeIntervalSince1970 else {
            return .invalid("\(name) has no valid time window")
        }
        if now < from { return .invalid("\(name) is valid from \(grant.notBefore)") }
        if now >= to { return .invalid("\(name) expired at \(grant.notAfter)") }
        return .valid(grant)
    }

    /// A long or short code verified under the root (a short one for this pack's products and `device`), or nil.
    public func verifiedGrant(_ code: String, device: String?) -> GrantDocument? {
        guard case .valid(let grant) = self.open(code, device: device) else { return nil }
        return grant
    }

    /// A long or short code verified under the root: the grant it proves, or why not. Checks only who signed it; the
    /// window, device and revocation checks are `check`'s, the same for both forms.
    private func open(_ code: String, device: String?) -> CodeCheck {
        if code.hasPrefix("PTG1.") {
            guard let grant = verifiedGrant(code) else { return .invalid(Self.notValidHere) }
            return .valid(grant)
        }
        return openShort(code, device: device)
    }

    /// A short code (`CompactGrant`): its one signature must match a grant key of the root over its claims, one of this
    /// pack's products, and the device when the code is bound to one; the product that matches is the one it unlocks.
    private func openShort(_ code: String, device: String?) -> CodeCheck {
        guard let (claims, signature) = try? CompactGrant.decode(code), let role = root.roles[RootDocument.Role.grant] else {
            return .invalid(Self.notValidHere)
        }
        guard role.threshold == 1 else {
            return .invalid("an access code entered is a short code, which carries one signature, and this app's publisher requires \(role.threshold) "
                            + "signatures on access codes; ask for the long code (PTG1.…)")
        }
        if claims.deviceBound && device == nil {
            return .invalid("an access code entered is for one device only, and the app did not say which device this is")
        }
        let keys = SignatureThreshold.keys(of: role, in: root)
        let products = [policy.products.cityPack.productId] + (policy.products.tripPass.map { [$0.productId] } ?? [])
        for product in products {
            let message = claims.signedMessage(product: product, device: device)
            for id in keys.keys.sorted() where verifier.isValidEd25519Signature(signature, publicKey: keys[id]!, message: message) {
                return .valid(claims.grant(product: product, device: device))
            }
        }
        return .invalid(Self.notValidHere)
    }

    /// A `PTG1.` code whose envelope is a grant signed by a threshold of the root's grant keys, or nil.
    public func verifiedGrant(_ code: String) -> GrantDocument? {
        guard code.hasPrefix("PTG1."), code.utf8.count < Int(SizeCaps.grant), let data = DSSE.decodeBase64(String(code.dropFirst(5))) else { return nil }
        return try? SignedDocument(verifier: verifier).admit(data, as: GrantDocument.self, profile: .access, context: AdmissionContext(root: root))
    }
}
