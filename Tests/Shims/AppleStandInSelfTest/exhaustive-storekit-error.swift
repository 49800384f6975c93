// Must NOT compile: StoreKitError has seven cases, and a switch over four of them misses networkError and the rest.
// control: case .notEntitled: return "not entitled" => case .notEntitled: return "not entitled"; default: return "other"
import StoreKit
func f(_ error: StoreKitError) -> String {
    switch error {
    case .unknown: return "unknown"
    case .userCancelled: return "cancelled"
    case .notAvailableInStorefront: return "storefront"
    case .notEntitled: return "not entitled"
    }
}
