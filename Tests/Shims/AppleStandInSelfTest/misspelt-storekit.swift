// Must NOT compile: StoreKit's property is `productID` (capital D).
// control: t.productId => t.productID
import StoreKit
func f(_ t: StoreKit.Transaction) async { _ = t.productId; await t.finish() }
