#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel

/// A request's purchases as one entry per App Store transaction. StoreKit may list a transaction twice over an app's
/// sources (on iOS 17 a finished Trip Pass is in the app's own record, and again in `Transaction.all` once refunded),
/// and a Trip Pass counted twice would chain a second window. Listings with the same product and `transactionId` (or,
/// without ids, the same product and purchase instant) are one purchase, refunded if any listing says so.
struct PurchaseHistory {
    /// Two listings of one transaction with different purchase dates: that transaction counts for nothing, and
    /// `AccessRequest.validate` refuses the request.
    struct Conflict: Equatable {
        var productId: String
        var transactionId: String
        /// Where the transaction is listed in the request's `purchases`.
        var indices: [Int]
        var purchaseDates: [String]

        var message: String {
            "purchases[\(indices.map(String.init).joined(separator: "], purchases["))] (\(productId)): transaction \(transactionId) is listed "
                + "with different purchase dates (\(purchaseDates.joined(separator: ", "))); one App Store transaction has one purchase date"
        }
    }

    /// One purchase per transaction, in the order first listed. A listing with an unreadable date stays as it is (it
    /// counts for nothing, and says why), and so does every listing of a transaction one of whose listings has one.
    private(set) var purchases: [AccessRequest.Purchase] = []
    private(set) var conflicts: [Conflict] = []

    init(_ listed: [AccessRequest.Purchase]) {
        var order: [String] = []
        var groups: [String: [(index: Int, purchase: AccessRequest.Purchase)]] = [:]
        for (i, p) in listed.enumerated() {
            let key: String
            if let id = p.transactionId {
                key = "\(p.productId)\u{0}id\u{0}\(id)"
            } else if let start = Timestamp.parse(p.purchaseDate) {
                key = "\(p.productId)\u{0}at\u{0}\(start.timeIntervalSince1970)"
            } else {
                key = "\u{0}\(i)"  // no id and no readable date: nothing to match it by
            }
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append((i, p))
        }
        for key in order {
            let group = groups[key]!
            guard group.count > 1 else { purchases.append(group[0].purchase); continue }
            let unreadable = group.map(\.purchase).filter { $0.dateProblem != nil }
            if !unreadable.isEmpty { purchases += unreadable; continue }
            let starts = group.map { Timestamp.parse($0.purchase.purchaseDate)!.timeIntervalSince1970 }
            if Set(starts).count > 1 {
                conflicts.append(Conflict(productId: group[0].purchase.productId, transactionId: group[0].purchase.transactionId ?? "",
                                          indices: group.map(\.index), purchaseDates: group.map(\.purchase.purchaseDate)))
                continue
            }
            var merged = group[0].purchase
            // The earliest refund any listing carries: a refund seen by one source is a refund.
            merged.revocationDate = group.compactMap { $0.purchase.revocationDate }
                .min { Timestamp.parse($0)!.timeIntervalSince1970 < Timestamp.parse($1)!.timeIntervalSince1970 }
            purchases.append(merged)
        }
    }
}
